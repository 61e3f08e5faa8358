#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex purge`: the mail a query matches removed from the disk and the store, safely. What must
# hold (issue 34): it asks first and --dry-run changes nothing; every file of a message goes, and a
# file that cannot go keeps its message and its tags (exit 1, the file and the reason named); nothing
# outside the mail root is touched through a symbolic link; --to-folder moves the files and `new`
# finds them there with their tags; the purge log restores every tag; a SIGKILL at any point leaves
# a store that the next `new` agrees with and no surviving message loses a tag; and the result equals
# notmuch's usual shell recipe (search --output=files | xargs rm; notmuch new).
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

DB=$MAIL_DIR/.maildex/maildex.db
LOG=$DB-purge.log

# files: every mail file under the mail root, relative to it, sorted.
files() {
    (cd "${1:-$MAIL_DIR}" && find . -path ./.maildex -prune -o -path ./.notmuch -prune -o -type f -print -o -type l -print) |
        sed 's|^\./||' | sort
}

# A store of eight messages: k1..k5 kept, d1..d3 tagged deleted; d2 has three files (cur, Archive and
# Lists), d3 two.
for i in 1 2 3 4 5; do
    generate_message id=k$i@x filename=k$i:2,S > /dev/null
done
generate_message id=d1@x filename=d1:2,S > /dev/null
generate_message id=d2@x filename=d2:2,S > /dev/null
mkdir -p "$MAIL_DIR/Archive/new" "$MAIL_DIR/Archive/tmp" "$MAIL_DIR/Lists/new" "$MAIL_DIR/Lists/tmp"
generate_message id=d2@x dir=Archive/cur filename=d2-copy:2,S > /dev/null
generate_message id=d2@x dir=Lists/cur filename=d2-list:2,S > /dev/null
generate_message id=d3@x filename=d3:2,S > /dev/null
generate_message id=d3@x dir=Archive/cur filename=d3-copy:2,S > /dev/null
maildex new > /dev/null
maildex tag +keep -- id:k1@x or id:k2@x or id:k3@x or id:k4@x or id:k5@x
maildex tag +deleted +was-here -- id:d1@x or id:d2@x or id:d3@x
maildex config set maildir.synchronize_flags false
cp -a "$MAIL_DIR" "$TMP_DIRECTORY/backup"
before=$(maildex dump)

test_begin_subtest "no --yes and no terminal: nothing removed, exit 1, and it says how"
maildex purge < /dev/null > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
rc=$?
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(cat "$TMP_DIRECTORY/err")|$(files | wc -l)" "1|Would remove 3 messages: 6 files, $(cat "$MAIL_DIR"/cur/d* "$MAIL_DIR"/Archive/cur/d* "$MAIL_DIR"/Lists/cur/d* | wc -c) bytes.|maildex purge: nothing was removed: run it with --yes to purge (--dry-run lists the files)|11"

test_begin_subtest "--dry-run lists every file of every message, changes nothing"
output=$(maildex purge --dry-run | sed "s|$MAIL_DIR/||" | head -n 6 | sort)
test_expect_equal "$output|$(files | wc -l)|$(maildex count tag:deleted)" "Archive/cur/d2-copy:2,S
Archive/cur/d3-copy:2,S
Lists/cur/d2-list:2,S
cur/d1:2,S
cur/d2:2,S
cur/d3:2,S|11|3"

test_begin_subtest "--format=json: the plan as one map, the files with their Message-IDs"
output=$(maildex purge --dry-run --format=json id:d1@x | sed "s|$MAIL_DIR/||")
test_expect_equal "$output" '{"query": "id:d1@x", "to_folder": null, "dry_run": true, "done": false, "messages": 1, "files": 1, "bytes": '"$(wc -c < "$MAIL_DIR/cur/d1:2,S")"', "kept": 0, "failed": 0, "young": 0, "paths": [{"id": "d1@x", "path": "cur/d1:2,S", "size": '"$(wc -c < "$MAIL_DIR/cur/d1:2,S")"'}]}'

# A file that cannot be removed: a folder without write permission, or for root (who may write
# anywhere) an immutable file.
cannot_remove=
if [ "$(id -u)" != 0 ]; then
    chmod 555 "$MAIL_DIR/Lists/cur" && cannot_remove=chmod
elif command -v chattr > /dev/null && chattr +i "$MAIL_DIR/Lists/cur/d2-list:2,S" 2> /dev/null; then
    cannot_remove=chattr
