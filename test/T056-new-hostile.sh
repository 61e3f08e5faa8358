#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex new` on hostile input, all generated here: an empty file, random bytes, NUL bytes in
# headers and body, a 2 MB header line, 200-level multipart nesting, a 20 MB base64 attachment, a
# FIFO, a symlink loop, a dangling symlink, a directory named like a message inside cur/, names with a
# newline and with invalid UTF-8, an unreadable file, a symlink to a mail file. new must finish (a hang
# fails through `timeout`), exit 1 for the dangling symlink (notmuch's error: its target may be mail
# not mounted) and 0 once it is gone and the unreadable file can be read, warn once per skipped entry
# naming the path and the reason, and leave the body text of every indexable message searchable.
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require sqlite3
test_require timeout
test_require mkfifo
test_require setpriv

CUR=$MAIL_DIR/cur
OUTSIDE=$TMP_DIRECTORY/outside
mkdir -p "$CUR" "$MAIL_DIR/new" "$MAIL_DIR/tmp" "$OUTSIDE"

# Normal messages with distinctive words: an ordinary one, one outside the mail root reached through
# a symlink, one with a newline in its name and one with invalid UTF-8 in its name.
generate_message filename=plain:2,S id=plain@hostile body="the word plainword is here" >/dev/null
generate_message dir=../outside filename=target id=linked@hostile body="symlinkword lives outside" >/dev/null
ln -s "$OUTSIDE/target" "$CUR/link-to-mail:2,S"
nl_name="with
newline:2,S"
generate_message filename="$nl_name" id=newline@hostile body="newlineword in a strange name" >/dev/null
bad_name=$(printf 'bad-\377\376-utf8:2,S')
generate_message filename="$bad_name" id=badname@hostile body="badnameword under a bad name" >/dev/null

# The hostile files, byte for byte the same on every run.
python3 - "$CUR" <<'PY'
import base64, random, sys
cur = sys.argv[1]
rng = random.Random(56)
HEAD = ("From: Hostile Sender <hostile@example.org>\nTo: Test <test_suite@notmuchmail.org>\n"
        "Date: Fri, 05 Jan 2001 15:43:57 +0000\n")

