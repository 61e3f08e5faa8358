#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gzip-compressed mail files (notmuch 0.37's .gz messages): indexed, searched and shown decompressed,
# found again after being compressed in place (a rename), kept through dump and restore.
. "$(dirname "$0")/test-lib.sh"

generate_message id=plain@x subject=plain 'body=uncompressed words' dir=new >/dev/null
generate_message id=packed@x subject=packed 'body=squeezed words' dir=new >/dev/null
gzip "$MAIL_DIR/new/msg-002"

test_begin_subtest "a gzip file is indexed and its words found"
output=$(maildex new 2>&1 | grep -v -e ^Found -e ^Processed; maildex search --output=files squeezed | sed "s|$MAIL_DIR|MAIL_DIR|")
test_expect_equal "$output" "Added 2 new messages to the database.
MAIL_DIR/new/msg-002.gz"

test_begin_subtest "show --format=raw prints the decompressed bytes"
output=$(maildex show --format=raw id:packed@x)
test_expect_equal "$output" "$(gzip -dc "$MAIL_DIR/new/msg-002.gz")"

test_begin_subtest "show --format=mbox and the text format read it decompressed"
output=$(maildex show --format=mbox id:packed@x | sed -n -e '1s/ .*//p' -e '/squeezed/p'
    maildex show id:packed@x | grep -A1 'part{' | tr -d '\f')
test_expect_equal "$output" "From
squeezed words
part{ ID: 1, Content-type: text/plain
squeezed words"

test_begin_subtest "show --format=raw --part=1 and reply read it decompressed"
output=$(maildex show --format=raw --part=1 id:packed@x; maildex reply id:packed@x | grep -e '^Subject' -e '^>')
test_expect_equal "$output" "squeezed words
Subject: Re: packed
> squeezed words"

test_begin_subtest "compressing a file in place is a rename, and its tags stay"
maildex tag +kept id:plain@x
gzip "$MAIL_DIR/new/msg-001"
output=$(maildex new 2>&1 | grep -v -e ^Found -e ^Processed; maildex search --output=files tag:kept | sed "s|$MAIL_DIR|MAIL_DIR|")
test_expect_equal "$output" "No new mail. Detected 1 file rename.
MAIL_DIR/new/msg-001.gz"

test_begin_subtest "dump and restore round trip with compressed mail"
maildex dump > dump.txt
maildex tag -kept -inbox '*'
maildex restore < dump.txt
test_expect_equal "$(maildex dump)" "$(cat dump.txt)"

test_begin_subtest "a damaged gzip file is not mail and breaks nothing"
printf '\037\213garbage' > "$MAIL_DIR/new/broken.gz"
head -c 60 "$MAIL_DIR/new/msg-002.gz" > "$MAIL_DIR/new/cut.gz"
output=$(maildex new 2>&1 | grep -v -e ^Found -e ^Processed | sed "s|$MAIL_DIR|MAIL_DIR|"; maildex count '*')
test_expect_equal "$output" "Note: Ignoring non-mail file: MAIL_DIR/new/broken.gz
Note: Ignoring non-mail file: MAIL_DIR/new/cut.gz
No new mail.
2"

test_done
