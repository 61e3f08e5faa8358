#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of the write commands against the real notmuch (issue 12's sequence, the part
# without dump and restore): one scripted sequence applied to two copies of a generated Maildir, once
# through notmuch 0.37 and once through maildex. After every step both must agree, through their
# command lines only:
#   - the tags: `search --output=tags '*'`, and for each tag the messages carrying it
#     (`search --output=messages tag:"T"`),
#   - the files: `search --output=files '*'`, relative to each mail root,
#   - the file names on disk (every file of each tree),
# and each step's exit status. The unique part of a file that `insert` wrote (time, pid, host) is
# each tool's own and is masked as UNIQUE; everything else of its name (folder, cur or new, flags)
# must match. The steps: tags by query, a batch with odd tags ("to do", "ü", "%", one starting with
# "-" through its hex code), removing unread (flag renames, new/ -> cur/), insert --folder=Sent +sent
# -inbox, insert --create-folder, insert into Drafts as a draft, insert of a message both already
# have, and a final `new` that must find nothing to reconcile; then a named query used by tag and
# search, properties set through restore, a dump, a destructive tag change, a restore of the dump (every
# tag back, every file name back), a restore --accumulate, and the two dumps at the end compared (the
# order of their lines is each tool's own: notmuch's is its document order).
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup ""

python3 "$srcdir/bench/gen" --count 600 --seed 12 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
MAIL_NM=$TMP_DIRECTORY/mail-nm
cp -a "$MAIL_DIR" "$MAIL_NM"
sed -i "s|^path=.*|path=$MAIL_NM|" "$NOTMUCH_CONFIG"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

# state TOOL ROOT: what one tool says of its store and tree, masked and sorted.
state() {
    tool=$1 root=$2
    echo "-- tags"
    "$tool" search --output=tags '*' | tee "$TMP_DIRECTORY/tags" | LC_ALL=C sort
    while IFS= read -r tag; do
        quoted=$(printf '%s' "$tag" | sed 's/"/""/g')
        "$tool" search --output=messages "tag:\"$quoted\"" | LC_ALL=C sort | sed "s|^|$tag	|"
    done < "$TMP_DIRECTORY/tags"
    echo "-- files"
    "$tool" search --output=files '*' | sed "s|^$root/||" | mask | LC_ALL=C sort
    echo "-- tree"
    (cd "$root" && find . -path ./.notmuch -prune -o -path ./.maildex -prune -o -type f -print) |
        sed 's|^\./||' | mask | LC_ALL=C sort
}
mask() { sed -E 's#(^|/)[0-9]+\.M[0-9]+P[0-9]+\.[^/:]+#\1UNIQUE#'; }

# Prints nothing when both agree, else a diff (at most 30 lines).
compare() {
    state "$NOTMUCH" "$MAIL_NM" > "$TMP_DIRECTORY/nm.state" 2>&1
    state maildex "$MAIL_DIR" > "$TMP_DIRECTORY/mx.state" 2>&1
    diff "$TMP_DIRECTORY/nm.state" "$TMP_DIRECTORY/mx.state" | head -n 30
}

# both ARG...: runs ARG... with each tool (stdin from $input when set); prints the exit statuses
# when they differ.
input=
both() {
    if [ -n "$input" ]; then
        "$NOTMUCH" "$@" < "$input" > "$TMP_DIRECTORY/nm.out" 2>&1; a=$?
        maildex "$@" < "$input" > "$TMP_DIRECTORY/mx.out" 2>&1; b=$?
    else
        "$NOTMUCH" "$@" > "$TMP_DIRECTORY/nm.out" 2>&1; a=$?
        maildex "$@" > "$TMP_DIRECTORY/mx.out" 2>&1; b=$?
    fi
    [ $a = $b ] || echo "exit status: notmuch $a, maildex $b"
}

step() {
    test_begin_subtest "$*"
    test_expect_equal "$(both "$@"; compare)" ""
}

test_begin_subtest "both stores agree before any change"
test_expect_equal "$(compare)" ""

step tag +todo -inbox -- 'folder:INBOX and date:2023'
step tag +work +flagged -- 'tag:todo and from:user@example.org'
step tag -inbox -- folder:lists/dev

cat > "$TMP_DIRECTORY/batch" <<'BATCH'
+to%20do -- tag:todo
+%c3%bc +%25 -- folder:Archive and date:2021
+%2dminus -- tag:flagged
# a comment, then an empty line

-todo +done -- tag:work
+%22quoted%22 -to%20do -- tag:"to do" and date:2023-06..2023-12
BATCH
input=$TMP_DIRECTORY/batch
step tag --batch
input=

step tag -unread -- 'folder:INBOX and date:2022'
step tag -unread -- 'path:INBOX/new/**'
step tag +replied -- 'tag:"-minus"'

printf 'From: Notmuch Test Suite <test_suite@notmuchmail.org>\nTo: someone@example.org\nSubject: sent by both\nDate: Tue, 02 Jan 2024 10:00:00 +0000\nMessage-ID: <sent-1@maildex.test>\n\nA message filed by Fcc.\n' > "$TMP_DIRECTORY/sent"
input=$TMP_DIRECTORY/sent
step insert --folder=Sent +sent -inbox

