#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Nothing is lost when the mail moves under the indexer (doc/reliability.md, issue 33 points 1 and 2).
# `tag` renaming files for their flags beside `new` and beside `watch` loses no tag and fails no run;
# a rename that readdir did not see keeps its message; the mail root moved away (or replaced) under
# `watch`, with a message marked read in the moved tree meanwhile, loses no message and no tag and
# watch says so; an unreadable folder under watch keeps its mail; a folder `new` found gone and that
# comes back is found again without --full-scan; a message a sync tool moves to another folder while
# the walk runs keeps its tags, and new mail it moves to cur/ before the read is no error (both found
# by T072's soak).
# The fast tier makes each race happen at one chosen moment with test/vanish-shim.c (LD_PRELOAD);
# the loops of `tag` beside `new` and beside `watch` (60 s each, as issue 33 asks; RACE_SECONDS=N
# in the environment for another length) run in the slow tier, with MAILDEX_SLOW_TESTS=1. Every
# wait below is a bounded poll for a condition, never a guessed sleep. MAILDEX_TEST_SHIM names
# another build's shim (to run this file against a build that has none, such as an older main).
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require sqlite3

RACE_SECONDS=${RACE_SECONDS:-60}
N=600
shim=${MAILDEX_TEST_SHIM:-$MAILDEX_BUILDDIR/test/.libs/vanish-shim.so}

# with_shim [VAR=VALUE...] COMMAND...: runs COMMAND with test/vanish-shim.c preloaded (ahead of the
# sanitizer runtime in a sanitizer build, as T062 does).
with_shim() {
    env LD_PRELOAD="$shim" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
WLOG=$TMP_DIRECTORY/watch.log
watch_pid=

# start_watch [without_overrides]: starts `maildex watch --foreground` (as a user without root's
# overrides: see test-lib.sh) and waits until it watches. $watch_pid is the watch itself, never a
# subshell, so that stop_watch signals the program.
start_watch() {
    : > "$WLOG"
    if [ "${1:-}" = without_overrides ] && [ "$(id -u)" = 0 ]; then
        setpriv --bounding-set=-dac_override,-dac_read_search,-fowner \
            maildex watch --foreground --no-hooks 2>> "$WLOG" &
    else
        maildex watch --foreground --no-hooks 2>> "$WLOG" &
    fi
    watch_pid=$!
    wait_log 'watching [0-9]* director'
}

# tag_loops SECONDS: two loops flipping the unread flag (so renaming :2, <-> :2,S) of one message
# at a time, in the background; `wait $tag_pids` waits for them (not for a watch running beside).
tag_loops() {
    end=$(($(date +%s) + $1))
    tag_pids=
    for k in 0 1; do
        (
            i=$k
            while [ "$(date +%s)" -lt "$end" ]; do
                r=$((i * 37 % N))
                maildex tag -unread -- id:race-$r@x || echo "tag -unread failed" >&2
                maildex tag +unread -- id:race-$r@x || echo "tag +unread failed" >&2
                i=$((i + 2))
            done
        ) 2>> "$TMP_DIRECTORY/tag-err" &
        tag_pids="$tag_pids $!"
    done
}

# N messages in one folder, all with the Maildir info ":2," (unread), tagged keep.
python3 - "$MAIL_DIR/race" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for d in ("cur", "new", "tmp"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
for i in range(n):
    with open(os.path.join(root, "cur", "%d.host:2," % i), "w") as f:
        f.write("From: a@example.org\nTo: b@example.org\nSubject: race %d\nMessage-Id: <race-%d@x>\n"
                "Date: Fri, 05 Jan 2001 15:43:00 +0000\n\nbody %d\n" % (i, i, i))
PY
maildex new > /dev/null 2>&1
maildex tag +keep -- '*'

# ---- point 1, fast: each race at one moment (the shim) --------------------------------------------

# `tag` renamed 3.host:2, to :2,S between the walk's listing and its read of the rows, then renamed
# it back before `new` read it: the walk saw the new name only, and the row the old one. The new
# name vanishing is that file renamed again, the old name is there: no error, nothing removed.
age_directories
mv "$MAIL_DIR/race/cur/3.host:2," "$MAIL_DIR/race/cur/3.host:2,S"
touch "$MAIL_DIR/race/cur"
with_shim MAILDEX_TEST_VANISH=$MAIL_DIR/race/cur/3.host:2,S \
    MAILDEX_TEST_VANISH_TO=$MAIL_DIR/race/cur/3.host:2, maildex new > "$TMP_DIRECTORY/out" 2>&1
rc=$?
test_begin_subtest "a flag renamed and renamed back while new ran: exit 0, no 'Error opening', tags kept"
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=tags id:race-3@x | tr '\n' ' ')|$(maildex search --output=files id:race-3@x)|$(maildex count '*') $(maildex count tag:keep)" \
    "0|No new mail.|inbox keep unread |$MAIL_DIR/race/cur/3.host:2,|$N $N"

# A sync tool's rename racing the walk, when readdir saw neither the old name nor the new one.
age_directories
touch "$MAIL_DIR/race/cur"
with_shim MAILDEX_TEST_RENAME_FROM=$MAIL_DIR/race/cur/5.host:2, \
    MAILDEX_TEST_RENAME_TO=$MAIL_DIR/race/cur/5.host:2,S maildex new > "$TMP_DIRECTORY/out" 2>&1
rc=$?
test_begin_subtest "a sync tool's rename that the listing saw at neither name: the message stays"
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=tags id:race-5@x | tr '\n' ' ')" \
    "0|No new mail.|inbox keep unread "

