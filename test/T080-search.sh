#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `search`: every --output in text, text0, JSON and S-expressions, byte for byte as notmuch 0.37 prints
# them for the three-message thread of notmuch-compat.md 2.2 (the expected outputs are that section's,
# checked against the real notmuch); sort, limit, offset, exclusion, duplicates and errors.
. "$(dirname "$0")/test-lib.sh"

add_lunch_corpus

test_begin_subtest "a phrase does not span two MIME parts, as in notmuch"
# msg2's text part ends "planning ahead." and its HTML part begins "Sure works".
output=$(maildex search --output=messages '"planning ahead"'; maildex count '"ahead sure"')
test_expect_equal "$output" 'id:msg2@example.com
0'

test_begin_subtest "option values as notmuch takes them: --name value, --name:value"
output=$(maildex search --output messages --limit:1 '*'; maildex search --output:threads --sort oldest-first '*')
test_expect_equal "$output" 'id:msg3@example.net
thread:0000000000000001'

test_begin_subtest "a keyword option leaves a following query alone"
output=$(maildex search --output=messages --exclude from:bob)
test_expect_equal "$output" 'id:msg2@example.com'

test_begin_subtest "summary, json"
output=$(maildex search --format=json --format-version=5 '*')
test_expect_equal "$output" '[{"thread": "0000000000000001", "timestamp": 1704112200, "date_relative": "2024-01-01", "matched": 3, "total": 3, "authors": "Alice Example, Bob, Carol", "subject": "Lunch plans", "query": ["id:msg1@example.org id:msg2@example.com id:msg3@example.net", null], "tags": ["attachment", "inbox", "unread"]}]'

test_begin_subtest "summary, sexp, oldest first"
output=$(maildex search --format=sexp --format-version=5 --sort=oldest-first '*')
test_expect_equal "$output" '((:thread "0000000000000001" :timestamp 1704103200 :date_relative "2024-01-01" :matched 3 :total 3 :authors "Alice Example, Bob, Carol" :subject "Lunch plans" :query ("id:msg1@example.org id:msg2@example.com id:msg3@example.net" nil) :tags ("attachment" "inbox" "unread")))'

test_begin_subtest "summary, sexp, partial match splits the authors"
output=$(maildex search --format=sexp from:carol)
test_expect_equal "$output" '((:thread "0000000000000001" :timestamp 1704112200 :date_relative "2024-01-01" :matched 1 :total 3 :authors "Carol| Alice Example, Bob" :subject "Lunch plans" :query ("id:msg3@example.net" "id:msg1@example.org id:msg2@example.com") :tags ("attachment" "inbox" "unread")))'

test_begin_subtest "summary, text"
output=$(maildex search '*')
test_expect_equal "$output" 'thread:0000000000000001   2024-01-01 [3/3] Alice Example, Bob, Carol; Lunch plans (attachment inbox unread)'

test_begin_subtest "summary, format version 1 has no query pair"
output=$(maildex search --format=json --format-version=1 from:bob)
test_expect_equal "$output" '[{"thread": "0000000000000001", "timestamp": 1704106800, "date_relative": "2024-01-01", "matched": 1, "total": 3, "authors": "Bob| Alice Example, Carol", "subject": "Lunch plans", "tags": ["attachment", "inbox", "unread"]}]'

test_begin_subtest "threads, sexp and text"
output=$(maildex search --format=sexp --output=threads '*'; maildex search --output=threads '*')
test_expect_equal "$output" '("0000000000000001")
thread:0000000000000001'

test_begin_subtest "messages, json"
output=$(maildex search --format=json --output=messages '*')
test_expect_equal "$output" '["msg3@example.net",
"msg2@example.com",
"msg1@example.org"]'

test_begin_subtest "messages, text, oldest first, offset and limit"
output=$(maildex search --output=messages --sort=oldest-first --offset=1 --limit=1 '*')
test_expect_equal "$output" 'id:msg2@example.com'

test_begin_subtest "messages, negative offset counts from the end"
output=$(maildex search --output=messages --offset=-1 '*')
test_expect_equal "$output" 'id:msg1@example.org'

test_begin_subtest "messages, text0"
maildex search --output=messages --format=text0 '*' > "$TMP_DIRECTORY/out0"
printf 'id:msg3@example.net\0id:msg2@example.com\0id:msg1@example.org\0' > "$TMP_DIRECTORY/want0"
test_expect_equal_file "$TMP_DIRECTORY/want0" "$TMP_DIRECTORY/out0"

