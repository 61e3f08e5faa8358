#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `count`: messages, threads and files, --batch (an empty line counts everything), --lastmod, and the
# exclusion, on the three-message thread of notmuch-compat.md 2.2 (expected numbers from 2.6).
. "$(dirname "$0")/test-lib.sh"

add_lunch_corpus

test_begin_subtest "count messages, with and without a query"
output=$(maildex count '*'; maildex count; maildex count '')
test_expect_equal "$output" '3
3
3'

test_begin_subtest "count threads and files"
output=$(maildex count --output=threads '*'; maildex count --output=files)
test_expect_equal "$output" '1
3'

test_begin_subtest "count --batch, an empty line counts everything"
output=$(printf 'tag:unread\n\nfrom:bob\n' | maildex count --batch)
test_expect_equal "$output" '2
3
1'

test_begin_subtest "count --batch --input"
printf 'from:carol\nsubject:lunch\n' > "$TMP_DIRECTORY/queries"
output=$(maildex count --input="$TMP_DIRECTORY/queries")
test_expect_equal "$output" '1
3'

test_begin_subtest "count --lastmod prints the uuid and revision"
output=$(maildex count --lastmod '*' | sed -E 's/\t[0-9a-f-]{36}\t[0-9]+$/\tUUID\tREV/')
test_expect_equal "$output" '3	UUID	REV'

test_begin_subtest "count of a word and a tag"
output=$(maildex count 'lunch and tag:attachment'; maildex count 'plan or menu'; maildex count 'tag:inbox -tag:unread')
test_expect_equal "$output" '1
3
1'

test_begin_subtest "count --exclude=false counts excluded messages"
if command -v sqlite3 > /dev/null && sqlite3 "$MAIL_DIR/.maildex/maildex.db" "INSERT OR IGNORE INTO tags(name) VALUES ('deleted'); INSERT INTO message_tags(tag, message) SELECT t.id, m.id FROM tags t, messages m WHERE t.name = 'deleted' AND m.message_id = 'msg1@example.org'; UPDATE tags SET messages = 1 WHERE name = 'deleted';" 2> /dev/null; then
    output=$(maildex count; maildex count --exclude=false; maildex count tag:deleted; maildex count --output=threads)
    test_expect_equal "$output" '2
3
1
1'
else
    test_ok_
fi

test_begin_subtest "a syntax error exits 1"
test_expect_code 1 maildex count 'tag:inbox and ('

test_begin_subtest "--uuid: the right one reads and writes, as a command or a global option"
uuid=$(maildex count --lastmod '*' | cut -f2)
output=$(maildex count --uuid="$uuid" '*'; maildex --uuid="$uuid" search --output=messages --limit=1 '*' &&
         maildex tag --uuid="$uuid" +checked -- '*' && maildex count tag:checked)
test_expect_equal "$output" '2
id:msg3@example.net
2'

test_begin_subtest "--uuid: another database's is refused with notmuch's message and status"
output=$(maildex count --uuid=this-is-no-uuid '*' 2>&1; echo "status=$?"
         maildex --uuid=this-is-no-uuid tag +wrong -- '*' 2>&1; echo "status=$?"; maildex count tag:wrong)
test_expect_equal "$output" "Error: requested database revision this-is-no-uuid does not match $uuid
status=1
Error: requested database revision this-is-no-uuid does not match $uuid
status=1
0"

test_done
