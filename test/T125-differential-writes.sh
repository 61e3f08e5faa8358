#!/bin/sh
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
# have, and a final `new` that must find nothing to reconcile. The lead extends it with dump and
# restore (compare() is the place).
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

test_done
