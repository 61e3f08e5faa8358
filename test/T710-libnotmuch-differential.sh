#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of maildex's libnotmuch.so.5 against Debian's (issue 28, "Done when": the
# differential test). A generated Maildir (bench/gen: 250 files, threads, duplicates, flags, a ghost
# root) is indexed by the real `notmuch new` and by `maildex new`, each on its own copy; some mail is
# tagged spam (excluded by search.exclude_tags). Then two clients, test/libnotmuch/walk.c (built here
# against the system's notmuch.h) and test/libnotmuch/walk.py (Debian's python3-notmuch2), run in
# turn on each store: notmuch's through Debian's library (LD_LIBRARY_PATH unset) and maildex's
# through this build's (lib/notmuch-abi/.libs first on LD_LIBRARY_PATH):
#   walk.c read, walk.c write c, walk.c read, walk.py read, walk.py write py, walk.py read
# Each read prints the store and, for every query below (tags, words, phrases, from:, to:, dates,
# folders, id:, thread:, thread:{}, '*', every exclude mode, both sort orders, S-expressions, syntax
# errors), the counts, the threads (authors, subject, dates, counts, tags, messages, reply tree) and
# the messages (thread, date, flags, headers, files, tags, properties); each write makes the same tag
# and property changes through the API and prints every status. The two stores' outputs must be
# identical, query by query, in order; thread ids are each store's own, so walk names a thread by its
# smallest message id (as T100 compares thread partitions). Four more messages share one date, two of
# them in one thread: notmuch lists them in the order it indexed them, in both sort orders.
#
# Until this build has the library, the maildex half is skipped (SKIP lines say why) and the notmuch
# half checks the clients themselves: walk.c and walk.py agree, their counts are the CLI's, and the
# same runs on a second notmuch store indexed from a copy of the mail print the same.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require python3
differential_setup "deleted;spam;"
abi_build_walker
abi_find_python notmuch2
CONFIG=$NOTMUCH_CONFIG

python3 "$srcdir/bench/gen" --count 250 --seed 3 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
# The second store (maildex's, or the self-check's second notmuch store) has a copy of the mail made
# before anything renames a file: the writes sync Maildir flags, which renames files under the
# other store's feet.
SECOND=$TMP_DIRECTORY/mail-second
cp -a "$MAIL_DIR" "$SECOND"
# The messages of one date, made in the same order in both trees (a new folder is read in the order
# of its files' inodes, by both tools); none of the generated messages shares its date with another.
add_ties() {
    mkdir -p "$1/ties/cur" "$1/ties/new" "$1/ties/tmp"
    for n in 1 2 3 4; do
        { printf 'From: Tie %s <tie%s@example.org>\nTo: user@example.org\nSubject: tie %s\n' $n $n $n
          printf 'Message-ID: <tie%s@example.org>\nDate: Sat, 01 Jan 2000 12:00:00 +0000\n' $n
          [ $n = 4 ] && printf 'In-Reply-To: <tie1@example.org>\n'
          printf '\ntie %s\n' $n; } > "$1/ties/cur/tie$n:2,S"
    done
}
add_ties "$MAIL_DIR"
add_ties "$SECOND"
sed "s|^path=.*|path=$SECOND|" "$CONFIG" > "$TMP_DIRECTORY/config-second"
"$NOTMUCH" new > /dev/null 2>&1
"$NOTMUCH" tag +spam -- folder:Trash > /dev/null 2>&1
if abi_have_lib; then
    MAILDEX_CONFIG=$TMP_DIRECTORY/config-second
    maildex new > /dev/null 2>&1
    maildex tag +spam -- folder:Trash > /dev/null 2>&1
fi

# Message ids the queries name, picked from notmuch's store (both hold the same mail).
first_of() { "$NOTMUCH" search --output=messages --sort=oldest-first --limit=1 "$1" | sed 's/^id://'; }
replied=$(first_of tag:replied)
spam=$(first_of tag:spam)
user=$(first_of from:user@example.org)