fi
test_begin_subtest "one of a message's three files cannot go: named with the reason, exit 1, the message kept with its tags"
if [ -z "$cannot_remove" ]; then
    test_skip_ "neither a read-only folder nor chattr +i stops a file's removal here"
else
    maildex purge --yes > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
    rc=$?
    sed -i "s|$MAIL_DIR/||" "$TMP_DIRECTORY/err"
    reason=$(if [ $cannot_remove = chmod ]; then echo "Permission denied"; else echo "Operation not permitted"; fi)
    test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(cat "$TMP_DIRECTORY/err")|$(maildex search --exclude=false --output=files id:d2@x | sed "s|$MAIL_DIR/||")|$(maildex search --exclude=false --output=tags id:d2@x | tr '\n' ' ')" \
        "1|Would remove 3 messages: 6 files, $(cat "$TMP_DIRECTORY"/backup/cur/d* "$TMP_DIRECTORY"/backup/Archive/cur/d* "$TMP_DIRECTORY"/backup/Lists/cur/d* | wc -c) bytes.
Removed 2 messages: 5 files, $(cat "$TMP_DIRECTORY"/backup/cur/d* "$TMP_DIRECTORY"/backup/Archive/cur/d* | wc -c) bytes. 1 kept: 1 of their files cannot go.|maildex purge: cannot remove 'Lists/cur/d2-list:2,S': $reason (its message is kept)|Lists/cur/d2-list:2,S|deleted inbox was-here "
fi

test_begin_subtest "... nothing else lost: the kept messages and their tags, a consistent store, new agrees"
if [ -z "$cannot_remove" ]; then
    maildex purge --yes > /dev/null 2>&1
    test_skip_ "as above"
else
    [ $cannot_remove = chmod ] && chmod 755 "$MAIL_DIR/Lists/cur"
    [ $cannot_remove = chattr ] && chattr -i "$MAIL_DIR/Lists/cur/d2-list:2,S"
    test_expect_equal "$(maildex dump | grep -E 'id:k' | sort)|$(maildex_store_check)|$(maildex new)" "$(echo "$before" | grep -E 'id:k' | sort)|ok|No new mail."
fi

test_begin_subtest "the purge log restores every tag of the purged messages once their files are back"
maildex purge --yes > /dev/null 2>&1
rm -rf "$MAIL_DIR/cur" "$MAIL_DIR/Archive" "$MAIL_DIR/Lists"
cp -a "$TMP_DIRECTORY/backup/cur" "$TMP_DIRECTORY/backup/Archive" "$TMP_DIRECTORY/backup/Lists" "$MAIL_DIR/"
maildex new > /dev/null
maildex restore --input="$LOG"
test_expect_equal "$(maildex dump | sort)|$(head -n 1 "$LOG")" "$(echo "$before" | sort)|#notmuch-dump batch-tag:3 properties,tags"

test_begin_subtest "a folder that is a symlink out of the mail root: its file is never touched, reported, kept"
mkdir -p "$TMP_DIRECTORY/elsewhere/cur" "$TMP_DIRECTORY/elsewhere/new" "$TMP_DIRECTORY/elsewhere/tmp"
ln -s "$TMP_DIRECTORY/elsewhere" "$MAIL_DIR/Outside"
generate_message id=out@x dir=Outside/cur filename=out:2,S > /dev/null
maildex new > /dev/null
maildex tag +deleted -- id:out@x
maildex purge --yes id:out@x > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
rc=$?
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/out")|$(sed "s|$MAIL_DIR/||" "$TMP_DIRECTORY/err")|$(ls "$TMP_DIRECTORY/elsewhere/cur")|$(maildex count --exclude=false id:out@x)" "1|Would remove 0 messages: 0 files, 0 bytes. 1 kept: 1 of their files cannot go.|maildex purge: cannot remove 'Outside/cur/out:2,S': reached through a symbolic link that leads out of the mail root (its message is kept)|out:2,S|1"
rm "$MAIL_DIR/Outside"
maildex new > /dev/null

test_begin_subtest "a mail file that is a symlink: the link goes, its target stays"
generate_message id=linktarget@x dir=../elsewhere/cur filename=target > /dev/null
ln -s "$TMP_DIRECTORY/elsewhere/cur/target" "$MAIL_DIR/cur/link:2,S"
maildex new > /dev/null
maildex tag +deleted -- id:linktarget@x
maildex purge --yes id:linktarget@x > /dev/null
test_expect_equal "$(ls "$MAIL_DIR/cur" | grep -c link)|$(ls "$TMP_DIRECTORY/elsewhere/cur/target")|$(maildex count --exclude=false id:linktarget@x)" \
    "0|$TMP_DIRECTORY/elsewhere/cur/target|0"

