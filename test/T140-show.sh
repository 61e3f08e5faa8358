#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `show`: every format and option on test/corpora/sample, byte for byte as notmuch 0.37 prints it. The
# expected outputs in test/expected/T140-show/ were made by the real notmuch on the same corpus and
# config (file paths written MAIL_DIR); the table below names each and the arguments that print it.
# Then what the table cannot say: exclusion, show.extra_headers, errors and their exit codes, a file
# gone since it was indexed, and the thread structure of replies whose parent is missing.
. "$(dirname "$0")/test-lib.sh"

# The one message with two files gets them in a fixed order (the order files are found in): the list's
# copy first, the sent copy on a second run.
cp -R "$srcdir/test/corpora/sample/." "$MAIL_DIR/"
chmod -R u+w "$MAIL_DIR"
mv "$MAIL_DIR/sent" "$TMP_DIRECTORY/sent"
maildex new > /dev/null
mv "$TMP_DIRECTORY/sent" "$MAIL_DIR/sent"
maildex new > /dev/null
EXPECTED=$srcdir/test/expected/T140-show

# name<TAB>arguments (word-split by the shell; quotes group), one subtest each.
cat > "$TMP_DIRECTORY/cases" <<'CASES'
thread-json	--format=json --format-version=5 --exclude=false thread:{id:msg1@example.org}
thread-sexp	--format=sexp --format-version=5 --exclude=false ' thread:{id:msg1@example.org} '
all-json	--format=json *
all-sexp-oldest	--format=sexp --sort=oldest-first *
all-text	--format=text *
text-entire-html	--format=text --entire-thread=true --include-html thread:{id:msg1@example.org}
not-entire	--format=json --entire-thread=false --body=false from:carol
unthreaded	--format=sexp --unthreaded --body=false *
part0-json	--format=json --part=0 id:msg2@example.com
part2-sexp	--format=sexp --part=2 id:msg2@example.com
part-text	--format=text --part=3 id:msg3@example.net
raw	--format=raw id:msg3@example.net
raw-part-leaf	--part=3 id:msg3@example.net
raw-part-multipart	--format=raw --part=1 id:msg3@example.net
raw-duplicate	--format=raw --duplicate=2 id:20240104120500.GA1001@example.org
json-duplicate	--format=json --duplicate=2 id:20240104120500.GA1001@example.org
mbox	--format=mbox thread:{id:msg1@example.org}
latin1	--format=json id:resume.1@example.net
no-message-id	--format=sexp --part=0 subject:"Build #42 passed"
format-version-2	--format=json --format-version=2 --part=0 id:msg1@example.org
CASES

set -f
while IFS='	' read -r name args; do
    test_begin_subtest "show $args"
    eval "set -- $args"
    maildex show "$@" 2>&1 | sed "s#$MAIL_DIR#MAIL_DIR#g" > "$TMP_DIRECTORY/$name.out"
    test_expect_equal_file "$EXPECTED/$name.out" "$TMP_DIRECTORY/$name.out"
done < "$TMP_DIRECTORY/cases"
set +f

test_begin_subtest "an excluded message hides its thread, unless --exclude=false, which flags it"
maildex tag +spam id:msg3@example.net
output=$(maildex show --format=sexp --body=false from:carol | wc -c; \
         maildex show --format=sexp --body=false --exclude=false --entire-thread=false from:carol |
         grep -o ':id "msg3@example.net" :match t :excluded t')
test_expect_equal "$output" '3
:id "msg3@example.net" :match t :excluded t'

test_begin_subtest "an excluded reply of a matching thread is flagged, not matched"
output=$(maildex show --format=json --body=false thread:{id:msg1@example.org} |
         grep -o '"id": "msg3@example.net", "match": false, "excluded": true')
test_expect_equal "$output" '"id": "msg3@example.net", "match": false, "excluded": true'
maildex tag -spam id:msg3@example.net

test_begin_subtest "show.extra_headers come after Date, named as the file spells them"
printf '\n[show]\nextra_headers=list-id;X-Not-There;\n' >> "$MAILDEX_CONFIG"
output=$(maildex show --format=json --body=false --entire-thread=false id:dev-0.2-plan@example.com |
         grep -o '"Date": "[^"]*", "List-Id": "[^"]*"')
