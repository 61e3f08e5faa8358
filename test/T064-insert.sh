#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `insert`: notmuch.el's Fcc and drafts (`insert --folder=sent +sent -unread -inbox`, `insert
# --create-folder --folder=drafts +draft`). The message from stdin lands in the folder's new/, or in
# cur/ with the flags its tags imply, byte for byte (an mbox "From " line aside), mode 0600; it is
# indexed with new.tags then the arguments, in one transaction; nothing is left in tmp/, and after a
# failure nothing is left at all unless --keep. Folders outside the mail root are refused. Exit
# status 1 for a bad command, input or folder, 75 when the database cannot take the message now;
# the post-insert hook runs after a delivery. notmuch's own T070-insert is the model.
. "$(dirname "$0")/test-lib.sh"

umask 022
mkdir -p "$MAIL_DIR/cur" "$MAIL_DIR/new" "$MAIL_DIR/tmp" "$MAIL_DIR/Drafts/cur" "$MAIL_DIR/Drafts/new" \
    "$MAIL_DIR/Drafts/tmp"
maildex new > /dev/null
SHIM=$MAILDEX_BUILDDIR/test/.libs/fault-shim.so
# the program linked to the shared libsqlite3, whose sqlite3_step the shim can interpose on
SHIM_PATH=$MAILDEX_BUILDDIR/test/shared-sqlite:$PATH
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

# msg: a new message in $TMP_DIRECTORY/msg with id ins-N@x; sets id.
n=0
msg() {
    n=$((n + 1))
    id=ins-$n@x
    printf 'From: Sender <sender@example.org>\nTo: you@example.org\nSubject: insert %s\nDate: Sat, 01 Jan 2000 12:00:00 -0000\nMessage-Id: <%s>\n\ninsert-message %s\n' \
        "$n" "$id" "$n" > "$TMP_DIRECTORY/msg"
}
file_of() { maildex search --output=files --exclude=false "id:$1"; }
rel() { sed "s|^$MAIL_DIR/||; s|/[0-9]*\.M[0-9]*P[0-9]*\.[^/:]*|/UNIQUE|"; }
tags_of() { maildex search --output=tags --exclude=false "id:$1" | tr '\n' ' ' | sed 's/ $//'; }
# Relative to the mail root: the suite's own directory may itself lie below a /tmp/.
leftovers() { (cd "$MAIL_DIR" && find . -path ./.maildex -prune -o -path '*/tmp/*' -type f -print); }
# All files of the Maildirs, relative, unique parts hidden, sorted.
all_files() { (cd "$MAIL_DIR" && find . -path ./.maildex -prune -o -type f -print) | sed 's|^\./||' | rel | sort; }

test_begin_subtest "insert delivers the message byte for byte into new/, mode 0600, with new.tags"
msg
maildex insert < "$TMP_DIRECTORY/msg"
rc=$?
f=$(file_of $id)
test_expect_equal "$rc|$(echo "$f" | rel)|$(cmp "$f" "$TMP_DIRECTORY/msg" && echo same)|$(stat -c %a "$f")|$(tags_of $id)|$(leftovers)" \
    "0|new/UNIQUE|same|600|inbox unread|"

test_begin_subtest "its name is Dovecot's unique name, as notmuch makes it"
test_expect_equal "$(basename "$f" | sed -E 's/^[0-9]+\.M[0-9]+P[0-9]+\.[^:/]+$/ok/')" "ok"

test_begin_subtest "inserting it again adds a file and changes no tag (the arguments neither)"
cp "$TMP_DIRECTORY/msg" "$TMP_DIRECTORY/dup"
maildex insert +duptag -unread < "$TMP_DIRECTORY/dup"
test_expect_equal "$?|$(file_of $id | wc -l)|$(tags_of $id)" "0|2|inbox unread"

test_begin_subtest "+TAG -TAG after new.tags; tags without a flag keep the file in new/"
msg
maildex insert +custom -inbox < "$TMP_DIRECTORY/msg"
test_expect_equal "$(tags_of $id)|$(file_of $id | rel)" "custom unread|new/UNIQUE"

