#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# astroid on maildex (issue 29, item 8). Debian's astroid (GTK, linked against libnotmuch) runs headless
# on an Xvfb display of the test's own, twice, on two copies of one generated Maildir: on notmuch's
# database through Debian's libnotmuch, and on maildex's store through `maildex exec`. Its config (the
# one `astroid --new-config` writes) has one startup search, a query; astroid opens it in a tab labelled
# "NAME (UNREAD/TOTAL)", the counts it asked the library for (notmuch_query_count_messages, the config's
# exclude tags left out), and the label is the window's title, which `xwininfo` reads. Then astroid's
# own poll script runs `notmuch tag` (maildex, under exec) and astroid refreshes the threads changed
# since the revision it read before the poll (notmuch_database_get_revision, a `lastmod:` query), and
# the counts in the title change. Checked: the titles before and after the poll, which must be the
# command line's counts and the same on both libraries; the tags loaded and the query in astroid's log,
# with no error; the threads it refreshed; the library it mapped (/proc/PID/maps); SIGTERM ending it.
# The thread list itself (authors, subjects, opening a thread) needs a tool that sends keys or reads
# the accessibility tree (xdotool, at-spi), which is not installed: that check stays manual (doc/clients.md).
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require astroid
test_require Xvfb
test_require xwininfo
differential_setup "deleted;spam;"
unset XDG_CACHE_HOME XDG_RUNTIME_HOME DBUS_SESSION_BUS_ADDRESS || true
# No accessibility bus (GTK would look for one and warn), and no session bus: astroid would hand its
# command line to an instance already registered there instead of starting.
export NO_AT_BRIDGE=1

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
# machine never collide on a number; killed at the end.
Xvfb -displayfd 1 -nolisten tcp -screen 0 1024x768x24 > "$TMP_DIRECTORY/display" 2> "$TMP_DIRECTORY/xvfb.log" &
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
    wait_title "$(counts "$tool")" > "$TMP_DIRECTORY/$name.before"
    pid=$(cat "$TMP_DIRECTORY/$name.pid")
    awk '$6 ~ /libnotmuch\.so/ { print $6 }' "/proc/$pid/maps" | sort -u > "$TMP_DIRECTORY/$name.maps"
    # The go-ahead; astroid logs how many threads it refreshes once the poll script is done.
    touch "$ASTROID_GO"
    n=0
    while ! grep -q 'threads changed' "$TMP_DIRECTORY/$name.log" && [ $n -lt 300 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    wait_title "$(counts "$tool")" > "$TMP_DIRECTORY/$name.after"
    kill -TERM "$pid"
    wait "$job"
    echo "exit $?" > "$TMP_DIRECTORY/$name.exit"
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

notmuch_before=$(counts "$NOTMUCH")
run_astroid notmuch "$NOTMUCH" on_debian
notmuch_after=$(counts "$NOTMUCH")

test_begin_subtest "notmuch: astroid shows the startup search with notmuch's counts"
test_expect_equal "$(cat "$TMP_DIRECTORY/notmuch.before")" "$notmuch_before"

test_begin_subtest "notmuch: after its poll script tags, the counts change to notmuch's"
test_expect_equal "$(cat "$TMP_DIRECTORY/notmuch.before") -> $(cat "$TMP_DIRECTORY/notmuch.after")" \
    "$notmuch_before -> $notmuch_after"

test_begin_subtest "notmuch: the threads astroid refreshed are notmuch's lastmod: range"
refreshed "$NOTMUCH" notmuch > "$TMP_DIRECTORY/notmuch.refreshed"
test_expect_equal "$(sed -n 1p "$TMP_DIRECTORY/notmuch.refreshed")" "$(sed -n 2p "$TMP_DIRECTORY/notmuch.refreshed")"

maildex_subtests="maildex: astroid runs on maildex's library
maildex: the same counts before the poll (maildex's, as on notmuch)
maildex: the same counts after the poll (maildex's, as on notmuch)
maildex: the same tags and query loaded, no error
maildex: the threads astroid refreshed are maildex's lastmod: range
maildex: SIGTERM ends it as on notmuch"
abi_skip_rest "$maildex_subtests"

maildex_before=$(counts maildex)
run_astroid maildex maildex with_asan maildex exec
maildex_after=$(counts maildex)

test_begin_subtest "maildex: astroid runs on maildex's library"
test_expect_equal "$(sed 's|/[^/]*$||' "$TMP_DIRECTORY/maildex.maps")" "$(cd "$ABI_DIR" && pwd -P)"

test_begin_subtest "maildex: the same counts before the poll (maildex's, as on notmuch)"
test_expect_equal "$(cat "$TMP_DIRECTORY/maildex.before") $maildex_before" \
    "$(cat "$TMP_DIRECTORY/notmuch.before") $notmuch_before"

test_begin_subtest "maildex: the same counts after the poll (maildex's, as on notmuch)"
test_expect_equal "$(cat "$TMP_DIRECTORY/maildex.after") $maildex_after" \
    "$(cat "$TMP_DIRECTORY/notmuch.after") $notmuch_after"

test_begin_subtest "maildex: the same tags and query loaded, no error"
log_facts notmuch > "$TMP_DIRECTORY/notmuch.facts"
{ log_facts maildex; log_lines maildex | grep '^error'; } > "$TMP_DIRECTORY/maildex.facts"
test_expect_equal_file "$TMP_DIRECTORY/notmuch.facts" "$TMP_DIRECTORY/maildex.facts"

# How many: notmuch gives each message it writes a revision of its own, maildex each transaction
# (doc/notmuch-differences.md, "What one revision is"); `lastmod:FROM..TO` includes FROM, so notmuch's
# range holds the last message written before the poll, maildex's the whole last transaction.
test_begin_subtest "maildex: the threads astroid refreshed are maildex's lastmod: range"
refreshed maildex maildex > "$TMP_DIRECTORY/maildex.refreshed"
test_expect_equal "$(sed -n 1p "$TMP_DIRECTORY/maildex.refreshed")" "$(sed -n 2p "$TMP_DIRECTORY/maildex.refreshed")"

test_begin_subtest "maildex: SIGTERM ends it as on notmuch"
test_expect_equal "$(cat "$TMP_DIRECTORY/maildex.exit")" "$(cat "$TMP_DIRECTORY/notmuch.exit")"

test_done