test_begin_subtest "... and the next run finds the rename: the new name, the flag's tag, keep kept"
maildex new > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=files id:race-5@x)|$(maildex search --output=tags id:race-5@x | tr '\n' ' ')" \
    "Processed 1 file in almost no time.
No new mail. Detected 1 file rename.|$MAIL_DIR/race/cur/5.host:2,S|inbox keep "
maildex tag +unread -- id:race-5@x

# ---- point 1, slow tier: loops of tag beside new and beside watch ------------------------------------

if [ "${MAILDEX_SLOW_TESTS:-}" = 1 ]; then
    : > "$TMP_DIRECTORY/tag-err"
    : > "$TMP_DIRECTORY/new-err"
    tag_loops "$RACE_SECONDS"
    new_loop "$end"
    wait $tag_pids
    maildex new > /dev/null 2>> "$TMP_DIRECTORY/new-err" || new_failures=$((new_failures + 1))
    echo "# $new_runs new runs beside the tag loops, $new_failures failed, $(maildex count tag:keep) of $N keep tags"

    test_begin_subtest "tag renaming flags beside new for $RACE_SECONDS s: every message keeps its tag"
    test_expect_equal "$(maildex count '*') $(maildex count tag:keep)" "$N $N"

    test_begin_subtest "... no new run failed, nothing on stderr (no 'Error opening'), every tag ran"
    test_expect_equal "$new_failures|$(cat "$TMP_DIRECTORY/new-err")|$(cat "$TMP_DIRECTORY/tag-err")|$([ $new_runs -ge 2 ] && echo ran)" \
        "0|||ran"

    test_begin_subtest "... every file row names a file that is there, and the store is consistent"
    maildex search --output=files '*' | while read -r f; do [ -e "$f" ] || echo "missing: $f"; done > "$TMP_DIRECTORY/missing"
    test_expect_equal "$(cat "$TMP_DIRECTORY/missing")$(maildex_store_check)" "ok"

    start_watch
    : > "$TMP_DIRECTORY/tag-err"
    tag_loops "$RACE_SECONDS"
    wait $tag_pids
    stop_watch
    maildex new > "$TMP_DIRECTORY/out" 2>&1
    rc=$?

    test_begin_subtest "tag renaming flags beside watch for $RACE_SECONDS s: every message keeps its tag"
    test_expect_equal "$(maildex count '*') $(maildex count tag:keep)" "$N $N"

    test_begin_subtest "... no round failed or removed a message, every tag ran, watch exits 0"
    test_expect_equal "$watch_status|$(grep -E 'failed|[1-9][0-9]* removed|Error' "$WLOG")|$(cat "$TMP_DIRECTORY/tag-err")|$rc" "0|||0"

    test_begin_subtest "... and the store is consistent"
    test_expect_equal "$(maildex_store_check)" "ok"
