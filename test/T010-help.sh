#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# help, --help, and the --format-version gate every structured command shares.
. "$(dirname "$0")/test-lib.sh"

test_begin_subtest "maildex with no command prints the command list and exits 0 (once configured and indexed)"
maildex new >/dev/null
output=$(maildex; echo "status=$?")
case "$output" in
    "Usage: maildex"*"config"*"status=0") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "help lists every command (one per cli/cmd-*.c)"
output=$(maildex help | sed -n 's/^  \([a-z-]*\) .*/\1/p' | sort | tr '\n' ' ')
expected=$(ls "$srcdir"/cli/cmd-*.c | sed 's|.*/cmd-\(.*\)\.c|\1|' | sort | tr '\n' ' ')
test_expect_equal "$output" "$expected"

test_begin_subtest "help COMMAND prints that command's usage"
output=$(maildex help config | head -n 1)
test_expect_equal "$output" "Usage: maildex config get|set|list [KEY [VALUE...]]"

test_begin_subtest "COMMAND --help is help COMMAND"
test_expect_equal "$(maildex config --help)" "$(maildex help config)"

test_begin_subtest "help for an unknown command exits 1"
test_expect_code 1 maildex help no-such-thing

test_begin_subtest "--format-version=0 exits 20 (too old)"
test_expect_code 20 maildex config --format-version=0 get user.name

test_begin_subtest "--format-version=6 exits 21 (too new)"
test_expect_code 21 maildex config --format-version=6 get user.name

test_begin_subtest "--format-version=1..5 are accepted"
ok=yes
for v in 1 2 3 4 5; do maildex config --format-version=$v get user.name >/dev/null || ok=no; done
test_expect_equal "$ok" "yes"

test_begin_subtest "the too-old message names the versions"
output=$(maildex config --format-version=0 get user.name 2>&1)
test_expect_equal "$output" "A caller requested output format version 0, which is no longer supported
by the maildex CLI (it requires at least version 1).  You may need to
upgrade your notmuch front-end."

test_begin_subtest "a non-numeric --format-version is a usage error"
test_expect_code 1 maildex config --format-version=five get user.name

test_begin_subtest "a command's --help prints its usage and exits 0, wherever its options are"
output=$(maildex search --limit=5 --help; echo "status $?")
test_expect_equal "$(echo "$output" | head -1 | cut -d' ' -f1-3) $(echo "$output" | tail -1)" "Usage: maildex search status 0"

test_begin_subtest "--help after the query is a word of the query, not an option (options end at the first non-option)"
maildex new > /dev/null 2>&1
output=$(maildex search --output=messages nosuchword --help 2>&1; echo "status $?")
test_expect_equal "$output" "status 0"

test_done
