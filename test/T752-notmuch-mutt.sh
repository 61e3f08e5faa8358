#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# notmuch-mutt on maildex (issue 29, deliver 7). Debian's notmuch-mutt (Perl) builds mutt's result
# Maildir from `notmuch search --output=files` (`search`, `search --prompt`, `search -r` with
# --duplicate=1), finds a piped message's thread with `notmuch search --output=threads id:...`
# (`thread`), and tags a piped message (`tag`). It runs in two copies of one generated Maildir (with
# a message without Message-ID, whose id both synthesise from its bytes): one under Debian's
# notmuch, one with maildex as its notmuch, as mutt's macros start it when mutt runs under
# `maildex exec` (or PATH names maildex's notmuch-bin). Every result Maildir must hold the same
# entries, each a symbolic link of the same name to the same file (its path under the mail root),
# and the output, exit status and tags must be the same. With -r the copy linked for a message with
# several files is the first file, which notmuch and maildex choose differently
# (doc/notmuch-differences.md, "The order of a message's files"): those are compared by Message-ID.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require notmuch-mutt
if ! perl -MMail::Box::Maildir -MMail::Header -MString::ShellQuote -MTerm::ReadLine -e 1 2>/dev/null; then
    echo "1..0 # SKIP notmuch-mutt's Perl modules are missing (libmail-box-perl, libmailtools-perl, libstring-shellquote-perl)"
    exit 0
fi
differential_setup "deleted;spam;"

# Two trees: notmuch's in $NM_DIR, maildex's in $MAIL_DIR.
NM_DIR=$TMP_DIRECTORY/mail-notmuch
sed -i "s|^path=.*|path=$NM_DIR|" "$NOTMUCH_CONFIG"
gen=$TMP_DIRECTORY/gen
python3 "$srcdir/bench/gen" --count 150 --seed 11 "$gen" > /dev/null
cat > "$gen/INBOX/cur/no-id:2,S" <<'EOF'
From: Someone <someone@example.net>
To: Test User <user@example.org>
Subject: A message without a Message-ID
Date: Tue, 02 Jan 2024 10:00:00 +0000

Which id, then?
EOF
rmdir "$MAIL_DIR"
cp -a "$gen" "$MAIL_DIR"
cp -a "$gen" "$NM_DIR"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
NOTMUCH_BIN=$MAILDEX_BUILDDIR/cli/notmuch-bin

# mutt SIDE ARGS...: notmuch-mutt ARGS (standard input is the caller's) with notmuch's or maildex's
# notmuch, its cache (and result Maildir) in $TMP_DIRECTORY/cache-SIDE; output and status to out-SIDE.
mutt() {
    side=$1
    shift
    case $side in
    maildex) env XDG_CACHE_HOME="$TMP_DIRECTORY/cache-$side" PATH="$NOTMUCH_BIN:$PATH" \
        NOTMUCH_CONFIG="$MAILDEX_CONFIG" notmuch-mutt "$@" ;;
    notmuch) env XDG_CACHE_HOME="$TMP_DIRECTORY/cache-$side" notmuch-mutt "$@" ;;
    exec) env XDG_CACHE_HOME="$TMP_DIRECTORY/cache-$side" maildex exec notmuch-mutt "$@" ;;
    esac > "$TMP_DIRECTORY/out-$side" 2>&1
    echo "exit $?" >> "$TMP_DIRECTORY/out-$side"
}
# results SIDE ROOT: the result Maildir, one entry a line: each link with its target under ROOT.
results() {
    (cd "$TMP_DIRECTORY/cache-$1/notmuch/mutt/results" && find . -mindepth 1 | sort | while read -r p; do
        if [ -L "$p" ]; then
            echo "$p -> $(readlink "$p" | sed "s|^$2/|ROOT/|")"
        else
            echo "$p"
        fi
    done)
}
# by_id SIDE ROOT: the result Maildir by message: each link's Message-ID (or its name, for the
# message without one), and whether it points at a file of ROOT under its own name.
by_id() {
    results "$1" "$2" | sed -n 's/^\.\/cur\/\(.*\) -> ROOT\/\(.*\)$/\1 \2/p' | while read -r name target; do
        id=$(grep -i -m1 '^message-id:' "$2/$target" | sed 's/.*<\(.*\)>.*/\1/')
        [ "${target##*/}" = "$name" ] && [ -f "$2/$target" ] && ok=ok || ok=bad
        echo "${id:-$name} $ok"
    done | sort
}
# compare VIEW WHAT STDIN ARGS...: notmuch-mutt ARGS on both, STDIN piped in; the subtest WHAT: the
# same output, exit status and result Maildir as VIEW shows it (results: every link; by_id: the
# messages linked), which is not empty.
compare() {
    view=$1 what=$2 in=$3
    shift 3
    test_begin_subtest "$what: the same result Maildir, output and status"
    if ! [ -r "$in" ] || [ -d "$in" ]; then
        test_failure_ "no message to pipe in: '$in'"
        return
    fi
    mutt notmuch "$@" < "$in"
    mutt maildex "$@" < "$in"
    $view notmuch "$NM_DIR" > "$TMP_DIRECTORY/results-notmuch"
    $view maildex "$MAIL_DIR" > "$TMP_DIRECTORY/results-maildex"
    if grep -q -e ' -> ROOT/' -e ' ok$' "$TMP_DIRECTORY/results-notmuch"; then
        cat "$TMP_DIRECTORY/out-notmuch" >> "$TMP_DIRECTORY/results-notmuch"
        cat "$TMP_DIRECTORY/out-maildex" >> "$TMP_DIRECTORY/results-maildex"
        test_expect_equal_file "$TMP_DIRECTORY/results-notmuch" "$TMP_DIRECTORY/results-maildex"
    else
        test_failure_ "notmuch's result Maildir is empty: $(cat "$TMP_DIRECTORY/out-notmuch")"
    fi
}