else
    for t in "tag beside new for $RACE_SECONDS s: every tag kept" "... no new run failed" \
        "... the store is consistent" "tag beside watch for $RACE_SECONDS s: every tag kept" \
        "... no round failed" "... the store is consistent"; do
        test_begin_subtest "$t"
        test_skip_ "the slow tier (MAILDEX_SLOW_TESTS=1)"
    done
fi

# ---- point 2: the mail root moved away and back under watch ----------------------------------------

MOVED=$TMP_DIRECTORY/moved-away
maildex tag +unread -- '*'
start_watch
mv "$MAIL_DIR" "$MOVED"
mv "$MOVED/race/cur/7.host:2," "$MOVED/race/cur/7.host:2,S"   # marked read in the moved tree
wait_log "mail root '$MAIL_DIR' is gone"
touch "$MOVED/race/cur"                                      # more changes while it is away
mv "$MOVED" "$MAIL_DIR"
wait_log "mail root '$MAIL_DIR' is back"
wait_log 'full pass: ' 2

test_begin_subtest "mail root moved away under watch: watch says so once, and that it is back"
test_expect_equal "$(grep -c "mail root '$MAIL_DIR' is gone (moved away, renamed, or a disk not mounted): nothing is removed; waiting for it to come back" "$WLOG") $(grep -c "is back: a full pass follows" "$WLOG")" \
    "1 1"

test_begin_subtest "... no round removed anything; the read mark made in the moved tree is found"
test_expect_equal "$(grep -c ' [1-9][0-9]* removed' "$WLOG")|$(grep 'full pass: ' "$WLOG" | tail -n 1 | sed "s/^$LOG_TIME //; s/ (.*//")" \
    "0|maildex watch: full pass: 0 added, 0 removed, 1 renamed, 1 thread changed"

test_begin_subtest "... every message and tag kept, the read one lost unread"
test_expect_equal "$(maildex count '*') $(maildex count tag:keep) $(maildex count tag:unread)|$(maildex search --output=files id:race-7@x)" \
    "$N $N $((N - 1))|$MAIL_DIR/race/cur/7.host:2,S"

# Moved away and another directory made in its place (a disk not mounted on its mount point).
mv "$MAIL_DIR" "$MOVED"
mkdir "$MAIL_DIR"
mv "$MOVED/race/cur/8.host:2," "$MOVED/race/cur/8.host:2,S"
wait_log "is another directory than the one watched"
rmdir "$MAIL_DIR"
mv "$MOVED" "$MAIL_DIR"
wait_log "mail root '$MAIL_DIR' is back" 2
wait_log 'full pass: ' 3
stop_watch

test_begin_subtest "mail root replaced by another directory: watch says so, removes nothing, waits"
test_expect_equal "$(grep -c "mail root '$MAIL_DIR' is another directory than the one watched (moved away and replaced?): nothing is removed" "$WLOG")|$(grep -c ' [1-9][0-9]* removed' "$WLOG")|$watch_status" \
    "1|0|0"

test_begin_subtest "... and once it is back, every message and tag is there"
test_expect_equal "$(maildex count '*') $(maildex count tag:keep) $(maildex count tag:unread)|$(maildex_store_check)" \
    "$N $N $((N - 2))|ok"

# ---- point 2: an unreadable folder under watch --------------------------------------------------------