test_begin_subtest "tags with flags put the file in cur/ with them: +flagged, -unread"
msg
maildex insert +flagged -unread < "$TMP_DIRECTORY/msg"
test_expect_equal "$(tags_of $id)|$(file_of $id | rel)" "flagged inbox|cur/UNIQUE:2,FS"

test_begin_subtest "new.tags without unread: cur/ with S"
sed -i 's/^tags=unread;inbox;/tags=sent;/' "$MAILDEX_CONFIG"
msg
maildex insert < "$TMP_DIRECTORY/msg"
test_expect_equal "$(tags_of $id)|$(file_of $id | rel)" "sent|cur/UNIQUE:2,S"
sed -i 's/^tags=sent;/tags=unread;inbox;/' "$MAILDEX_CONFIG"

test_begin_subtest "new.tags values are trimmed and blank ones dropped, as notmuch's"
sed -i 's/^tags=unread;inbox;/tags= fu bar ; ; bar /' "$MAILDEX_CONFIG"
msg
maildex insert < "$TMP_DIRECTORY/msg"
test_expect_equal "$(maildex search --output=tags --format=json id:$id | tr -d '\n')" '["bar","fu bar"]'
sed -i 's/^tags= fu bar ; ; bar /tags=unread;inbox;/' "$MAILDEX_CONFIG"

test_begin_subtest "with maildir.synchronize_flags=false the file stays in new/"
sed -i 's/^synchronize_flags=true/synchronize_flags=false/' "$MAILDEX_CONFIG"
msg
maildex insert +flagged -unread < "$TMP_DIRECTORY/msg"
test_expect_equal "$(tags_of $id)|$(file_of $id | rel)" "flagged inbox|new/UNIQUE"
sed -i 's/^synchronize_flags=false/synchronize_flags=true/' "$MAILDEX_CONFIG"

test_begin_subtest "notmuch.el's Fcc: --folder=Drafts +draft -unread lands in Drafts/cur as :2,DS"
msg
maildex insert --folder=Drafts +draft -unread < "$TMP_DIRECTORY/msg"
test_expect_equal "$(file_of $id | rel)|$(maildex count "folder:Drafts and tag:draft and id:$id")" \
    "Drafts/cur/UNIQUE:2,DS|1"

test_begin_subtest "--folder= (the root), Drafts/ and ./Drafts are the same folders as notmuch's"
msg
maildex insert --folder= < "$TMP_DIRECTORY/msg"
a=$(file_of $id | rel)
msg
maildex insert --folder=Drafts/ < "$TMP_DIRECTORY/msg"
b=$(file_of $id | rel)
msg
maildex insert --folder=./Drafts < "$TMP_DIRECTORY/msg"
test_expect_equal "$a|$b|$(file_of $id | rel)" "new/UNIQUE|Drafts/new/UNIQUE|Drafts/new/UNIQUE"

test_begin_subtest "a folder that does not exist: exit 1, named, nothing delivered"
msg
maildex insert --folder=nonesuch < "$TMP_DIRECTORY/msg" > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/out")|$(maildex count id:$id)|$(ls "$MAIL_DIR" | grep -c nonesuch)" \
    "1|maildex insert: no Maildir folder 'nonesuch' in the mail root: '$MAIL_DIR/nonesuch/cur' is not a directory|0|0"

test_begin_subtest "--create-folder makes the folder, its parents and cur/ new/ tmp/, mode 0700"
msg
maildex insert --folder=F/G/H/I/J --create-folder +folder < "$TMP_DIRECTORY/msg"
test_expect_equal "$?|$(file_of $id | rel)|$(stat -c %a "$MAIL_DIR/F" "$MAIL_DIR/F/G/H/I/J" "$MAIL_DIR/F/G/H/I/J/new" "$MAIL_DIR/F/G/H/I/J/tmp" | tr '\n' ' ')" \
    "0|F/G/H/I/J/new/UNIQUE|700 700 700 700 "