# SYNTAX SORT EXCLUDE QUERY (walk.c's format); <thread-of:MID> is MID's thread id in each store.
cat > "$TMP_DIRECTORY/queries" <<QUERIES
# everything, in every exclude mode and both orders
infix newest true *
infix oldest true *
infix newest false *
infix oldest flag *
infix newest all *
# tags, and the excluded tag itself in every mode
infix newest true tag:unread
infix oldest true tag:flagged
infix newest true tag:replied and not tag:unread
infix newest true tag:spam
infix newest false tag:spam
infix newest flag tag:spam
infix newest all tag:spam
infix newest true tag:inbox and tag:attachment
# words, stems, prefixes, phrases
infix newest true meeting
infix oldest true plan*
infix newest true "the deployment"
infix newest true deploy and not meeting
infix newest true nosuchwordanywhere
# senders, recipients, subjects
infix newest true from:user@example.org
infix oldest true from:"Test User"
infix newest true to:user@work.example.com
infix newest true subject:released
infix oldest true subject:"the"
# dates; the messages of one date
infix newest true date:2000-01-01
infix oldest true date:2000-01-01
infix newest true date:2023-01-01..2023-06-30
infix oldest true date:..2019-12-31
infix newest true date:2024-01-01..
# folders and paths
infix newest true folder:INBOX
infix newest true folder:Trash
infix newest flag folder:Trash or folder:Sent
infix oldest true path:lists/**
# ids and threads
infix newest true id:"$replied"
infix newest true mid:"$user"
infix oldest true thread:<thread-of:$replied>
infix newest all thread:<thread-of:$spam>
infix oldest flag thread:<thread-of:$spam>
infix newest false thread:<thread-of:$spam>
infix newest true thread:{from:user@example.org}
infix newest true thread:{tag:flagged} and not tag:flagged
# what the changes of walk write leave (empty before them)
infix newest true tag:c-mine or tag:py-mine
infix oldest true tag:c-read or tag:py-read
infix newest true tag:c-reset or tag:py-reset
infix newest true tag:deleted
infix newest flag tag:deleted
infix newest true property:c.key=v1 or property:py.key=v1
# syntax errors
infix newest true tag:inbox and (
sexp newest true (tag
# S-expressions
sexp newest true (tag unread)
sexp oldest true (and (from user@example.org) (date 2023 2024))
sexp newest true (or (tag flagged) (tag replied))
sexp newest true (not (tag unread))
sexp newest true (id "$replied")
sexp newest flag (or (tag spam) (folder INBOX))
sexp oldest true (and "meeting" (not (tag unread)))
QUERIES

# The counts of notmuch's and maildex's command lines for each infix query they can count the same
# way (exclude true, no <thread-of:>; not the errors), taken before any walk writes:
# "EXCLUDE QUERY<TAB>N M". (Not exclude false: the command line then adds no exclude tags, while
# walk adds them in every mode, and notmuch_query_count_messages still leaves their mail out.)
cli_counts() {
    grep '^infix [a-z]* true ' "$TMP_DIRECTORY/queries" | grep -v '<thread-of:' |
        while read -r _ _ exclude query; do
            messages=$("$1" count --exclude="$exclude" -- "$query" 2>/dev/null) &&
                threads=$("$1" count --exclude="$exclude" --output=threads -- "$query" 2>/dev/null) &&
                printf '%s %s\t%s %s\n' "$exclude" "$query" "$messages" "$threads"
        done
}
cli_counts "$NOTMUCH" > "$TMP_DIRECTORY/counts.notmuch"
cli_counts maildex > "$TMP_DIRECTORY/counts.maildex"

# run_side NAME RUNNER CONFIG ROOT: the six runs on one store, outputs in $TMP_DIRECTORY/NAME/ with the
# mail root written as MAIL_ROOT.
run_side() {
    out=$TMP_DIRECTORY/$1
    mkdir -p "$out"
    step() {
        file=$1
        shift
        "$runner" "$@" 2> "$out/$file.stderr" | sed "s|$root|MAIL_ROOT|g" > "$out/$file"
    }
    runner=$2 root=$4
    step c.before "$ABI_WALK" read "$3" "$TMP_DIRECTORY/queries"
    step c.write "$ABI_WALK" write "$3" c
    step c.after "$ABI_WALK" read "$3" "$TMP_DIRECTORY/queries"
    if [ -n "$ABI_PYTHON" ]; then
        step py.before "$ABI_PYTHON" "$srcdir/test/libnotmuch/walk.py" read "$3" "$TMP_DIRECTORY/queries"
        step py.write "$ABI_PYTHON" "$srcdir/test/libnotmuch/walk.py" write "$3" py
        step py.after "$ABI_PYTHON" "$srcdir/test/libnotmuch/walk.py" read "$3" "$TMP_DIRECTORY/queries"
    fi
}

# results FILE: each result line of compare.py as a subtest.
results() {
    tab=$(printf '\t')
    while IFS="$tab" read -r status name detail; do
        test_begin_subtest "$name"
        if [ "$status" = ok ]; then
            test_ok_
        else
            test_failure_ "$(printf '%s' "$detail" | python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)))')"
        fi
    done < "$1"
}
compare() {
    python3 "$srcdir/test/libnotmuch/compare.py" "$@" > "$TMP_DIRECTORY/result"
    results "$TMP_DIRECTORY/result"
}

# counts_match SIDE CLI: the walk's counts before any change against the command line's.
counts_match() {
    test_begin_subtest "$1: the counts of walk.c equal those of its command line, query by query"
    grep -v '<thread-of:' "$TMP_DIRECTORY/$1/c.before" |
        awk '/^query infix [a-z]* true / { q = $0; sub(/^query infix [a-z]* /, "", q); next }
             /^query / { q = ""; next }
             /^  count messages [0-9]* threads [0-9]*$/ && q != "" { print q "\t" $3 " " $5 }
             /^  count / { q = "" }' > "$TMP_DIRECTORY/counts.$1.walk"
    test_expect_equal_file "$TMP_DIRECTORY/counts.$2" "$TMP_DIRECTORY/counts.$1.walk"
}

run_side notmuch on_debian "$CONFIG" "$MAIL_DIR"

test_begin_subtest "notmuch: the walk reads every message of the generated Maildir and the four of one date"
test_expect_equal "$(sed -n 's/^  messages \([0-9]*\) threads [0-9]*$/\1/p' "$TMP_DIRECTORY/notmuch/c.before")" \
    "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["messages"] + 4)' "$TMP_DIRECTORY/gen.json")"
test_begin_subtest "notmuch: no walk wrote to stderr"
test_expect_equal "$(cat "$TMP_DIRECTORY"/notmuch/*.stderr)" ""
counts_match notmuch notmuch
if [ -n "$ABI_PYTHON" ]; then
    compare twins "notmuch: walk.c and walk.py print the same (after walk.c's changes)" \
        "$TMP_DIRECTORY/notmuch/c.after" "$TMP_DIRECTORY/notmuch/py.before"
else
    test_begin_subtest "notmuch: walk.c and walk.py print the same"
    test_skip_ "no python3 here imports notmuch2 (Debian's python3-notmuch2)"
fi

files="c.before c.write c.after"
[ -n "$ABI_PYTHON" ] && files="$files py.before py.write py.after"

if abi_have_lib; then
    run_side maildex on_ours "$TMP_DIRECTORY/config-second" "$SECOND"
    test_begin_subtest "maildex: no walk wrote to stderr"
    test_expect_equal "$(cat "$TMP_DIRECTORY"/maildex/*.stderr)" ""
    counts_match maildex maildex
    for f in $files; do
        case $f in
        *.write) compare whole "maildex against notmuch: $f" "$TMP_DIRECTORY/notmuch/$f" "$TMP_DIRECTORY/maildex/$f" ;;
        *) compare sections "maildex against notmuch: $f" "$TMP_DIRECTORY/notmuch/$f" "$TMP_DIRECTORY/maildex/$f" ;;
        esac
    done
else
    # The clients and the comparison on notmuch against itself: a second store from the same mail.
    ( cd "$TMP_DIRECTORY" && NOTMUCH_CONFIG=$TMP_DIRECTORY/config-second "$NOTMUCH" new > /dev/null 2>&1 &&
      NOTMUCH_CONFIG=$TMP_DIRECTORY/config-second "$NOTMUCH" tag +spam -- folder:Trash > /dev/null 2>&1 )
    run_side self on_debian "$TMP_DIRECTORY/config-second" "$SECOND"
    for f in $files; do
        compare whole "notmuch against a second notmuch store (the clients are deterministic): $f" \
            "$TMP_DIRECTORY/notmuch/$f" "$TMP_DIRECTORY/self/$f"
    done
    test_begin_subtest "maildex: the counts of walk.c equal those of its command line"
    test_skip_ "$abi_skip_reason"
    for f in $files; do
        test_begin_subtest "maildex against notmuch: $f"
        test_skip_ "$abi_skip_reason"
    done
fi
if [ -z "$ABI_PYTHON" ]; then
    test_begin_subtest "walk.py on both libraries"
    test_skip_ "no python3 here imports notmuch2 (Debian's python3-notmuch2)"
fi

test_done