test_begin_subtest "--to-folder: the files move into the folder's cur/, new finds them there with their tags"
maildex tag +deleted -- id:k1@x id:k2@x
maildex dump id:k1@x id:k2@x > "$TMP_DIRECTORY/k12"
bytes=$(cat "$MAIL_DIR"/cur/k1* "$MAIL_DIR"/cur/k2* | wc -c)
output=$(maildex purge --yes --to-folder=Trash id:k1@x or id:k2@x)
test_expect_equal "$output|$(files | grep -E 'k[12]')|$(maildex new)|$(maildex dump id:k1@x id:k2@x)|$(maildex search --exclude=false --output=files id:k1@x | sed "s|$MAIL_DIR/||")" \
    "Would move 2 messages to 'Trash': 2 files, $bytes bytes.
Moved 2 messages to 'Trash': 2 files, $bytes bytes.|Trash/cur/k1:2,S
Trash/cur/k2:2,S|No new mail.|$(cat "$TMP_DIRECTORY/k12")|Trash/cur/k1:2,S"

test_begin_subtest "--to-folder refuses a folder that leads out of the mail root, exit 1, nothing moved"
output=$(maildex purge --yes --to-folder=../out id:k1@x 2>&1)
test_expect_equal "$?|$output|$(maildex search --exclude=false --output=files id:k1@x | sed "s|$MAIL_DIR/||")" "1|maildex purge: invalid folder name '../out': it must be a folder inside the mail root, without '..' (and without 'cur', 'new' or 'tmp', which are a Maildir's own)|Trash/cur/k1:2,S"

test_begin_subtest "--older-than keeps mail tagged deleted recently, whatever its Date"
maildex tag +deleted -- id:k3@x
output=$(maildex purge --yes --older-than=30d id:k3@x; maildex count --exclude=false id:k3@x)
sqlite3 "$DB" "UPDATE message_tags SET added = added - 40 * 86400 WHERE message = (SELECT id FROM messages WHERE message_id = 'k3@x')"
output="$output|$(maildex purge --yes --older-than=30d id:k3@x; maildex count --exclude=false id:k3@x)"
test_expect_equal "$output" "Would remove 0 messages: 0 files, 0 bytes. 1 kept: tagged within --older-than.
1|Would remove 1 message: 1 file, $(wc -c < "$TMP_DIRECTORY/backup/cur/k3:2,S") bytes.
Removed 1 message: 1 file, $(wc -c < "$TMP_DIRECTORY/backup/cur/k3:2,S") bytes.
0"

test_begin_subtest "bad arguments: an --older-than that is not an age, exit 1"
test_expect_equal "$(maildex purge --older-than=soon 2>&1; echo $?)" "maildex purge: cannot read --older-than='soon': give a number and a unit, e.g. 30d, 2w, 6months
1"

test_begin_subtest "the pre-purge hook runs before a purge, and not for a dry run; its failure stops the purge"
mkdir -p "$MAIL_DIR/.maildex/hooks"
printf '#!/bin/sh\necho ran >> "%s/pre-purge-ran"\nexit ${PURGE_HOOK_RC:-0}\n' "$TMP_DIRECTORY" > "$MAIL_DIR/.maildex/hooks/pre-purge"
chmod +x "$MAIL_DIR/.maildex/hooks/pre-purge"
maildex tag +deleted -- id:k4@x
maildex purge --dry-run > /dev/null
PURGE_HOOK_RC=1 maildex purge --yes > /dev/null 2>&1
rc=$?
output="$rc|$(maildex count --exclude=false id:k4@x)"
maildex purge --yes > /dev/null 2>&1
test_expect_equal "$output|$(maildex count --exclude=false id:k4@x)|$(cat "$TMP_DIRECTORY/pre-purge-ran" | wc -l)" "1|1|0|2"
rm "$MAIL_DIR/.maildex/hooks/pre-purge"

test_begin_subtest "through the server: a purge request with --yes answers with its report"
maildex tag +deleted -- id:k5@x
output=$(printf '%s\n' '{"id": 1, "argv": ["purge", "--yes", "--format=json"]}' | maildex server 2>&1 | sed "s|$MAIL_DIR/||")
test_expect_equal "$(echo "$output" | grep -c '"messages": 1')|$(maildex count --exclude=false id:k5@x)" "1|0"