test_begin_subtest "--world-readable: 0755 folders and a 0644 file, under the umask (027: 0750, 0640)"
msg
(umask 027; maildex insert --folder=W --create-folder --world-readable < "$TMP_DIRECTORY/msg")
test_expect_equal "$(stat -c %a "$MAIL_DIR/W" "$MAIL_DIR/W/new" "$(file_of $id)" | tr '\n' ' ')" "750 750 640 "

test_begin_subtest "--create-folder on a folder that exists delivers there"
msg
maildex insert --folder=F/G/H/I/J --create-folder +folder < "$TMP_DIRECTORY/msg"
test_expect_equal "$?|$(maildex count path:F/G/H/I/J/new tag:folder)" "0|2"

test_begin_subtest "folders outside the mail root, or with a cur, new or tmp component, are refused: exit 1, nothing created"
before=$(all_files)
for folder in ../G /tmp/outside a/../../b .. projects/new new/x Drafts/tmp cur; do
    msg
    maildex insert --folder="$folder" --create-folder < "$TMP_DIRECTORY/msg" 2>> "$TMP_DIRECTORY/refused"
    echo "[$?]"
done > "$TMP_DIRECTORY/codes"
test_expect_equal "$(tr -d '\n' < "$TMP_DIRECTORY/codes")|$(head -n 1 "$TMP_DIRECTORY/refused")|$([ "$(all_files)" = "$before" ] && echo untouched)|$([ -e "$TMP_DIRECTORY/G" ] || [ -e /tmp/outside ] || echo none)" \
    "[1][1][1][1][1][1][1][1]|maildex insert: invalid folder name '../G': it must be a path inside the mail root, without '..' (and without 'cur', 'new' or 'tmp', which are a Maildir's own)|untouched|none"

test_begin_subtest "the folders insert made are the ones new would make: new finds nothing to do"
age_directories
test_expect_equal "$(maildex new 2>&1)|$(maildex_store_check)" "No new mail.|ok"

test_begin_subtest "an empty input, and one that is not mail: exit 1, nothing left anywhere"
before=$(all_files)
maildex insert < /dev/null 2> "$TMP_DIRECTORY/err1"
a=$?
echo bad_message | maildex insert 2> "$TMP_DIRECTORY/err2"
b=$?
test_expect_equal "$a $b|$(cat "$TMP_DIRECTORY/err1" "$TMP_DIRECTORY/err2")|$([ "$(all_files)" = "$before" ] && echo untouched)" \
    "1 1|maildex insert: no message to deliver: the input is empty
maildex insert: cannot deliver the message: not a mail file: no From, Subject or To header|untouched"

test_begin_subtest "--keep: what is not mail stays in new/, it says so, exit 0; new notes it as notmuch does"
echo bad_message | maildex insert --keep 2> "$TMP_DIRECTORY/err"
rc=$?
kept=$(sed -n "s/.*the message is kept in '\\(.*\\)' for 'maildex new'$/\\1/p" "$TMP_DIRECTORY/err")
test_expect_equal "$rc|$(echo "$kept" | rel)|$(cat "$kept")|$(maildex new 2>&1 | grep -c "Note: Ignoring non-mail file: $kept")" \
    "0|new/UNIQUE|bad_message|1"
rm -f "$kept"

test_begin_subtest "an mbox's From line becomes X-Envelope-From (notmuch's conversion)"
msg
{ echo "From sender@example.org Sat Jan  1 12:00:00 2000"; cat "$TMP_DIRECTORY/msg"; } | maildex insert +unmboxed
test_expect_equal "$(maildex count tag:unmboxed)|$(head -n 1 "$(file_of $id)")" \
    "1|X-Envelope-From: sender@example.org Sat Jan  1 12:00:00 2000"

