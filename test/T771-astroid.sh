#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# astroid on maildex (issue 29, item 8). Debian's astroid (GTK, linked against libnotmuch) runs headless
# on an Xvfb display of the test's own, twice, on two copies of one generated Maildir: on notmuch's
# database through Debian's libnotmuch, and on maildex's store through `maildex exec`. Its config (the
# one `astroid --new-config` writes) has one startup search, a query; astroid opens it in a tab labelled
# "NAME (UNREAD/TOTAL)", the counts it asked the library for (notmuch_query_count_messages, the config's
# exclude tags left out), and the current tab's label is the window's title, which `xwininfo` reads.
# Then astroid's own poll script runs `notmuch tag` (maildex, under exec) and astroid refreshes the
# threads changed since the revision it read before the poll (a `lastmod:` query). Then a user's keys,
# typed through XTEST (test/libnotmuch/xkeys.py): `a` archives the first thread, `N` marks the next
# unread, Enter opens it in a tab titled by its subject (astroid reads its messages' files and renders
# them), and astroid marks the focused message read. Checked: every title, which must show the command
# line's counts (the subject) and be the same on both libraries; the tags and query in astroid's log,
# with no error; the threads it refreshed; the store at the end, every message's tags and every file
# name the same as notmuch's; the library it mapped (/proc/PID/maps); SIGTERM ending it. What the
# thread list and the thread view show inside the window is not read (no accessibility bus here): the
# manual check of doc/clients.md.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require astroid
test_require Xvfb
test_require xwininfo
differential_setup "deleted;spam;"
unset XDG_CACHE_HOME XDG_RUNTIME_HOME DBUS_SESSION_BUS_ADDRESS WAYLAND_DISPLAY || true
# No accessibility bus (GTK would look for one and warn), and no session bus: astroid would hand its
# command line to an instance already registered there instead of starting. X only: a desktop's
# Wayland session would otherwise take the window.
NO_AT_BRIDGE=1 GDK_BACKEND=x11
export NO_AT_BRIDGE GDK_BACKEND

# The same mail twice: the poll script tags, and with synchronize_flags a tag renames files, so each
# store has its own copy (cp -p keeps the mtimes bench/gen gave).
python3 "$srcdir/bench/gen" --count 150 --seed 5 "$MAIL_DIR" > /dev/null
MD_MAIL=$TMP_DIRECTORY/mail-maildex
cp -Rp "$MAIL_DIR" "$MD_MAIL"
sed -i "s|^path=.*|path=$MD_MAIL|" "$MAILDEX_CONFIG"
for tool in "$NOTMUCH" maildex; do
    "$tool" new > /dev/null 2>&1
    # Deleted mail in the search, which astroid leaves out (search.exclude_tags).
    "$tool" tag +deleted -- folder:Trash > /dev/null 2>&1
done

