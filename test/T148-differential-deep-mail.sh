#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Deeply nested mail against the real notmuch 0.37 (issue 33 point 7): multipart/mixed nested 100,
# 1,024 (the deepest gmime 3.2's parser builds), 1,025 and 5,000 levels deep, and attached messages
# (message/rfc822) nested 100 and 600 deep, each with one text part at the bottom. maildex must index
# the bottom text exactly where notmuch does (body: finds the message), and print the same `show` in
# JSON and text and the same `reply` for each; neither may crash. The limits are in lib/mime/parse.h
# and lib/mime/show.h, the promise in doc/reliability.md.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup "deleted;spam;"

mkdir -p "$MAIL_DIR/cur" "$MAIL_DIR/new" "$MAIL_DIR/tmp"
python3 - "$MAIL_DIR/cur" <<'PY'
import os, sys
HEAD = ("From: Deep Sender <deep@example.org>\nTo: bob@example.org\nSubject: %s\nMessage-ID: <%s@deep>\n"
        "Date: Mon, 01 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\n")
def write(name, text):
    with open(os.path.join(sys.argv[1], name + ":2,S"), "w") as f:
        f.write(text)
for n in (100, 1024, 1025, 5000):
    name = "multipart%d" % n
    parts = ['Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i) for i in range(n)]
    write(name, HEAD % (name, name) + "".join(parts) + "Content-Type: text/plain\n\nbottom%s word\n" % name
          + "".join("--b%d--\n" % i for i in reversed(range(n))))
for n in (100, 600):
    name = "rfc822x%d" % n
    inner = "Content-Type: text/plain\n\nbottom%s word\n" % name
    for i in range(n):
        inner = ("Content-Type: message/rfc822\n\nFrom: level%d@example.org\nSubject: level %d\n%s" % (i, i, inner))
    write(name, HEAD % (name, name) + inner)
PY
NAMES="multipart100 multipart1024 multipart1025 multipart5000 rfc822x100 rfc822x600"

test_begin_subtest "both index all six"
"$NOTMUCH" new > /dev/null 2>&1
test_expect_equal "$(maildex new 2>&1 | tail -n 1) $(maildex count '*') $("$NOTMUCH" count '*')" \
    "Added 6 new messages to the database. 6 6"

for name in $NAMES; do
    test_begin_subtest "$name: the bottom text is found where notmuch finds it"
    test_expect_equal "$(maildex count "body:bottom$name")" "$("$NOTMUCH" count "body:bottom$name")"
done

test_begin_subtest "the bottom text of 1,024 levels is indexed, of 1,025 not (gmime's limit), as notmuch"
test_expect_equal "$(maildex count body:bottommultipart1024) $(maildex count body:bottommultipart1025)" "1 0"

for name in $NAMES; do
    for cmd in "show --format=json" "show --format=text" "reply"; do
        test_begin_subtest "$name: $cmd prints what notmuch prints"
        # shellcheck disable=SC2086
        maildex $cmd "id:$name@deep" 2> "$TMP_DIRECTORY/md.err" | maildex_date_sanitize > "$TMP_DIRECTORY/md.out"
        # shellcheck disable=SC2086
        "$NOTMUCH" $cmd "id:$name@deep" 2> /dev/null | maildex_date_sanitize > "$TMP_DIRECTORY/nm.out"
        if [ -s "$TMP_DIRECTORY/md.err" ]; then
            test_failure_ "maildex said: $(head -n 3 "$TMP_DIRECTORY/md.err")"
        else
            test_expect_equal_file "$TMP_DIRECTORY/nm.out" "$TMP_DIRECTORY/md.out"
        fi
    done
done

test_done