def write(name, data):
    with open(f"{cur}/{name}", "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())

write("empty", b"")
write("binary", rng.randbytes(64 * 1024))
# NUL bytes inside a header value, a header name and the body.
write("nul-bytes:2,S", (HEAD + "Message-Id: <nul@hostile>\nSubject: nul\0inside the subject\n"
                        "X-Nul\0Header: value\nX-Other: before\0after\n\n"
                        "nulbeforeword then a NUL\0 then nulafterword\n\0\0\0\nnullineword\n").encode())
write("long-header:2,S", HEAD + "Message-Id: <long@hostile>\nSubject: a long header follows\n"
      + "X-Long: " + "x" * (2 * 1024 * 1024) + "\n\nlongheaderword after two megabytes\n")
# 200 levels of multipart/mixed; text parts at depth 1, 50 and 200 (the innermost).
body = "Content-Type: text/plain\n\nnestdeepword at the bottom\n"
for depth in range(200, 0, -1):
    b = f"b{depth}"
    extra = ""
    if depth in (1, 50):
        word = "nestshallowword" if depth == 1 else "nestmiddleword"
        extra = f"--{b}\nContent-Type: text/plain\n\n{word} at depth {depth}\n"
    body = f'Content-Type: multipart/mixed; boundary="{b}"\n\n{extra}--{b}\n{body}\n--{b}--\n'
write("nested:2,S", HEAD + "Message-Id: <nested@hostile>\nSubject: nested\nMIME-Version: 1.0\n" + body)
payload = base64.encodebytes(rng.randbytes(15 * 1024 * 1024)).decode()
write("big-attachment:2,S", HEAD + "Message-Id: <big@hostile>\nSubject: big\nMIME-Version: 1.0\n"
      'Content-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: text/plain\n\n'
      "bigattachmentword before the attachment\n--B\nContent-Type: application/octet-stream\n"
      'Content-Disposition: attachment; filename="big.bin"\nContent-Transfer-Encoding: base64\n\n'
      + payload + "--B--\n")
PY

# Entries that are skipped, each with one warning.
mkfifo "$CUR/fifo:2,S"
ln -s loop-b "$CUR/loop-a"
ln -s loop-a "$CUR/loop-b"
ln -s "$TMP_DIRECTORY/nowhere" "$CUR/dangling"
mkdir "$CUR/1234567890.dir.host:2,S"
generate_message filename=unreadable:2,S id=unreadable@hostile body="unreadableword" >/dev/null
chmod 000 "$CUR/unreadable:2,S"

# new records the mtimes of directories older than the current second only; aged now, the first run
# records them all and the second lists nothing.
age_directories
without_overrides timeout 60 maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
rc=$?

test_begin_subtest "new finishes within the timeout and exits 1 for the dangling symlink, as notmuch"
test_expect_equal "$rc" "1"

test_begin_subtest "every skipped entry gets one warning naming its path and the reason"
{
    echo "maildex new: '$CUR/1234567890.dir.host:2,S': a directory inside a Maildir's cur/ or new/; skipped"
    echo "maildex new: '$CUR/fifo:2,S': not a regular file (a FIFO); skipped"
    echo "maildex new: '$CUR/loop-a': symlink loop; skipped"
    echo "maildex new: '$CUR/loop-b': symlink loop; skipped"
} > "$TMP_DIRECTORY/expected-warnings"
grep "^maildex new: " "$TMP_DIRECTORY/err" | grep -v "unreadable:2,S" | sort > "$TMP_DIRECTORY/warnings"
test_expect_equal_file "$TMP_DIRECTORY/expected-warnings" "$TMP_DIRECTORY/warnings"

test_begin_subtest "the dangling symlink gets notmuch's error naming it, and notmuch's note, once each"
grep -e "^Error reading file " -e "^Note: A fatal error" "$TMP_DIRECTORY/err" > "$TMP_DIRECTORY/errors"
printf '%s\n' "Error reading file $CUR/dangling: No such file or directory" \
    "Note: A fatal error was encountered: Something went wrong trying to read or write a file" \
    > "$TMP_DIRECTORY/expected-errors"
test_expect_equal_file "$TMP_DIRECTORY/expected-errors" "$TMP_DIRECTORY/errors"

test_begin_subtest "the unreadable file gets one warning naming it and the reason"
output=$(grep -c "^maildex new: '$CUR/unreadable:2,S': cannot open: Permission denied$" "$TMP_DIRECTORY/err")
test_expect_equal "$output" "1"

test_begin_subtest "the empty and the binary file are notmuch's non-mail notes, nothing else is"
grep -v -e "^maildex new: " -e "^Error reading file " -e "^Note: A fatal error" "$TMP_DIRECTORY/err" |
    sort > "$TMP_DIRECTORY/notes"
printf '%s\n' "Note: Ignoring non-mail file: $CUR/binary" "Note: Ignoring non-mail file: $CUR/empty" \
    > "$TMP_DIRECTORY/expected-notes"
test_expect_equal_file "$TMP_DIRECTORY/expected-notes" "$TMP_DIRECTORY/notes"

test_begin_subtest "the report counts the indexable messages"
test_expect_equal "$(tail -n 1 "$TMP_DIRECTORY/out")" "Added 8 new messages to the database."

for word in plainword symlinkword newlineword badnameword nulbeforeword nulafterword nullineword \
    longheaderword nestshallowword nestmiddleword bigattachmentword; do
    test_begin_subtest "body text is searchable: $word"
    test_expect_equal "$(maildex count "body:$word" 2>&1)" "1"
done

test_begin_subtest "the text under 200 levels of nesting is indexed (the limit is gmime's 1024: T148)"
test_expect_equal "$(maildex count body:nestdeepword 2>&1) $(maildex count id:nested@hostile 2>&1)" "1 1"

test_begin_subtest "the unreadable file is not indexed while it cannot be read"
test_expect_equal "$(maildex count body:unreadableword 2>&1)" "0"

chmod 600 "$CUR/unreadable:2,S"
rm "$CUR/dangling"
age_directories
test_begin_subtest "once it can be read, the next run indexes it (its folder was not recorded as listed)"
output=$(without_overrides timeout 60 maildex new 2>/dev/null | tail -n 1; maildex count body:unreadableword 2>&1)
test_expect_equal "$output" "Added 1 new message to the database.
1"

test_begin_subtest "search --output=files prints the name with a newline"
test_expect_equal "$(maildex search --output=files body:newlineword 2>&1)" "$CUR/$nl_name"

test_begin_subtest "search --output=files prints the name with invalid UTF-8 bytes as they are"
test_expect_equal "$(maildex search --output=files body:badnameword 2>&1)" "$CUR/$bad_name"

test_begin_subtest "search --output=files prints the symlink's path, not its target's"
test_expect_equal "$(maildex search --output=files body:symlinkword 2>&1)" "$CUR/link-to-mail:2,S"

test_begin_subtest "the database is intact"
test_expect_equal "$(sqlite3 "$MAIL_DIR/.maildex/maildex.db" "PRAGMA integrity_check" 2>&1)" "ok"

test_begin_subtest "second run, nothing changed: no warning repeated, no new mail"
output=$(timeout 60 maildex new 2>&1)
test_expect_equal "$output" "No new mail."

test_begin_subtest "--full-scan lists cur/ again: each warning once more, nothing new"
output=$(timeout 60 maildex new --full-scan 2>&1 | sort)
# The non-mail files are not in the database, so a full scan reads them again (as notmuch does).
expected=$({
    cat "$TMP_DIRECTORY/expected-warnings" "$TMP_DIRECTORY/expected-notes"
    echo "Processed 2 total files in almost no time."
    echo "No new mail."
} | sort)
test_expect_equal "$output" "$expected"

test_done
