#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# muchsync on maildex (issue 29, item 5). Debian's muchsync keeps two stores in step: a server with
# mail, a client made by `muchsync --init`, then new mail and tag changes on both sides (a tag both
# sides change, an and-tag one side removes, a file one side moves) and a second sync. muchsync's -s
# takes the command that replaces ssh: here a script that runs the server side with the server's
# config. The same script runs between two notmuch stores (Debian's libnotmuch and notmuch) and
# between two maildex stores (`maildex exec` on both sides).
#
# On notmuch both stores end equal: every message with the same tags and its files in the same
# folders (relative to the mail root; muchsync names each copy anew). On maildex muchsync cannot run, and the test checks that it stops at
# once and harms nothing: muchsync does not keep its replica through libnotmuch alone, it opens
# notmuch's Xapian database `.notmuch/xapian` with libxapian and reads notmuch's terms (K tags,
# XDIRECTORY, XFDIRENTRY, the Tghost term, the Message-ID value) and the Xapian document id it takes
# from the second field of notmuch's private notmuch_message_t and notmuch_directory_t; and it keeps
# its state in `.notmuch/muchsync/`, which it creates inside `.notmuch/`. A maildex store has no
# Xapian database (doc/notmuch-differences.md, "muchsync"), so the comparison of the two pairs is
# skipped with that reason.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require muchsync
differential_setup "deleted;spam;"
# muchsync aborts (SIGABRT) when its peer stops: no core files in the test directory.
ulimit -c 0 2>/dev/null || true

# pair_setup NAME TOOL: $TMP_DIRECTORY/NAME holds a server store with mail (indexed, some tags set)
# and its config, without maildir.synchronize_flags as muchsync(1) advises (it carries tags itself;
# --init copies the server's config to the client).
pair_setup() {
    d=$TMP_DIRECTORY/$1
    mkdir -p "$d"
    python3 "$srcdir/bench/gen" --count 120 --seed 7 "$d/server" > /dev/null
    sed -e "s|^path=.*|path=$d/server|" -e 's/^synchronize_flags=.*/synchronize_flags=false/' \
        "$NOTMUCH_CONFIG" > "$d/server.cfg"
    # The tags a conflict ands rather than ors (muchsync(1) says new.tags by default; with notmuch
    # 0.37, whose `config get` of a key not set prints nothing and exits 0, the default is none).
    printf '[muchsync]\nand_tags=inbox;unread;\n' >> "$d/server.cfg"
    NOTMUCH_CONFIG=$d/server.cfg MAILDEX_CONFIG=$d/server.cfg "$2" new > /dev/null 2>&1
    NOTMUCH_CONFIG=$d/server.cfg MAILDEX_CONFIG=$d/server.cfg "$2" tag +todo -- folder:lists/dev > /dev/null 2>&1
}

# The ssh stand-ins. muchsync runs "SSH-CMD SERVER muchsync --server ARGS": the script drops SERVER
# and runs the rest with the server's config, on notmuch or through `maildex exec`. The client does not
# wait for the server to end, and the server's last writes (Xapian's commit at close) may come after
# the client has exited: the script writes the server's exit status once it has ended.
for name in notmuch maildex; do
    case $name in
    notmuch) run="env NOTMUCH_CONFIG=$TMP_DIRECTORY/notmuch/server.cfg" ;;
    # The client may run on Debian's library (no sanitizer runtime to inherit): the server side
    # brings its own when maildex's library needs it.
    maildex) run="$(asan_env) maildex --config=$TMP_DIRECTORY/maildex/server.cfg exec" ;;
    esac
    cat > "$TMP_DIRECTORY/ssh-$name" <<EOF
#!/bin/sh
shift
$run "\$@"
echo \$? > "$TMP_DIRECTORY/$name/server.status"
EOF
    chmod +x "$TMP_DIRECTORY/ssh-$name"
done

