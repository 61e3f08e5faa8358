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

test_begin_subtest "help COMMAND prints that command's usage: its man page's synopsis"
output=$(maildex help config | head -n 3)
test_expect_equal "$output" "Usage: maildex config get KEY
       maildex config set [--database] KEY [VALUE...]
       maildex config list"

test_begin_subtest "... then the page's summary and each option the page describes, with its text"
maildex help count > count-help
test_expect_equal "$(sed -n '4p;6,8p' count-help)" "Count messages, threads or files matching a query.
Options:
  --output=messages|threads|files
      What is counted (default messages)."

test_begin_subtest "... every command's help has its summary, options from its page and none from the table alone"
bad=
for c in $(maildex help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
    out=$(maildex help "$c")
    case "$out" in
        "Usage: maildex $c"*"The whole page: maildex-$c(1).") ;;
        *) bad="$bad $c(shape)" ;;
    esac
    case "$out" in *"not described in the man page"*) bad="$bad $c(undescribed)" ;; esac
done
test_expect_equal "$bad" ""

test_begin_subtest "the options every command shares are named once, from maildex(1)"
test_expect_equal "$(maildex help compact | tail -n 2)" "Also --format-version=N, --help and --uuid=UUID: see maildex(1).
The whole page: maildex-compact(1)."

test_begin_subtest "the help text is the page's text without scdoc's markup"
test_expect_equal "$(maildex help dump | grep -A1 '^  --output=')" "  --output=FILE
      Writes a new file beside FILE (mode 0600), syncs it and renames it over FILE, so FILE is"

test_begin_subtest "help lists the other pages, and help TOPIC names its page"
test_expect_equal "$(maildex help | grep -c '^  maildex-[a-z-]*([57])')|$(maildex help hooks | head -n 1)" \
    "3|maildex-hooks(5): the programs maildex runs before and after indexing."

test_begin_subtest "help and --help need no config file, where the command itself would refuse to run"
mkdir -p "$TMP_DIRECTORY/empty-home"
output=$(MAILDEX_CONFIG= HOME=$TMP_DIRECTORY/empty-home maildex help search | head -n 1
         MAILDEX_CONFIG= HOME=$TMP_DIRECTORY/empty-home maildex search --help | head -n 1
         MAILDEX_CONFIG= HOME=$TMP_DIRECTORY/empty-home maildex search x > /dev/null 2>&1; echo "status=$?")
test_expect_equal "$output" "Usage: maildex search [OPTION...] QUERY...
Usage: maildex search [OPTION...] QUERY...
status=1"

test_begin_subtest "help --help is help's own help"
test_expect_equal "$(maildex help --help | head -n 1)" "Usage: maildex help [COMMAND | TOPIC]"

test_begin_subtest "COMMAND --help is help COMMAND"
test_expect_equal "$(maildex config --help)" "$(maildex help config)"

test_begin_subtest "help for an unknown command exits 1"
test_expect_code 1 maildex help no-such-thing

test_begin_subtest "help on a pipe prints the text, even where man has the page (man only on a terminal)"
test_expect_equal "$(MANPATH=/nowhere maildex help tag | head -n 1)" "Usage: maildex tag [--remove-all] [--query=infix|sexp] +TAG|-TAG... [--] QUERY..."

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
