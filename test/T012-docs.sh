#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The documentation a notmuch user expects, held against what the program does: a man page for every
# command of the table that describes every option the command parses (read from the C sources by
# test/docs-options.py) with the same values and no other, the bash, zsh and fish completions (made
# from the pages) listing every command, option and value, `make install` putting the pages and the
# completions where man and the shells find them, and the error with no config file.
. "$(dirname "$0")/test-lib.sh"

TABLES=$TMP_DIRECTORY/tables
python3 "$srcdir/test/docs-options.py" "$srcdir" tables > "$TABLES"
COMMANDS=$(maildex help | sed -n 's/^  \([a-z-]*\) .*/\1/p' | sort | tr '\n' ' ')
COMPLETIONS=$MAILDEX_BUILDDIR/completions

test_begin_subtest "the option tables were read: every command of help's list, with options"
test_expect_equal "$(cut -d' ' -f1 "$TABLES" | sort -u | tr '\n' ' ')|$(grep -c ' --format-version ' "$TABLES")" \
    "$COMMANDS|$(echo $COMMANDS | wc -w)"

test_begin_subtest "every command has its page, in Makefile.am's MAN1_PAGES and in maildex(1)'s COMMANDS"
missing=
for c in $COMMANDS; do
    [ -f "$srcdir/doc/man/maildex-$c.1.scd" ] || missing="$missing $c(page)"
    sed -n '/^MAN1_PAGES =/,/^[^\t]/p' "$srcdir/Makefile.am" | grep -q "doc/man/maildex-$c\.1\b" ||
        missing="$missing $c(Makefile.am)"
    sed -n '/^# COMMANDS/,/^# GLOBAL/p' "$srcdir/doc/maildex.1.scd" | grep -q "^\*$c\*$" || missing="$missing $c(maildex.1)"
done
test_expect_equal "$missing" ""

test_begin_subtest "each page describes every option its command parses, with the same values, and no other"
test_expect_equal "$(python3 "$srcdir/test/docs-options.py" "$srcdir" pages 2>&1)" ""

