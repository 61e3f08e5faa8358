#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# notmuch-git on maildex (issue 29, deliver 6). Debian's notmuch-git keeps tags in a git repository
# and runs `notmuch` (count, search, dump, tag --batch, config get) and, where python3 has notmuch2,
# the library. Two maildex stores with the same generated mail play two machines, each through
# `maildex exec` (maildex as its notmuch, maildex's libnotmuch.so.5): A inits and commits, B clones,
# both change tags and commit, B fetches and merges A's, A fetches and merges B's; both stores must
# end with the same tags and the same files (tag changes rename files, maildir.synchronize_flags),
# and nothing left for notmuch-git status. The same script runs between two notmuch stores: every
# step's output and every store's tags and files must be what notmuch gives.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require python3
test_require git
test_require notmuch-git
differential_setup "deleted;spam;"
if ! abi_have_lib; then
    echo "1..0 # SKIP $abi_skip_reason"
    exit 0
fi
# The python3 that runs notmuch-git: one that has notmuch2 when there is one (as on Debian with
# python3-notmuch2), so that both the command line and the library are used.
abi_find_python notmuch2
NGIT_PYTHON=${ABI_PYTHON:-$(command -v python3)}
NGIT=$(command -v notmuch-git)

# Four stores: maildex's a and b ($MAIL_DIR is a's), notmuch's a and b; each with its config and its
# notmuch-git repository (git.path).
export GIT_AUTHOR_NAME="Maildex Test" GIT_AUTHOR_EMAIL=test@example.org GIT_MERGE_AUTOEDIT=no
export GIT_COMMITTER_NAME="Maildex Test" GIT_COMMITTER_EMAIL=test@example.org GIT_CONFIG_NOSYSTEM=1
# Fixed dates: the same tags give the same commits, hashes and all, on maildex and on notmuch.
export GIT_AUTHOR_DATE="1717200000 +0000" GIT_COMMITTER_DATE="1717200000 +0000"
python3 "$srcdir/bench/gen" --count 80 --seed 6 "$TMP_DIRECTORY/gen" > /dev/null
rmdir "$MAIL_DIR"
for s in ma mb na nb; do
    cp -a "$TMP_DIRECTORY/gen" "$TMP_DIRECTORY/mail-$s"
    sed -e "s|^path=.*|path=$TMP_DIRECTORY/mail-$s|" "$NOTMUCH_CONFIG" > "$TMP_DIRECTORY/config-$s"
    printf '\n[git]\npath=%s\nsafe_fraction=1\n' "$TMP_DIRECTORY/git-$s" >> "$TMP_DIRECTORY/config-$s"
done
MAIL_DIR=$TMP_DIRECTORY/mail-ma

# on STORE COMMAND ARGS...: the notmuch command (maildex or notmuch) on STORE.
on() {
    s=$1
    shift
    case $s in
    m*) maildex --config="$TMP_DIRECTORY/config-$s" "$@" ;;
    n*) NOTMUCH_CONFIG=$TMP_DIRECTORY/config-$s "$NOTMUCH" "$@" ;;
    esac
}
# ngit STORE ARGS...: notmuch-git ARGS on STORE; its output and status go to the step's log.
ngit() {
    s=$1
    shift
    case $s in
    m*) with_asan maildex --config="$TMP_DIRECTORY/config-$s" exec "$NGIT_PYTHON" "$NGIT" "$@" ;;
    n*) on_debian env NOTMUCH_CONFIG="$TMP_DIRECTORY/config-$s" "$NGIT_PYTHON" "$NGIT" "$@" ;;
    esac > "$TMP_DIRECTORY/out" 2>&1
    echo "exit $?" >> "$TMP_DIRECTORY/out"
    sed -e "s|$TMP_DIRECTORY/\([a-z]*\)-[mn]\([ab]\)|\\1-\\2|g" -e 's|notmuch-git-[a-z]*\.[a-z0-9_]*|TMP|g' \
        "$TMP_DIRECTORY/out" >> "$TMP_DIRECTORY/log-$s"
}
# step M N WHAT COMMAND...: COMMAND (run with x for the store) on maildex store M and notmuch store
# N; the subtest: both printed the same (notmuch-git's output, with the store's paths replaced).
step() {
    m=$1 n=$2 what=$3
    shift 3
    : > "$TMP_DIRECTORY/log-$m"
    : > "$TMP_DIRECTORY/log-$n"
    for x in "$m" "$n"; do
        "$@"
    done
    test_begin_subtest "$what: the same output from maildex's store as from notmuch's"
    test_expect_equal_file "$TMP_DIRECTORY/log-$n" "$TMP_DIRECTORY/log-$m"
}
tags() { on "$1" dump 2>/dev/null | grep -v '^#' | sort; }
files() { (cd "$TMP_DIRECTORY/mail-$1" && find . -name .notmuch -prune -o -name .maildex -prune -o -type f -print | sort); }

for s in ma mb na nb; do
    on $s new > /dev/null 2>&1
done

# Machine a: a repository, the user's tags, the first commit (which needs --force: every tag is new).
init_a() {
    ngit "$x" init
    on "$x" tag +todo -- 'folder:INBOX and date:2023' > /dev/null
    on "$x" tag -inbox -- date:..2021-12-31 > /dev/null
    ngit "$x" commit --force
}
step ma na "a: init, tag, commit --force" init_a
# Message-ID/tag, one a line, from the repository's file names and from a dump: both %-encoded.
test_begin_subtest "a: the repository holds every message's tags (the same commit as notmuch's)"
git --git-dir="$TMP_DIRECTORY/git-ma" ls-tree -r --name-only HEAD | sed -n 's|^tags/../../||p' |
    python3 -c 'import sys, urllib.parse as u; [print(u.unquote(l.rstrip("\n"))) for l in sys.stdin]' |
    sort > "$TMP_DIRECTORY/committed"
