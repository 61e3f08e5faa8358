#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `--query=sexp` (notmuch-sexp-queries(7)) on every command that takes a query: search, count (and
# --batch), tag (and --batch), reindex; saved queries and macros from the config file and from the
# database (squery.NAME), notmuch's two error lines and exit status for a bad query, the infix sexp:
# prefix, and what `config` says and refuses about it (built_with.sexp_queries, squery names), on the
# three-message thread of notmuch-compat.md 2.2.
. "$(dirname "$0")/test-lib.sh"

add_lunch_corpus

test_begin_subtest "search and count take --query=sexp"
output=$(maildex search --output=messages --query=sexp '(and (tag inbox) (or (from bob) (from carol)))'
    maildex count --query=sexp '(subject Plan)'
    maildex count --query=sexp '(not (attachment *))'
    maildex count --query=infix 'tag:attachment')
test_expect_equal "$output" 'id:msg3@example.net
id:msg2@example.com
3
2
1'

test_begin_subtest "stemming, phrases and wildcards as notmuch reads them"
output=$(maildex count --query=sexp Planning; maildex count --query=sexp '"planning"'
    maildex count --query=sexp '(and "sure works" (starts-with plan))'; maildex count --query=sexp '(to *)')
test_expect_equal "$output" '3
1
1
3'

test_begin_subtest "count --batch reads each line as a sexp query"
output=$(printf '(tag unread)\n(from bob)\n()\n' | maildex count --batch --query=sexp)
test_expect_equal "$output" '2
1
3'

test_begin_subtest "tag --query=sexp"
maildex tag --query=sexp +sx -- '(thread (of (from carol)))'
maildex tag --query=sexp -sx '(from alice)'
output=$(maildex search --output=messages tag:sx)
test_expect_equal "$output" 'id:msg3@example.net
id:msg2@example.com'

test_begin_subtest "tag --batch --query=sexp"
printf '+sy -- (or (from bob) (from alice))\n-sx -- (tag sx)\n' | maildex tag --batch --query=sexp
output=$(maildex search --output=messages tag:sy; maildex count tag:sx)
test_expect_equal "$output" 'id:msg2@example.com
id:msg1@example.org
0'

test_begin_subtest "reindex --query=sexp keeps the tags"
maildex reindex --query=sexp '(id msg2@example.com)'
output=$(maildex search --output=tags --query=sexp '(id msg2@example.com)')
test_expect_equal "$output" 'inbox
sy
unread'

test_begin_subtest "a bad sexp query: notmuch's two lines, exit 1"
output=$(maildex search --query=sexp '(foo)' 2>&1; echo "status=$?"
    maildex count --query=sexp '(' 2>&1; echo "status=$?"
    maildex tag --query=sexp +x -- '(subject (subject x))' 2>&1; echo "status=$?"
    maildex reindex --query=sexp '(date hawaiian-pizza-day)' 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex search: Syntax error in query
unknown prefix 'foo'
status=1
maildex count: Syntax error in query
invalid s-expression: '('
status=1
maildex tag: Syntax error in query
nested field: 'subject' inside 'subject'
status=1
maildex reindex: Syntax error in query
Didn't understand date specification 'hawaiian-pizza-day'
status=1"

test_begin_subtest "run as notmuch, the lines say notmuch"
ln -s "$MAILDEX_BUILDDIR/cli/maildex" "$TMP_DIRECTORY/notmuch"
output=$("$TMP_DIRECTORY/notmuch" search --query=sexp '(rx foo)' 2>&1)
test_expect_equal "$output" "notmuch search: Syntax error in query
illegal 'rx' outside field"

test_begin_subtest "--query takes infix or sexp only, and only where there is a query"
output=$(maildex search --query=lisp '(tag inbox)' 2>&1; echo "status=$?"; maildex new --query=sexp 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex search: unknown keyword for --query: 'lisp'
status=1
Unrecognized option: --query=sexp
status=1"

test_begin_subtest "saved queries and macros from the config file and the database"
maildex config set squery.LunchFrom '(macro (who) (and (subject lunch) (from ,who)))'
maildex config set --database squery.Attached '(attachment *)'
output=$(maildex search --output=messages --query=sexp '(LunchFrom carol)'
    maildex count --query=sexp '(or (Attached) (LunchFrom alice))'
    maildex count --query=sexp '(LunchFrom)' 2>&1)
test_expect_equal "$output" "id:msg3@example.net
2
maildex count: Syntax error in query
too few arguments to macro"

test_begin_subtest "the infix sexp: prefix"
output=$(maildex count 'sexp:"(from bob)" or tag:attachment'; maildex count 'sexp:"(foo)"' 2>&1)
test_expect_equal "$output" "2
maildex count: syntax error at position 0: in sexp:\"(foo)\": unknown prefix 'foo'
Query string was: sexp:\"(foo)\""

test_begin_subtest "to: is the recipients' mailboxes, as notmuch indexes them (T081 missing / empty to)"
generate_message "to=undisclosed-recipients:;" "subject=To a group" > /dev/null
group_id=$gen_msg_id
generate_message "to=Ann Apple <ann@example.org>, Bea Berry <bea@example.org>" "subject=To two" > /dev/null
maildex new > /dev/null
output=$(maildex search --output=messages --query=sexp '(and (subject To) (not (to *)))'
    maildex count to:undisclosed; maildex count 'to:"Ann Apple ann@example.org"'
    maildex count 'to:"example.org Bea"'; maildex count to:bea@example.org)
test_expect_equal "$output" "id:$group_id
0
1
0
1"

test_begin_subtest "config get built_with.*"
output=$(maildex config get built_with.sexp_queries; maildex config get built_with.field_processor
    maildex config get built_with.nonexistent)
test_expect_equal "$output" 'true
true
false'

test_begin_subtest "config set refuses built_with.* and lower-case squery names"
output=$(maildex config set built_with.sexp_queries false 2>&1; echo "status=$?"
    maildex config set squery.lunch '(tag x)' 2>&1; echo "status=$?"
    maildex config set squery.Lunch-Plan '(tag x)' 2>&1; echo "status=$?"
    maildex config set squery.Lunch '(tag x)' 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex config: 'built_with.sexp_queries' cannot be set: it says what this maildex supports
status=1
Prefix names starting with lower case letters are reserved: lunch
status=1
Non-word character in prefix name: Lunch-Plan
status=1
status=0"

test_done