test_begin_subtest "each option a command's help shows (its page's) is one the program accepts"
bad=
for c in $COMMANDS; do
    for o in $(maildex help "$c" | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p'); do
        maildex "$c" --help "$o" 2>&1 | grep -q '^Unrecognized option' && bad="$bad $c $o;"
    done
done
test_expect_equal "$bad" ""

# bash_complete LINE: the candidates bash gets for LINE (the cursor at its end), one a line, from
# the completion this tree built.
bash_complete() {
    bash -c '. "$1/maildex"; COMP_LINE=$2; COMP_POINT=${#2}; _maildex; printf "%s\n" "${COMPREPLY[@]}"' \
        bash "$COMPLETIONS" "$1"
}

test_begin_subtest "bash: the completion lists every command"
test_expect_equal "$(bash_complete 'maildex ' | sort | tr '\n' ' ')" "$COMMANDS"

# missing_from SHELL: each option of $TABLES that SHELL's candidates for "maildex COMMAND --" lack
# (a boolean may be offered as --no-NAME), and each keyword option whose values differ. The
# candidates come from the function SHELL_complete LINE.
missing_from() {
    last=
    while read -r cmd kind name words; do
        [ "$cmd" = "$last" ] || options=$("$1_complete" "maildex $cmd --")
        last=$cmd
        printf '%s\n' "$options" | grep -qx -e "$name" -e "$name=" -e "--no-${name#--}" || echo "$cmd $name"
        [ -n "$words" ] || continue
        got=$("$1_complete" "maildex $cmd $name=" | sed 's/.*=//' | sort | tr '\n' ,)
        want=$(echo "$words" | tr , '\n' | sort | tr '\n' ,)
        [ "$got" = "$want" ] || echo "$cmd $name=: $got, not $want"
    done < "$TABLES"
}

test_begin_subtest "bash: every option of every command, and every value of those that take keywords"
test_expect_equal "$(missing_from bash)" ""

generate_message > /dev/null
generate_message dir=lists/dev/cur > /dev/null
maildex new > /dev/null
maildex tag +to-do -- '*'
test_begin_subtest "bash: query prefixes, tags and folders from the store, tag changes, config keys, help topics"
output=$(bash_complete 'maildex search fol'; bash_complete 'maildex search tag:to'
         bash_complete 'maildex search --format=json folder:lists/d'; bash_complete 'maildex tag -to'
         bash_complete 'maildex config get new.t'; bash_complete 'maildex help search-')
test_expect_equal "$output" "folder:
to-do
lists/dev
-to-do
new.tags
search-terms"

test_begin_subtest "bash: global options before the command, a file after --config"
touch "$TMP_DIRECTORY/conf-file"
test_expect_equal "$(bash_complete 'maildex --v'; bash_complete "maildex --config=$TMP_DIRECTORY/conf-")" \
    "--version
$TMP_DIRECTORY/conf-file"

# zsh_complete LINE: what _maildex hands compadd for LINE, as zsh's own matching keeps it (the
# candidates that start with the word), with compadd and _files stood in for outside a real shell.
zsh_complete() {
    zsh -f -c 'compadd() { local -a kept; while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -[SP] ]] && shift; shift; done
                [[ $1 == -- ]] && shift; kept=(${(M)@:#${words[CURRENT]}*}); (($#kept)) && print -rl -- $kept; }
               _files() { :; }; compset() { :; }
               words=(${=2}); [[ $2 == *" " ]] && words+=(""); CURRENT=${#words}
               . "$1/_maildex"' zsh "$COMPLETIONS" "$1"
}
if command -v zsh > /dev/null 2>&1; then
    test_begin_subtest "zsh: the completion lists every command"
    test_expect_equal "$(zsh_complete 'maildex ' | sort | tr '\n' ' ')" "$COMMANDS"

    test_begin_subtest "zsh: every option of every command, and every value of those that take keywords"
    test_expect_equal "$(missing_from zsh)" ""

    test_begin_subtest "zsh: tags and folders from the store"
    test_expect_equal "$(zsh_complete 'maildex search tag:to'; zsh_complete 'maildex count folder:lists')" \
        "tag:to-do
folder:lists
folder:lists/dev"
else
    test_begin_subtest "zsh: the completion is a zsh script with every command and option (static: no zsh here)"
    test_skip_ "zsh is not installed"
fi

fish_complete() {
    fish --no-config -c 'source $argv[1]/maildex.fish; complete -C $argv[2] | string replace -r "\t.*" ""' \
        "$COMPLETIONS" "$1"
}
if command -v fish > /dev/null 2>&1; then
    test_begin_subtest "fish: the completion lists every command"
    test_expect_equal "$(fish_complete 'maildex ' | grep -v '^-' | sort | tr '\n' ' ')" "$COMMANDS"

    test_begin_subtest "fish: every option of every command, and every value of those that take keywords"
    test_expect_equal "$(missing_from fish)" ""

    test_begin_subtest "fish: tags and folders from the store, tag changes"
    test_expect_equal "$(fish_complete 'maildex search tag:to'; fish_complete 'maildex show folder:lists/'
                         fish_complete 'maildex tag +to')" "tag:to-do
folder:lists/dev
+to-do"
else
    test_begin_subtest "fish: the completion (no fish here)"
    test_skip_ "fish is not installed"
fi

test_begin_subtest "the completions name every command and option statically too (for shells not run here)"
bad=
while read -r cmd kind name words; do
    grep -q -- "${name#--}" "$COMPLETIONS/_maildex" || bad="$bad zsh:$cmd:$name"
    grep -q -- "-l ${name#--}\b\|-l no-${name#--}\b" "$COMPLETIONS/maildex.fish" || bad="$bad fish:$cmd:$name"
done < "$TABLES"
test_expect_equal "$bad" ""

if grep -q '^man1_MANS = ' "$MAILDEX_BUILDDIR/Makefile"; then
    test_begin_subtest "make install puts every page and completion where man and the shells look"
    DEST=$TMP_DIRECTORY/installed
    ${MAKE:-make} -C "$MAILDEX_BUILDDIR" install DESTDIR="$DEST" > "$TMP_DIRECTORY/install.log" 2>&1 ||
        echo "make install failed (install.log)" > "$TMP_DIRECTORY/install-failed"
    # Where make put them, as make expands its variables.
    eval "$(printf 'print-dirs:\n\t@echo mandir=$(mandir) BASH_COMPLETION_DIR=$(BASH_COMPLETION_DIR) ZSH_COMPLETION_DIR=$(ZSH_COMPLETION_DIR) FISH_COMPLETION_DIR=$(FISH_COMPLETION_DIR)\n' |
            ${MAKE:-make} -s --no-print-directory -C "$MAILDEX_BUILDDIR" -f Makefile -f - print-dirs)"
    missing=$(cat "$TMP_DIRECTORY/install-failed" 2>/dev/null)
    for c in $COMMANDS; do [ -f "$DEST$mandir/man1/maildex-$c.1" ] || missing="$missing man1/maildex-$c.1"; done
    for p in man1/maildex.1 man5/maildex-config.5 man5/maildex-hooks.5 man7/maildex-search-terms.7; do
        [ -f "$DEST$mandir/$p" ] || missing="$missing $p"
    done
    for f in "$BASH_COMPLETION_DIR/maildex" "$ZSH_COMPLETION_DIR/_maildex" "$FISH_COMPLETION_DIR/maildex.fish"; do
        [ -f "$DEST$f" ] || missing="$missing $f"
    done
    test_expect_equal "$missing" ""

    if command -v man > /dev/null 2>&1; then
        test_begin_subtest "man finds and renders the installed pages: MANPATH=... man maildex-search, man -l"
        output=$(MANPATH=$DEST$mandir MANPAGER=cat man maildex-search 2>&1 | sed -n '/^NAME/,+1p' | tr -s ' '
                 MANPAGER=cat man -l "$DEST$mandir/man7/maildex-search-terms.7" 2>&1 | grep -q 'date:since..until' &&
                 echo "search-terms(7) renders")
        test_expect_equal "$output" "NAME
 maildex-search - search for messages matching a query
search-terms(7) renders"
    fi
else
    test_begin_subtest "make install puts every page and completion where man and the shells look"
    test_skip_ "the man pages are not built (no scdoc)"
fi

test_begin_subtest "with no config file anywhere, a command says where it looked and to run setup"
mkdir -p "$TMP_DIRECTORY/no-config-home"
output=$(MAILDEX_CONFIG= HOME=$TMP_DIRECTORY/no-config-home maildex search foo 2>&1; echo "status=$?")
case "$output" in
    "Error: cannot load config file: there is none. Looked for, in this order:"*"/.notmuch-config
Try running 'maildex setup' to create a configuration.
status=1") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_done