if can_drop_overrides; then
    mkdir -p "$MAIL_DIR/other/cur" "$MAIL_DIR/other/new" "$MAIL_DIR/other/tmp"
    generate_message dir=other/cur filename=o1:2,S id=o1@x > /dev/null
    generate_message dir=other/cur filename=o2:2,S id=o2@x > /dev/null
    maildex new > /dev/null 2>&1
    maildex tag +keep -- folder:other
    start_watch without_overrides
    chmod 000 "$MAIL_DIR/other"
    wait_log "'$MAIL_DIR/other': cannot read directory: Permission denied; what the index knows of it is kept"
    test_begin_subtest "an unreadable folder under watch: watch says so, its messages and tags are kept"
    test_expect_equal "$(maildex count folder:other) $(maildex count 'folder:other and tag:keep')|$(grep -c ' [1-9][0-9]* removed' "$WLOG")" \
        "2 2|0"
    chmod 755 "$MAIL_DIR/other"
    mv "$MAIL_DIR/other/cur/o1:2,S" "$MAIL_DIR/other/cur/o1:2,RS"
    n=0
    while [ "$(maildex count tag:replied)" != 1 ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
    stop_watch
    test_begin_subtest "... readable again: the change made meanwhile is found, nothing lost"
    test_expect_equal "$(maildex count folder:other) $(maildex count 'folder:other and tag:keep') $(maildex count tag:replied)|$watch_status" \
        "2 2 1|0"
else
    test_begin_subtest "an unreadable folder under watch: watch says so, its messages and tags are kept"
    test_skip_ "root without setpriv: permissions cannot be dropped"
    test_begin_subtest "... readable again: the change made meanwhile is found, nothing lost"
    test_skip_ "root without setpriv: permissions cannot be dropped"
fi

# ---- point 2: new notices a folder whose contents it lost ---------------------------------------------

# A folder gone while its parent's mtime says nothing changed (the mail root moved away and back
# under a run limited to the folder did this): its row goes, and its parent is listed again next run,
# so the folder found back is indexed without --full-scan.
age_directories
maildex new > /dev/null 2>&1
touch -r "$MAIL_DIR/race" "$TMP_DIRECTORY/stamp"
mv "$MAIL_DIR/race/cur" "$TMP_DIRECTORY/cur-away"
touch -m -r "$TMP_DIRECTORY/stamp" "$MAIL_DIR/race"
maildex new > "$TMP_DIRECTORY/out" 2>&1
mv "$TMP_DIRECTORY/cur-away" "$MAIL_DIR/race/cur"
touch -m -r "$TMP_DIRECTORY/stamp" "$MAIL_DIR/race"
maildex new > "$TMP_DIRECTORY/out2" 2>&1
test_begin_subtest "a folder gone and back while its parent's mtime stayed: new finds it again"
test_expect_equal "$(cat "$TMP_DIRECTORY/out")|$(tail -n 1 "$TMP_DIRECTORY/out2")|$(maildex count folder:race)" \
    "No new mail. Removed $N messages.|Added $N new messages to the database.|$N"

# ---- point 1: a message moved to another folder under a new name, racing the walk -----------------

# A sync tool moves a message to another folder under a new name (mbsync's move: a new UID) after
# the walk looked at that folder and before it listed the one the message left: the walk finds the
# message's only file gone and its new name nowhere. The message and its tags stay (main removed it,
# and the next run added it back without its tags); the next run finds the move.
mkdir -p "$MAIL_DIR/archive/cur" "$MAIL_DIR/archive/new" "$MAIL_DIR/archive/tmp"
generate_message dir=archive/cur filename=a1:2,S id=a1@x > /dev/null   # not a new folder: listed once
maildex new > /dev/null 2>&1
maildex tag +moved -- id:race-9@x
age_directories
touch "$MAIL_DIR/race/cur"
with_shim MAILDEX_TEST_RENAME_FROM=$MAIL_DIR/race/cur/9.host:2, \
    MAILDEX_TEST_RENAME_TO=$MAIL_DIR/archive/cur/1900000000.9_1.host,U=77:2,S maildex new > "$TMP_DIRECTORY/out" 2>&1
rc=$?
test_begin_subtest "moved to a folder the walk had looked at already: exit 0, the message and its tags stay"
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=tags id:race-9@x | tr '\n' ' ')" \
    "0|No new mail.|inbox moved unread "

