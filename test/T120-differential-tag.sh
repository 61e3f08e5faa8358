#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of `tag` against the real notmuch: the same generated Maildir (600 files,
# bench/gen) in two copies, one indexed by each tool, then the same tag commands -- on the command line
# and in --batch, with --remove-all, on flag tags and others -- run by both. After each, both stores
# must hold the same tags on every message, list the same files (Maildir flag renames, new/ -> cur/),
# and each copy on disk must hold the same file names. A last `new` must change nothing in either.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup "deleted;spam;"

python3 "$srcdir/bench/gen" --count 600 --seed 3 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
MAIL_NM=$TMP_DIRECTORY/mail-nm
cp -a "$MAIL_DIR" "$MAIL_NM"
sed -i "s|^path=.*|path=$MAIL_NM|" "$NOTMUCH_CONFIG"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

# Prints nothing when both stores and both trees agree, else what differs (at most 20 lines).
compare() {
    "$NOTMUCH" dump > "$TMP_DIRECTORY/nm.dump" 2>/dev/null
    "$NOTMUCH" search --output=files '*' | sed "s|^$MAIL_NM/||" | sort > "$TMP_DIRECTORY/nm.files"
    maildex search --output=files --exclude=false '*' | sed "s|^$MAIL_DIR/||" | sort > "$TMP_DIRECTORY/mx.files"
    python3 - "$TMP_DIRECTORY/nm.dump" "$MAIL_DIR/.maildex/maildex.db" "$MAIL_NM" "$MAIL_DIR" \
        "$TMP_DIRECTORY/nm.files" "$TMP_DIRECTORY/mx.files" <<'PYTHON'
import os, sqlite3, sys, urllib.parse
dump, db, nm_root, mx_root, nm_files, mx_files = sys.argv[1:7]
nm = {}
for line in open(dump, encoding="utf-8", errors="surrogateescape"):
    if line.startswith("#") or " -- id:" not in line:
        continue
    ops, mid = line.rstrip("\n").split(" -- id:", 1)
    if mid.startswith('"'):
        mid = mid[1:-1].replace('""', '"')
    nm[mid] = sorted(urllib.parse.unquote(op[1:]) for op in ops.split() if op.startswith("+"))
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
mx = {}
for mid, tags in con.execute("SELECT m.message_id, (SELECT group_concat(t.name, char(1)) FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE mt.message = m.id) FROM messages m"):
    mx[mid] = sorted(tags.split("\x01")) if tags else []
out = []
for mid in sorted(set(nm) | set(mx)):
    if nm.get(mid) != mx.get(mid):
        out.append("tags of %s: notmuch %s, maildex %s" % (mid, nm.get(mid), mx.get(mid)))
def tree(root):
    found = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".notmuch", ".maildex")]
        found.update(os.path.relpath(os.path.join(d, f), root) for f in files)
    return found
a, b = tree(nm_root), tree(mx_root)
out += ["only in notmuch's tree: " + p for p in sorted(a - b)]
out += ["only in maildex's tree: " + p for p in sorted(b - a)]
fa, fb = set(open(nm_files).read().split("\n")), set(open(mx_files).read().split("\n"))
out += ["only in notmuch's file list: " + p for p in sorted(fa - fb)]
out += ["only in maildex's file list: " + p for p in sorted(fb - fa)]
print("\n".join(out[:20]))
PYTHON
}

test_begin_subtest "both stores agree before any change"
test_expect_equal "$(compare)" ""

# both ARG...: runs `tag ARG...` with each tool; prints their exit statuses if they differ.
both() {
    "$NOTMUCH" tag "$@" > "$TMP_DIRECTORY/nm.out" 2>&1
    a=$?
    maildex tag "$@" > "$TMP_DIRECTORY/mx.out" 2>&1
    b=$?
    [ $a = $b ] || echo "exit status: notmuch $a, maildex $b"
}

# both_batch FILE: the same, with --batch from FILE.
both_batch() {
    "$NOTMUCH" tag --batch < "$1" > "$TMP_DIRECTORY/nm.out" 2>&1
    a=$?
    maildex tag --batch < "$1" > "$TMP_DIRECTORY/mx.out" 2>&1
    b=$?
    [ $a = $b ] || echo "exit status: notmuch $a, maildex $b"
    cmp -s "$TMP_DIRECTORY/nm.out" "$TMP_DIRECTORY/mx.out" || diff "$TMP_DIRECTORY/nm.out" "$TMP_DIRECTORY/mx.out"
}

step() {
    test_begin_subtest "tag $*"
    test_expect_equal "$(both "$@"; compare)" ""
}

step -unread -- 'tag:unread and date:..2021-12-31'
step +flagged -- 'from:user@example.org and tag:replied'
step +todo +work -inbox -- 'folder:INBOX and date:2023'
step -inbox -- folder:lists/dev
step --remove-all +archived -- 'folder:Archive and date:2020-01-01..2020-06-30'
step -replied -- 'tag:replied and date:2024'
step +unread -- 'folder:Sent and date:2019'
step +passed +draft -- tag:todo
step -draft -passed -flagged -- tag:todo
step +unread -- folder:INBOX and tag:unread
step -unread -- 'path:INBOX/new/**'

test_begin_subtest "tag --batch, hex-encoded tags, as notmuch.el sends them"
cat > "$TMP_DIRECTORY/batch" <<'BATCH'
+foo%20bar -- tag:flagged
-flagged +seen -- tag:inbox and tag:flagged
+draft -- folder:Drafts
# a comment

+%22quoted%22 -unread -- tag:work and tag:unread
BATCH
test_expect_equal "$(both_batch "$TMP_DIRECTORY/batch"; compare)" ""

test_begin_subtest "tag --batch with bad lines: same warnings, same exit status, same result"
printf '+ok1 -- tag:seen\n+%%zz -- tag:seen\n+nothing\n+ok2 -- tag:archived\n' > "$TMP_DIRECTORY/batch2"
test_expect_equal "$(both_batch "$TMP_DIRECTORY/batch2"; compare)" ""

test_begin_subtest "after all that, new finds nothing to change in either"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
test_expect_equal "$(compare)" ""

test_done
