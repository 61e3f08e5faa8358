#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex watch` (doc/watch.md): mail delivered, flagged, moved between folders and deleted is seen
# by search; a folder made while watching is indexed; a lost event (a simulated
# inotify overflow) and a directory that cannot be watched lead to full passes that leave the store
# `new` would make; SIGTERM in a burst loses nothing; a `new` from cron runs beside it; SIGHUP
# re-reads the config; post-new runs after a round.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

WLOG=$TMP_DIRECTORY/watch.log
HOOKS=$MAIL_DIR/.maildex/hooks
watch_pid=

# start_watch [ENV=VALUE...]: starts `maildex watch --foreground` and waits until it watches.
start_watch() {
    : > "$WLOG"
    env "$@" maildex watch --foreground 2>> "$WLOG" &
    watch_pid=$!
    wait_log 'watching [0-9]* director'
}

# deliver_many DIR NAME N: N messages NAME-0@x ... delivered into DIR one after the other.
deliver_many() {
    i=0
    while [ $i -lt "$3" ]; do
        deliver "$1" "$2-$i@x"
        i=$((i + 1))
    done
}

# same_as_new: the store equals the one `new` makes from scratch of the same mail (tags, files,
# thread sizes), and is consistent.
same_as_new() {
    rm -rf "$TMP_DIRECTORY/fresh"
    mkdir -p "$TMP_DIRECTORY/fresh"
    (cd "$MAIL_DIR" && tar --exclude=./.maildex -cf - .) | (cd "$TMP_DIRECTORY/fresh" && tar -xf -)
    sed "s|^path=.*|path=$TMP_DIRECTORY/fresh|" "$MAILDEX_CONFIG" > "$TMP_DIRECTORY/fresh-config"
    MAILDEX_CONFIG=$TMP_DIRECTORY/fresh-config maildex new --quiet --no-hooks
    maildex_store_dump > "$TMP_DIRECTORY/watched.dump"
    maildex_store_dump "$TMP_DIRECTORY/fresh/.maildex/maildex.db" > "$TMP_DIRECTORY/fresh.dump"
    if cmp -s "$TMP_DIRECTORY/watched.dump" "$TMP_DIRECTORY/fresh.dump"; then
        maildex_store_check
    else
        diff "$TMP_DIRECTORY/fresh.dump" "$TMP_DIRECTORY/watched.dump"
    fi
}

deliver cur existing-1@x
deliver new existing-2@x

test_begin_subtest "watch starts with a full pass: the mail already there is indexed"
start_watch
test_expect_equal "$(maildex count '*')" "2"

test_begin_subtest "a message delivered into new/ is searchable"
deliver new arrived@x
test_expect_equal "$(indexed id:arrived@x 1 && maildex search --output=tags id:arrived@x | tr '\n' ' ')" \
    "inbox unread "

test_begin_subtest "moved into cur/ with the S flag: the new file and no unread"
maildex tag +kept -- id:arrived@x
mv "$MAIL_DIR/new/arrived@x" "$MAIL_DIR/cur/arrived@x:2,S"
test_expect_equal "$(indexed 'id:arrived@x and not tag:unread' 1 &&
    maildex search --output=files id:arrived@x && maildex search --output=tags id:arrived@x | tr '\n' ' ')" \
    "$MAIL_DIR/cur/arrived@x:2,S
inbox kept "

test_begin_subtest "a new folder made while watching is indexed, with mail delivered at once"
mkdir -p "$MAIL_DIR/archive/cur" "$MAIL_DIR/archive/new" "$MAIL_DIR/archive/tmp"
deliver archive/new in-new-folder@x
test_expect_equal "$(indexed folder:archive 1 && maildex search --output=files folder:archive)" \
    "$MAIL_DIR/archive/new/in-new-folder@x"

test_begin_subtest "moved between folders: found in the other folder, tags kept"
mv "$MAIL_DIR/cur/arrived@x:2,S" "$MAIL_DIR/archive/cur/"
test_expect_equal "$(indexed 'folder:archive and id:arrived@x' 1 &&
    maildex search --output=tags id:arrived@x | tr '\n' ' ')" "inbox kept "

test_begin_subtest "deleted: gone from search"
rm "$MAIL_DIR/archive/cur/arrived@x:2,S"
test_expect_equal "$(indexed id:arrived@x 0 && echo gone)" "gone"

test_begin_subtest "a folder removed while watching leaves the store"
rm -r "$MAIL_DIR/archive"
test_expect_equal "$(indexed folder:archive 0 && echo gone)" "gone"

test_begin_subtest "a message written in place is read once it is closed, not half-written"
{
    printf 'From: s@example.org\nTo: t@example.org\nSubject: slow\nMessage-Id: <slow@x>\n'
    sleep 0.5
    printf '\nthe last words\n'
} > "$MAIL_DIR/new/slow@x"
test_expect_equal "$(indexed 'id:slow@x and last' 1 && echo whole)" "whole"

