#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Messages of the same date, in the order notmuch 0.37 lists them: by date, then in the order they
# were indexed, in both sort directions (Xapian breaks timestamp ties by ascending document id), with
# --offset and --limit cutting that list; thread order, a thread's authors and its subject follow from
# it. Four messages share one second and are indexed in two `new` runs, between one a minute earlier
# and one a minute later. The expected outputs are the real notmuch's for the same steps.
. "$(dirname "$0")/test-lib.sh"

# The folder is known before the mail arrives, so each run reads its new files in name order (a new
# directory is read in inode order, as notmuch reads it).
mkdir -p "$MAIL_DIR/ties/cur" "$MAIL_DIR/ties/new" "$MAIL_DIR/ties/tmp"
maildex new --quiet
tie="Sat, 01 Jan 2000 12:00:00 +0000"
generate_message "dir=ties/cur" "filename=a-early" "id=early@example.org" "from=Eve <eve@example.org>" \
    "subject=Early" "date=Sat, 01 Jan 2000 11:59:00 +0000" >/dev/null
generate_message "dir=ties/cur" "filename=b-t1" "id=t1@example.org" "from=Ann <ann@example.org>" \
    "subject=Tie one" "date=$tie" >/dev/null
generate_message "dir=ties/cur" "filename=c-t2" "id=t2@example.org" "from=Bob <bob@example.org>" \
    "subject=Tie two" "date=$tie" >/dev/null
generate_message "dir=ties/cur" "filename=d-late" "id=late@example.org" "from=Lou <lou@example.org>" \
    "subject=Late" "date=Sat, 01 Jan 2000 12:01:00 +0000" >/dev/null
maildex new --quiet
generate_message "dir=ties/cur" "filename=e-t3" "id=t3@example.org" "from=Cat <cat@example.org>" \
    "subject=Tie three" "date=$tie" >/dev/null
generate_message "dir=ties/cur" "filename=f-t4" "id=t4@example.org" "from=Dan <dan@example.org>" \
    "subject=Tie four" "date=$tie" "in_reply_to=t1@example.org" >/dev/null
maildex new --quiet

# ids SORT [OPTION...]: the messages, one line.
ids() {
    sort=$1
    shift
    maildex search --output=messages --sort="$sort" "$@" '*' | sed 's/^id://; s/@example.org$//' | tr '\n' ' '
}

test_begin_subtest "messages, oldest first: equal dates in the order they were indexed"
test_expect_equal "$(ids oldest-first)" 'early t1 t2 t3 t4 late '

test_begin_subtest "messages, newest first: equal dates in the order they were indexed"
test_expect_equal "$(ids newest-first)" 'late t1 t2 t3 t4 early '

test_begin_subtest "messages, --offset and --limit cut the list as ordered, oldest first"
output=$(ids oldest-first --limit=2; echo; ids oldest-first --offset=1 --limit=2; echo
         ids oldest-first --offset=2 --limit=2; echo; ids oldest-first --offset=4)
test_expect_equal "$output" 'early t1 
t1 t2 
t2 t3 
t4 late '

test_begin_subtest "messages, --offset and --limit cut the list as ordered, newest first"
output=$(ids newest-first --limit=2; echo; ids newest-first --offset=2 --limit=2; echo
         ids newest-first --offset=4)
test_expect_equal "$output" 'late t1 
t2 t3 
t4 early '

test_begin_subtest "messages, json, oldest first"
output=$(maildex search --format=json --output=messages --sort=oldest-first 'date:@946728000..@946728000')
test_expect_equal "$output" '["t1@example.org",
"t2@example.org",
"t3@example.org",
"t4@example.org"]'

test_begin_subtest "threads in the order of their first match, oldest first"
output=$(maildex search --sort=oldest-first '*' | maildex_search_sanitize)
test_expect_equal "$output" 'thread:XXX   2000-01-01 [1/1] Eve; Early (inbox unread)
thread:XXX   2000-01-01 [2/2] Ann, Dan; Tie one (inbox unread)
thread:XXX   2000-01-01 [1/1] Bob; Tie two (inbox unread)
thread:XXX   2000-01-01 [1/1] Cat; Tie three (inbox unread)
thread:XXX   2000-01-01 [1/1] Lou; Late (inbox unread)'

