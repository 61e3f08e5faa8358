#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Something that cannot be read is not something that is gone. A folder or file that exists but
# cannot be opened (chmod 000, an I/O error) keeps its messages and their tags, gets one warning naming
# it and the reason, and makes `new` exit as notmuch does (1 for a directory, 75 for a file); the run
# after access returns finds what changed meanwhile without --full-scan. Only what is really gone
# (ENOENT) leaves the index. As root, `without_overrides` drops the capabilities that override permissions.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3
test_require setpriv

for f in inbox sent archive; do mkdir -p "$MAIL_DIR/$f/cur" "$MAIL_DIR/$f/new" "$MAIL_DIR/$f/tmp"; done
generate_message dir=inbox/cur filename=in1:2,S id=in1@t body="inboxword one" >/dev/null
generate_message dir=inbox/cur filename=in2:2,S id=in2@t body="inboxword two" >/dev/null
generate_message dir=sent/cur filename=s1:2,S id=s1@t body="sentword one" >/dev/null
generate_message dir=sent/cur filename=s2:2,S id=s2@t body="sentword two" >/dev/null
generate_message dir=archive/cur filename=a1:2,S id=a1@t body="archiveword" >/dev/null
age_directories
maildex new >/dev/null 2>&1
maildex tag +precious -- '*'
before=$(maildex_store_dump)

# new_unprivileged: runs `maildex new` without permission overrides; sets rc, out, err.
new_unprivileged() {
    without_overrides maildex new "$@" > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
    rc=$?
    out=$(cat "$TMP_DIRECTORY/out")
    err=$(cat "$TMP_DIRECTORY/err")
}

chmod 000 "$MAIL_DIR/sent"
new_unprivileged

test_begin_subtest "an unreadable folder: new exits 1, as notmuch does"
test_expect_equal "$rc" "1"

test_begin_subtest "an unreadable folder: one warning naming it and the reason"
test_expect_equal "$err" "maildex new: '$MAIL_DIR/sent': cannot read directory: Permission denied; what the index knows of it is kept"

test_begin_subtest "an unreadable folder: its messages and every tag are kept"
test_expect_equal "$(maildex_store_dump)" "$before"

test_begin_subtest "an unreadable folder, again: still kept, still exit 1"
new_unprivileged
test_expect_equal "$rc $(maildex count tag:precious)" "1 5"

chmod 755 "$MAIL_DIR/sent"
test_begin_subtest "access returns: new exits 0 and changes nothing"
new_unprivileged
test_expect_equal "$rc|$err|$(maildex_store_dump)" "0||$before"

# Mail delivered into a folder that then becomes unreadable is found once it can be read again,
# without --full-scan: the folder's mtime is not recorded while it cannot be listed.
generate_message dir=sent/cur filename=s3:2,S id=s3@t body="sentword three" >/dev/null
chmod 000 "$MAIL_DIR/sent/cur"
new_unprivileged
test_begin_subtest "a changed leaf folder that cannot be listed: warning, exit 1, nothing lost"
test_expect_equal "$rc|$err|$(maildex count tag:precious)" \
    "1|maildex new: '$MAIL_DIR/sent/cur': cannot read directory: Permission denied; what the index knows of it is kept|5"
chmod 755 "$MAIL_DIR/sent/cur"

test_begin_subtest "the next run finds what arrived meanwhile, without --full-scan"
new_unprivileged
test_expect_equal "$rc $(maildex count id:s3@t)" "0 1"

# A message moved (by hand or by a sync tool) into a folder that cannot be read: the listing of its
# old folder shows it gone, but it may be where it moved, so it keeps its tags.
maildex tag +moved -- id:in1@t
mv "$MAIL_DIR/inbox/cur/in1:2,S" "$MAIL_DIR/archive/cur/in1-moved:2,S"
chmod 000 "$MAIL_DIR/archive/cur"
new_unprivileged
test_begin_subtest "a message moved into an unreadable folder keeps its tags"
test_expect_equal "$rc $(maildex count 'tag:moved and tag:precious')" "1 1"