test_begin_subtest "files, sexp"
output=$(maildex search --format=sexp --output=files '*')
test_expect_equal "$output" "(\"$MAIL_DIR/new/3\"
\"$MAIL_DIR/cur/2:2,\"
\"$MAIL_DIR/cur/1:2,S\")"

test_begin_subtest "tags, sexp and text"
output=$(maildex search --format=sexp --output=tags '*'; maildex search --output=tags '*')
test_expect_equal "$output" '("attachment"
"inbox"
"unread")
attachment
inbox
unread'

test_begin_subtest "no match: empty list, exit 0"
output=$(maildex search --format=sexp tag:nosuch; maildex search --format=json tag:nosuch; echo "status=$?")
test_expect_equal "$output" '()
[]
status=0'

test_begin_subtest "a lone quote matches nothing"
output=$(maildex search --format=sexp "'"; echo "status=$?")
test_expect_equal "$output" '()
status=0'

test_begin_subtest "notmuch.el's show query with stray quotes"
output=$(maildex search --output=messages "'" 'thread:0000000000000001' and '(' tag:attachment ')' "'")
test_expect_equal "$output" 'id:msg3@example.net'

test_begin_subtest "space-separated id: terms OR"
output=$(maildex search --output=messages 'id:msg1@example.org id:msg3@example.net')
test_expect_equal "$output" 'id:msg3@example.net
id:msg1@example.org'

test_begin_subtest "every prefix finds its message"
output=$(for q in from:bob to:carol subject:lunch body:menu attachment:pdf mimetype:text/html tag:attachment \
    is:unread id:msg2@example.com mid:/msg[13]/ thread:{from:carol} folder:'""' path:new path:cur path:cur/ date:2024-01-01 \
    date:2024-01-01_10:30..2024-01-01_11:30 lunches plan Plan cafe "\"sure works\"" lun* 'subject:/^Re:/'; do
    printf '%s:' "$q"; maildex search --output=messages --sort=oldest-first "$q" | tr '\n' ' '; echo; done)
test_expect_equal "$output" 'from:bob:id:msg2@example.com 
to:carol:id:msg2@example.com 
subject:lunch:id:msg1@example.org id:msg2@example.com id:msg3@example.net 
body:menu:id:msg3@example.net 
attachment:pdf:id:msg3@example.net 
mimetype:text/html:id:msg2@example.com 
tag:attachment:id:msg3@example.net 
is:unread:id:msg2@example.com id:msg3@example.net 
id:msg2@example.com:id:msg2@example.com 
mid:/msg[13]/:id:msg1@example.org id:msg3@example.net 
thread:{from:carol}:id:msg1@example.org id:msg2@example.com id:msg3@example.net 
folder:"":id:msg1@example.org id:msg2@example.com id:msg3@example.net 
path:new:id:msg3@example.net 
path:cur:id:msg1@example.org id:msg2@example.com 
path:cur/:id:msg1@example.org id:msg2@example.com 
date:2024-01-01:id:msg1@example.org id:msg2@example.com id:msg3@example.net 
date:2024-01-01_10:30..2024-01-01_11:30:id:msg2@example.com 
lunches:id:msg1@example.org id:msg2@example.com id:msg3@example.net 
plan:id:msg1@example.org id:msg2@example.com id:msg3@example.net 
Plan:
cafe:id:msg1@example.org 
"sure works":id:msg2@example.com 
lun*:id:msg1@example.org id:msg2@example.com id:msg3@example.net 
subject:/^Re:/:id:msg2@example.com id:msg3@example.net '

test_begin_subtest "excluded tags hide messages unless named"
maildex_tag_spam() { sqlite3 "$MAIL_DIR/.maildex/maildex.db" "INSERT OR IGNORE INTO tags(name) VALUES ('spam'); INSERT INTO message_tags SELECT t.id, m.id FROM tags t, messages m WHERE t.name = 'spam' AND m.message_id = 'msg2@example.com'; UPDATE tags SET messages = 1 WHERE name = 'spam';"; }
if command -v sqlite3 > /dev/null && maildex_tag_spam 2> /dev/null; then
    output=$(maildex search --output=messages '*'; echo; maildex search --output=messages tag:spam; echo;
             maildex search --output=messages --exclude=false '*' | wc -l; maildex search '*';
             maildex search --exclude=flag '*'; maildex search --exclude=all '*')
    test_expect_equal "$output" 'id:msg3@example.net
id:msg1@example.org

id:msg2@example.com

