# SPDX-License-Identifier: GPL-3.0-or-later
# tmux.sh: what the tests of the terminal clients (T760 alot, T761 aerc, T762 neomutt) share, sourced
# after setup.sh: a tmux server of the test's own (a private socket, no user config) running one
# client in a 200x50 pane, keys sent to it, and waits on what the pane shows. A wait polls the screen
# until the text is there or its time is up, never sleeps a fixed time as synchronisation: on a
# loaded two-core machine a client may take seconds to draw. The server is killed when the script
# exits, whatever happens. Each client keeps its config and state in the test's directory, and all
# three show the same mail (tui_mail). Nothing here knows a client.

test_require tmux
# A test run from inside tmux must not talk to the user's server.
unset TMUX TMUX_PANE || true
# The socket in a directory of its own, short (a socket's path has at most 107 bytes) and removed
# with the server: tmux leaves the file behind.
TUI_DIR=$(mktemp -d "${TMPDIR:-/tmp}/maildex-tui.XXXXXX")
trap 'tui_stop_; rm -rf "$TUI_DIR"' EXIT
# Each client's config, data, cache and state in the test's directory (HOME is there already).
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg/config XDG_DATA_HOME=$TMP_DIRECTORY/xdg/data
XDG_CACHE_HOME=$TMP_DIRECTORY/xdg/cache XDG_STATE_HOME=$TMP_DIRECTORY/xdg/state
export XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
# The screen a failed wait saw, for the subtest's message.
TUI_SCREEN=$TMP_DIRECTORY/screen
# Every wait of a script ends by this time (seconds since the epoch; tui_start sets it 60 s on, or
# $MAILDEX_TUI_SECONDS): a client that hangs fails the rest of the script in a minute, not in a
# minute per wait. A client's run takes a few seconds alone, 5 to 10 times as long on a loaded
# two-core machine.
TUI_DEADLINE=0

tui() {
    tmux -S "$TUI_DIR/socket" -f /dev/null "$@"
}

# tui_stop_: kills a client still running when the script ends (a failed run) and the server. The
# client first: one stuck in a read ignores the hangup the server's end sends it.
tui_stop_() {
    for tui_pid in $(tui list-panes -a -F '#{pane_pid}' 2>/dev/null); do
        pkill -KILL -P "$tui_pid" 2>/dev/null
    done
    tui kill-server 2>/dev/null
}

# tui_start NAME COMMAND...: COMMAND in a new session NAME (200 columns, 50 lines), from the test's
# directory and environment; the pane stays after COMMAND exits, and $TMP_DIRECTORY/NAME.status
# then holds its exit status, $TMP_DIRECTORY/NAME.stderr its stderr.
tui_start() {
    tui_pane=$1
    shift
    rm -f "$TMP_DIRECTORY/$tui_pane.status"
    TUI_DEADLINE=$(($(date +%s) + ${MAILDEX_TUI_SECONDS:-60}))
    printf '#!/bin/sh\n"$@" 2> "%s"\necho $? > "%s"\n' \
        "$TMP_DIRECTORY/$tui_pane.stderr" "$TMP_DIRECTORY/$tui_pane.status" > "$TMP_DIRECTORY/$tui_pane.run"
    # one command queue: the option is set before the server can see the client end
    tui new-session -d -s "$tui_pane" -x 200 -y 50 sh "$TMP_DIRECTORY/$tui_pane.run" "$@" \; \
        set-option -t "$tui_pane" remain-on-exit on > /dev/null
}

# tui_screen NAME: what the pane shows, one line a row.
tui_screen() {
    tui capture-pane -p -t "$1" 2>/dev/null
}

# tui_keys NAME KEY...: tmux's send-keys (key names: Enter, Escape, C-x; -l for literal text).
tui_keys() {
    tui_pane=$1
    shift
    tui send-keys -t "$tui_pane" "$@"
}

# tui_end_ SECONDS: sets tui_end to SECONDS from now, or to $TUI_DEADLINE when that comes first.
tui_end_() {
    tui_end=$(($(date +%s) + $1))
    [ "$TUI_DEADLINE" -gt 0 ] && [ "$TUI_DEADLINE" -lt "$tui_end" ] && tui_end=$TUI_DEADLINE
    return 0
}

# tui_until NAME SECONDS COMMAND...: captures the pane into $TUI_SCREEN and runs COMMAND (which reads
# it) until COMMAND succeeds; returns 1 when it has not after SECONDS, or at once when the client
# has ended (its screen changes no more). The last screen seen stays in $TUI_SCREEN either way.
tui_until() {
    tui_pane=$1
    tui_end_ "$2"
    shift 2
    while :; do
        tui_screen "$tui_pane" > "$TUI_SCREEN"
        "$@" && return 0
        [ -f "$TMP_DIRECTORY/$tui_pane.status" ] && return 1
        [ "$(date +%s)" -ge "$tui_end" ] && return 1
        sleep 0.1
    done
}

# tui_wait NAME TEXT [SECONDS]: waits (30 s unless told) until the pane shows TEXT (a fixed string).
tui_wait() {
    tui_until "$1" "${3:-30}" grep -q -F -e "$2" "$TUI_SCREEN"
}

# tui_wait_re NAME REGEX [SECONDS]: waits until a line of the pane matches REGEX (extended).
tui_wait_re() {
    tui_until "$1" "${3:-30}" grep -q -E -e "$2" "$TUI_SCREEN"
}