test_begin_subtest "SIGTERM: the watch stops with status 0"
stop_watch
test_expect_equal "$watch_status" "0"

test_begin_subtest "... and the store is the one new makes of the same mail"
test_expect_equal "$(same_as_new)" "ok"

test_begin_subtest "post-new runs after a round that indexed something, and not without one (--no-hooks)"
mkdir -p "$HOOKS"
printf '#!/bin/sh\necho "post-new $(maildex count id:hooked@x)" >> "%s/hook.log"\n' "$TMP_DIRECTORY" > "$HOOKS/post-new"
chmod +x "$HOOKS/post-new"
start_watch
deliver new hooked@x
indexed id:hooked@x 1 >/dev/null
wait_log '1 added'
stop_watch
maildex watch --foreground --no-hooks 2> "$WLOG" &
watch_pid=$!
wait_log 'watching'
deliver new not-hooked@x
indexed id:not-hooked@x 1 >/dev/null
stop_watch
test_expect_equal "$(cat "$TMP_DIRECTORY/hook.log")" "post-new 1"
rm -f "$HOOKS/post-new"

test_begin_subtest "SIGHUP re-reads the config: new.tags changed while watching"
start_watch
sed -i 's/^tags=unread;inbox;$/tags=unread;inbox;watched;/' "$MAILDEX_CONFIG"
kill -HUP "$watch_pid"
wait_log 'config reloaded'
deliver new after-hup@x
indexed id:after-hup@x 1 >/dev/null
test_expect_equal "$(maildex search --output=tags id:after-hup@x | tr '\n' ' ')" "inbox unread watched "
sed -i 's/^tags=unread;inbox;watched;$/tags=unread;inbox;/' "$MAILDEX_CONFIG"
stop_watch
maildex tag -watched -- tag:watched

test_begin_subtest "a round that fails is logged and retried as a full pass; SIGTERM still exits 0"
start_watch
sed -i 's|^ignore=$|ignore=/[/|' "$MAILDEX_CONFIG"
kill -HUP "$watch_pid"
wait_log 'indexing failed'
sed -i 's|^ignore=/\[/$|ignore=|' "$MAILDEX_CONFIG"
kill -HUP "$watch_pid"
wait_log 'full pass: ' 2
deliver new retried@x
indexed id:retried@x 1 >/dev/null
stop_watch
test_expect_equal "$watch_status:$(grep -c 'indexing failed: .*new.ignore; a full pass in 5 s' "$WLOG"):$(maildex count id:retried@x)" \
    "0:1:1"

test_begin_subtest "SIGTERM in a burst loses nothing: what was not indexed, the next new indexes"
start_watch
deliver_many new burst 300 &
burst=$!
sleep 0.5
kill -TERM "$watch_pid"
wait "$watch_pid"
watch_status=$?
wait $burst
maildex new --quiet --no-hooks
test_expect_equal "$watch_status:$(maildex count subject:burst):$(same_as_new)" "0:300:ok"

test_begin_subtest "a new from cron beside the watch: both index, neither fails, the same store"
start_watch
deliver_many cur cron 100 &
burst=$!
failed=0
while kill -0 $burst 2>/dev/null; do
    maildex new --quiet --no-hooks || failed=$((failed + 1))
done
wait $burst
indexed subject:cron 100 >/dev/null
stop_watch
test_expect_equal "$failed:$watch_status:$(maildex count subject:cron):$(same_as_new)" "0:0:100:ok"

test_begin_subtest "a round that waits for another writer says so in the log, then indexes"
SHIM=$MAILDEX_BUILDDIR/test/.libs/fault-shim.so
# the program linked to the shared libsqlite3, whose sqlite3_step the shim can interpose on
SHIM_PATH=$MAILDEX_BUILDDIR/test/shared-sqlite:$PATH
if [ -f "$SHIM" ]; then
    start_watch
    # The shim is preloaded before ASan's runtime in a sanitizer build, which ASan must be told to allow.
    env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_STALL_IN_WRITE=2000 \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        maildex tag +stalled -- id:existing-1@x &
    tagger=$!
    wait_writer $tagger
    deliver new waited@x
    wait_log 'waiting for another maildex writer'
    wait $tagger
    indexed id:waited@x 1 >/dev/null
    stop_watch
    maildex tag -stalled -- tag:stalled
    test_expect_equal "$(grep -c "^$LOG_TIME maildex watch: waiting for another maildex writer (pid [0-9]*)\$" "$WLOG"):$(maildex count id:waited@x)" "1:1"
else
    test_skip_ "test/fault-shim.so is built by make check"
fi

