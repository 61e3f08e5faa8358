#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# User-defined fields (notmuch's index.header.PREFIX=Header): the header's value is searchable as
# PREFIX:word, only there; config set checks the prefix with notmuch's messages; reindex picks up a
# newly configured field.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

generate_message id=one@x subject=alpha 'header=List-Id: Notmuch mailing list <notmuch.notmuchmail.org>' \
    body=nothing >/dev/null
generate_message id=two@x subject=beta 'header=List-Id: Other list <other.example.org>' \
    'body=notmuch in the body only' >/dev/null
generate_message id=three@x subject=gamma 'header=X-Spam: Yes, planning' body=plain >/dev/null
maildex new >/dev/null 2>&1

test_begin_subtest "config set refuses prefix names notmuch refuses, with its messages"
output=$(maildex config set index.header.list List-Id 2>&1; echo "status=$?"
    maildex config set index.header.l:st List-Id 2>&1; echo "status=$?"
    maildex config set index.header. List-Id 2>&1; echo "status=$?"
    maildex config set "index.header.$(printf '\377')" List-Id 2>&1 | LC_ALL=C sed 's/:.*$//')
test_expect_equal "$output" "Prefix names starting with lower case letters are reserved: list
status=1
Non-word character in prefix name: l:st
status=1
Empty prefix name: index.header.
status=1
Invalid utf8"

test_begin_subtest "a field configured after indexing finds nothing until reindex"
maildex config set index.header.List List-Id
output=$(maildex count List:notmuch)
test_expect_equal "$output" "0"

test_begin_subtest "after reindex PREFIX:word finds the header's words, and only there"
maildex reindex '*'
output=$(maildex search --output=messages List:notmuch; echo --; maildex search --output=messages notmuch)
test_expect_equal "$output" "id:one@x
--
id:two@x"

test_begin_subtest "phrases, quoted words, stems and prefixes in a field"
output=$(maildex count List:notmuchmail.org; maildex count 'List:"mailing list"'; maildex count 'List:"list mailing"'
    maildex count List:lists; maildex count 'List:"lists"'; maildex count 'List:notm*'; maildex count 'List:oth*')
test_expect_equal "$output" "1
1
0
2
0
1
1"

test_begin_subtest "two fields do not share words; a field combines with other terms"
maildex config set index.header.Spam X-Spam
maildex reindex '*'
output=$(maildex count Spam:yes; maildex count List:yes; maildex count Spam:plan; maildex count 'Spam:yes and subject:gamma'
    maildex count 'List:list and not List:notmuch')
test_expect_equal "$output" "1
0
1
1
1"

test_begin_subtest "sexp queries know the fields: words, phrases, starts-with and *"
output=$(maildex count --query=sexp '(List notmuch)'; maildex count --query=sexp '(List "mailing list")'
    maildex count --query=sexp '(List (starts-with oth))'; maildex count --query=sexp '(List *)'
    maildex count --query=sexp '(Spam *)')
test_expect_equal "$output" "1
1
1
2
1"

test_begin_subtest "an unknown prefix is still words"
output=$(maildex count Nope:notmuch)
test_expect_equal "$output" "0"

test_begin_subtest "a field set in the config file's [index] group is used too"
printf '\n[index]\nheader.Test=List-Id\n' >> "$MAILDEX_CONFIG"
maildex reindex '*'
output=$(maildex count Test:notmuch)
test_expect_equal "$output" "1"

test_begin_subtest "a field's value leaves the index with its message"
rm "$MAIL_DIR/cur/msg-001"
maildex new >/dev/null 2>&1
output=$(maildex count List:notmuch; sqlite3 "$MAIL_DIR/.maildex/maildex.db" "PRAGMA integrity_check; SELECT count(*) FROM texts WHERE fields LIKE '%notmuchmail%'")
test_expect_equal "$output" "0
ok
0"

test_done
