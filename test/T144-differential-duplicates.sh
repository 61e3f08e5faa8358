#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of a duplicate Message-ID's files against the real notmuch 0.37 (T670-duplicate-mid
# of notmuch's suite, and what it leaves out): copies whose headers differ, in one directory read in
# inode order that is not name order, in a second directory, added by a later run where the new copy
# sorts first, re-indexed, and with the first copy deleted before and after `new`. notmuch lists a
# message's files by its directory documents (made as their first file is indexed), then by name;
# shows the first that can be read; keeps the date, subject and From of the copy it indexed first
# until a reindex takes them from the first file; and prints that From (not the shown copy's) in
# show's summary line, mbox's "From " line and reply's attribution. After every step both tools must
# print the same for each of these commands. Both index the one mail root.
# One difference, deliberate (doc/notmuch-differences.md): with the first file deleted and no `new`
# since, notmuch's reply says "On (null), ... wrote:" (it reads Date from the first file, which is
# gone), maildex gives the date of the copy it replies to; that subtest compares the line without it.
. "$(dirname "$0")/test-lib.sh"
differential_setup ""

# copy FILE N FROM [ID]: a copy of <ID> (default dup@example.org) whose subject, body, date and From
# are its own.
copy() {
    mkdir -p "$(dirname "$MAIL_DIR/$1")"
    printf 'From: %s\nTo: Someone <someone@example.org>\nSubject: copy %s\nDate: Fri, 05 Jan 2001 15:4%s:00 +0000\nMessage-ID: <%s>\n\nbody of copy %s\n' \
        "$3" "$2" "$2" "${4:-dup@example.org}" "$2" > "$MAIL_DIR/$1"
}

# outputs TOOL: what TOOL prints of the message <$dup>, its mail root written as MAIL_DIR.
dup=dup@example.org
outputs() {
    for args in "search --output=files id:$dup" "search id:$dup" \
        "search --output=files subject:copy" "show --format=json --body=false id:$dup" \
        "show --format=text id:$dup" "show --format=mbox id:$dup" \
        "reply id:$dup" "show --format=raw --duplicate=2 id:$dup"; do
        echo "-- $args"
        # shellcheck disable=SC2086 # the arguments are words
        "$1" $args 2>&1 | sed "s|$MAIL_DIR|MAIL_DIR|g; s/^thread:[0-9a-f]*/thread:XXX/"
        echo "exit $?"
    done
}

# compare NAME [MASK]: a subtest that both tools print the same (with MASK, a sed script run on both).
compare() {
    test_begin_subtest "$1"
    outputs "$NOTMUCH" | sed "${2:-}" > EXPECTED
    outputs maildex | sed "${2:-}" > OUTPUT
    test_expect_equal_file EXPECTED OUTPUT
}

# b/2 is made first, so a directory new to both is read 2 then 1: b/2 is indexed first, b/1 listed first.
# Its From decodes to two lines (as one of the real corpus's does), which a stored From must keep whole.
copy b/2 2 'Bee =?UTF-8?Q?Two=0Aline?= <two@example.org>'
copy b/1 1 'Bee One <one@example.org>'
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
compare "two copies in one directory, the one indexed first listed second"

copy a/0 0 'Ay Zero <zero@example.org>'
copy b/0 3 'Bee Zero <bzero@example.org>'
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
compare "a later copy that sorts first, and one in a directory made later"

"$NOTMUCH" reindex id:dup@example.org > /dev/null 2>&1
maildex reindex id:dup@example.org > /dev/null 2>&1
compare "reindex takes the headers from the first file"

rm "$MAIL_DIR/b/0"
compare "the first file deleted, before new" 's/^On .*, \(.* wrote:\)$/On DATE, \1/'

"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
compare "the first file deleted, after new"

# A new directory is read in slices of inode ranges (lib/index/relist.c, maildex__relist_next); developer
# builds take the slice's size from the environment, so the 29 files here (copies of two messages
# made in an order that is not name order, and two hard links) are read in 10 slices of 3.
if grep -q '^#define MAILDEX_DEVELOPER' "$MAILDEX_BUILDDIR/config.h"; then
    for n in 7 2 9 4 1 8 3 6 5; do
        copy "s/cur/m$n" "$n" "Es $n <s$n@example.org>" sliced@example.org
        copy "s/cur/a$n" "$n" "Ay $n <a$n@example.org>" other@example.org
        copy "s/cur/z$n" "$n" "Zed $n <z$n@example.org>" other@example.org
    done
    # z8 is made 18th: in inode order its link h8 is 19th, the first of the next slice of 3.
    ln "$MAIL_DIR/s/cur/m3" "$MAIL_DIR/s/cur/h3"
    ln "$MAIL_DIR/s/cur/z8" "$MAIL_DIR/s/cur/h8"
    mkdir -p "$MAIL_DIR/s/cur/sub"
    "$NOTMUCH" new > /dev/null 2>&1
    MAILDEX_TEST_RELIST_SLICE=3 maildex new > /dev/null 2>&1
    dup=sliced@example.org
    compare "a new directory read in slices: the same files, and the same first copy, as notmuch"
    dup=other@example.org
    compare "... for each message"
    test_begin_subtest "... and every file of the directory is indexed"
    test_expect_equal "$(maildex search --output=files path:s/** | wc -l)" 29
else
    test_begin_subtest "a new directory read in slices (developer builds)"
    test_skip_ "not a developer build"
fi

# A new directory the walk could list and the listing for indexing could not open (the shim fails
# every opendir of it after the first): its files wait for the next run, which lists it again
# because its mtime was not recorded, though nothing in it changed.
shim=$MAILDEX_BUILDDIR/test/.libs/vanish-shim.so
test_begin_subtest "a new directory that cannot be listed again for indexing is indexed next run"
if [ -f "$shim" ]; then
    copy "t/cur/one" 1 "Tee <t@example.org>" unlisted@example.org
    touch -d '2 seconds ago' "$MAIL_DIR/t/cur" "$MAIL_DIR/t"
    LD_PRELOAD=$shim MAILDEX_TEST_OPENDIR_FAIL=$MAIL_DIR/t/cur \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" maildex new >/dev/null 2>&1
    before=$(maildex count id:unlisted@example.org)
    maildex new >/dev/null 2>&1
    test_expect_equal "$before $(maildex count id:unlisted@example.org)" "0 1"
else
    test_skip_ "$shim was not built"
fi

test_done
