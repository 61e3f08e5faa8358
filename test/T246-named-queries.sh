#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Named queries: query.NAME from the config file and from the database (config set --database),
# query:NAME expanding into the same query in search, count, tag and dump, nested, and a loop refused
# with a message naming it; config get and list merging the file and the database as notmuch does
# (the file first, then the database, then notmuch's default).
. "$(dirname "$0")/test-lib.sh"

test_begin_subtest "config set --database before there is a database: exit 1, nothing created"
maildex config set --database query.early 'tag:x' 2> ERR
rc=$?
test_expect_equal "$rc $(ls -A "$MAIL_DIR") $(cat ERR)" \
    "1  maildex config: no database at '$MAIL_DIR/.maildex/maildex.db': run 'maildex new' first"

add_lunch_corpus

test_begin_subtest "a named query stored in the database is searched as its text"
maildex config set --database query.lunch 'subject:lunch and tag:inbox'
output=$(maildex search --output=messages query:lunch)
expected=$(maildex search --output=messages 'subject:lunch and tag:inbox')
test_expect_equal "$output" "$expected"

test_begin_subtest "... and with other terms around it"
output=$(maildex search --output=messages query:lunch and from:carol)
test_expect_equal "$output" "id:msg3@example.net"

test_begin_subtest "a named query from the file naming one from the database (nested)"
maildex config set query.carol 'query:lunch and from:carol'
output=$(maildex count query:carol)
test_expect_equal "$output" "1"

test_begin_subtest "tag and dump take named queries too"
maildex tag +fromcarol -- query:carol
output=$(maildex dump --include=tags query:carol)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 tags
+attachment +fromcarol +inbox +unread -- id:msg3@example.net"

test_begin_subtest "config get: the database's value of a key the file does not set"
output=$(maildex config get query.lunch)
test_expect_equal "$output" "subject:lunch and tag:inbox"

test_begin_subtest "config get: the file wins over the database, the database over the default"
maildex config set --database query.carol 'tag:none'
maildex config set --database user.name 'Database Name'
maildex config set user.name
output="$(maildex config get query.carol)|$(maildex config get user.name)"
test_expect_equal "$output" "query:lunch and from:carol|Database Name"

test_begin_subtest "config list shows the keys held by the database, merged and sorted"
maildex config list | grep -E '^(query|user\.name)' > OUTPUT
cat > EXPECTED <<'EOF'
query.carol=query:lunch and from:carol
query.lunch=subject:lunch and tag:inbox
user.name=Database Name
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "config set --database with no value removes the key"
maildex config set --database user.name
maildex config set --database query.carol
output="$(maildex config get user.name)|$(maildex dump --include=config)"
test_expect_equal "$output" "$(id -un)|#notmuch-dump batch-tag:3 config
#@ query.lunch subject%3alunch%20and%20tag%3ainbox"

test_begin_subtest "a loop of named queries is refused, naming the loop, exit 1"
maildex config set query.a 'tag:x or query:b'
maildex config set query.b 'query:a'
maildex search query:a > OUTPUT 2> ERR
rc=$?
test_expect_equal "$rc $(cat OUTPUT ERR)" "1 maildex search: named query cycle at position 0: query:a -> query:b -> query:a
Query string was: query:a"

test_begin_subtest "... also in tag, which then changes nothing"
maildex tag +loop -- query:b 2> ERR
rc=$?
test_expect_equal "$rc $(maildex count tag:loop) $(head -n 1 ERR)" \
    "1 0 maildex tag: named query cycle at position 0: query:b -> query:a -> query:b"

test_begin_subtest "an unknown named query matches nothing, as in notmuch"
output=$(maildex count query:nope 2> ERR; echo "rc=$?"; maildex count 'query:nope or query:lunch'; cat ERR)
test_expect_equal "$output" "0
rc=0
3"

test_begin_subtest "named queries survive dump and restore into a fresh index"
maildex dump > BEFORE
mv "$MAIL_DIR/.maildex" "$TMP_DIRECTORY/old"
maildex new > /dev/null
maildex restore < BEFORE
maildex dump > AFTER
test_expect_equal "$(cmp -s BEFORE AFTER && echo same) $(maildex count query:lunch)" "same 3"

test_done
