#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex new` where notmuch's T050 looks: --debug prints the walk's decisions in notmuch's words
# (ignored entries, files and directories queued for removal, "passed" or "leftover" as notmuch's
# merge of the listing with the database meets them); new.ignore names and POSIX regexes are matched
# before anything is stat'ed; .notmuch is skipped at the top only; a dangling symlink is notmuch's
# error (exit 1) but loses nothing; a file vanishing between the walk and the read is exit 75;
# new.tags is checked and trimmed as notmuch reads it.
. "$(dirname "$0")/test-lib.sh"

# new_debug ARGS...: `maildex new --debug`, without the lines that depend on timing (notmuch's
# NOTMUCH_NEW).
new_debug() {
    maildex new --debug "$@" | grep -v -E '^Processed [0-9]*( total)? file|^Found [0-9]* total file'
}

# run_new ARGS...: `maildex new ARGS`, setting rc, out and err.
run_new() {
    maildex new "$@" > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
    rc=$?
    out=$(cat "$TMP_DIRECTORY/out")
    err=$(cat "$TMP_DIRECTORY/err")
}

maildex config set new.ignore junk
touch "$MAIL_DIR/junk"
test_begin_subtest "a first run: an ignored entry is told for notmuch's count and both of its passes"
output=$(new_debug 2>&1)
test_expect_equal "$output" "(D) count_files: explicitly ignoring $MAIL_DIR/junk
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/junk
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/junk
No new mail."
maildex config set new.ignore
rm "$MAIL_DIR/junk"

test_begin_subtest "--debug with nothing to report prints the summary only"
generate_message >/dev/null
output=$(new_debug 2>&1)
test_expect_equal "$output" "Added 1 new message to the database."

test_begin_subtest "a renamed file is queued as passed (a later name is still listed)"
mv "$MAIL_DIR/cur/msg-001" "$MAIL_DIR/cur/msg-001-renamed"
output=$(new_debug 2>&1)
test_expect_equal "$output" "(D) add_files, pass 2: queuing passed file $MAIL_DIR/cur/msg-001 for deletion from database
No new mail. Detected 1 file rename."

test_begin_subtest "a deleted file whose name sorts last is queued as leftover"
rm "$MAIL_DIR/cur/msg-001-renamed"
output=$(new_debug 2>&1)
test_expect_equal "$output" "(D) add_files, pass 3: queuing leftover file $MAIL_DIR/cur/msg-001-renamed for deletion from database
No new mail. Removed 1 message."

test_begin_subtest "a file whose name sorts before a directory's is passed: notmuch's merge counts directories"
generate_message dir=box filename=a >/dev/null
generate_message dir=box/zz >/dev/null
maildex new >/dev/null
rm "$MAIL_DIR/box/a"
output=$(new_debug 2>&1)
test_expect_equal "$output" "(D) add_files, pass 2: queuing passed file $MAIL_DIR/box/a for deletion from database
No new mail. Removed 1 message."

test_begin_subtest "a renamed directory is queued as passed, its files found again as renames"
for i in 1 2 3; do generate_message dir=dir >/dev/null; done
maildex new >/dev/null
mv "$MAIL_DIR/dir" "$MAIL_DIR/dir-renamed"
output=$(new_debug --full-scan 2>&1)
test_expect_equal "$output" "(D) add_files, pass 2: queuing passed directory $MAIL_DIR/dir for deletion from database
No new mail. Detected 3 file renames."

test_begin_subtest "a deleted two-level directory at the end: one leftover line for it, none for below"
for i in 1 2 3; do generate_message dir=zz/levels >/dev/null; done
maildex new >/dev/null
rm -rf "$MAIL_DIR/zz"
output=$(new_debug 2>&1)
test_expect_equal "$output" "(D) add_files, pass 3: queuing leftover directory $MAIL_DIR/zz for deletion from database
No new mail. Removed 3 messages."

test_begin_subtest "a directory that never held a file goes without a line (notmuch never knew it)"
mkdir "$MAIL_DIR/empty"
maildex new >/dev/null
rmdir "$MAIL_DIR/empty"
output=$(new_debug 2>&1)
test_expect_equal "$output" "No new mail."