compare results "search tag:inbox" /dev/null search tag:inbox
test_begin_subtest "maildex exec notmuch-mutt (mutt run under maildex exec): the same result Maildir"
if abi_have_lib; then
    mutt exec search tag:inbox < /dev/null
    test_expect_equal "$(results exec "$MAIL_DIR"; cat "$TMP_DIRECTORY/out-exec")" \
        "$(cat "$TMP_DIRECTORY/results-maildex")"
else
    test_skip_ "$abi_skip_reason"
fi
compare results "search with several words" /dev/null search tag:unread and not folder:lists/kernel
compare results "search folder:=INBOX (notmuch-mutt drops the =)" /dev/null search folder:=INBOX
compare results "search a date range in a list" /dev/null search folder:lists/dev and date:2022..2023
compare results "search a thread of the user's" /dev/null search 'thread:{from:user@example.org}'
compare results "search a phrase" /dev/null search 'subject:"[dev]"'

echo 'from:user@example.org and tag:inbox' > "$TMP_DIRECTORY/query"
compare results "search --prompt, the query read as typed" "$TMP_DIRECTORY/query" --prompt search

test_begin_subtest "search that finds nothing: an empty result Maildir, on both"
mutt notmuch search tag:no-such-tag < /dev/null
mutt maildex search tag:no-such-tag < /dev/null
test_expect_equal "$(results maildex "$MAIL_DIR"; cat "$TMP_DIRECTORY/out-maildex")" \
    "$(results notmuch "$NM_DIR"; cat "$TMP_DIRECTORY/out-notmuch")"

# -r: one link a message, to its first file, which notmuch and maildex choose differently.
dup=$("$NOTMUCH" search --output=messages --duplicate=2 folder:INBOX | head -n 1)
test_begin_subtest "search -r: there are messages with several files"
test_expect_equal "$([ -n "$dup" ] && echo some)" "some"
compare by_id "search -r" /dev/null -r search folder:INBOX

# thread: a message piped in, as mutt's <pipe-message> does (the generated tree's copy: the same
# bytes as both trees'). rel QUERY: the path under the mail root of the first file notmuch finds.
rel() { "$NOTMUCH" search --output=files --sort=oldest-first "$@" | head -n 1 | sed "s|^$NM_DIR/||"; }
compare results "thread of the oldest message of a list" "$gen/$(rel folder:lists/dev)" thread
compare results "thread of a message of the user's" "$gen/$(rel folder:Sent and date:2023)" thread
compare results "thread of a message with two files" "$gen/$(rel "$dup")" thread
compare results "thread of a message without Message-ID (its id made from its bytes)" "$gen/INBOX/cur/no-id:2,S" thread
compare by_id "thread -r of a message with two files" "$gen/$(rel "$dup")" -r thread

# tag: the tags given on the command line, on the piped message.
test_begin_subtest "tag: the same tags and files in both stores afterwards"
for f in "$(rel tag:unread and not folder:INBOX)" "INBOX/cur/no-id:2,S"; do
    for side in notmuch maildex; do
        mutt $side tag -- -inbox -unread +from-mutt < "$gen/$f"
        cat "$TMP_DIRECTORY/out-$side" >> "$TMP_DIRECTORY/tag-$side"
    done
done
store() {
    "$2" dump | grep -v '^#' | sort
    (cd "$3" && find . -name .notmuch -prune -o -name .maildex -prune -o -type f -print | sort)
    cat "$TMP_DIRECTORY/tag-$1"
}
store notmuch "$NOTMUCH" "$NM_DIR" > "$TMP_DIRECTORY/store-notmuch"
store maildex maildex "$MAIL_DIR" > "$TMP_DIRECTORY/store-maildex"
test_expect_equal_file "$TMP_DIRECTORY/store-notmuch" "$TMP_DIRECTORY/store-maildex"
test_begin_subtest "tag: both messages were tagged"
test_expect_equal "$(maildex count tag:from-mutt and not tag:inbox and not tag:unread)" 2

test_done
