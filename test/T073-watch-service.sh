#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex watch` as a service (doc/watch.md, issue 32 item 4): one watch per store (a second is
# refused naming the first's pid, exits 0; two started at once leave one; after a kill -9 a new one
# starts), --status both ways, --stop, the log (timestamped lines in --log FILE, the journal's
# priorities when stderr is the journal, a detached watch writing nothing to the stderr it left),
# and `server --watch` beside a running watch: it does not watch (the hook once per round), passes
# the watch's rounds on as its events, takes over when the watch ends (stopped, or killed with -9),
# and --stop leaves it alone. Every wait is a bounded poll.
. "$(dirname "$0")/test-lib.sh"
test_require python3

WLOG=$TMP_DIRECTORY/watch.log
DB=$MAIL_DIR/.maildex/maildex.db
HOOKS=$MAIL_DIR/.maildex/hooks
HOOKLOG=$TMP_DIRECTORY/hook.log
CLIENT="python3 $TEST_DIRECTORY/server-client.py"
watch_pid=

# start_watch [ARG...]: `maildex watch --foreground ARG...`, its stderr in $WLOG, waited for.
start_watch() {
    : > "$WLOG"
    maildex watch --foreground "$@" 2>> "$WLOG" &
    watch_pid=$!
    wait_log 'watching [0-9]* director'
}