search='tag:inbox and not folder:Sent'
mkdir -p "$HOME/.config/astroid"
# The poll script waits for the test's go-ahead, so that the counts before it are seen first; then it
# tags as a user's script does after fetching: list mail read, replied mail unread, one list's mail deleted.
cat > "$HOME/.config/astroid/poll.sh" <<'EOF'
#!/bin/sh
n=0
while [ ! -e "$ASTROID_GO" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
notmuch tag -unread -- 'folder:/lists/ and tag:unread'
notmuch tag +unread -- 'tag:replied and not folder:Sent'
notmuch tag +deleted -- folder:lists/rust
EOF
chmod +x "$HOME/.config/astroid/poll.sh"

# The X display: Xvfb picks a free one itself (-displayfd), so parallel tests and other users of the
# machine never collide on a number; it listens only on the abstract socket, which no one can remove
# from /tmp/.X11-unix under it, and never resets between clients; killed at the end.
Xvfb -displayfd 1 -nolisten tcp -nolisten unix -noreset -screen 0 1024x768x24 > "$TMP_DIRECTORY/display" \
    2> "$TMP_DIRECTORY/xvfb.log" &
xvfb_pid=$!
trap 'kill "$xvfb_pid" 2>/dev/null' EXIT
n=0
while ! [ -s "$TMP_DIRECTORY/display" ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
DISPLAY=:$(cat "$TMP_DIRECTORY/display")
export DISPLAY
if ! xwininfo -root > /dev/null 2>&1; then
    echo "1..0 # SKIP Xvfb did not start: $(head -n 3 "$TMP_DIRECTORY/xvfb.log" | tr '\n' ' ')"
    exit 0
fi

# astroid's own default config (--new-config; it names $NOTMUCH_CONFIG as its notmuch config, though
# NOTMUCH_CONFIG, which exec sets, wins when astroid starts), with its startup search replaced, its
# log on stdout at debug level, and polling on: one poll at start.
timeout 30 astroid --new-config > "$TMP_DIRECTORY/new-config.log" 2>&1
python3 - "$HOME/.config/astroid/config" "$search" <<'PY'
import json, sys
path, query = sys.argv[1:3]
with open(path) as f:
    conf = json.load(f)
conf["startup"]["queries"] = {"mine": query}
conf["astroid"]["log"].update({"stdout": "true", "level": "debug"})
conf["poll"]["interval"] = "60"
with open(path, "w") as f:
    json.dump(conf, f, indent=4)
PY

# title: the label of the tab astroid shows, from its main window's title ("LABEL - Astroid (VERSION)").
title() {
    xwininfo -root -tree 2>/dev/null | sed -n 's/.*"\(.*\) - Astroid ([^"]*)".*/\1/p' | head -n 1
}
# wait_title WANT: waits (up to 30 s) until the title is WANT; prints the last title seen.
wait_title() {
    n=0
    while [ "$(title)" != "$1" ] && [ $n -lt 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    title
}
# run_astroid NAME TOOL COMMAND...: COMMAND astroid (COMMAND chooses the library) in the background;
# the title once it shows TOOL's counts before the poll, and again after (or the last title seen,
# after 30 s), the libnotmuch it mapped, its log and its exit status after SIGTERM, in
# $TMP_DIRECTORY/NAME.*.
run_astroid() {
    name=$1 tool=$2
    shift 2
    ASTROID_GO=$TMP_DIRECTORY/$name.go
    export ASTROID_GO
    # COMMAND may be a shell function (a subshell in the background): astroid's own pid is the one
    # of the sh that execs it.
    rm -f "$TMP_DIRECTORY/$name.pid"
    "$@" sh -c 'echo $$ > "$0"; exec astroid --log-stdout' "$TMP_DIRECTORY/$name.pid" \
        > "$TMP_DIRECTORY/$name.log" 2>&1 &
    job=$!
    counts "$tool" > "$TMP_DIRECTORY/$name.before.cli"
    wait_title "$(cat "$TMP_DIRECTORY/$name.before.cli")" > "$TMP_DIRECTORY/$name.before"
    pid=$(cat "$TMP_DIRECTORY/$name.pid")
    awk '$6 ~ /libnotmuch\.so/ { print $6 }' "/proc/$pid/maps" | sort -u > "$TMP_DIRECTORY/$name.maps"
    # The go-ahead; astroid logs how many threads it refreshes once the poll script is done.
    touch "$ASTROID_GO"
    n=0
    while ! grep -q 'threads changed' "$TMP_DIRECTORY/$name.log" && [ $n -lt 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    counts "$tool" > "$TMP_DIRECTORY/$name.after.cli"
    wait_title "$(cat "$TMP_DIRECTORY/$name.after.cli")" > "$TMP_DIRECTORY/$name.after"
    use_keys "$name" "$tool"
    kill -TERM "$pid"
    wait "$job"
    echo "exit $?" > "$TMP_DIRECTORY/$name.exit"
}
# press NAME LABEL KEY...: types KEYs into astroid's window, waits (up to 30 s) for the title to change,
# and keeps the new title in $TMP_DIRECTORY/NAME.LABEL.
press() {
    old=$(title)
    win=$(xwininfo -root -tree | sed -n 's/^ *\(0x[0-9a-f]*\) ".* - Astroid (.*/\1/p' | head -n 1)
    label=$TMP_DIRECTORY/$1.$2
    shift 2
    python3 "$srcdir/test/libnotmuch/xkeys.py" "$win" "$@" 2>> "$label.err"
    # A thread's tab is labelled by the thread's id until its messages are loaded, then by its subject.
    n=0
    while { [ "$(title)" = "$old" ] || title | grep -q -x '[0-9a-f]\{16\}'; } && [ $n -lt 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    title > "$label"
}
# use_keys NAME TOOL: what a user does with astroid's default keys: `a` on the first thread (toggles
# inbox: it leaves the search), `N` on the next (toggles unread), Enter opens that one in a tab titled
# by its subject, whose focused message astroid marks read after a moment (thread_view.mark_unread_delay).
# The titles, with TOOL's counts after each change and the opened thread's subject
# ($TMP_DIRECTORY/NAME.*.cli).
use_keys() {
    press "$1" archived a
    counts "$2" > "$TMP_DIRECTORY/$1.archived.cli"
    press "$1" unread S-n
    counts "$2" > "$TMP_DIRECTORY/$1.unread.cli"
    press "$1" opened Return
    tid=$(log_lines "$1" | sed -n 's/^info tv: load thread: //p' | tail -n 1)
    "$2" search --format=json "thread:$tid" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["subject"])' \
        > "$TMP_DIRECTORY/$1.opened.cli"
    # The search's tab is behind the thread's now: its counts from the command line, once they change.
    n=0
    while [ "$(counts "$2")" = "$(cat "$TMP_DIRECTORY/$1.unread.cli")" ] && [ $n -lt 150 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    counts "$2" > "$TMP_DIRECTORY/$1.read.cli"
}
# log_lines NAME: astroid's log lines, without times and thread addresses.
log_lines() {
    sed -n 's/^.*\] \[M\] \[\([a-z]*\)\] /\1 /p' "$TMP_DIRECTORY/$1.log"
}
# log_facts NAME: what the log says astroid loaded.
log_facts() {
    log_lines "$1" | grep -E '^info (got query|db: loaded [0-9]+ tags)'
}
# counts TOOL: what the tab should say, "mine (UNREAD/TOTAL)", from TOOL's command line.
counts() {
    echo "mine ($("$1" count -- "($search) and tag:unread")/$("$1" count -- "$search"))"
}
# refreshed TOOL NAME: "N threads changed" from astroid's log, and "N threads" in TOOL's `lastmod:`
# range of the revisions astroid logged before and after the poll.
refreshed() {
    changed=$(log_lines "$2" | sed -n 's/^info poll: \([0-9]*\) threads changed.*/\1 threads changed/p')
    echo "${changed:-no refresh in the log}"
    from=$(log_lines "$2" | sed -n 's/^debug poll: revision before poll: //p')
    to=$(log_lines "$2" | sed -n 's/^debug poll: refreshing.. revision after poll: //p')
    echo "$("$1" count --exclude=false --output=threads "lastmod:$from..$to") threads changed"
}

# seen NAME STEP...: astroid's title at each STEP, and what the command line said then.
seen() {
    name=$1
    shift
    for step in "$@"; do
        echo "$step: $(cat "$TMP_DIRECTORY/$name.$step") [$(cat "$TMP_DIRECTORY/$name.$step.cli")]"
    done
}
# store_state TOOL ROOT: every message's tags (dump) and every file, relative to ROOT.
store_state() {
    "$1" dump 2>/dev/null | grep -v '^#' | sort
    "$1" search --exclude=false --output=files '*' | sed "s|^$2/||" | sort
}

run_astroid notmuch "$NOTMUCH" on_debian

test_begin_subtest "notmuch: astroid shows the startup search with notmuch's counts, before and after its poll"
seen notmuch before after > "$TMP_DIRECTORY/notmuch.seen"
test_expect_equal "$(sed 's/: \(.*\) \[\1\]$/: same/' "$TMP_DIRECTORY/notmuch.seen" | tr '\n' ' ')" \
    "before: same after: same "

test_begin_subtest "notmuch: the threads astroid refreshed are notmuch's lastmod: range"
refreshed "$NOTMUCH" notmuch > "$TMP_DIRECTORY/notmuch.refreshed"
test_expect_equal "$(sed -n 1p "$TMP_DIRECTORY/notmuch.refreshed")" "$(sed -n 2p "$TMP_DIRECTORY/notmuch.refreshed")"

test_begin_subtest "notmuch: a and N change the store and the counts; Enter opens the thread, titled by its subject"
seen notmuch archived unread opened > "$TMP_DIRECTORY/notmuch.keys"
test_expect_equal "$(sed 's/: \(.*\) \[\1\]$/: same/' "$TMP_DIRECTORY/notmuch.keys" | tr '\n' ' ')" \
    "archived: same unread: same opened: same "

test_begin_subtest "notmuch: the opened thread's message is marked read in the store"
test_expect_equal "$(sed 's/.*(\([0-9]*\)\/.*/\1/' "$TMP_DIRECTORY/notmuch.read.cli")" \
    "$(($(sed 's/.*(\([0-9]*\)\/.*/\1/' "$TMP_DIRECTORY/notmuch.unread.cli") - 1))"

maildex_subtests="maildex: astroid runs on maildex's library
maildex: the same titles and counts before and after the poll as on notmuch
maildex: the same tags and query loaded, no error
maildex: the threads astroid refreshed are maildex's lastmod: range
maildex: the same titles and counts through a, N and Enter as on notmuch
maildex: the same read mark as on notmuch
maildex: every message ends with the same tags and files as on notmuch
maildex: SIGTERM ends it as on notmuch"
abi_skip_rest "$maildex_subtests"

run_astroid maildex maildex with_asan maildex exec

test_begin_subtest "maildex: astroid runs on maildex's library"
test_expect_equal "$(sed 's|/[^/]*$||' "$TMP_DIRECTORY/maildex.maps")" "$(cd "$ABI_DIR" && pwd -P)"

test_begin_subtest "maildex: the same titles and counts before and after the poll as on notmuch"
seen maildex before after > "$TMP_DIRECTORY/maildex.seen"
test_expect_equal_file "$TMP_DIRECTORY/notmuch.seen" "$TMP_DIRECTORY/maildex.seen"

test_begin_subtest "maildex: the same tags and query loaded, no error"
log_facts notmuch > "$TMP_DIRECTORY/notmuch.facts"
{ log_facts maildex; log_lines maildex | grep '^error'; } > "$TMP_DIRECTORY/maildex.facts"
test_expect_equal_file "$TMP_DIRECTORY/notmuch.facts" "$TMP_DIRECTORY/maildex.facts"

# How many: notmuch gives each message it writes a revision of its own, maildex each transaction
# (doc/notmuch-differences.md, libnotmuch); `lastmod:FROM..TO` includes FROM, so notmuch's range holds
# the last message written before the poll, maildex's the whole last transaction.
test_begin_subtest "maildex: the threads astroid refreshed are maildex's lastmod: range"
refreshed maildex maildex > "$TMP_DIRECTORY/maildex.refreshed"
test_expect_equal "$(sed -n 1p "$TMP_DIRECTORY/maildex.refreshed")" "$(sed -n 2p "$TMP_DIRECTORY/maildex.refreshed")"

test_begin_subtest "maildex: the same titles and counts through a, N and Enter as on notmuch"
seen maildex archived unread opened > "$TMP_DIRECTORY/maildex.keys"
test_expect_equal_file "$TMP_DIRECTORY/notmuch.keys" "$TMP_DIRECTORY/maildex.keys"

test_begin_subtest "maildex: the same read mark as on notmuch"
test_expect_equal "$(cat "$TMP_DIRECTORY/maildex.read.cli")" "$(cat "$TMP_DIRECTORY/notmuch.read.cli")"

test_begin_subtest "maildex: every message ends with the same tags and files as on notmuch"
store_state "$NOTMUCH" "$MAIL_DIR" > "$TMP_DIRECTORY/notmuch.state"
store_state maildex "$MD_MAIL" > "$TMP_DIRECTORY/maildex.state"
test_expect_equal_file "$TMP_DIRECTORY/notmuch.state" "$TMP_DIRECTORY/maildex.state"

test_begin_subtest "maildex: SIGTERM ends it as on notmuch"
test_expect_equal "$(cat "$TMP_DIRECTORY/maildex.exit")" "$(cat "$TMP_DIRECTORY/notmuch.exit")"

test_done