test_expect_equal "$output" '"Date": "Thu, 04 Jan 2024 10:00:00 +0000", "List-Id": "Developer discussion <dev.lists.example.org>"'

test_begin_subtest "--part and raw need exactly one message"
output=$(maildex show --format=raw '*' 2>&1; echo "exit $?")
test_expect_equal "$output" 'Error: search term did not match precisely one message (matched 10 messages).
exit 1'

test_begin_subtest "a part that does not exist prints nothing"
output=$(maildex show --format=json --part=99 id:msg1@example.org 2>&1; echo "exit $?")
test_expect_equal "$output" 'exit 0'

test_begin_subtest "mbox refuses parts, show refuses no query"
output=$(maildex show --format=mbox --part=1 id:msg1@example.org 2>&1; echo "exit $?"
         maildex show --format=json 2>&1; echo "exit $?")
test_expect_equal "$output" 'Error: specifying parts is incompatible with mbox output format.
exit 1
Error: maildex show requires at least one search term.
exit 1'

test_begin_subtest "--decrypt=false, auto, true and stash show unencrypted mail as it is"
maildex show --format=sexp id:msg2@example.com > "$TMP_DIRECTORY/plain"
for d in false auto true stash; do
    maildex show --format=sexp --decrypt=$d id:msg2@example.com | cmp -s - "$TMP_DIRECTORY/plain" || echo "--decrypt=$d differs"
done > "$TMP_DIRECTORY/decrypt"
test_expect_equal "$(cat "$TMP_DIRECTORY/decrypt")" ''

test_begin_subtest "format versions below 1 and above 5 are refused with notmuch's exit codes"
test_expect_code 21 maildex show --format=json --format-version=6 id:msg1@example.org

test_begin_subtest "--duplicate beyond the files of the message"
output=$(maildex show --format=raw --duplicate=3 id:20240104120500.GA1001@example.org 2>&1; echo "exit $?"
         maildex show --format=json --duplicate=3 id:20240104120500.GA1001@example.org 2>&1; echo "exit $?")
test_expect_equal "$output" "Error: Cannot get message filename.
exit 1
maildex show: message id:20240104120500.GA1001@example.org has no file number 3 (it has 2)
exit 1"

test_begin_subtest "a file gone since indexing: the other messages print, the command fails"
mv "$MAIL_DIR/cur/2:2," "$TMP_DIRECTORY/gone"
output=$(maildex show --format=sexp --body=false thread:{id:msg1@example.org} 2>&1 >/dev/null; echo "exit $?")
mv "$TMP_DIRECTORY/gone" "$MAIL_DIR/cur/2:2,"
test_expect_equal "$output" "maildex show: cannot read '$MAIL_DIR/cur/2:2,': cannot open: No such file or directory
exit 1"

# Replies whose parent is not in the store hang under the deepest message their References name.
mkdir -p "$MAIL_DIR/orphans/cur"
generate_message dir=orphans/cur id=root@t subject=root date="Mon, 01 Jan 2024 10:00:00 +0000" > /dev/null
generate_message dir=orphans/cur id=child@t subject=child in_reply_to=root@t \
    date="Mon, 01 Jan 2024 11:00:00 +0000" > /dev/null
generate_message dir=orphans/cur id=late@t subject=late in_reply_to=missing@t \
    references="<root@t> <child@t> <missing@t>" date="Mon, 01 Jan 2024 12:00:00 +0000" > /dev/null
generate_message dir=orphans/cur id=early@t subject=early in_reply_to=root@t \
    date="Mon, 01 Jan 2024 10:30:00 +0000" > /dev/null
maildex new > /dev/null

test_begin_subtest "thread structure: In-Reply-To first, then the deepest of the References, replies by date"
output=$(maildex show --format=text --body=false thread:{id:root@t} | grep '^.message{' | sed 's/ match.*//')
test_expect_equal "$output" "$(printf '\fmessage{ id:root@t depth:0
\fmessage{ id:early@t depth:1
\fmessage{ id:child@t depth:1
\fmessage{ id:late@t depth:2')"

test_done
