#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A hook that never returns (doc/reliability.md, "Hooks end"): under `new`, `server` and `watch` it
# is ended by hooks.timeout, by a cancel and by SIGTERM, with every process it started; reads are
# answered meanwhile and the program goes on (or stops, for SIGTERM) as without it. Nothing here
# waits on a clock: each step waits for a file or an answer, bounded so a hang fails.
. "$(dirname "$0")/test-lib.sh"

HOOKS=$MAIL_DIR/.maildex/hooks
CLIENT="python3 $TEST_DIRECTORY/server-client.py"
mkdir -p "$HOOKS"

# A hook that records its pid and its child's, then waits on the child for ever.
hang_hook() {
    printf '#!/bin/sh\necho $$ > "%s/hook.pid"\nsleep 100000 &\necho $! > "%s/child.pid"\nwait\n' \
        "$TMP_DIRECTORY" "$TMP_DIRECTORY" > "$HOOKS/$1"
    chmod +x "$HOOKS/$1"
    rm -f "$TMP_DIRECTORY/hook.pid" "$TMP_DIRECTORY/child.pid"
}

# waitfor FILE: until FILE exists (at most 60 s).
waitfor() {
    n=0
    while [ ! -s "$1" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
}

# gone PIDFILE: the process is gone (a zombie left to a container's init counts as gone); waits
# up to 10 s for it, since its group is ended with SIGTERM, then SIGKILL two seconds later.
gone() {
    pid=$(cat "$1") n=0
    while [ $n -lt 200 ]; do
        state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
        [ -z "$state" ] || [ "$state" = Z ] && { echo gone; return; }
        sleep 0.05
        n=$((n + 1))
    done
    echo "alive: $pid"
}

generate_message >/dev/null
maildex new --quiet --no-hooks

test_begin_subtest "new: a pre-new past hooks.timeout is ended with its child, new fails with a message"
hang_hook pre-new
maildex config set hooks.timeout 1
timeout 60 maildex new > out 2> err
test_expect_equal "$?|$(cat err)|$(gone "$TMP_DIRECTORY/hook.pid")|$(gone "$TMP_DIRECTORY/child.pid")" \
    "1|Error: pre-new hook still running after 1 s (hooks.timeout): its processes were ended|gone|gone"

test_begin_subtest "new: hooks.timeout that is not a number of seconds is refused"
maildex config set hooks.timeout soon
timeout 60 maildex new > out 2> err
test_expect_equal "$?|$(cat err)" "1|Error: hooks.timeout must be seconds from 0 (no limit) to 86400, not 'soon'"

test_begin_subtest "new: SIGTERM while pre-new hangs (no limit) ends the hook's processes with the program"
maildex config set hooks.timeout 0
hang_hook pre-new
timeout 60 maildex new > out 2> err &
new_pid=$!
waitfor "$TMP_DIRECTORY/child.pid"
kill -TERM $(pgrep -P $new_pid maildex || echo $new_pid)
wait $new_pid
test_expect_equal "$?|$(gone "$TMP_DIRECTORY/hook.pid")|$(gone "$TMP_DIRECTORY/child.pid")" "143|gone|gone"

test_begin_subtest "server: while pre-new hangs, a reader is answered; cancelling new ends the hook; the next writer runs"
hang_hook pre-new
N=$(maildex count '*')
{
    printf '%s\n' '{"id":1,"argv":["new"]}'
    waitfor "$TMP_DIRECTORY/child.pid"
    printf '%s\n' '{"id":2,"argv":["count","*"]}' '{"id":3,"argv":["tag","+after-hang","--","*"]}' '#wait 2' '{"cancel":1}'
} | $CLIENT send "$(command -v maildex)" > server.out
test_expect_equal "$(cat server.out)|$(gone "$TMP_DIRECTORY/hook.pid")|$(gone "$TMP_DIRECTORY/child.pid")|$(maildex count tag:after-hang)" \
    "1 130
maildex server: request 1 cancelled
2 0
$N
3 0
server 0|gone|gone|$N"

test_begin_subtest "server: SIGTERM while pre-new hangs: the server exits, no hook process is left"
hang_hook pre-new
mkfifo requests
timeout 60 maildex server < requests > server-term.out 2>&1 &
server_pid=$!
exec 7> requests
printf '%s\n' '{"id":1,"argv":["new"]}' >&7
waitfor "$TMP_DIRECTORY/child.pid"
kill -TERM $server_pid
wait $server_pid
status=$?
exec 7>&-
test_expect_equal "$status|$(gone "$TMP_DIRECTORY/hook.pid")|$(gone "$TMP_DIRECTORY/child.pid")" "0|gone|gone"

WLOG=$TMP_DIRECTORY/watch.log
deliver() {
    printf 'From: a@b\nTo: c@d\nSubject: %s\nMessage-Id: <%s>\n\nbody\n' "$1" "$1" > "$MAIL_DIR/tmp/$1"
    mv "$MAIL_DIR/tmp/$1" "$MAIL_DIR/new/$1"
}
mkdir -p "$MAIL_DIR/tmp" "$MAIL_DIR/new"
rm -f "$HOOKS/pre-new"

test_begin_subtest "watch: a post-new past hooks.timeout is ended, and the next round indexes"
maildex config set hooks.timeout 1
hang_hook post-new
timeout 120 maildex watch --foreground 2> "$WLOG" &
watch_pid=$!
n=0; while ! grep -q 'watching [0-9]* director' "$WLOG" && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
deliver first-round@x
waitfor "$TMP_DIRECTORY/child.pid"
first_hook=$(cat "$TMP_DIRECTORY/hook.pid") first_child=$(cat "$TMP_DIRECTORY/child.pid")
rm -f "$TMP_DIRECTORY/hook.pid" "$TMP_DIRECTORY/child.pid"
deliver second-round@x
waitfor "$TMP_DIRECTORY/child.pid" # the next round's post-new: the first round ended
echo "$first_hook" > first-hook.pid
echo "$first_child" > first-child.pid
# the second round's hook hangs too and may reach its own second by the time this is read
reported=$(grep -c 'post-new hook still running after 1 s' "$WLOG")
test_expect_equal "$(maildex count id:second-round@x)|$(gone first-hook.pid)|$(gone first-child.pid)|$([ "$reported" -ge 1 ] && echo reported)" \
    "1|gone|gone|reported"

test_begin_subtest "watch: SIGTERM while post-new hangs: watch exits 0, no hook process is left"
kill -TERM $watch_pid
wait $watch_pid
test_expect_equal "$?|$(gone "$TMP_DIRECTORY/hook.pid")|$(gone "$TMP_DIRECTORY/child.pid")" "0|gone|gone"

# timeout(1) and systemd send SIGTERM to the process and again to its group: whenever the second one
# lands (during the hook, the last round, or after the loop let its signals go), the exit stays clean.
test_begin_subtest "watch and server: SIGTERM again and again while they stop: each exits 0"
# storm PID: SIGTERM as fast as the shell sends it until PID is gone or a zombie (at most about a
# minute: a program that hung is then seen by the wait that follows, and its status).
storm() {
    rounds=0
    while [ $rounds -lt 600 ]; do
        state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
        [ -z "$state" ] || [ "$state" = Z ] && return
        i=0
        while [ $i -lt 2000 ] && kill -TERM "$1" 2>/dev/null; do i=$((i + 1)); done
        sleep 0.1
        rounds=$((rounds + 1))
    done
}
if [ -n "${TSAN_OPTIONS:-}" ]; then
    # ThreadSanitizer defers a signal's handler and may run it inside another one; under a storm
    # that deadlocks libuv's own signal lock (a pipe read by every handler): the sanitizer's way of
    # delivering signals, not the program's. Subtest 7 covers the single SIGTERM under TSan.
    test_skip_ "a storm of signals under ThreadSanitizer (deferred, nested handlers)"
else
    rm -f "$HOOKS/post-new" "$HOOKS/pre-new"
    hang_hook post-new
    maildex watch --foreground 2> "$WLOG" &
    watch_pid=$!
    n=0; while ! grep -q 'watching [0-9]* director' "$WLOG" && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
    deliver third-round@x
    waitfor "$TMP_DIRECTORY/child.pid"
    storm $watch_pid
    wait $watch_pid
    watch_status=$?
    rm -f "$HOOKS/post-new"
    mkfifo requests2
    maildex server < requests2 > server2.out 2>&1 &
    server_pid=$!
    exec 7> requests2
    printf '%s\n' '{"id":1,"argv":["count","*"]}' >&7
    waitfor server2.out # answered: its signals are set up (a SIGTERM before that ends it, as it should)
    storm $server_pid
    wait $server_pid
    server_status=$?
    exec 7>&-
    test_expect_equal "$watch_status|$server_status|$(gone "$TMP_DIRECTORY/hook.pid")|$(gone "$TMP_DIRECTORY/child.pid")" "0|0|gone|gone"
fi

test_done