test_begin_subtest "bad arguments: a query, an invalid tag, a tag too long, new.tags starting with -: exit 1"
msg
{
    maildex insert +x some query < "$TMP_DIRECTORY/msg"; echo "[$?]"
    maildex insert +-x < "$TMP_DIRECTORY/msg"; echo "[$?]"
    maildex insert "+$(printf '%0201d' 0)" < "$TMP_DIRECTORY/msg"; echo "[$?]"
    sed -i 's/^tags=unread;inbox;/tags=-foo;bar;/' "$MAILDEX_CONFIG"
    maildex insert < "$TMP_DIRECTORY/msg"; echo "[$?]"
    sed -i 's/^tags=-foo;bar;/tags=unread;inbox;/' "$MAILDEX_CONFIG"
} > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(sed 's/0\{201\}/LONG/' "$TMP_DIRECTORY/out")|$(maildex count id:$id)" "maildex insert: unexpected query string 'some query': insert takes only +TAG and -TAG
[1]
maildex insert: invalid tag change '+-x': tag starting with '-' forbidden
[1]
maildex insert: cannot add tag 'LONG': tag value is too long (exceeds 200 bytes)
[1]
Error: tag '-foo' in new.tags: tag starting with '-' forbidden
[1]|0"

test_begin_subtest "the post-insert hook runs after a delivery, sees the message, NOTMUCH_CONFIG set"
mkdir -p "$MAIL_DIR/.maildex/hooks"
printf '#!/bin/sh\necho "$(maildex count tag:hooked-msg) $NOTMUCH_CONFIG" > "%s/hook.out"\n' "$TMP_DIRECTORY" \
    > "$MAIL_DIR/.maildex/hooks/post-insert"
chmod +x "$MAIL_DIR/.maildex/hooks/post-insert"
msg
maildex insert +hooked-msg < "$TMP_DIRECTORY/msg"
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/hook.out")" "0|1 $MAILDEX_CONFIG"

test_begin_subtest "... not after a failure, nor with --no-hooks"
rm -f "$TMP_DIRECTORY/hook.out"
echo bad | maildex insert 2> /dev/null
msg
maildex insert --no-hooks < "$TMP_DIRECTORY/msg"
test_expect_equal "$([ -e "$TMP_DIRECTORY/hook.out" ] && echo ran || echo not run)" "not run"

test_begin_subtest "... and its failure does not change insert's exit status"
printf '#!/bin/sh\nexit 13\n' > "$MAIL_DIR/.maildex/hooks/post-insert"
msg
maildex insert < "$TMP_DIRECTORY/msg" 2> /dev/null
test_expect_equal "$?|$(maildex count id:$id)" "0|1"
rm "$MAIL_DIR/.maildex/hooks/post-insert"

if [ -f "$SHIM" ]; then
    test_begin_subtest "the database cannot take it (busy past the wait): exit 75, nothing left"
    before=$(all_files)
    msg
    env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_BUSY_AT_BEGIN=1 maildex insert < "$TMP_DIRECTORY/msg" > "$TMP_DIRECTORY/out" 2>&1
    test_expect_equal "$?|$(sed 's/(waited [0-9]* s)/(waited N s)/' "$TMP_DIRECTORY/out")|$([ "$(all_files)" = "$before" ] && echo untouched)" \
        "75|maildex insert: cannot start a write transaction: database '$MAIL_DIR/.maildex/maildex.db' is locked by another writer (waited N s)|untouched"

    test_begin_subtest "... with --keep: exit 0, the message in new/ for the next new, which indexes it"
    env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_BUSY_AT_BEGIN=1 maildex insert --keep +lost-tag < "$TMP_DIRECTORY/msg" 2> /dev/null
    rc=$?
    kept=$(find "$MAIL_DIR/new" -newer "$TMP_DIRECTORY/msg" -type f | wc -l)
    maildex new > /dev/null 2>&1
    test_expect_equal "$rc|$kept|$(tags_of $id)" "0|1|inbox unread"

    test_begin_subtest "killed before its commit: the file is there and the next new indexes it with its flags"
    msg
    env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_KILL_AT_COMMIT=1 maildex insert +flagged < "$TMP_DIRECTORY/msg" 2> /dev/null
    rc=$?
    maildex new > /dev/null 2>&1
    test_expect_equal "$rc|$(file_of $id | rel)|$(tags_of $id)|$(leftovers)" "137|cur/UNIQUE:2,F|flagged inbox unread|"
fi

test_begin_subtest "everything inserted is consistent with the files: new finds nothing to reconcile"
age_directories
test_expect_equal "$(maildex new 2>&1)|$(maildex_store_check)" "No new mail.|ok"

test_done
