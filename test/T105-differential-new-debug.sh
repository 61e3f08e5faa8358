#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of `new --debug` against the real notmuch: one mail root goes through a sequence
# of changes (new mail, files renamed and deleted before and after other names, directories renamed
# and deleted, new.ignore names and regexes at several depths, an ignored dangling symlink, then one
# that is not ignored); after each, both tools run `new --debug` and must print the same "(D)" lines
# (sorted: notmuch walks depth first, maildex breadth first), the same summary, exit alike and hold
# the same messages.
. "$(dirname "$0")/test-lib.sh"
differential_setup ""
# Both database directories exist before the first run, so neither tool's changes the mail root's
# mtime under the other.
mkdir -p "$MAIL_DIR/.notmuch" "$MAIL_DIR/.maildex"

# settle: the directories changed since the last step get an mtime of their own, a second after the
# last one and well in the past. notmuch compares whole seconds and neither tool records an mtime of
# the current second, so each step's changes are seen by both, and unchanged directories stay so.
stamp=$(($(date +%s) - 100000))
settle() {
    stamp=$((stamp + 1))
    find "$MAIL_DIR" -type d -newermt "@$((stamp - 1))" -exec touch -d "@$stamp" {} +
}

# step NAME [new ARGS...]: both tools run `new --debug ARGS` on the mail root as it is now.
step() {
    name=$1
    shift
    settle
    for tool in notmuch maildex; do
        cmd=maildex
        [ $tool = notmuch ] && cmd=$NOTMUCH
        "$cmd" new --debug "$@" > "$TMP_DIRECTORY/$tool.out" 2> "$TMP_DIRECTORY/$tool.err"
        echo "exit $?" >> "$TMP_DIRECTORY/$tool.out"
        grep -v -E '^Processed [0-9]*( total)? file|^Found [0-9]* total file' "$TMP_DIRECTORY/$tool.out" |
            sort > "$TMP_DIRECTORY/$tool.debug"
        "$cmd" search --output=messages '*' | sort > "$TMP_DIRECTORY/$tool.ids"
    done
    test_begin_subtest "$name: the same --debug lines, summary and exit status"
    test_expect_equal_file "$TMP_DIRECTORY/notmuch.debug" "$TMP_DIRECTORY/maildex.debug"
    test_begin_subtest "$name: the same messages"
    test_expect_equal_file "$TMP_DIRECTORY/notmuch.ids" "$TMP_DIRECTORY/maildex.ids"
}

# set_ignore ENTRY...: new.ignore for both tools (their own database directories always in it).
set_ignore() {
    "$NOTMUCH" config set new.ignore .maildex .notmuch "$@"
    maildex config set new.ignore .maildex .notmuch "$@"
}

for i in 1 2 3; do generate_message >/dev/null; done
generate_message dir=box filename=a >/dev/null
generate_message dir=box filename=m >/dev/null
generate_message dir=box/zz >/dev/null
for i in 1 2 3; do generate_message dir=dir >/dev/null; done
for i in 1 2 3; do generate_message dir=two/levels >/dev/null; done
step "a first index (notmuch counts first)"

step "nothing changed"

mv "$MAIL_DIR/cur/msg-001" "$MAIL_DIR/cur/msg-001-renamed"
step "a renamed file"

rm "$MAIL_DIR/cur/msg-003"
step "a deleted file whose name sorts last"

rm "$MAIL_DIR/box/m"
step "a deleted file before a directory's name"

mv "$MAIL_DIR/dir" "$MAIL_DIR/dir-renamed"
step "a renamed directory (full scan)" --full-scan

rm -r "$MAIL_DIR/two"
step "a deleted two-level directory at the end"

generate_message dir=box/zz >/dev/null
rm "$MAIL_DIR/box/a"
mkdir -p "$MAIL_DIR/Archive/cur" "$MAIL_DIR/Archive/new" "$MAIL_DIR/Archive/tmp"
mv "$MAIL_DIR/cur/msg-002" "$MAIL_DIR/Archive/cur/msg-002:2,S"
step "new mail, a deletion and a move between folders"

set_ignore .git ignored_file '/^box\/zz\/skip/'
mkdir -p "$MAIL_DIR/.git" "$MAIL_DIR/one/two/.git"
echo "[core]" > "$MAIL_DIR/.git/config"
touch "$MAIL_DIR/ignored_file" "$MAIL_DIR/one/ignored_file" "$MAIL_DIR/one/two/ignored_file" \
    "$MAIL_DIR/box/zz/skipped"
generate_message dir=one/two >/dev/null
step "new.ignore: names at several depths and a regex (full scan)" --full-scan

step "new.ignore in unchanged directories that have subdirectories"

set_ignore .git ignored_file '/^box\/zz\/skip/' broken_link
ln -s "$TMP_DIRECTORY/nowhere" "$MAIL_DIR/broken_link"
step "an ignored dangling symlink"

set_ignore .git ignored_file '/^box\/zz\/skip/' '/^bro.*ink$/'
step "an ignored dangling symlink, by regex (full scan)" --full-scan

# notmuch stops its walk at a dangling symlink it does not ignore, so the rest of that run differs
# by design (maildex indexes the rest): only the error, the note and the status are compared.
set_ignore
rm -r "$MAIL_DIR/.git" "$MAIL_DIR/one" "$MAIL_DIR/ignored_file" "$MAIL_DIR/box/zz/skipped" \
    "$MAIL_DIR/broken_link"
settle
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
ln -s "$TMP_DIRECTORY/nowhere" "$MAIL_DIR/broken_link"
test_begin_subtest "a dangling symlink: the same error and note, both exit 1"
settle
for tool in notmuch maildex; do
    cmd=maildex
    [ $tool = notmuch ] && cmd=$NOTMUCH
    "$cmd" new > /dev/null 2> "$TMP_DIRECTORY/$tool.err"
    echo "exit $?" >> "$TMP_DIRECTORY/$tool.err"
done
test_expect_equal_file "$TMP_DIRECTORY/notmuch.err" "$TMP_DIRECTORY/maildex.err"

test_done