printf 'From: Notmuch Test Suite <test_suite@notmuchmail.org>\nTo: someone@example.org\nSubject: a draft\nDate: Tue, 02 Jan 2024 11:00:00 +0000\nMessage-ID: <draft-1@maildex.test>\n\nNot sent yet.\n' > "$TMP_DIRECTORY/draft"
input=$TMP_DIRECTORY/draft
step insert --create-folder --folder=drafts +draft -unread

printf 'From: Someone <someone@example.org>\nTo: Notmuch Test Suite <test_suite@notmuchmail.org>\nSubject: into a new folder\nDate: Tue, 02 Jan 2024 12:00:00 +0000\nMessage-ID: <new-folder-1@maildex.test>\n\nHello.\n' > "$TMP_DIRECTORY/newfolder"
input=$TMP_DIRECTORY/newfolder
step insert --create-folder --folder=projects/2024 +project

# A message both already have (a file of the generated tree): a second file, the tags unchanged.
existing=$(find "$MAIL_DIR/INBOX/cur" -type f | LC_ALL=C sort | head -n 1)
input=$existing
step insert --folder=Archive +ignored -inbox
input=

step tag -sent +sent-checked -- folder:Sent

test_begin_subtest "after all that, new finds nothing to change in either"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
test_expect_equal "$(compare)" ""

for tool in "$NOTMUCH" maildex; do
    "$tool" config set query.busy 'tag:work or tag:"to do" or tag:project'
done
step tag +busy -- query:busy

test_begin_subtest "search by a named query"
test_expect_equal "$(both search --output=messages --sort=oldest-first query:busy
                     diff "$TMP_DIRECTORY/nm.out" "$TMP_DIRECTORY/mx.out")" ""

# Properties through restore: one "#=" line per message, on messages both know.
"$NOTMUCH" search --output=messages --sort=oldest-first tag:flagged | head -n 5 |
    sed 's/^id://' > "$TMP_DIRECTORY/prop-ids"
while IFS= read -r mid; do
    printf '#= %s review=pending origin=T125%%20test\n' "$mid"
done < "$TMP_DIRECTORY/prop-ids" > "$TMP_DIRECTORY/props"
input=$TMP_DIRECTORY/props
step restore --accumulate --include=properties
input=

test_begin_subtest "properties set through restore are found by property:"
test_expect_equal "$(both search --output=messages --sort=oldest-first property:review=pending
                     diff "$TMP_DIRECTORY/nm.out" "$TMP_DIRECTORY/mx.out"; wc -l < "$TMP_DIRECTORY/mx.out")" "5"

# dump_sorted TOOL FILE: the tool's dump, the header first, then every other line sorted.
dump_sorted() {
    "$1" dump --include=tags --include=properties > "$2.raw"
    head -n 1 "$2.raw" > "$2"
    tail -n +2 "$2.raw" | LC_ALL=C sort >> "$2"
}

test_begin_subtest "dump: the same lines from both"
dump_sorted "$NOTMUCH" "$TMP_DIRECTORY/nm.dump"
dump_sorted maildex "$TMP_DIRECTORY/mx.dump"
# Not two empty dumps: the named query's tag and the five messages' properties are in them.
test_expect_equal "$(diff "$TMP_DIRECTORY/nm.dump" "$TMP_DIRECTORY/mx.dump" | head -n 30
                     grep -c '^#= ' "$TMP_DIRECTORY/mx.dump"; grep -c '^+.*+busy' "$TMP_DIRECTORY/mx.dump" | sed 's/^[1-9][0-9]*$/some/')" "5
some"

step tag -inbox -unread -flagged -todo -work +wiped -- '*'

"$NOTMUCH" dump --include=tags --include=properties > "$TMP_DIRECTORY/nm.before"
maildex dump --include=tags --include=properties > "$TMP_DIRECTORY/mx.before"
test_begin_subtest "restore brings every tag and file name back"
wiped=$(grep -c '+wiped' "$TMP_DIRECTORY/mx.before")
"$NOTMUCH" restore --input="$TMP_DIRECTORY/nm.dump.raw" > "$TMP_DIRECTORY/nm.out" 2>&1; a=$?
maildex restore --input="$TMP_DIRECTORY/mx.dump.raw" > "$TMP_DIRECTORY/mx.out" 2>&1; b=$?
dump_sorted "$NOTMUCH" "$TMP_DIRECTORY/nm.after"
dump_sorted maildex "$TMP_DIRECTORY/mx.after"
test_expect_equal "$a $b $(compare; diff "$TMP_DIRECTORY/nm.dump" "$TMP_DIRECTORY/nm.after" | head -n 5
                            diff "$TMP_DIRECTORY/mx.dump" "$TMP_DIRECTORY/mx.after" | head -n 5
                            [ "$wiped" -gt 500 ] || echo "the wipe reached $wiped messages")" "0 0 "

printf '+restored -- id:%s\n+%%2dminus +also -- id:%s\n' "$(sed -n 1p "$TMP_DIRECTORY/prop-ids")" \
    "$(sed -n 2p "$TMP_DIRECTORY/prop-ids")" > "$TMP_DIRECTORY/acc"
input=$TMP_DIRECTORY/acc
step restore --accumulate
input=

test_begin_subtest "at the end, both dumps are the same"
dump_sorted "$NOTMUCH" "$TMP_DIRECTORY/nm.end"
dump_sorted maildex "$TMP_DIRECTORY/mx.end"
test_expect_equal "$(diff "$TMP_DIRECTORY/nm.end" "$TMP_DIRECTORY/mx.end" | head -n 30)" ""

test_done
