#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `tag` killed with SIGKILL between its commit and its Maildir renames. A tag change that changes
# flags commits its tags with the renames it owes recorded, then renames the files and records their
# new names in a second transaction (lib/message/renames.c). Killed anywhere in there, the next `tag` or
# `new` finishes the renames: the tag change is not lost, no file is, and the store ends exactly as
# after an uninterrupted run. Killed before the first commit, nothing changed at all. The kills are
# placed by test/fault-shim.c (LD_PRELOAD), at the Nth COMMIT or the Nth rename.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

SHIM=$MAILDEX_BUILDDIR/test/.libs/fault-shim.so
# the program linked to the shared libsqlite3, whose sqlite3_step the shim can interpose on
SHIM_PATH=$MAILDEX_BUILDDIR/test/shared-sqlite:$PATH
if [ ! -f "$SHIM" ]; then
    echo "1..0 # SKIP $SHIM is built by 'make check'"
    exit 0
fi
# The sanitizer build wants its runtime first in the library list; the shim comes before it.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
DB=$MAIL_DIR/.maildex/maildex.db

# Six messages, six files to rename for `-unread`: two in cur/ (one flagged), one already seen
# (no rename), two in new/ (they move to cur/), and one message with a copy in two folders.
generate_message id=a@x filename=a:2, > /dev/null
generate_message id=b@x filename=b:2,F > /dev/null
generate_message id=c@x filename=c:2,S > /dev/null
generate_message id=d@x dir=new filename=d > /dev/null
generate_message id=e@x dir=new filename=e > /dev/null
generate_message id=f@x dir=one/cur filename=f:2, > /dev/null
cp "$MAIL_DIR/one/cur/f:2," "$TMP_DIRECTORY/f"
mkdir -p "$MAIL_DIR/two/cur" "$MAIL_DIR/one/new" "$MAIL_DIR/two/new"
mv "$TMP_DIRECTORY/f" "$MAIL_DIR/two/cur/f:2,"
maildex new > /dev/null
PRISTINE=$TMP_DIRECTORY/pristine
cp -a "$MAIL_DIR" "$PRISTINE"

CHANGE="-unread +crash"
# The whole state: every file on disk, then the store's messages with their tags and files.
state() {
    (cd "$MAIL_DIR" && find . -path ./.maildex -prune -o -type f -print | sort)
    maildex_store_dump
}

# reference REPAIR...: the state after an uninterrupted `tag $CHANGE -- '*'` (or none, with
# "none") and then REPAIR, from the pristine store.
reference() {
    rm -rf "$MAIL_DIR" && cp -a "$PRISTINE" "$MAIL_DIR"
    [ "$1" = none ] || maildex tag $CHANGE -- '*'
    shift
    "$@" > /dev/null 2>&1
    state
}

# killed SETTING: from the pristine store, `tag $CHANGE -- '*'` with the shim's SETTING; sets
# killed_rc (137 when the kill landed) and readable ("ok" when the database opens, reads and is
# intact right after the kill).
killed() {
    rm -rf "$MAIL_DIR" && cp -a "$PRISTINE" "$MAIL_DIR"
    env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" "$1" maildex tag $CHANGE -- '*' > /dev/null 2>&1
    killed_rc=$?
    if [ "$(maildex count '*' 2>&1)" = 6 ] && [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ]; then
        readable=ok
    else
        readable="count '*': $(maildex count '*' 2>&1)"
    fi
}

owed() { sqlite3 "$DB" "SELECT count(*) FROM file_renames"; }

tagged_then_tag=$(reference tagged maildex tag +after -- id:nobody@x)
tagged_then_new=$(reference tagged maildex new)
untouched=$(reference none maildex new)

# check NAME SETTING REPAIR EXPECTED: a kill at SETTING, then REPAIR must reach EXPECTED, with no
# rename owed and a `new` after it finding nothing to reconcile.
check() {
    killed "$2"
    test_begin_subtest "$1: killed (exit 137), the database intact"
    test_expect_equal "$killed_rc|$readable" "137|ok"
    shift 2
    expected=$1
    shift
    "$@" > "$TMP_DIRECTORY/repair.out" 2>&1
    rc=$?
    test_begin_subtest "... '$*' repairs it: the same files and tags as without the kill"
    test_expect_equal "$rc|$(state)" "0|$expected"
    test_begin_subtest "... no rename owed, and new finds nothing to reconcile"
    age_directories
    test_expect_equal "$(owed)|$(maildex new 2>&1)" "0|No new mail."
}

check "before the tag change commits" MAILDEX_KILL_AT_COMMIT=1 "$untouched" maildex new
check "after the commit, before the first rename" MAILDEX_KILL_AT_RENAME=1 "$tagged_then_tag" \
    maildex tag +after -- id:nobody@x
check "after the commit, before the fourth rename" MAILDEX_KILL_AT_RENAME=4 "$tagged_then_new" maildex new
check "after three renames, before their rows are committed" MAILDEX_KILL_AFTER_RENAME=3 \
    "$tagged_then_tag" maildex tag +after -- id:nobody@x
check "after every rename, before their rows are committed" MAILDEX_KILL_AFTER_RENAME=6 \
    "$tagged_then_new" maildex new

# The repair killed too: what the first run left, the second finishes.
killed MAILDEX_KILL_AFTER_RENAME=2
env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_KILL_AFTER_RENAME=2 maildex tag +after -- id:nobody@x > /dev/null 2>&1
second_rc=$?
test_begin_subtest "a repair killed in its turn: both kills landed, the third run finishes"
maildex tag +after -- id:nobody@x
test_expect_equal "$killed_rc $second_rc|$(state)|$(owed)" "137 137|$tagged_then_tag|0"

test_begin_subtest "the tag change of a killed run is kept: its tags are there before any repair"
killed MAILDEX_KILL_AT_RENAME=1
test_expect_equal "$(sqlite3 "$DB" "SELECT count(*) FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE t.name = 'crash'")|$(owed)" "6|6"

test_done