# A second store for the crash runs and the differential: generated mail (bench/gen) in folders,
# with copies of a message in several of them.
K=$TMP_DIRECTORY/kill
mkdir -p "$K"
python3 "$srcdir/bench/gen" --count 120 --seed 7 "$K/pristine" > /dev/null
printf '[database]\npath=%s\n[new]\ntags=unread;inbox;\n[maildir]\nsynchronize_flags=true\n' "$K/pristine" > "$K/config"
MAILDEX_CONFIG=$K/config maildex new > /dev/null
MAILDEX_CONFIG=$K/config maildex tag +keep -- '*'
MAILDEX_CONFIG=$K/config maildex search --output=messages --sort=oldest-first '*' | awk 'NR % 3 == 0 { print "+deleted -- " $0 }' > "$K/batch"
MAILDEX_CONFIG=$K/config maildex tag --batch --input="$K/batch"
MAILDEX_CONFIG=$K/config maildex dump > "$K/dump-before"
nfiles=$(MAILDEX_CONFIG=$K/config maildex search --output=files --exclude=false tag:deleted | wc -l)
printf '[database]\npath=%s\n[new]\ntags=unread;inbox;\n[maildir]\nsynchronize_flags=true\n' "$K/mail" > "$K/config-run"
printf '[database]\npath=%s\n[new]\ntags=unread;inbox;\n' "$K/fresh" > "$K/config-fresh"

# kill_run VAR=N: a purge killed by the fault shim at that point, then `new`; prints what broke.
kill_run() {
    rm -rf "$K/mail" "$K/fresh"
    cp -a "$K/pristine" "$K/mail"
    env "$1" LD_PRELOAD="$SHIM" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        PATH="$SHIM_PATH" MAILDEX_CONFIG="$K/config-run" maildex purge --yes > /dev/null 2>&1
    [ $? = 137 ] || echo "$1: purge was not killed"
    MAILDEX_CONFIG=$K/config-run maildex new > /dev/null 2>&1 || echo "$1: new failed"
    check=$(maildex_store_check "$K/mail/.maildex/maildex.db")
    [ "$check" = ok ] || echo "$1: $check"
    MAILDEX_CONFIG=$K/config-run maildex dump > "$K/dump-after"
    lost=$(grep -v '^#' "$K/dump-after" | grep -vxF -f "$K/dump-before" | head -n 3)
    [ -z "$lost" ] || echo "$1: a surviving message's tags changed: $lost"
    cp -a "$K/mail" "$K/fresh" && rm -rf "$K/fresh/.maildex"
    MAILDEX_CONFIG=$K/config-fresh maildex new > /dev/null 2>&1
    [ "$(MAILDEX_CONFIG=$K/config-run maildex search --output=messages --exclude=false '*' | sort)" = \
      "$(MAILDEX_CONFIG=$K/config-fresh maildex search --output=messages --exclude=false '*' | sort)" ] ||
        echo "$1: the store's messages are not a fresh index's"
    echo "$(( $(files "$K/pristine" | wc -l) - $(files "$K/mail" | wc -l) ))" > "$K/removed"
}

SHIM=$MAILDEX_BUILDDIR/test/.libs/fault-shim.so
SHIM_PATH=$MAILDEX_BUILDDIR/test/shared-sqlite:$PATH
test_begin_subtest "SIGKILL at 20 points of a purge: the next new agrees with a fresh index, no surviving message lost a tag"
if [ ! -f "$SHIM" ]; then
    test_skip_ "$SHIM is built by 'make check'"
else
    problems=
    # the first unlink (the log written, nothing removed), then points spread over the files, then
    # as the transaction commits (every file gone, no row yet)
    for n in $(awk -v n="$nfiles" 'BEGIN { for (i = 0; i < 19; i++) print 1 + int(i * (n - 1) / 18) }'); do
        problems="$problems$(kill_run MAILDEX_KILL_AT_UNLINK=$n)"
        [ "$(cat "$K/removed")" = $((n - 1)) ] || problems="$problems unlink $n: $(cat "$K/removed") files gone"
    done
    problems="$problems$(kill_run MAILDEX_KILL_AT_COMMIT=1)"
    [ "$(cat "$K/removed")" = "$nfiles" ] || problems="$problems commit: $(cat "$K/removed") files gone"
    test_expect_equal "$problems|$nfiles" "|$nfiles"
fi

test_begin_subtest "the same as notmuch's recipe (search --output=files | xargs rm; notmuch new): files and tags"
if ! command -v notmuch > /dev/null; then
    test_skip_ "notmuch is not installed"
