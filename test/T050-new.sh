#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex new`: scanning, output, tags from flags, renames, removals, duplicates, threads.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

test_begin_subtest "an empty mail root: notmuch's first-run output"
output=$(maildex new 2>&1)
test_expect_equal "$output" "Found 0 total files (that's not much mail).
No new mail."

test_begin_subtest "the database is created 0600 in .maildex/"
test_expect_equal "$(stat -c %a "$MAIL_DIR/.maildex/maildex.db")" "600"

test_begin_subtest "one new message"
generate_message >/dev/null
output=$(maildex new 2>&1)
test_expect_equal "$output" "Processed 1 file in almost no time.
Added 1 new message to the database."

test_begin_subtest "nothing changed: no new mail"
test_expect_equal "$(maildex new 2>&1)" "No new mail."

test_begin_subtest "new.tags go on new messages"
test_expect_equal "$(maildex_store_dump | cut -f1,2)" "msg-001@maildex-test-suite	inbox unread"

test_begin_subtest "several new messages, plural output"
for i in 1 2 3; do generate_message >/dev/null; done
output=$(maildex new 2>&1)
test_expect_equal "$output" "Processed 3 total files in almost no time.
Added 3 new messages to the database."

test_begin_subtest "Maildir flags become tags on new messages (S: no unread, F flagged, R replied, D draft, P passed)"
generate_message filename='flags:2,DFPRS' id=flags@x >/dev/null
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_store_dump | grep '^flags@x' | cut -f2)" "draft flagged inbox passed replied"

test_begin_subtest "a file in new/ without info is unread"
generate_message dir=new filename=fresh id=fresh@x >/dev/null
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_store_dump | grep '^fresh@x' | cut -f2,3)" "inbox unread	new/fresh"

test_begin_subtest "a flag change is a rename: tags follow, the file is not read again (notmuch counts it processed)"
mv "$MAIL_DIR/new/fresh" "$MAIL_DIR/cur/fresh:2,S"
output=$(maildex new 2>&1)
test_expect_equal "$output" "Processed 1 file in almost no time.
No new mail. Detected 1 file rename."

test_begin_subtest "... and the message lost unread and lives in cur/"
test_expect_equal "$(maildex_store_dump | grep '^fresh@x' | cut -f2,3)" "inbox	cur/fresh:2,S"

test_begin_subtest "a tag set by the user survives a move between folders"
sqlite3 "$MAIL_DIR/.maildex/maildex.db" "INSERT INTO tags(name, messages) VALUES ('keep', 1); INSERT INTO message_tags(tag, message) SELECT t.id, m.id FROM tags t, messages m WHERE t.name='keep' AND m.message_id='fresh@x'"
mkdir -p "$MAIL_DIR/Archive/cur" "$MAIL_DIR/Archive/new" "$MAIL_DIR/Archive/tmp"
mv "$MAIL_DIR/cur/fresh:2,S" "$MAIL_DIR/Archive/cur/fresh:2,S"
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_store_dump | grep '^fresh@x' | cut -f2,3)" "inbox keep	Archive/cur/fresh:2,S"

test_begin_subtest "a moved file whose size changed is read again, and still the same message"
mv "$MAIL_DIR/Archive/cur/fresh:2,S" "$MAIL_DIR/cur/fresh-moved:2,RS"
echo "an extra line" >> "$MAIL_DIR/cur/fresh-moved:2,RS"
output=$(maildex new 2>&1)
test_expect_equal "$output" "Processed 1 file in almost no time.
No new mail. Detected 1 file rename."

test_begin_subtest "... with its tags kept and the new flags applied"
test_expect_equal "$(maildex_store_dump | grep '^fresh@x' | cut -f2,3)" "inbox keep replied	cur/fresh-moved:2,RS"

test_begin_subtest "a removed file's message leaves the store"
rm "$MAIL_DIR/cur/msg-002"
test_expect_equal "$(maildex new 2>&1)" "No new mail. Removed 1 message."

test_begin_subtest "... with its text: the full-text index stays consistent"
output=$(sqlite3 "$MAIL_DIR/.maildex/maildex.db" "PRAGMA integrity_check; SELECT count(*) FROM texts; SELECT count(*) FROM messages"; maildex count 'body:"message (#2)"'; maildex count 'body:"message (#3)"')
test_expect_equal "$output" "ok
5
5
0
1"

test_begin_subtest "tag counts stay equal to the rows that carry them"
output=$(sqlite3 "$MAIL_DIR/.maildex/maildex.db" "SELECT count(*) FROM tags t WHERE messages != (SELECT count(*) FROM message_tags mt WHERE mt.tag = t.id)")
test_expect_equal "$output" "0"

test_begin_subtest "a duplicate Message-ID is one message with two files"
cp "$MAIL_DIR/cur/msg-003" "$MAIL_DIR/Archive/cur/copy-of-3:2,S"
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_store_dump | grep '^msg-003' | cut -f3)" "Archive/cur/copy-of-3:2,S cur/msg-003"

test_begin_subtest "removing one copy of a duplicate is a rename"
rm "$MAIL_DIR/cur/msg-003"
test_expect_equal "$(maildex new 2>&1)" "No new mail. Detected 1 file rename."

test_begin_subtest "... and the remaining copy's flags decide (S: no unread)"
test_expect_equal "$(maildex_store_dump | grep '^msg-003' | cut -f2)" "inbox"

