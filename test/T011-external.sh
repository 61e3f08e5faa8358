#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# External commands: `maildex NAME` for a NAME that is no command of maildex runs maildex-NAME, else
# notmuch-NAME, from $PATH, with the arguments after NAME and NOTMUCH_CONFIG and MAILDEX_CONFIG
# naming the config file in use (notmuch runs notmuch-NAME the same way: T405-external).
. "$(dirname "$0")/test-lib.sh"

BIN=$TMP_DIRECTORY/bin
mkdir -p "$BIN"
PATH=$BIN:$PATH

# script NAME BODY: an executable shell script NAME in $BIN.
script() {
    printf '#!/bin/sh\n%s\n' "$2" > "$BIN/$1"
    chmod +x "$BIN/$1"
}

script notmuch-foo 'echo "notmuch-foo [$0] $# $*"; exit 7'
test_begin_subtest "maildex foo runs notmuch-foo with its arguments, and exits as it does"
output=$(maildex foo "a b" c)
test_expect_equal "$?|$output" "7|notmuch-foo [$BIN/notmuch-foo] 2 a b c"

script maildex-foo 'echo "maildex-foo $*"'
test_begin_subtest "maildex-foo comes before notmuch-foo"
test_expect_equal "$(maildex foo bar)" "maildex-foo bar"

script maildex-printenv 'printf "%s|%s\n" "$NOTMUCH_CONFIG" "$MAILDEX_CONFIG"'
test_begin_subtest "NOTMUCH_CONFIG and MAILDEX_CONFIG name the config file in use"
test_expect_equal "$(env -u NOTMUCH_CONFIG maildex printenv)" "$MAILDEX_CONFIG|$MAILDEX_CONFIG"

test_begin_subtest "... the one --config names"
cp "$MAILDEX_CONFIG" "$TMP_DIRECTORY/alternate"
test_expect_equal "$(maildex --config "$TMP_DIRECTORY/alternate" printenv)" \
    "$TMP_DIRECTORY/alternate|$TMP_DIRECTORY/alternate"

printf 'echo never\n' > "$BIN/maildex-broken"
chmod 644 "$BIN/maildex-broken"
script notmuch-broken 'echo notmuch-broken ran'
test_begin_subtest "a maildex-NAME that cannot run is an error, not a reason to run notmuch-NAME"
output=$(maildex broken 2>&1)
test_expect_equal "$?|$output" "1|Error: Running external command 'maildex-broken' failed: Permission denied"

test_begin_subtest "no such command anywhere: maildex's message, exit 1"
output=$(maildex no-such-command-here 2>&1)
test_expect_equal "$?|$output" "1|maildex: unknown command 'no-such-command-here' (see 'maildex help')"

test_done