test_begin_subtest "threads in the order of their first match, newest first"
output=$(maildex search --sort=newest-first '*' | maildex_search_sanitize)
test_expect_equal "$output" 'thread:XXX   2000-01-01 [1/1] Lou; Late (inbox unread)
thread:XXX   2000-01-01 [2/2] Ann, Dan; Tie one (inbox unread)
thread:XXX   2000-01-01 [1/1] Bob; Tie two (inbox unread)
thread:XXX   2000-01-01 [1/1] Cat; Tie three (inbox unread)
thread:XXX   2000-01-01 [1/1] Eve; Early (inbox unread)'

# A thread's subject is its newest (oldest) match's; of two of the same date, the one indexed first.
test_begin_subtest "summary, json, both sorts: subject and authors from the first indexed of a tie"
output=$(maildex search --format=json --sort=oldest-first 'date:@946728000..@946728000'
         maildex search --format=json --sort=newest-first --limit=1 'date:@946728000..@946728000')
test_expect_equal "$output" '[{"thread": "0000000000000002", "timestamp": 946728000, "date_relative": "2000-01-01", "matched": 2, "total": 2, "authors": "Ann, Dan", "subject": "Tie one", "query": ["id:t1@example.org id:t4@example.org", null], "tags": ["inbox", "unread"]},
{"thread": "0000000000000003", "timestamp": 946728000, "date_relative": "2000-01-01", "matched": 1, "total": 1, "authors": "Bob", "subject": "Tie two", "query": ["id:t2@example.org", null], "tags": ["inbox", "unread"]},
{"thread": "0000000000000005", "timestamp": 946728000, "date_relative": "2000-01-01", "matched": 1, "total": 1, "authors": "Cat", "subject": "Tie three", "query": ["id:t3@example.org", null], "tags": ["inbox", "unread"]}]
[{"thread": "0000000000000002", "timestamp": 946728000, "date_relative": "2000-01-01", "matched": 2, "total": 2, "authors": "Ann, Dan", "subject": "Tie one", "query": ["id:t1@example.org id:t4@example.org", null], "tags": ["inbox", "unread"]}]'

test_begin_subtest "threads, --offset and --limit count threads as ordered, oldest first"
output=$(maildex search --sort=oldest-first --offset=2 --limit=2 '*' | maildex_search_sanitize)
test_expect_equal "$output" 'thread:XXX   2000-01-01 [1/1] Bob; Tie two (inbox unread)
thread:XXX   2000-01-01 [1/1] Cat; Tie three (inbox unread)'

test_begin_subtest "address, both sorts"
output=$(maildex address --sort=oldest-first '*' | tr '\n' ';'; echo; maildex address --sort=newest-first '*' | tr '\n' ';')
test_expect_equal "$output" 'Eve <eve@example.org>;Ann <ann@example.org>;Bob <bob@example.org>;Cat <cat@example.org>;Dan <dan@example.org>;Lou <lou@example.org>;
Lou <lou@example.org>;Ann <ann@example.org>;Bob <bob@example.org>;Cat <cat@example.org>;Dan <dan@example.org>;Eve <eve@example.org>;'

test_begin_subtest "show, threaded and unthreaded, oldest first"
output=$(maildex show --format=json --body=false --sort=oldest-first '*' | grep -o '"id": "[^"]*"' | tr '\n' ' '; echo
         maildex show --format=json --body=false --unthreaded --sort=oldest-first '*' | grep -o '"id": "[^"]*"' | tr '\n' ' ')
test_expect_equal "$output" '"id": "early@example.org" "id": "t1@example.org" "id": "t4@example.org" "id": "t2@example.org" "id": "t3@example.org" "id": "late@example.org" 
"id": "early@example.org" "id": "t1@example.org" "id": "t2@example.org" "id": "t3@example.org" "id": "t4@example.org" "id": "late@example.org" '

test_begin_subtest "count is the same either way"
output=$(maildex count 'date:@946728000..@946728000'; maildex count --output=threads 'date:@946728000..@946728000')
test_expect_equal "$output" '4
3'

test_done
