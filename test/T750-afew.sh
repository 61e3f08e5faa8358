#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# afew on maildex, differential (issue 29, deliver 1). Debian's afew tags new mail and moves files
# with its MailMover in two copies of one generated Maildir: one under Debian's notmuch (its
# libnotmuch, its `notmuch new` after a move), one under maildex (`maildex exec afew`: maildex's
# libnotmuch.so.5, and maildex as the `notmuch` afew runs). Its usual filters are enabled,
# SentMailsFilter with a sent tag, and move rules out of INBOX, Archive, Sent and a list folder. Two
# rounds: the first index, the user archiving and deleting, `afew --move-mails`, `new`; then a sync
# pass of bench/gen (new mail, flag changes, moves, deletions), `new`, afew again, `new`. After each
# step every message's tags (`dump`, sorted) and every file of every folder (its path under the
# mail root: folder, cur or new, unique name and flags) must be the same in both trees, and afew
# must print the same. The one normalisation: a message whose copies disagree on List-Id gets the
# list tags of the copy each library reads first (afew.sh), so those tags are checked on their own.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
. "$srcdir/test/libnotmuch/afew.sh"
if ! abi_have_lib; then
    echo "1..0 # SKIP $abi_skip_reason"
    exit 0
fi

# Two trees: notmuch's in $NM_DIR, maildex's in $MAIL_DIR, each with its own config.
NM_DIR=$TMP_DIRECTORY/mail-notmuch
sed -i "s|^path=.*|path=$NM_DIR|" "$NOTMUCH_CONFIG"
afew_configs "$NOTMUCH_CONFIG" "$MAILDEX_CONFIG"

# max_age adds a bare range of seconds since the epoch (from 20 years ago to now) to every move
# query: all the generated mail (2019 to 2024) is inside it until 2039.
afew_user_config <<'EOF'
[SpamFilter]
[KillThreadsFilter]
[ListMailsFilter]
[SentMailsFilter]
sent_tag = sent
[ArchiveSentMailsFilter]
[InboxFilter]

[MailMover]
folders = INBOX Archive Sent lists/dev
max_age = 7300
INBOX = 'tag:deleted':Trash 'tag:spam':Trash 'NOT tag:inbox':Archive
Archive = 'tag:inbox AND NOT tag:sent':INBOX 'tag:deleted':Trash
Sent = 'NOT tag:sent':Archive
lists/dev = 'tag:killed':Trash
EOF

python3 "$srcdir/bench/gen" --count 200 --seed 9 "$TMP_DIRECTORY/gen" > /dev/null
afew_spam "$TMP_DIRECTORY/gen"
rmdir "$MAIL_DIR"
cp -a "$TMP_DIRECTORY/gen" "$MAIL_DIR"
cp -a "$TMP_DIRECTORY/gen" "$NM_DIR"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
afew_split_copies > "$TMP_DIRECTORY/split"

# tags TOOL: TOOL's dump, sorted, without the list tags of the messages in split.
tags() {
    "$1" dump 2>/dev/null | grep -v '^#' | awk -v splitfile="$TMP_DIRECTORY/split" '
        BEGIN { while ((getline id < splitfile) > 0) skip["id:" id] = 1 }
        $NF in skip { line = ""
            for (i = 1; i <= NF; i++) if ($i !~ /^\+lists(%2f.*)?$/) line = line (line == "" ? "" : " ") $i
            $0 = line }
        { print }' | sort
}
files() { (cd "$1" && find . -name .notmuch -prune -o -name .maildex -prune -o -type f -print | sort); }
record() {
    tags "$NOTMUCH" > "$TMP_DIRECTORY/tags.$1.notmuch"
    tags maildex > "$TMP_DIRECTORY/tags.$1.maildex"
    files "$NM_DIR" > "$TMP_DIRECTORY/files.$1.notmuch"
    files "$MAIL_DIR" > "$TMP_DIRECTORY/files.$1.maildex"
}
# same NOTMUCH_FILE MAILDEX_FILE: the two are equal, and not empty.
same() {
    if [ -s "$1" ]; then
        test_expect_equal_file "$1" "$2"
    else
        test_failure_ "nothing recorded in $1"
    fi
}
# compare WHAT STEP: the tags and the files recorded after STEP are the same in both trees.
compare() {
    record "$2"
    test_begin_subtest "$1: every message has the same tags"
    same "$TMP_DIRECTORY/tags.$2.notmuch" "$TMP_DIRECTORY/tags.$2.maildex"
    test_begin_subtest "$1: every folder holds the same files"
    same "$TMP_DIRECTORY/files.$2.notmuch" "$TMP_DIRECTORY/files.$2.maildex"
}
# afew_both STEP ARGS...: afew with ARGS in both trees; the same output and exit status.
afew_both() {
    step=$1
    shift
    on_debian afew "$@" > "$TMP_DIRECTORY/afew.$step.notmuch" 2>&1
    echo "exit $?" >> "$TMP_DIRECTORY/afew.$step.notmuch"
    with_asan maildex exec afew "$@" > "$TMP_DIRECTORY/afew.$step.maildex" 2>&1
    echo "exit $?" >> "$TMP_DIRECTORY/afew.$step.maildex"
    test_begin_subtest "afew $* ($step): the same output and exit status in both trees"
    test_expect_equal_file "$TMP_DIRECTORY/afew.$step.notmuch" "$TMP_DIRECTORY/afew.$step.maildex"
}
# new_both STEP: new in both trees; the same output.
new_both() {
    "$NOTMUCH" new > "$TMP_DIRECTORY/new.$1.notmuch" 2>&1
    maildex new > "$TMP_DIRECTORY/new.$1.maildex" 2>&1
    test_begin_subtest "new ($1): the same output in both trees"
    test_expect_equal_file "$TMP_DIRECTORY/new.$1.notmuch" "$TMP_DIRECTORY/new.$1.maildex"
}
both() {
    "$NOTMUCH" "$@" > /dev/null 2>&1
    maildex "$@" > /dev/null 2>&1
}