# muchsync_run NAME RUN... ARGS: muchsync ARGS on RUN, then waits (up to 60 s) for its server's end.
muchsync_run() {
    name=$1
    shift
    rm -f "$TMP_DIRECTORY/$name/server.status"
    "$@"
    status=$?
    n=0
    while ! [ -s "$TMP_DIRECTORY/$name/server.status" ] && [ $n -lt 600 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    return $status
}

# deliver DIR NAME SUBJECT: one new message in DIR/INBOX/new.
deliver() {
    mkdir -p "$1/INBOX/new"
    printf 'From: Sender <sender@example.net>\nTo: Test User <user@example.org>\nSubject: %s\nDate: Tue, 04 Jun 2024 10:00:00 +0000\nMessage-ID: <%s@muchsync.example>\n\nNew mail for %s.\n' \
        "$3" "$2" "$2" > "$1/INBOX/new/$2"
}

# sync_scenario NAME TOOL RUN...: the whole run on one pair, TOOL being the command line that indexes
# and tags (notmuch or maildex), RUN the prefix that runs muchsync on the right library. Each
# muchsync's exit status and output in $TMP_DIRECTORY/NAME/{init,sync}.{out,status}. Stops after a
# failed --init.
sync_scenario() {
    name=$1 tool=$2
    shift 2
    d=$TMP_DIRECTORY/$name
    muchsync_run "$name" "$@" muchsync -C "$d/client.cfg" -s "$TMP_DIRECTORY/ssh-$name" \
        --init "$d/client" server > "$d/init.out" 2>&1
    echo $? > "$d/init.status"
    [ "$(cat "$d/init.status")" = 0 ] || return 0
    # New mail on each side, and tag changes on both: a tag each side adds to the same message, the
    # and-tag unread (new.tags) removed on one side, and a file moved on the client.
    deliver "$d/server" server-1 "From the server"
    deliver "$d/server" server-2 "From the server again"
    deliver "$d/client" client-1 "From the client"
    NOTMUCH_CONFIG=$d/server.cfg "$tool" new > /dev/null 2>&1
    NOTMUCH_CONFIG=$d/client.cfg "$tool" new > /dev/null 2>&1
    both=$(NOTMUCH_CONFIG=$d/server.cfg "$tool" search --output=messages --sort=oldest-first --limit=1 tag:unread)
    NOTMUCH_CONFIG=$d/server.cfg "$tool" tag +from-server -unread -- "$both" > /dev/null 2>&1
    NOTMUCH_CONFIG=$d/server.cfg "$tool" tag +flagged -- folder:lists/kernel > /dev/null 2>&1
    NOTMUCH_CONFIG=$d/client.cfg "$tool" tag +from-client -- "$both" > /dev/null 2>&1
    NOTMUCH_CONFIG=$d/client.cfg "$tool" tag -inbox +archived -- folder:Archive > /dev/null 2>&1
    moved=$(cd "$d/client" && find INBOX/cur -type f | sort | head -n 1)
    mkdir -p "$d/client/Archive/cur"
    mv "$d/client/$moved" "$d/client/Archive/cur/"
    echo "$both" > "$d/both"
    grep -h -i -m1 '^message-id:' "$d/client/Archive/cur/${moved#INBOX/cur/}" | sed 's/.*<\(.*\)>.*/\1/' > "$d/moved"
    muchsync_run "$name" "$@" muchsync -C "$d/client.cfg" -s "$TMP_DIRECTORY/ssh-$name" server \
        > "$d/sync.out" 2>&1
    echo $? > "$d/sync.status"
}

# store_dump TOOL CONFIG ROOT: every message of the store, one line each: its Message-ID, its tags, and
# the folders of its files relative to ROOT, sorted. Not the files' names: muchsync names each copy it
# makes anew, as a Maildir delivery is named, and carries tags, not the Maildir flags in names.
store_dump() {
    NOTMUCH_CONFIG=$2 MAILDEX_CONFIG=$2 "$1" show --format=json --body=false --entire-thread=false \
        --exclude=false '*' 2>/dev/null | python3 -c '
import json, os, sys
root = sys.argv[1].rstrip("/") + "/"
def place(f):
    return os.path.dirname(f[len(root):] if f.startswith(root) else f) + "/"
def walk(node):
    if isinstance(node, dict):
        if "id" in node and "tags" in node:
            files = node["filename"] if isinstance(node["filename"], list) else [node["filename"]]
            print("%s\t%s\t%s" % (node["id"], " ".join(sorted(node["tags"])),
                                  " ".join(sorted(place(f) for f in files))))
    elif isinstance(node, list):
        for n in node:
            walk(n)
walk(json.load(sys.stdin))' "$3" | sort
}

pair_setup notmuch "$NOTMUCH"
sync_scenario notmuch "$NOTMUCH" on_debian
d=$TMP_DIRECTORY/notmuch
store_dump "$NOTMUCH" "$d/server.cfg" "$d/server" > "$d/server.dump"
store_dump "$NOTMUCH" "$d/client.cfg" "$d/client" > "$d/client.dump"

test_begin_subtest "notmuch: muchsync --init and the second sync exit 0"
test_expect_equal "$(cat "$d/init.status" "$d/sync.status" 2>&1 | tr '\n' ' ')" "0 0 "

test_begin_subtest "notmuch: both stores have every message, with the same tags and files"
test_expect_equal_file "$d/server.dump" "$d/client.dump"

# changes NAME: what the second sync carried, in the server's store: the new mail of both sides, the
# tags of the message both sides tagged (unread, a muchsync and-tag, removed on one side), and the
# folder of the file moved on the client.
changes() {
    dump=$TMP_DIRECTORY/$1/server.dump
    grep -c '@muchsync.example' "$dump"
    grep "^$(sed 's/^id://' "$TMP_DIRECTORY/$1/both")	" "$dump" | cut -f 2 | tr ' ' '\n' | grep -E '^(from-|unread)' | tr '\n' ' '
    echo
    grep "^$(cat "$TMP_DIRECTORY/$1/moved")	" "$dump" | cut -f 3
}
test_begin_subtest "notmuch: the server has both sides' changes: new mail, merged tags, the moved file"
test_expect_equal "$(changes notmuch | tr '\n' '|')" "3|from-client from-server |Archive/cur/|"

# The maildex pair. muchsync cannot run on it (see the top of this file); what a user sees instead,
# and that nothing is harmed: the server's store (tags and files) and its mail files are as before.
unsupported="muchsync reads notmuch's Xapian database itself (.notmuch/xapian, libxapian), which a maildex store does not have: doc/notmuch-differences.md, muchsync"
maildex_subtests="maildex: muchsync --init stops at once, naming notmuch's directory .notmuch
maildex: the server's store and mail are as before
maildex: on a store with a .notmuch directory, muchsync stops at notmuch's Xapian database
maildex: with notmuch's database left in the mail root, muchsync copies that, not maildex's store
maildex: both stores have every message, with the same tags and files
maildex: the server has both sides' changes: new mail, merged tags, the moved file
maildex: the maildex pair ends as the notmuch pair"
abi_skip_rest "$maildex_subtests"

pair_setup maildex maildex
d=$TMP_DIRECTORY/maildex
# mail_state: the server's store and its mail files with their contents' sums, muchsync's own
# directory left out.
mail_state() {
    store_dump maildex "$d/server.cfg" "$d/server"
    (cd "$d/server" && find . -path ./.maildex -prune -o -path ./.notmuch -prune -o -type f -print |
        sort | xargs sha1sum)
}
mail_state > "$d/state.before"
# As a user runs it, `maildex exec` on both sides: no config named here (muchsync's -C names the
# client's, which --init writes), the server's named by the ssh stand-in.
sync_scenario maildex maildex with_asan env -u NOTMUCH_CONFIG -u MAILDEX_CONFIG maildex exec

test_begin_subtest "maildex: muchsync --init stops at once, naming notmuch's directory .notmuch"
# (It aborts, and so does the client when its peer is gone: exit 134.)
test_expect_equal "$(cat "$d/init.status"; grep -c -x -F "$d/server/.notmuch/muchsync: No such file or directory" "$d/init.out")" \
    "134
1"

test_begin_subtest "maildex: the server's store and mail are as before"
mail_state > "$d/state.after"
test_expect_equal_file "$d/state.before" "$d/state.after"

# A store that still has notmuch's directory, its Xapian database gone: muchsync's own start on the
# server (muchsync(1), EXAMPLES: `muchsync -vv`), which runs `notmuch new` and scans the database.
test_begin_subtest "maildex: on a store with a .notmuch directory, muchsync stops at notmuch's Xapian database"
mkdir "$d/server/.notmuch"
with_asan maildex --config="$d/server.cfg" exec muchsync -vv > "$d/self.out" 2>&1
echo $? > "$d/self.status"
mail_state > "$d/state.self"
test_expect_equal "$(cat "$d/self.status"; grep -c "Xapian::DatabaseNotFoundError" "$d/self.out"; cmp "$d/state.before" "$d/state.self" && echo same)" \
    "134
1
same"

# notmuch's database still in the mail root, as while one tries maildex beside notmuch (both index the
# same mail): muchsync runs, and a client made from it gets what that database says, not maildex's tags.
test_begin_subtest "maildex: with notmuch's database left in the mail root, muchsync copies that, not maildex's store"
rm -rf "$d/server/.notmuch"
NOTMUCH_CONFIG=$d/server.cfg "$NOTMUCH" new > /dev/null 2>&1
maildex --config="$d/server.cfg" tag +maildex-only -- '*' > /dev/null 2>&1
muchsync_run maildex on_debian muchsync -C "$d/stale.cfg" -s "$TMP_DIRECTORY/ssh-maildex" --init "$d/stale" server \
    > "$d/stale.out" 2>&1
echo "exit $?" > "$d/stale.status"
test_expect_equal "$(cat "$d/stale.status"; NOTMUCH_CONFIG=$d/stale.cfg "$NOTMUCH" count '*'
    NOTMUCH_CONFIG=$d/stale.cfg "$NOTMUCH" count tag:maildex-only)" \
    "exit 0
$(maildex --config="$d/server.cfg" count '*')
0"

for t in "maildex: both stores have every message, with the same tags and files" \
    "maildex: the server has both sides' changes: new mail, merged tags, the moved file" \
    "maildex: the maildex pair ends as the notmuch pair"; do
    test_begin_subtest "$t"
    test_skip_ "$unsupported"
done

test_done
