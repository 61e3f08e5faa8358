#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `reply`: every format and --reply-to on test/corpora/sample, byte for byte as notmuch 0.37 prints it
# (the expected outputs in test/expected/T141-reply/ were made by the real notmuch with the same corpus
# and user), then how From is found when the recipients do not name the user (Delivered-To, the
# Received chain), a Reply-To a list munged, and the errors.
. "$(dirname "$0")/test-lib.sh"

cp -R "$srcdir/test/corpora/sample/." "$MAIL_DIR/"
chmod -R u+w "$MAIL_DIR"
mv "$MAIL_DIR/sent" "$TMP_DIRECTORY/sent"
maildex new > /dev/null
mv "$TMP_DIRECTORY/sent" "$MAIL_DIR/sent"
maildex new > /dev/null
# The corpus's user, with a second address for work.
sed -e 's/^name=.*/name=Test User/' -e 's/^primary_email=.*/primary_email=user@example.org/' \
    -e 's/^other_email=.*/other_email=user@work.example.com;/' "$MAILDEX_CONFIG" > "$MAILDEX_CONFIG.new"
mv "$MAILDEX_CONFIG.new" "$MAILDEX_CONFIG"
EXPECTED=$srcdir/test/expected/T141-reply

cat > "$TMP_DIRECTORY/cases" <<'CASES'
default	id:msg2@example.com
json	--format=json id:msg2@example.com
sexp-sender	--format=sexp --reply-to=sender id:msg3@example.net
headers-only	--format=headers-only --reply-to=sender id:erin.reply.1@example.net
own-message	id:20240104120500.GA1001@example.org
other-address	--format=json id:DB9PR01MB1234ABCD@DB9PR01MB1234.namprd01.prod.outlook.com
latin1	id:resume.1@example.net
several	--reply-to=sender thread:{id:msg1@example.org}
attachment	id:msg3@example.net
CASES

set -f
while IFS='	' read -r name args; do
    test_begin_subtest "reply $args"
    eval "set -- $args"
    maildex reply "$@" 2>&1 | sed "s#$MAIL_DIR#MAIL_DIR#g" > "$TMP_DIRECTORY/$name.out"
    test_expect_equal_file "$EXPECTED/$name.out" "$TMP_DIRECTORY/$name.out"
done < "$TMP_DIRECTORY/cases"
set +f

mkdir -p "$MAIL_DIR/extra/cur"
printf 'Delivered-To: someone@else.org\nDelivered-To: user@work.example.com\nFrom: Zed <zed@example.net>\nTo: all@lists.example.org\nSubject: delivered\nMessage-ID: <delivered@t>\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n\nhi\n' \
    > "$MAIL_DIR/extra/cur/delivered"
printf 'Received: from x by mx.example.com\n\tfor <user@work.example.com>; Mon, 1 Jan 2024\nFrom: Zed <zed@example.net>\nTo: all@lists.example.org\nSubject: Re: received\nMessage-ID: <received@t>\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n\nhi\n' \
    > "$MAIL_DIR/extra/cur/received"
printf 'Received: from x by mail.work.example.com (Postfix)\nFrom: Zed <zed@example.net>\nTo: all@lists.example.org\nReply-To: all@lists.example.org\nSubject: RE: by\nMessage-ID: <by@t>\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n\nhi\r\nthere\n' \
    > "$MAIL_DIR/extra/cur/by"
printf 'From: Zed <zed@example.net>\nReply-To: Zed <zed@example.net>\nSubject: nobody\nMessage-ID: <nobody@t>\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n\nhi\n' \
    > "$MAIL_DIR/extra/cur/nobody"
maildex new > /dev/null

test_begin_subtest "a message with a Reply-To and no recipients: nothing on stderr (notmuch prints a gmime warning)"
output=$(maildex reply --format=headers-only id:nobody@t 2>&1)
test_expect_equal "$output" 'In-Reply-To: <nobody@t>
References: <nobody@t>
To: Zed <zed@example.net>'

test_begin_subtest "From: the user's address in Delivered-To (every instance read)"
output=$(maildex reply --format=headers-only id:delivered@t; maildex reply id:delivered@t | sed -n 1p)
test_expect_equal "$output" 'In-Reply-To: <delivered@t>
References: <delivered@t>
To: Zed <zed@example.net>, all@lists.example.org

From: Test User <user@work.example.com>'

test_begin_subtest "From: the user's address in a Received 'for' clause"
output=$(maildex reply --format=json id:received@t | grep -o '"reply-headers": {[^}]*}')
test_expect_equal "$output" '"reply-headers": {"Subject": "Re: received", "From": "Test User <user@work.example.com>", "To": "Zed <zed@example.net>, all@lists.example.org", "In-reply-to": "<received@t>", "References": "<received@t>"}'

test_begin_subtest "From: the domain of a receiving host; a munged Reply-To gives way to From; CRs dropped"
maildex reply --reply-to=sender id:by@t > "$TMP_DIRECTORY/by"
printf 'From: Test User <user@work.example.com>\nSubject: RE: by\nTo: Zed <zed@example.net>\nIn-Reply-To: <by@t>\nReferences: <by@t>\n\nOn Mon, 01 Jan 2024 10:00:00 +0000, Zed <zed@example.net> wrote:\n> hi\n> there\n' \
    > "$TMP_DIRECTORY/by.want"
test_expect_equal_file "$TMP_DIRECTORY/by.want" "$TMP_DIRECTORY/by"

test_begin_subtest "JSON and S-expressions need exactly one message; a query is required"
output=$(maildex reply --format=sexp '*' 2>&1; echo "exit $?"; maildex reply 2>&1; echo "exit $?")
test_expect_equal "$output" 'Error: search term did not match precisely one message (matched 14 messages).
exit 1
Error: maildex reply requires at least one search term.
exit 1'

test_begin_subtest "reply never writes: the database is untouched"
before=$(maildex count --lastmod '*')
maildex reply '*' > /dev/null
test_expect_equal "$(maildex count --lastmod '*')" "$before"

test_done