test_begin_subtest "... and new says why it kept it"
test_expect_equal "$(grep -c '^maildex new: kept 1 message whose files are gone' "$TMP_DIRECTORY/err")" "1"

chmod 755 "$MAIL_DIR/archive/cur"
test_begin_subtest "... and once the folder can be read, the move is a rename with the tags kept"
new_unprivileged
test_expect_equal "$rc|$(echo "$out" | tail -n 1)|$(maildex search --output=files tag:moved)" \
    "0|No new mail. Detected 1 file rename.|$MAIL_DIR/archive/cur/in1-moved:2,S"

# A file that exists but cannot be opened: notmuch's "Error opening" and exit 75 (EX_TEMPFAIL). The
# file is retried, and meanwhile no message whose last file is gone is removed (it may be that file).
generate_message dir=inbox/cur filename=locked:2,S id=locked@t body="lockedword" >/dev/null
chmod 000 "$MAIL_DIR/inbox/cur/locked:2,S"
maildex tag +renamed -- id:in2@t
mv "$MAIL_DIR/inbox/cur/in2:2,S" "$MAIL_DIR/inbox/cur/in2-renamed-and-locked:2,S"
chmod 000 "$MAIL_DIR/inbox/cur/in2-renamed-and-locked:2,S"
touch -d '2 seconds ago' "$MAIL_DIR/inbox/cur"
new_unprivileged
test_begin_subtest "an unreadable file: exit 75, as notmuch"
test_expect_equal "$rc" "75"

test_begin_subtest "an unreadable file: one warning each, naming it and the reason"
grep -c "Permission denied" "$TMP_DIRECTORY/err" > "$TMP_DIRECTORY/count"
test_expect_equal "$(grep "^maildex new: '$MAIL_DIR/inbox/cur/locked:2,S': cannot open: Permission denied$" "$TMP_DIRECTORY/err" | wc -l) $(cat "$TMP_DIRECTORY/count")" "1 2"

test_begin_subtest "a renamed file that cannot be read: its message keeps its tags"
test_expect_equal "$(maildex count 'tag:renamed and tag:precious')" "1"

chmod 644 "$MAIL_DIR/inbox/cur/locked:2,S" "$MAIL_DIR/inbox/cur/in2-renamed-and-locked:2,S"
test_begin_subtest "once readable: indexed, the rename found, tags kept, exit 0"
new_unprivileged
test_expect_equal "$rc|$(maildex count id:locked@t) $(maildex search --output=files tag:renamed)" \
    "0|1 $MAIL_DIR/inbox/cur/in2-renamed-and-locked:2,S"

# An entry that exists but cannot be stat'ed (a symlink into a directory we may not enter) keeps the
# known file of that name.
mkdir -p "$TMP_DIRECTORY/private"
generate_message dir=../private filename=target id=linked@t body="linkedword" >/dev/null
ln -s "$TMP_DIRECTORY/private/target" "$MAIL_DIR/inbox/cur/link:2,S"
maildex new >/dev/null 2>&1
maildex tag +linked -- id:linked@t
chmod 000 "$TMP_DIRECTORY/private"
touch "$MAIL_DIR/inbox/cur/in1-touch" && rm "$MAIL_DIR/inbox/cur/in1-touch"
touch -d '2 seconds ago' "$MAIL_DIR/inbox/cur"
new_unprivileged
test_begin_subtest "an entry that cannot be stat'ed: warned about, its message and tags kept"
test_expect_equal "$(grep -c "^maildex new: '$MAIL_DIR/inbox/cur/link:2,S': cannot stat: Permission denied; kept as it is$" "$TMP_DIRECTORY/err") $(maildex count tag:linked)" "1 1"
chmod 755 "$TMP_DIRECTORY/private"

# Only what is really gone leaves the index.
rm -r "$MAIL_DIR/sent"
test_begin_subtest "a folder that is really gone: its messages leave the index"
new_unprivileged
test_expect_equal "$rc|$out|$(maildex count 'folder:sent')" "0|No new mail. Removed 3 messages.|0"

test_begin_subtest "the store is consistent"
test_expect_equal "$(maildex_store_check)" "ok"
test_done