test_begin_subtest "a copy with other text adds its words to the message (as notmuch indexes every copy)"
generate_message id=twin@x subject=Twin body=firstcopyword filename=twin-a >/dev/null
maildex new >/dev/null 2>&1
generate_message id=twin@x subject=Twin body=secondcopyword dir=Archive/cur filename=twin-b >/dev/null
maildex new >/dev/null 2>&1
output=$(maildex count body:firstcopyword; maildex count body:secondcopyword; maildex count id:twin@x)
test_expect_equal "$output" "1
1
1"

test_begin_subtest "a reply joins its parent's thread"
generate_message id=parent@x subject=Parent >/dev/null
generate_message id=child@x subject="Re: Parent" in_reply_to=parent@x >/dev/null
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_thread_dump | grep parent@x)" "child@x parent@x"

test_begin_subtest "a reply that arrives before its parent is joined by the parent (ghosts)"
generate_message id=late-child@x in_reply_to=late-parent@x >/dev/null
maildex new >/dev/null 2>&1
generate_message id=late-parent@x >/dev/null
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_thread_dump | grep late-parent@x)" "late-child@x late-parent@x"

test_begin_subtest "a message referencing two threads merges them"
generate_message id=a@x >/dev/null
generate_message id=b@x >/dev/null
maildex new >/dev/null 2>&1
generate_message id=ab@x references='<a@x> <b@x>' >/dev/null
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_thread_dump | grep ab@x)" "a@x ab@x b@x"

test_begin_subtest "thread sizes are kept exact"
output=$(sqlite3 "$MAIL_DIR/.maildex/maildex.db" "SELECT count(*) FROM threads t WHERE messages != (SELECT count(*) FROM messages m WHERE m.thread = t.id); SELECT count(*) FROM threads t WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread = t.id)")
test_expect_equal "$output" "0
0"

test_begin_subtest "removing a thread's root keeps the thread (a ghost stands in)"
rm "$MAIL_DIR/cur/$(cd "$MAIL_DIR/cur" && grep -l 'Message-Id: <a@x>' *)"
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_thread_dump | grep ab@x)" "ab@x b@x"

test_begin_subtest "a non-mail file gets notmuch's note on stderr and is not indexed"
printf 'just some text\nwithout headers\n' > "$MAIL_DIR/cur/junk"
output=$(maildex new 2>&1 >/dev/null)
test_expect_equal "$output" "Note: Ignoring non-mail file: $MAIL_DIR/cur/junk"

test_begin_subtest "new.ignore: a name and a /regex/ are skipped"
maildex config set new.ignore junk '/^Archive\/cur\/skip/'
generate_message dir=Archive/cur filename=skip-me >/dev/null
output=$(maildex new 2>&1)
test_expect_equal "$output" "No new mail."

test_begin_subtest "--quiet prints nothing"
generate_message >/dev/null
test_expect_equal "$(maildex new --quiet 2>&1)" ""

test_begin_subtest "--verbose names each file"
generate_message filename=verbose-one >/dev/null
output=$(maildex new --verbose 2>&1 | grep verbose-one)
test_expect_equal "$output" "1/1: $MAIL_DIR/cur/verbose-one"

test_begin_subtest "nothing changed and mtimes recorded: no directory is listed, no file read"
age_directories
maildex new >/dev/null 2>&1
# Change a file's bytes without touching its directory: a run that read files would index the
# change; a run that does not read them cannot see it.
sed -i 's/^Subject: .*/Subject: changed behind our back/' "$MAIL_DIR/cur/msg-001"
age_directories
maildex new >/dev/null 2>&1
output=$(sqlite3 "$MAIL_DIR/.maildex/maildex.db" "SELECT subject FROM messages WHERE message_id='msg-001@maildex-test-suite'")
test_expect_equal "$output" "Test message #1"

test_begin_subtest "a missing parser module is a clear error, and nothing is lost"
generate_message filename=needs-parser >/dev/null
before=$(maildex count '*')
output=$(MAILDEX_MIME_MODULE=/nonexistent/maildex-mime.so maildex new 2>&1; echo "status=$?")
case "$output" in
    *"cannot load the message parser"*"status=1") test_expect_equal "$(maildex count '*')" "$before" ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "... and the next run with the module indexes the file"
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex count '*')" "$((before + 1))"

test_begin_subtest "--full-scan lists every directory again"
output=$(maildex new --full-scan 2>&1)
test_expect_equal "$output" "No new mail."

test_begin_subtest "a first index writes its full text in key order: one FTS5 segment, not one a message"
# Files arrive in directory order, their keys are dates: inserted as they came, FTS5 started a new
# segment at nearly every message and merged them again (lib/message/text-queue.h).
if command -v python3 >/dev/null; then
    python3 "$srcdir/bench/gen" --count 400 --seed 3 "$TMP_DIRECTORY/genmail" >/dev/null
    printf '[database]\npath=%s\n' "$TMP_DIRECTORY/genmail" > "$TMP_DIRECTORY/genmail.conf"
    maildex --config="$TMP_DIRECTORY/genmail.conf" new >/dev/null 2>&1
    output=$(sqlite3 "$TMP_DIRECTORY/genmail/.maildex/maildex.db" \
        "SELECT count(DISTINCT segid) FROM fts_idx; SELECT count(*) > 380 FROM texts")
    test_expect_equal "$output" "1
1"
else
    test_skip_ "no python3 for bench/gen"
fi

test_done
