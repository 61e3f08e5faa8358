#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The libraries loaded on first use rather than at start-up (doc/performance.md, "Process start"):
# libstemmer when a word is stemmed (lib/sqlext/stemmer.c), libuv when `watch` or `server` starts an event
# loop (cli/loop/uv-lazy.c). A command that does not need one never maps it; a copy that cannot be loaded
# (here: an empty file first on the loader's path) is named with the reason, the command fails, and
# nothing stored is lost: once the library is back, the same command succeeds.
. "$(dirname "$0")/test-lib.sh"

config_h=$MAILDEX_BUILDDIR/config.h
stemmer=$(sed -n 's/^#define MAILDEX_STEMMER_SONAME "\(.*\)"$/\1/p' "$config_h")
libuv=$(sed -n 's/^#define MAILDEX_LIBUV_SONAME "\(.*\)"$/\1/p' "$config_h")
broken=$TMP_DIRECTORY/broken-libs
mkdir -p "$broken"
[ -n "$stemmer" ] && : > "$broken/$stemmer"
[ -n "$libuv" ] && : > "$broken/$libuv"

generate_message subject=Gardening body="the gardeners were planting roses" >/dev/null
maildex new >/dev/null 2>&1

# with_broken COMMAND...: COMMAND with the empty libraries first on the loader's path; prints its
# stderr and its exit status.
with_broken() {
    env LD_LIBRARY_PATH="$broken" "$@" 2>&1 >/dev/null
    echo "status=$?"
}

# mapped COMMAND...: the libraries among libstemmer and libuv that COMMAND's process loads (its
# standard output stays a pipe, which the server needs).
mapped() {
    rm -f "$TMP_DIRECTORY"/ld-debug.*
    env LD_DEBUG=files LD_DEBUG_OUTPUT="$TMP_DIRECTORY/ld-debug" "$@" 2>/dev/null | cat >/dev/null
    sed -n 's/.*file=\(lib\(stemmer\|uv\)[^ ]*\) .*/\1/p' "$TMP_DIRECTORY"/ld-debug.* | sort -u |
        tr '\n' ' '
}

test_begin_subtest "--version, a tag search and count map neither libstemmer nor libuv"
if [ -z "$stemmer" ] || [ -z "$libuv" ]; then
    test_skip_ "configure linked libstemmer or libuv (no soname found)"
else
    output="$(mapped maildex --version)|$(mapped maildex search tag:inbox)|$(mapped maildex count '*')"
    test_expect_equal "$output" "||"
fi

test_begin_subtest "a stemmed word maps libstemmer, and only it"
if [ -z "$stemmer" ]; then
    test_skip_ "libstemmer is linked"
else
    test_expect_equal "$(mapped maildex search planted)" "$stemmer "
fi

test_begin_subtest "a stemmer that cannot be loaded: search fails, naming the library"
if [ -z "$stemmer" ]; then
    test_skip_ "libstemmer is linked"
else
    output=$(with_broken maildex search planted | head -n 1)
    test_expect_equal "$output" "maildex: cannot load the stemmer library $stemmer: $broken/$stemmer: file too short"
fi

test_begin_subtest "... with status 1, while searches that stem nothing still answer"
if [ -z "$stemmer" ]; then
    test_skip_ "libstemmer is linked"
else
    output="$(with_broken maildex search planted | tail -n 1) $(env LD_LIBRARY_PATH="$broken" maildex count tag:inbox)"
    test_expect_equal "$output" "status=1 1"
fi

test_begin_subtest "... new fails without adding the message, and adds it once the library is back"
if [ -z "$stemmer" ]; then
    test_skip_ "libstemmer is linked"
else
    generate_message subject=Pruning body="pruned branches" >/dev/null
    output="$(with_broken maildex new | tail -n 1) $(maildex count '*')"
    output="$output $(maildex new >/dev/null 2>&1; echo $?) $(maildex count prune)"
    test_expect_equal "$output" "status=1 1 0 1"
fi

# libuv_refused COMMAND: what `maildex COMMAND` must say, and its status, when libuv cannot load.
libuv_refused() {
    echo "maildex: cannot load the libuv library $libuv: $broken/$libuv: file too short
maildex $1: cannot start an event loop: Function not implemented
status=1"
}

for case in "watch|watch --foreground" "server|server"; do
    name=${case%%|*}
    test_begin_subtest "a libuv that cannot be loaded: $name names it and exits 1"
    if [ -z "$libuv" ]; then
        test_skip_ "libuv is linked"
    else
        # shellcheck disable=SC2086 # the arguments are words
        test_expect_equal "$(: | with_broken maildex ${case#*|})" "$(libuv_refused "$name")"
    fi
done

test_begin_subtest "... a detached watch too, through the process that started it"
if [ -z "$libuv" ]; then
    test_skip_ "libuv is linked"
else
    test_expect_equal "$(with_broken maildex watch | tail -n 1)" "status=1"
fi

test_begin_subtest "the server loads libuv when its loop starts (on an empty pipe: then it returns)"
if [ -z "$libuv" ]; then
    test_skip_ "libuv is linked"
else
    test_expect_equal "$(: | mapped maildex server)" "$libuv "
fi

test_done