test_begin_subtest "... and the next run finds it moved: its new name, its tags, the flag its name gives (S)"
maildex new > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=files id:race-9@x)|$(maildex search --output=tags id:race-9@x | tr '\n' ' ')|$(maildex_store_check)" \
    "Processed 1 file in almost no time.
No new mail. Detected 1 file rename.|$MAIL_DIR/archive/cur/1900000000.9_1.host,U=77:2,S|inbox moved |ok"

# New mail a sync tool moves from new/ to cur/ (adding ":2,") between the walk and the read: not a
# file that vanished (notmuch's "Unexpected error", exit 75, which main gave) but a rename; the next
# run reads it in cur/.
printf 'From: a@example.org\nSubject: delivered\nMessage-Id: <delivered@x>\nDate: Fri, 05 Jan 2001 15:43:00 +0000\n\nbody\n' \
    > "$MAIL_DIR/race/new/1900000001.1_1.host"
with_shim MAILDEX_TEST_VANISH=$MAIL_DIR/race/new/1900000001.1_1.host \
    MAILDEX_TEST_VANISH_TO=$MAIL_DIR/race/cur/1900000001.1_1.host:2, maildex new > "$TMP_DIRECTORY/out" 2>&1
rc=$?
test_begin_subtest "new mail moved from new/ to cur/ between the walk and the read: exit 0, no error"
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(maildex count id:delivered@x)" "0|No new mail.|0"

test_begin_subtest "... and the next run reads it in cur/"
maildex new > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(tail -n 1 "$TMP_DIRECTORY/out")|$(maildex search --output=files id:delivered@x)" \
    "Added 1 new message to the database.|$MAIL_DIR/race/cur/1900000001.1_1.host:2,"


# mbsync gives a message a new UID by renaming it (",U=5" to ",U=6"), and renames it again (",U=7")
# between the walk and the read: the name the walk listed vanished, but it is the same file under
# the same unique name (the ",U=" field is not part of it). Not an error (main exited 75 with "Error
# opening"), and the message keeps its tags; the next run finds the rename without reading the mail.
printf 'From: a@example.org\nSubject: uid\nMessage-Id: <uid@x>\nDate: Fri, 05 Jan 2001 15:43:00 +0000\n\nbody\n' \
    > "$MAIL_DIR/race/cur/1900000002.2_1.host,U=5:2,S"
maildex new > /dev/null 2>&1
maildex tag +keep -- id:uid@x
mv "$MAIL_DIR/race/cur/1900000002.2_1.host,U=5:2,S" "$MAIL_DIR/race/cur/1900000002.2_1.host,U=6:2,S"
with_shim MAILDEX_TEST_VANISH="$MAIL_DIR/race/cur/1900000002.2_1.host,U=6:2,S" \
    MAILDEX_TEST_VANISH_TO="$MAIL_DIR/race/cur/1900000002.2_1.host,U=7:2,S" maildex new > "$TMP_DIRECTORY/out" 2>&1
rc=$?
test_begin_subtest "a new UID given twice, the second between the walk and the read: exit 0, no error, tags kept"
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=tags id:uid@x | tr '\n' ' ')" \
    "0|No new mail.|inbox keep "

test_begin_subtest "... and the next run finds the rename: the name with the new UID, the tags"
maildex new > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(cat "$TMP_DIRECTORY/out")|$(maildex search --output=files id:uid@x)|$(maildex search --output=tags id:uid@x | tr '\n' ' ')|$(maildex_store_check)" \
    "Processed 1 file in almost no time.
No new mail. Detected 1 file rename.|$MAIL_DIR/race/cur/1900000002.2_1.host,U=7:2,S|inbox keep |ok"

test_done