test_begin_subtest "some messages have copies that disagree on List-Id (the normalisation is not idle)"
test_expect_equal "$([ -s "$TMP_DIRECTORY/split" ] && echo some)" "some"
compare "first index" index

# A killed thread (KillThreadsFilter kills the rest of it) and deleted mail, before afew.
killed=$("$NOTMUCH" search --output=messages --sort=oldest-first --limit=1 'thread:{from:user@example.org}')
both tag +killed -- "$killed"
both tag +deleted -- 'from:"@lists.example.net"'

afew_both tag1 --tag --new
compare "afew --tag --new" tag1
test_begin_subtest "afew tagged: no new mail left; spam, lists, sent, killed, inbox"
summary() {
    for q in tag:new tag:spam tag:lists tag:sent tag:killed tag:inbox; do
        echo "$q $("$NOTMUCH" count --exclude=false "$q")"
    done | awk '{ print $1, ($1 == "tag:new" ? $2 : ($2 > 0 ? "some" : "none")) }' | tr '\n' ' '
}
test_expect_equal "$(summary)" "tag:new 0 tag:spam some tag:lists some tag:sent some tag:killed some tag:inbox some "
test_begin_subtest "a message whose copies disagree on List-Id has its first copy's list tags, in both"
test_expect_equal "$(afew_first_copy_bad "$NOTMUCH" "$TMP_DIRECTORY/split"; afew_first_copy_bad maildex "$TMP_DIRECTORY/split")" ""

# The user reads and archives older mail and deletes a thread.
both tag -inbox -- date:..2021-12-31
both tag +deleted -- 'thread:{from:"@lists.example.org" and date:2023}'
afew_both move1 --move-mails
compare "afew --move-mails" move1
test_begin_subtest "afew moved mail: Trash gained files, and the tree changed"
before=$(grep -c '^\./Trash/' "$TMP_DIRECTORY/files.tag1.notmuch")
after=$(grep -c '^\./Trash/' "$TMP_DIRECTORY/files.move1.notmuch")
test_expect_equal "$([ "$after" -gt "$before" ] && echo more) $(cmp -s "$TMP_DIRECTORY/files.tag1.notmuch" "$TMP_DIRECTORY/files.move1.notmuch" || echo moved)" "more moved"
new_both new1
compare "new after the move" new1

# Round two: mail arrives and a sync tool changes flags, moves and deletes; the same pass in both.
for d in "$NM_DIR" "$MAIL_DIR"; do
    python3 "$srcdir/bench/gen" --sync --seed 4 --new 30 --flags 12 --newcur 3 --moves 6 --deletes 4 "$d" > /dev/null
done
new_both sync
compare "new after a sync pass" sync
afew_both tag2 --tag --new
compare "afew --tag --new, again" tag2
afew_both move2 --move-mails
compare "afew --move-mails, again" move2
new_both new2
compare "new, again" new2

test_done