# ended PID: whether PID has ended (a zombie not yet waited for counts as ended).
ended() {
    ! kill -0 "$1" 2>/dev/null || [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" = Z ]
}

# gone PID: waits (up to 20 s) until PID has ended; says "gone" or "running".
gone() {
    n=0
    while ! ended "$1" && [ $n -lt 400 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    ended "$1" && echo gone || echo running
}

deliver cur existing@x
maildex new --quiet

test_begin_subtest "--status without a watch: says so, exit 1"
test_expect_equal "$(maildex watch --status; echo "status $?")" "no watch runs for '$DB'
status 1"

test_begin_subtest "a second watch is refused, naming the first's pid, and exits 0"
start_watch
second=$(maildex watch --foreground 2>&1; echo "status $?")
test_expect_equal "$second" "maildex watch: a watch already runs for '$DB' (pid $watch_pid)
status 0"

test_begin_subtest "--status with a watch: its pid, since when, its log, the last round; exit 0"
maildex watch --status > status.out
test_expect_equal "$?|$(sed -n 1p status.out)|$(sed -n 2p status.out | grep -c "^since: $LOG_TIME\$")|$(sed -n 3p status.out)|$(sed -n 4p status.out | grep -c "^last round: $LOG_TIME .*added, .*removed")" \
    "0|a watch runs for '$DB' (pid $watch_pid)|1|log: stderr|1"

test_begin_subtest "after kill -9 of the watch nothing is left: --status says none, a new watch starts"
killed=$watch_pid
kill -9 "$watch_pid"
wait "$watch_pid" 2>/dev/null
none=$(maildex watch --status; echo "status $?")
start_watch
test_expect_equal "$none|$(maildex watch --status | sed -n 1p)|$([ "$watch_pid" != "$killed" ] && echo new)" \
    "no watch runs for '$DB'
status 1|a watch runs for '$DB' (pid $watch_pid)|new"

test_begin_subtest "--stop: SIGTERM to the watch, waits until it has ended, says so; the watch exits 0"
stopped=$(maildex watch --stop; echo "status $?")
wait "$watch_pid"
test_expect_equal "$stopped|$?|$(maildex watch --status)" \
    "stopped the watch for '$DB' (pid $watch_pid)
status 0|0|no watch runs for '$DB'"

test_begin_subtest "--stop without a watch: says so, exit 0"
test_expect_equal "$(maildex watch --stop; echo "status $?")" "no watch runs for '$DB'
status 0"

test_begin_subtest "two watches started at once: one watches, the other says so and exits 0"
: > "$WLOG"
maildex watch --foreground 2>> "$WLOG" &
one=$!
maildex watch --foreground 2>> "$WLOG" &
two=$!
wait_log 'watching [0-9]* director'
n=0
until ended $one || ended $two || [ $n -ge 400 ]; do
    sleep 0.05
    n=$((n + 1))
done
if ended $one; then loser=$one watch_pid=$two; else loser=$two watch_pid=$one; fi
wait $loser
loser_status=$?
test_expect_equal "$loser_status|$(grep -c "maildex watch: a watch already runs for '$DB' (pid $watch_pid)\$" "$WLOG")|$(grep -c 'watching [0-9]* director' "$WLOG")|$(ended $watch_pid && echo gone || echo running)" \
    "0|1|1|running"
stop_watch

test_begin_subtest "--log=FILE: appended, each line led by the local time (ISO 8601, offset); stderr quiet"
echo "an older line" > "$TMP_DIRECTORY/file.log"
: > "$WLOG"
TZ=XYZ-05:30 maildex watch --foreground --log="$TMP_DIRECTORY/file.log" 2>> "$WLOG" &
watch_pid=$!
WLOG=$TMP_DIRECTORY/file.log wait_log 'watching [0-9]* director'
deliver new logged@x
indexed id:logged@x 1
WLOG=$TMP_DIRECTORY/file.log wait_log ' 1 added'
stop_watch
test_expect_equal "$(sed -n 1p "$TMP_DIRECTORY/file.log")|$(sed 1d "$TMP_DIRECTORY/file.log" | grep -vc "^$LOG_TIME maildex watch: ")|$(grep -c '^[0-9-]*T[0-9:.]*+05:30 maildex watch: 1 added, 0 removed, 0 renamed, 1 thread changed ([0-9.]* ms)$' "$TMP_DIRECTORY/file.log")|$(cat "$WLOG")" \
    "an older line|0|1|"

test_begin_subtest "stderr that is the journal (JOURNAL_STREAM): sd-daemon priorities, no time"
: > "$WLOG"
JOURNAL_STREAM=$(stat -c '%d:%i' "$WLOG") maildex watch --foreground 2>> "$WLOG" &
watch_pid=$!
wait_log 'watching [0-9]* director'
journal_status=$(maildex watch --status | sed -n 3p)
deliver new journal@x
indexed id:journal@x 1
wait_log ' 1 added'
stop_watch
test_expect_equal "$(grep -c '^<5>maildex watch: watching [0-9]* directories' "$WLOG")|$(grep -c '^<6>maildex watch: 1 added' "$WLOG")|$(grep -vc '^<[3-6]>maildex watch: ' "$WLOG")|$journal_status" \
    "1|1|0|log: the journal"

test_begin_subtest "detached without --log: nothing on the stderr it left; the default log has it, hooks' output too"
mkdir -p "$HOOKS"
printf '#!/bin/sh\necho "post-new wrote this to stderr" >&2\n' > "$HOOKS/post-new"
chmod +x "$HOOKS/post-new"
DEFAULT_LOG=$HOME/.local/state/maildex/watch.log
maildex watch 2> "$TMP_DIRECTORY/left.err"
started=$?
WLOG=$DEFAULT_LOG wait_log 'watching [0-9]* director'
watch_pid=$(sed -n 's/.*watching .*(pid \([0-9]*\))$/\1/p' "$DEFAULT_LOG" | tail -n 1)
deliver new detached@x
indexed id:detached@x 1
WLOG=$DEFAULT_LOG wait_log 'post-new wrote this'
detached_status=$(maildex watch --status | sed -n 3p)
maildex watch --stop > /dev/null
test_expect_equal "$started|$(wc -c < "$TMP_DIRECTORY/left.err")|$(grep -c "^$LOG_TIME maildex watch: 1 added" "$DEFAULT_LOG")|$(grep -c '^post-new wrote this to stderr$' "$DEFAULT_LOG")|$detached_status|$(gone "$watch_pid")" \
    "0|0|1|1|log: $DEFAULT_LOG|gone"

test_begin_subtest "SIGHUP after logrotate moved the log away: the watch and its hooks write to the new file"
ROTATED=$TMP_DIRECTORY/rotated.log
rm -f "$ROTATED" "$ROTATED.1"
maildex watch --log="$ROTATED"
WLOG=$ROTATED wait_log 'watching [0-9]* director'
watch_pid=$(sed -n 's/.*watching .*(pid \([0-9]*\))$/\1/p' "$ROTATED")
mv "$ROTATED" "$ROTATED.1"
kill -HUP "$watch_pid"
WLOG=$ROTATED wait_log 'config reloaded'
# the reload's full pass first: a message delivered during it is that pass's, not a round's
WLOG=$ROTATED wait_log 'full pass: '
deliver new rotated@x
indexed id:rotated@x 1
WLOG=$ROTATED wait_log 'post-new wrote this'
maildex watch --stop > /dev/null
test_expect_equal "$(grep -c '1 added\|post-new' "$ROTATED.1")|$(grep -c "^$LOG_TIME maildex watch: 1 added" "$ROTATED")|$(grep -c '^post-new wrote this to stderr$' "$ROTATED")|$(gone "$watch_pid")" \
    "0|1|1|gone"

# The post-new hook counts its runs; the watch logs each round that changed something. With a watch
# running, `server --watch` must not watch too: it says so, passes each of the watch's rounds on to
# its subscribed client as its own watch's would be, and the hook runs once per round. When the
# watch stops, the server watches. $TRACE has the client's answers and events as they come, so the
# shell delivers the next message only once the last round's event is there.
test_begin_subtest "server --watch beside a watch: does not watch, says so; the hook runs once per round"
printf '#!/bin/sh\necho post-new >> "%s"\n' "$HOOKLOG" > "$HOOKS/post-new"
: > "$HOOKLOG"
start_watch
SERVER_ERR=$TMP_DIRECTORY/server.err
TRACE=$TMP_DIRECTORY/client.trace
: > "$SERVER_ERR"
: > "$TRACE"
{
    printf '%s\n' '{"id":1,"subscribe":true}'
    WLOG=$SERVER_ERR wait_log "a watch already runs for '$DB' (pid $watch_pid): not watching here"
    WLOG=$TRACE wait_log '^end 1 0$'
    for i in 1 2 3; do
        deliver new "beside-$i@x"
        indexed "id:beside-$i@x" 1 >&2
        WLOG=$HOOKLOG wait_log '^post-new$' "$i"
        WLOG=$TRACE wait_log '^event .*"added": 1' "$i"
    done
    printf '%s\n' '{"id":2,"argv":["count","tag:inbox"]}' '#wait 2'
    maildex watch --stop > "$TMP_DIRECTORY/stop-beside.out"
    WLOG=$SERVER_ERR wait_log "the other watch of '$DB' has ended: watching here"
    WLOG=$SERVER_ERR wait_log 'watching [0-9]* director'
    maildex watch --status > "$TMP_DIRECTORY/status-server.out"
    maildex watch --stop > "$TMP_DIRECTORY/stop-server.out" 2>&1
    echo "$?" >> "$TMP_DIRECTORY/stop-server.out"
    deliver new taken-over@x
    printf '%s\n' '#added 4' '{"id":3,"argv":["count","id:taken-over@x"]}' '#wait 3'
} | SERVER_CLIENT_TRACE=$TRACE $CLIENT send "$(command -v maildex)" --watch > beside.out 2>> "$SERVER_ERR"
stop_watch # stopped by --stop above; a SIGTERM again when the client failed before it
rounds=$(grep -c 'maildex watch: 1 added' "$WLOG")
test_expect_equal "$watch_status|$rounds|$(grep -c '^post-new$' "$HOOKLOG")" "0|3|4"

test_begin_subtest "... its client hears of the watch's rounds: each message added, the thread it joined"
thread=$(maildex search --output=threads id:beside-1@x | sed 's/^thread://')
relayed=$(sed -n '/^event/{p;q}' beside.out)
test_expect_equal "$(grep '^event ' beside.out | sed -n 1,3p | grep -c '^event {"added": 1, "error": null, "full": false, "removed": 0, "renamed": 0, "status": 0, "threads": \["[0-9a-f]\{16\}"\]}$')|$relayed" \
    "3|event {\"added\": 1, \"error\": null, \"full\": false, \"removed\": 0, \"renamed\": 0, \"status\": 0, \"threads\": [\"$thread\"]}"

# line NUMBER of the first line of $SERVER_ERR matching REGEX
first_line() {
    grep -n -- "$1" "$SERVER_ERR" | head -n 1 | cut -d: -f1
}

test_begin_subtest "... it watches only once the other has ended: one full pass of its own, then its rounds"
deferred=$(first_line 'not watching here') ended=$(first_line 'has ended: watching here')
watching=$(first_line 'watching [0-9]* director')
test_expect_equal "$([ "$deferred" -lt "$ended" ] && [ "$ended" -lt "$watching" ] && echo in-order)|$(grep -c '^event .*"full": true' beside.out)|$(grep -c '^event .*"added": [1-9]' beside.out)|$(sed -n '/^3 0$/{n;p}' beside.out)" \
    "in-order|1|4|1"

test_begin_subtest "... --status names the server; --stop leaves it alone and says why, exit 1"
test_expect_equal "$(sed -n 1p "$TMP_DIRECTORY/status-server.out")|$(cat "$TMP_DIRECTORY/stop-server.out")" \
    "a watch runs for '$DB' (pid $(sed -n 's/.*watching .*(pid \([0-9]*\))$/\1/p' "$SERVER_ERR"), in maildex server)|maildex watch: the watch for '$DB' (pid $(sed -n 's/.*watching .*(pid \([0-9]*\))$/\1/p' "$SERVER_ERR"), in maildex server) is the server's: stop that server to stop it
1"

# A watch killed with -9 writes nothing more to the lock file: the server finds the lock free on its
# look every second.
test_begin_subtest "server --watch beside a watch killed with -9: takes over and indexes"
start_watch
: > "$SERVER_ERR"
{
    WLOG=$SERVER_ERR wait_log "a watch already runs for '$DB' (pid $watch_pid): not watching here"
    kill -9 "$watch_pid"
    WLOG=$SERVER_ERR wait_log "the other watch of '$DB' has ended: watching here"
    WLOG=$SERVER_ERR wait_log 'watching [0-9]* director'
    deliver new after-kill@x
    indexed id:after-kill@x 1 >&2
    printf '%s\n' '{"id":1,"argv":["count","id:after-kill@x"]}' '#wait 1'
} | $CLIENT send "$(command -v maildex)" --watch > killed.out 2>> "$SERVER_ERR"
wait "$watch_pid" 2>/dev/null
test_expect_equal "$(grep -c 'has ended: watching here' "$SERVER_ERR")|$(sed -n '/^1 0$/{n;p}' killed.out)|$(tail -n 1 killed.out)" \
    "1|1|server 0"

test_begin_subtest "--status and --stop together are refused"
test_expect_code 1 maildex watch --status --stop

test_done