tags ma | python3 -c '
import sys, urllib.parse as u
for l in sys.stdin:
    tags, mid = l.rstrip("\n").split(" -- id:")
    for t in tags.split():
        print(u.unquote(mid) + "/" + u.unquote(t[1:]))' | sort > "$TMP_DIRECTORY/expected"
test_expect_equal "$(cmp "$TMP_DIRECTORY/expected" "$TMP_DIRECTORY/committed" 2>&1)
$(git --git-dir="$TMP_DIRECTORY/git-ma" rev-parse HEAD)" "
$(git --git-dir="$TMP_DIRECTORY/git-na" rev-parse HEAD)"

# Machine b: a clone of a's repository, checked out over b's own tags (new.tags are there already,
# so clone leaves them and checkout needs --force).
clone_b() {
    ngit "$x" clone "$TMP_DIRECTORY/git-${x%b}a"
    ngit "$x" checkout --force
}
step mb nb "b: clone a, checkout --force" clone_b
# same WHAT: after WHAT, the stores agree: a's and b's tags and files are the same, on maildex and on
# notmuch, and maildex's are notmuch's.
same() {
    for s in ma mb na nb; do
        tags $s > "$TMP_DIRECTORY/tags-$s"
        files $s > "$TMP_DIRECTORY/files-$s"
    done
    test_begin_subtest "$1: a's tags are b's, in maildex's stores"
    test_expect_equal_file "$TMP_DIRECTORY/tags-ma" "$TMP_DIRECTORY/tags-mb"
    test_begin_subtest "$1: maildex's stores have notmuch's tags"
    test_expect_equal_file "$TMP_DIRECTORY/tags-na" "$TMP_DIRECTORY/tags-ma"
    test_begin_subtest "$1: a's files are b's, and notmuch's"
    test_expect_equal "$(cmp "$TMP_DIRECTORY/files-ma" "$TMP_DIRECTORY/files-mb" 2>&1;
        cmp "$TMP_DIRECTORY/files-na" "$TMP_DIRECTORY/files-ma" 2>&1;
        cmp "$TMP_DIRECTORY/files-na" "$TMP_DIRECTORY/files-nb" 2>&1)" ""
}
same "b's checkout"

# Both change tags and commit: a on INBOX and Sent mail, b on list mail.
change_a() {
    on "$x" tag +replied-later -unread -- folder:Sent or folder:Trash > /dev/null
    on "$x" tag -todo +done -- 'tag:todo and date:2023-06..' > /dev/null
    # Not status: a has no upstream yet, and notmuch-git 0.37's status then fails (it looks for
    # git's "No upstream configured", which git now spells "no upstream configured").
    ngit "$x" commit
}
change_b() {
    on "$x" tag +read-on-b -unread -- 'folder:lists/dev and date:2022..2023' > /dev/null
    on "$x" tag +"quoted tag" +deleted -- folder:lists/users > /dev/null
    ngit "$x" status
    ngit "$x" commit
}
step ma na "a: tag, commit" change_a
step mb nb "b: tag, status, commit" change_b

# b takes a's commit, then a takes b's merge, from a remote named b.
merge_b() {
    ngit "$x" fetch
    ngit "$x" merge
    ngit "$x" status
}
merge_a() {
    git --git-dir="$TMP_DIRECTORY/git-$x" remote add b "$TMP_DIRECTORY/git-${x%a}b"
    ngit "$x" fetch b
    git --git-dir="$TMP_DIRECTORY/git-$x" branch --quiet --set-upstream-to=b/master master
    ngit "$x" merge
    ngit "$x" status
}
step mb nb "b: fetch, merge, status" merge_b
step ma na "a: fetch b, merge, status" merge_a
same "both merged"

test_begin_subtest "every change of both sides is in both stores"
test_expect_equal "$(for t in done replied-later read-on-b '"quoted tag"' deleted; do
        printf '%s %s %s\n' "$t" "$(on ma count --exclude=false tag:"$t")" "$(on mb count --exclude=false tag:"$t")"
    done | awk '$(NF - 1) == 0 || $(NF - 1) != $NF')" ""

# A change b does not commit: notmuch-git checkout on b undoes it, as on notmuch.
undo_b() {
    on "$x" tag +stray -- 'folder:Archive and date:2023' > /dev/null
    ngit "$x" status
    ngit "$x" checkout
    ngit "$x" status
}
step mb nb "b: an uncommitted tag, status, checkout, status" undo_b
same "checkout"

# As a user types it: notmuch-git found on PATH, run by whatever python3 comes first there.
test_begin_subtest "maildex exec notmuch-git status, as typed: what notmuch-git status prints on notmuch"
typed=$(on nb search --output=messages --limit=2 folder:Sent)
on mb tag +typed -- $typed > /dev/null
on nb tag +typed -- $typed > /dev/null
with_asan maildex --config="$TMP_DIRECTORY/config-mb" exec notmuch-git status > "$TMP_DIRECTORY/typed-mb" 2>&1
on_debian env NOTMUCH_CONFIG="$TMP_DIRECTORY/config-nb" notmuch-git status > "$TMP_DIRECTORY/typed-nb" 2>&1
expected=$(printf 'A\t%s\ttyped\n' $typed | sed 's/\tid:/\t/' | sort)
test_expect_equal "$(cat "$TMP_DIRECTORY/typed-mb"; echo --; cat "$TMP_DIRECTORY/typed-nb")" "$expected
--
$expected"

test_done