# A round takes its folders, then waits for another indexer (a `new` from cron; here flock(1) holds
# the indexer lock); meanwhile a sync tool moves a message from that folder to another one under a
# new name (mbsync's move: a new UID). The round finds the message's only file gone while the folder
# it went to is left to the next round, and that folder's recorded mtime (0: it was listed in the
# second it changed) cannot say it changed: the round must keep the message (main removed it, and
# the next round added it back without its tags), and the next round, which lists both folders,
# finds the move.
test_begin_subtest "moved to a folder outside a round that waits for a writer: the message and its tags stay"
mkdir -p "$MAIL_DIR/wa/cur" "$MAIL_DIR/wa/new" "$MAIL_DIR/wb/cur" "$MAIL_DIR/wb/new"
deliver wa/cur mover@x && mv "$MAIL_DIR/wa/cur/mover@x" "$MAIL_DIR/wa/cur/mover@x:2,S"
deliver wa/cur flagged@x && mv "$MAIL_DIR/wa/cur/flagged@x" "$MAIL_DIR/wa/cur/flagged@x:2,"
deliver wb/cur other@x && mv "$MAIL_DIR/wb/cur/other@x" "$MAIL_DIR/wb/cur/other@x:2,S"
maildex new --quiet --no-hooks
maildex tag +keep -- id:mover@x
start_watch
sqlite3 "$MAIL_DIR/.maildex/maildex.db" "UPDATE directories SET mtime = 0 WHERE path = 'wb/cur'"
rm -f "$TMP_DIRECTORY/held" "$TMP_DIRECTORY/release"
flock "$MAIL_DIR/.maildex/maildex.db-lock" sh -c 'touch "$1/held"; while [ ! -e "$1/release" ]; do sleep 0.02; done' \
    sh "$TMP_DIRECTORY" &
holder=$!
until [ -e "$TMP_DIRECTORY/held" ]; do sleep 0.02; done
mv "$MAIL_DIR/wa/cur/flagged@x:2," "$MAIL_DIR/wa/cur/flagged@x:2,F"
wait_log 'waiting for another maildex writer'
mv "$MAIL_DIR/wa/cur/mover@x:2,S" "$MAIL_DIR/wb/cur/1900000000.7_1.host,U=7:2,S"
touch "$TMP_DIRECTORY/release"
wait $holder
indexed 'folder:wb/cur and id:mover@x and not folder:wa/cur' 1 > /dev/null
stop_watch
test_expect_equal "$(maildex search --output=files id:mover@x)|$(maildex search --output=tags id:mover@x | tr '\n' ' ')|$(grep -c ' [1-9][0-9]* removed' "$WLOG")|$(maildex_store_check)" \
    "$MAIL_DIR/wb/cur/1900000000.7_1.host,U=7:2,S|inbox keep |0|ok"
rm -r "$MAIL_DIR/wa" "$MAIL_DIR/wb"
maildex new --quiet --no-hooks

test_begin_subtest "an inotify overflow (simulated): logged, a full pass, the store new would make"
start_watch MAILDEX_WATCH_TEST_OVERFLOW=3
if grep -q 'test hooks' "$WLOG"; then
    for i in 1 2 3 4 5 6 7 8 9 10; do
        deliver new "lost-$i@x"
    done
    indexed subject:lost 10 >/dev/null
    wait_log 'full pass: ' 2
    stop_watch
    test_expect_equal "$(grep -c 'events were lost' "$WLOG"):$(grep -c 'full pass: ' "$WLOG"):$(maildex count subject:lost):$(same_as_new)" \
        "1:2:10:ok"
else
    stop_watch
    test_skip_ "a developer build reads the test hooks"
fi

test_begin_subtest "the watch limit reached: logged, and the first pass still indexes every folder"
mkdir -p "$MAIL_DIR/limited/cur" "$MAIL_DIR/limited/new" "$MAIL_DIR/limited/tmp"
deliver limited/cur before-limit@x
start_watch MAILDEX_WATCH_TEST_LIMIT=2
if grep -q 'test hooks' "$WLOG"; then
    stop_watch
    test_expect_equal "$(grep -c 'cannot watch .*No space left on device (the limit fs.inotify.max_user_watches); a full pass every 60 s instead' "$WLOG"):$(maildex count id:before-limit@x)" \
        "1:1"
else
    stop_watch
    test_skip_ "a developer build reads the test hooks"
fi

test_begin_subtest "without --foreground it detaches once started, and the detached watch indexes"
maildex watch --log="$WLOG"
started=$?
wait_log 'watching'
deliver new detached@x
found=$(indexed id:detached@x 1 && echo found)
# --stop finds the detached watch by the store's watch lock (its log lines no longer end in its pid)
stopped=$(maildex watch --stop > /dev/null 2>&1 && echo stopped)
test_expect_equal "$started:$found:$stopped:$(maildex watch --status > /dev/null 2>&1; echo $?)" "0:found:stopped:1"

test_begin_subtest "--debounce must be milliseconds from 1 to 60000"
test_expect_code 1 maildex watch --foreground --debounce=0

test_done