3
thread:0000000000000001   2024-01-01 [2/3] Alice Example, Carol| Bob; Lunch plans (attachment inbox spam unread)
thread:0000000000000001   2024-01-01 [2/3] Alice Example, Bob, Carol; Lunch plans (attachment inbox spam unread)
thread:0000000000000001   2024-01-01 [2/2] Alice Example, Carol; Lunch plans (attachment inbox unread)'
else
    test_ok_
fi

test_begin_subtest "the empty query is an error"
output=$(maildex search '' 2>&1; echo "status=$?")
test_expect_equal "$output" 'Error: maildex search requires at least one search term.
status=1'

test_begin_subtest "a syntax error names the position and exits 1"
output=$(maildex search tag:inbox and 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex search: syntax error at position 13: expected a term after 'and'
Query string was: tag:inbox and
status=1"

test_begin_subtest "no suggestions on stderr when it is not a terminal"
output=$(maildex search lunhc 2>&1 >/dev/null)
test_expect_equal "$output" ''

test_begin_subtest "named queries come from the config"
maildex config set query.lunch 'subject:lunch and tag:attachment'
output=$(maildex search --output=messages query:lunch)
test_expect_equal "$output" 'id:msg3@example.net'

test_begin_subtest "messages of the same second: newest first in the order they were indexed, as notmuch"
for n in 1 2 3; do
    generate_message "id=tie$n@example.org" "date=Sat, 01 Jan 2000 12:00:00 +0000" "filename=tie$n" >/dev/null
    maildex new --quiet
done
output=$(maildex search --output=messages date:2000-01-01 | tr '\n' ' ')
test_expect_equal "$output" 'id:tie1@example.org id:tie2@example.org id:tie3@example.org '

test_begin_subtest "tags of '*' are every tag in use, excluded messages' too, as notmuch"
maildex config set search.exclude_tags hidden
maildex tag +hidden +onlyhidden -- id:tie2@example.org
output=$(maildex search --output=tags '*' | tr '\n' ' '; echo; maildex search --output=tags date:2000-01-01 | tr '\n' ' ')
test_expect_equal "$output" 'attachment hidden inbox onlyhidden spam unread 
inbox unread '
maildex config set search.exclude_tags

test_begin_subtest "a thread's subject: an empty one never replaces another, as notmuch"
generate_message "id=es1@example.org" "subject=" "date=Sun, 02 Jan 2000 10:00:00 +0000" "filename=es1" >/dev/null
generate_message "id=es2@example.org" "subject=Named later" "in_reply_to=es1@example.org" \
    "date=Sun, 02 Jan 2000 11:00:00 +0000" "filename=es2" >/dev/null
generate_message "id=es3@example.org" "subject=" "in_reply_to=es2@example.org" \
    "date=Sun, 02 Jan 2000 12:00:00 +0000" "filename=es3" >/dev/null
maildex new --quiet
output=$(maildex search --format=json date:2000-01-02 | grep -o '"subject": "[^"]*"'
         maildex search --format=json --sort=oldest-first date:2000-01-02 | grep -o '"subject": "[^"]*"')
test_expect_equal "$output" '"subject": "Named later"
"subject": "Named later"'

test_begin_subtest "a bare thread id finds its thread, as notmuch's parser reads it (T450, notmuch-show)"
tid=$(maildex search --output=threads id:es2@example.org | sed s/thread://)
upper=$(printf '%s' "$tid" | tr a-f A-F)
output=$(maildex search --output=threads "$tid"; maildex count "$upper and id:es3@example.org"
    maildex count "\"$tid\""; maildex count "not $tid and date:2000-01-02"; maildex count "${tid}x")
test_expect_equal "$output" "thread:$tid
1
3
0
0"

test_begin_subtest "numeric options out of range are refused, exit 1, and nothing runs"
output=$(for o in search:--limit=-5 search:--duplicate=-1 search:--limit=2147483648 show:--part=-2 \
        reply:--duplicate=-3 search:--limit=5x; do
    maildex ${o%%:*} ${o#*:} '*' 2>&1 >/dev/null; echo "rc=$?"; done)
test_expect_equal "$output" "maildex search: --limit must be from 0 to 2147483647, not '-5'
rc=1
maildex search: --duplicate must be from 0 to 2147483647, not '-1'
rc=1
maildex search: --limit must be from 0 to 2147483647, not '2147483648'
rc=1
maildex show: --part must be from 0 to 2147483647, not '-2'
rc=1
maildex reply: --duplicate must be from 0 to 2147483647, not '-3'
rc=1
maildex search: --limit needs an integer, not '5x'
rc=1"

test_begin_subtest "a negative --offset still counts from the end, as in notmuch"
test_expect_equal "$(maildex search --output=messages --offset=-1 '*' | wc -l)" "1"

test_done