test_begin_subtest "new.ignore: names at any depth and a regex on the relative path, each in both passes"
maildex config set new.ignore .git ignored_file '/^box\/zz\/skip/'
mkdir -p "$MAIL_DIR/.git" "$MAIL_DIR/one/two/.git"
echo "[core]" > "$MAIL_DIR/.git/config"
touch "$MAIL_DIR/ignored_file" "$MAIL_DIR/one/two/ignored_file" "$MAIL_DIR/box/zz/skipped"
age_directories
new_debug --full-scan 2>&1 | sort > OUTPUT
cat > EXPECTED <<EOF
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/.git
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/box/zz/skipped
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/ignored_file
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/one/two/.git
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/one/two/ignored_file
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/.git
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/box/zz/skipped
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/ignored_file
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/one/two/.git
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/one/two/ignored_file
No new mail.
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "... unchanged: pass 1 only where notmuch still looks (directories with subdirectories)"
new_debug 2>&1 | sort > OUTPUT
cat > EXPECTED <<EOF
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/.git
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/ignored_file
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/one/two/.git
(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/one/two/ignored_file
No new mail.
EOF
test_expect_equal_file EXPECTED OUTPUT
rm -r "$MAIL_DIR/.git" "$MAIL_DIR/one" "$MAIL_DIR/ignored_file" "$MAIL_DIR/box/zz/skipped"

test_begin_subtest "a new.ignore regex is POSIX's, as notmuch's: \\d is a d, not a digit"
maildex config set new.ignore '/^x\d$/'
generate_message dir=. filename=xd id=xd@x >/dev/null
generate_message dir=. filename=x1 id=x1@x >/dev/null
output=$(new_debug 2>&1; maildex count id:xd@x; maildex count id:x1@x)
test_expect_equal "$output" "(D) add_files, pass 1: explicitly ignoring $MAIL_DIR/xd
(D) add_files, pass 2: explicitly ignoring $MAIL_DIR/xd
Added 1 new message to the database.
0
1"

test_begin_subtest "a new.ignore regex that does not compile stops new before it reads anything"
maildex config set new.ignore '/(/'
generate_message id=not-read@x >/dev/null
run_new
test_expect_equal "$rc|$out|$(maildex count id:not-read@x)" "1||0"

test_begin_subtest "... and says which entry and why"
case "$err" in
"maildex new: invalid regex '(': "*" in new.ignore") test_ok_ ;;
*) test_failure_ "$err" ;;
esac

test_begin_subtest "a /pattern without its closing slash is refused, not taken for a name"
maildex config set new.ignore '/x'
run_new
test_expect_equal "$rc|$err" "1|maildex new: malformed pattern '/x' in new.ignore"

test_begin_subtest "an ignored dangling symlink is not even stat'ed: no error"
maildex config set new.ignore broken_link
ln -s "$TMP_DIRECTORY/nowhere" "$MAIL_DIR/broken_link"
run_new
test_expect_equal "$rc|$err|$(echo "$out" | tail -n 1)" "0||Added 2 new messages to the database."
rm "$MAIL_DIR/broken_link"

# A dangling symlink may be a folder on a disk that is not mounted: notmuch stops (exit 1) rather
# than lose its mail; maildex indexes the rest, keeps what it knew by that name and removes nothing.
test_begin_subtest "a dangling symlink: notmuch's error and note, exit 1"
maildex config set new.ignore
generate_message dir=linked filename=keep id=linked@x >/dev/null
maildex new >/dev/null
mv "$MAIL_DIR/linked" "$TMP_DIRECTORY/linked"
ln -s "$TMP_DIRECTORY/linked" "$MAIL_DIR/linked"
# An old mtime is recorded, so the next run does not list the mail root and meets the link only as
# a folder it knows (on a loaded machine the second run comes a second later and does the same).
touch -d '1 hour ago' "$MAIL_DIR"
maildex new >/dev/null
rm -f "$TMP_DIRECTORY/linked/keep"
rmdir "$TMP_DIRECTORY/linked"
mkdir -p "$MAIL_DIR/.maildex/hooks"
printf '#!/bin/sh\ntouch "%s/post-new-ran"\n' "$TMP_DIRECTORY" > "$MAIL_DIR/.maildex/hooks/post-new"
chmod +x "$MAIL_DIR/.maildex/hooks/post-new"
rm "$MAIL_DIR/cur/msg-012"
output=$(maildex new 2>&1)
rc=$?
test_expect_equal "$rc|$output" "1|Error reading file $MAIL_DIR/linked: No such file or directory
Note: A fatal error was encountered: Something went wrong trying to read or write a file
maildex new: kept 1 message whose files are gone: some mail could not be read, and it may have moved there
No new mail."

