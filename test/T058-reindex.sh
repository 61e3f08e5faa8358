#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex reindex QUERY`: re-parses files and keeps tags.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

generate_message id=one@x subject=alpha body=oldword filename=one >/dev/null
generate_message id=two@x subject=beta body=other filename=two >/dev/null
f1=$MAIL_DIR/cur/one
maildex new >/dev/null 2>&1
sqlite3 "$MAIL_DIR/.maildex/maildex.db" "INSERT INTO tags(name, messages) VALUES ('mine', 1); INSERT INTO message_tags(tag, message) SELECT t.id, m.id FROM tags t, messages m WHERE t.name='mine' AND m.message_id='one@x'"

test_begin_subtest "reindex without a query is an error"
test_expect_code 1 maildex reindex

test_begin_subtest "a changed body is searchable after reindex, the old text is gone"
sed -i 's/^oldword$/newword/' "$f1"
maildex reindex id:one@x
output=$(maildex count body:newword; maildex count body:oldword)
test_expect_equal "$output" "1
0"

test_begin_subtest "tags are kept"
test_expect_equal "$(maildex_store_dump | grep '^one@x' | cut -f2)" "inbox mine unread"

test_begin_subtest "a new Date moves the message in date order and keeps tags and files"
sed -i 's/^Date: .*/Date: Sat, 01 Jun 2030 10:00:00 +0000/' "$f1"
maildex reindex id:one@x
output=$(maildex search --output=messages --limit=1 '*'; maildex_store_dump | grep '^one@x' | cut -f2,3)
test_expect_equal "$output" "id:one@x
inbox mine unread	cur/$(basename "$f1")"

test_begin_subtest "new references join threads on reindex"
sed -i 's/^Subject: alpha$/Subject: alpha\nIn-Reply-To: <two@x>/' "$f1"
maildex reindex id:one@x
test_expect_equal "$(maildex_thread_dump | grep one@x)" "one@x two@x"

test_begin_subtest "the stores stay consistent (counts, integrity)"
output=$(sqlite3 "$MAIL_DIR/.maildex/maildex.db" "PRAGMA integrity_check; SELECT count(*) FROM tags t WHERE messages != (SELECT count(*) FROM message_tags mt WHERE mt.tag = t.id); SELECT count(*) FROM threads t WHERE messages != (SELECT count(*) FROM messages m WHERE m.thread = t.id); SELECT count(*) FROM texts")
test_expect_equal "$output" "ok
0
0
2"

test_begin_subtest "reindex of a query matching nothing succeeds"
test_expect_code 0 maildex reindex id:nothing@x

test_begin_subtest "a named query (query:NAME) selects what to reindex, as in search"
maildex config set query.second id:two@x
sed -i 's/^other$/renamedword/' "$MAIL_DIR/cur/two"
maildex reindex query:second
test_expect_equal "$(maildex count body:renamedword)" "1"

test_begin_subtest "an excluded message is reindexed too, as notmuch does"
maildex tag +spam -- id:two@x
sed -i 's/^renamedword$/spamword/' "$(maildex search --exclude=false --output=files id:two@x)"
maildex reindex id:two@x
test_expect_equal "$(maildex count --exclude=false body:spamword)" "1"

test_begin_subtest "a syntax error exits 1"
test_expect_code 1 maildex reindex 'tag:inbox and ('

# Files gone since the last `new`: reindex drops them, as notmuch's does (T700).
generate_message id=dup@x filename=dup-a:2, >/dev/null
cp "$MAIL_DIR/cur/dup-a:2," "$MAIL_DIR/cur/dup-b:2,"
generate_message id=lost@x filename=lost:2, >/dev/null
generate_message id=locked@x filename=locked:2, >/dev/null
maildex new >/dev/null 2>&1
maildex tag +kept -- id:dup@x id:locked@x

test_begin_subtest "a copy that is gone is dropped from its message; the message and its tags stay"
rm "$MAIL_DIR/cur/dup-a:2,"
maildex reindex id:dup@x
test_expect_equal "$(maildex_store_dump | grep '^dup@x' | cut -f2,3)" "inbox kept unread	cur/dup-b:2,"

test_begin_subtest "a message whose every file is gone leaves the store"
rm "$MAIL_DIR/cur/lost:2,"
maildex reindex id:lost@x
rc=$?
test_expect_equal "$rc|$(maildex count id:lost@x)|$(maildex_store_check)" "0|0|ok"

test_begin_subtest "a file that exists but cannot be read is not gone: the message is kept as it was"
if can_drop_overrides; then
    chmod 000 "$MAIL_DIR/cur/locked:2,"
    without_overrides maildex reindex id:locked@x
    rc=$?
    chmod 644 "$MAIL_DIR/cur/locked:2,"
    test_expect_equal "$rc|$(maildex_store_dump | grep '^locked@x' | cut -f2,3)" "0|inbox kept unread	cur/locked:2,"
else
    test_skip_ "root's permission overrides cannot be dropped here"
fi

test_begin_subtest "a mail root that is not there (a disk not mounted): exit 1, nothing taken for gone"
mv "$MAIL_DIR/.maildex" "$TMP_DIRECTORY/db-aside"
mv "$MAIL_DIR" "$TMP_DIRECTORY/mail-aside"
db=$TMP_DIRECTORY/db-aside/maildex.db
before=$(maildex_store_dump "$db")
output=$(MAILDEX_DATABASE=$db maildex reindex '*' 2>&1)
rc=$?
test_expect_equal "$rc|$output|$(maildex_store_dump "$db")" \
    "1|maildex reindex: mail root '$MAIL_DIR' is not a directory|$before"
mv "$TMP_DIRECTORY/mail-aside" "$MAIL_DIR"
mv "$TMP_DIRECTORY/db-aside" "$MAIL_DIR/.maildex"

test_done