else
    rm -rf "$K/mail" "$K/nm"
    cp -a "$K/pristine" "$K/mail"
    cp -a "$K/pristine" "$K/nm" && rm -rf "$K/nm/.maildex"
    printf '[database]\npath=%s\n[new]\ntags=unread;inbox;\n[maildir]\nsynchronize_flags=true\n' "$K/nm" > "$K/nm-config"
    NOTMUCH_CONFIG=$K/nm-config notmuch new > /dev/null
    NOTMUCH_CONFIG=$K/nm-config notmuch restore --accumulate --input="$K/dump-before"
    NOTMUCH_CONFIG=$K/nm-config notmuch search --output=files --exclude=false tag:deleted | xargs -d '\n' rm -f
    NOTMUCH_CONFIG=$K/nm-config notmuch new > /dev/null
    MAILDEX_CONFIG=$K/config-run maildex purge --yes > /dev/null
    test_expect_equal "$(files "$K/mail")|$(MAILDEX_CONFIG=$K/config-run maildex dump --include=tags | grep -v '^#' | sort)" \
        "$(files "$K/nm")|$(NOTMUCH_CONFIG=$K/nm-config notmuch dump --include=tags | grep -v '^#' | sort)"
fi

test_begin_subtest "doc/emacs.md's purge command, in emacs --batch with notmuch.el: P purges after asking"
NOTMUCH_EL=
for d in /usr/share/emacs/site-lisp/elpa/notmuch-0.37*; do
    [ -f "$d/notmuch.el" ] && NOTMUCH_EL=$d
done
if ! command -v emacs > /dev/null || [ -z "$NOTMUCH_EL" ]; then
    test_skip_ "emacs or notmuch.el 0.37 (Debian's elpa-notmuch) is not installed"
else
    sed -n '/<!-- emacs-purge -->/,/^```$/p' "$srcdir/doc/emacs.md" | sed '1,2d;$d' > "$TMP_DIRECTORY/purge.el"
    MAILDEX_CONFIG=$K/config-run maildex tag +deleted -- 'tag:keep and not tag:deleted' > /dev/null
    before=$(MAILDEX_CONFIG=$K/config-run maildex count --exclude=false tag:deleted)
    asked=$(MAILDEX_CONFIG=$K/config-run timeout 60 emacs --batch -Q \
        -L "$NOTMUCH_EL" --eval "(require 'notmuch)" -l "$TMP_DIRECTORY/purge.el" \
        --eval "(progn (setq notmuch-command \"maildex\")
                       (fset 'yes-or-no-p (lambda (q) (princ q) (terpri) t))
                       (notmuch-hello) (execute-kbd-macro \"P\"))" 2>&1 | grep 'Purge?')
    test_expect_equal "$asked|$(MAILDEX_CONFIG=$K/config-run maildex count --exclude=false tag:deleted)" \
        "Would remove $before messages: $(echo "$asked" | sed -n 's/.*messages: \([0-9]*\) files.*/\1/p') files, $(echo "$asked" | sed -n 's/.* files, \([0-9]*\) bytes.*/\1/p') bytes. Purge? |0"
fi

test_begin_subtest "a watch running beside a purge does not bring the purged mail back"
MAILDEX_CONFIG=$K/config-run maildex watch --foreground > "$K/watch.log" 2>&1 &
watch_pid=$!
for i in $(seq 100); do grep -q "watching" "$K/watch.log" && break; sleep 0.1; done
MAILDEX_CONFIG=$K/config-run maildex tag +deleted -- 'tag:keep' > /dev/null
MAILDEX_CONFIG=$K/config-run maildex purge --yes > /dev/null
# a delivery after the purge: once the watch has indexed it, it has seen the purge's removals too
mkdir -p "$K/mail/INBOX/new"
printf 'From: a@x\nTo: b@x\nMessage-ID: <after-purge@x>\nSubject: after\n\nbody\n' > "$K/mail/INBOX/new/after-purge"
for i in $(seq 200); do [ "$(MAILDEX_CONFIG=$K/config-run maildex count id:after-purge@x)" = 1 ] && break; sleep 0.1; done
test_expect_equal "$(MAILDEX_CONFIG=$K/config-run maildex count id:after-purge@x)|$(MAILDEX_CONFIG=$K/config-run maildex count --exclude=false tag:keep)|$(MAILDEX_CONFIG=$K/config-run maildex new)" "1|0|No new mail."
kill $watch_pid 2> /dev/null
wait $watch_pid 2> /dev/null

test_done