test_begin_subtest "... the messages behind it and the one whose file went are kept, post-new did not run"
test_expect_equal "$(maildex count id:linked@x) $(maildex count id:not-read@x) $(ls "$TMP_DIRECTORY/post-new-ran" 2>&1 >/dev/null | wc -l)" "1 1 1"

test_begin_subtest "... and once the link is gone, so are they"
rm "$MAIL_DIR/linked" "$MAIL_DIR/.maildex/hooks/post-new"
output=$(new_debug 2>&1)
test_expect_equal "$output" "(D) add_files, pass 2: queuing passed directory $MAIL_DIR/linked for deletion from database
(D) add_files, pass 3: queuing leftover file $MAIL_DIR/cur/msg-012 for deletion from database
No new mail. Removed 2 messages."

test_begin_subtest ".notmuch and .maildex are skipped at the top only: deeper down they are folders"
generate_message dir=.notmuch/cur id=top-notmuch@x >/dev/null
generate_message dir=foo/bar/.notmuch/cur id=deep-notmuch@x subject="Do not ignore, very important" >/dev/null
generate_message dir=foo/.maildex/cur id=deep-maildex@x >/dev/null
output=$(new_debug 2>&1; maildex count id:top-notmuch@x; maildex search --output=messages subject:Do-not-ignore; maildex count id:deep-maildex@x)
test_expect_equal "$output" "Added 2 new messages to the database.
0
id:deep-notmuch@x
1"

test_begin_subtest "a tag new.tags may not add: notmuch's error, exit 1, before the pre-new hook"
maildex config set new.tags '-foo;bar' 
printf '#!/bin/sh\ntouch "%s/pre-new-ran"\n' "$TMP_DIRECTORY" > "$MAIL_DIR/.maildex/hooks/pre-new"
chmod +x "$MAIL_DIR/.maildex/hooks/pre-new"
run_new --debug
test_expect_equal "$rc|$err|$(ls "$TMP_DIRECTORY/pre-new-ran" 2>/dev/null)" \
    "1|Error: tag '-foo' in new.tags: tag starting with '-' forbidden|"
rm "$MAIL_DIR/.maildex/hooks/pre-new"

test_begin_subtest "new.tags items are trimmed of white space and empty ones dropped, as notmuch reads them"
sed -i 's/^tags=.*$/tags= fu bar ; ; bar /' "$MAILDEX_CONFIG"
generate_message id=trimmed@x >/dev/null
maildex new >/dev/null
test_expect_equal "$(maildex search --output=tags id:trimmed@x)" "bar
fu bar"

# A file the walk listed and a mail program moved away before it was read (the shim unlinks it at
# its first stat, as notmuch's T050 does at its index call).
shim=$MAILDEX_BUILDDIR/test/.libs/vanish-shim.so
touch "$MAIL_DIR/vanish"
test_begin_subtest "a file vanishing between the walk and the read: notmuch's three lines, exit 75"
if [ -f "$shim" ]; then
    LD_PRELOAD=$shim MAILDEX_TEST_VANISH=$MAIL_DIR/vanish \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        maildex new 2> "$TMP_DIRECTORY/err" > /dev/null
    echo "exit status: $?" >> "$TMP_DIRECTORY/err"
    cat > EXPECTED <<EOF
Unexpected error with file $MAIL_DIR/vanish
add_file: Something went wrong trying to read or write a file
Error opening $MAIL_DIR/vanish: No such file or directory
exit status: 75
EOF
    test_expect_equal_file EXPECTED "$TMP_DIRECTORY/err"
else
    test_skip_ "$shim was not built"
fi

test_begin_subtest "... and the next run has nothing to do"
output=$(new_debug 2>&1)
test_expect_equal "$output" "No new mail."

test_done