# tui_wait_gone NAME TEXT [SECONDS]: waits until the pane no longer shows TEXT.
tui_wait_gone() {
    tui_until "$1" "${3:-30}" tui_lacks_ "$2"
}
tui_lacks_() {
    ! grep -q -F -e "$1" "$TUI_SCREEN"
}

# tui_expect NAME TEXT [SECONDS]: a subtest that passes when the pane shows TEXT in time, and
# otherwise fails with the screen (and the client's exit status and stderr, when it has ended).
tui_expect() {
    if tui_wait "$@"; then
        test_ok_
    else
        test_failure_ "$(printf 'the screen does not show: %s\n' "$2"; cat "$TUI_SCREEN"; tui_ended "$1")"
    fi
}

# tui_expect_screen NAME EXPECTED COMMAND...: a subtest that passes when COMMAND (a filter reading
# $TUI_SCREEN) prints EXPECTED, polled for up to 30 s while the client draws; otherwise it fails with
# what COMMAND printed last.
tui_expect_screen() {
    tui_want=$2 tui_of=$1
    shift 2
    tui_until "$tui_of" 30 tui_prints_ "$@"
    test_expect_equal "$("$@")" "$tui_want"
}
tui_prints_() {
    [ "$("$@")" = "$tui_want" ]
}

# tui_command NAME TEXT: TEXT typed at the client's ':' prompt, and Enter. Each key goes after the
# screen shows what the one before did: alot loses keys sent together, and a key typed before the
# prompt opens would be a command of its own.
tui_command() {
    tui_keys "$1" :
    tui_wait_re "$1" "^:" 10
    tui_keys "$1" -l "$2"
    tui_wait "$1" ":$2" 10
    tui_keys "$1" Enter
}

# tui_answer NAME PROMPT TEXT: TEXT typed when the pane shows PROMPT, and Enter.
tui_answer() {
    tui_wait "$1" "$2" 10
    tui_keys "$1" -l "$3"
    tui_wait "$1" "$2 $3" 10
    tui_keys "$1" Enter
}

# tui_known_rows SED: what the pane shows of tui_mail's known messages, each from its sender to the
# end of its line, through the sed script SED (a list's rows, for tui_expect_screen).
tui_known_rows() {
    grep -E -o '(Carol Singer|Bob Builder|Alice Example|Erin Admin|Dave Counter) .*' "$TUI_SCREEN" | sed "$1"
}

# tui_ended NAME: "exit N" and the stderr of a client that has ended, else nothing.
tui_ended() {
    if [ -f "$TMP_DIRECTORY/$1.status" ]; then
        echo "the client has ended: exit $(cat "$TMP_DIRECTORY/$1.status")"
        tail -n 20 "$TMP_DIRECTORY/$1.stderr"
    fi
}

# tui_poll SECONDS COMMAND...: runs COMMAND until it succeeds or SECONDS have passed (what reaches the
# store after a key: the client writes in its own time).
tui_poll() {
    tui_end_ "$1"
    shift
    until "$@"; do
        [ "$(date +%s)" -ge "$tui_end" ] && return 1
        sleep 0.1
    done
}

# tui_wait_file FILE [SECONDS]: waits (30 s unless told) until FILE exists (a client's exit status,
# an editor's mark).
tui_wait_file() {
    tui_poll "${2:-30}" test -e "$1"
}

# tui_known FILE ID SUBJECT FROM DATE [PARENT]: one message of tui_mail's known threads, in INBOX/new.
tui_known() {
    mkdir -p "$MAIL_DIR/INBOX/new"
    {
        printf 'From: %s\nTo: Notmuch Test Suite <test_suite@notmuchmail.org>\n' "$4"
        printf 'Subject: %s\nDate: %s\nMessage-ID: <%s@example.org>\n' "$3" "$5" "$2"
        [ -n "${6:-}" ] && printf 'In-Reply-To: <%s@example.org>\nReferences: <%s@example.org>\n' "$6" "$6"
        printf '\nThe text of %s.\n' "$2"
    } > "$MAIL_DIR/INBOX/new/$1"
}

# tui_mail: the mail the clients show, indexed: bench/gen's 40 messages (seed 5) and, newer than all
# of them and unread, three threads whose subjects a test looks for: "Lunch on Friday" (three
# messages, lunch-1@example.org and its two replies; the newest thread), "Server maintenance window"
# (window-1), "Quarterly report figures" (report-1). Each message's text is "The text of ID."
tui_mail() {
    python3 "$srcdir/bench/gen" --count 40 --seed 5 "$MAIL_DIR" > /dev/null
    tui_known 1 lunch-1 "Lunch on Friday" "Alice Example <alice@example.org>" "Thu, 06 Mar 2025 10:00:00 +0000"
    tui_known 2 lunch-2 "Re: Lunch on Friday" "Bob Builder <bob@example.com>" "Thu, 06 Mar 2025 11:00:00 +0000" lunch-1
    tui_known 3 lunch-3 "Re: Lunch on Friday" "Carol Singer <carol@example.net>" "Thu, 06 Mar 2025 12:00:00 +0000" lunch-1
    tui_known 4 report-1 "Quarterly report figures" "Dave Counter <dave@example.com>" "Tue, 04 Mar 2025 09:00:00 +0000"
    tui_known 5 window-1 "Server maintenance window" "Erin Admin <erin@example.net>" "Wed, 05 Mar 2025 08:00:00 +0000"
    maildex new > /dev/null 2>&1
}
