# SPDX-License-Identifier: GPL-3.0-or-later
# setup.sh: what the tests of maildex's libnotmuch.so.5 (test/T7*-libnotmuch-*.sh, T720-exec.sh) share,
# sourced after test-lib.sh. It finds the two libraries (Debian's, which the loader takes when
# LD_LIBRARY_PATH is unset, and this build's lib/notmuch-abi/.libs/libnotmuch.so.5), builds the C
# walker against the system's notmuch.h, finds a python3 that imports notmuch2, and runs a command
# on either library. It never decides a test's result: while this build has no library, each test
# says so in its SKIP lines (abi_skip_reason), and never passes instead.

# The library under test: this build's, or the directory $MAILDEX_NOTMUCH_ABI_DIR names (as for
# `maildex exec`), e.g. another build tree's before the two are merged.
BUILD_ABI_DIR=$MAILDEX_BUILDDIR/lib/notmuch-abi/.libs
ABI_DIR=$(cd "${MAILDEX_NOTMUCH_ABI_DIR:-$BUILD_ABI_DIR}" 2>/dev/null && pwd || echo "${MAILDEX_NOTMUCH_ABI_DIR:-$BUILD_ABI_DIR}")
ABI_LIB=$ABI_DIR/libnotmuch.so.5
abi_skip_reason="this build has no libnotmuch.so.5 yet ($ABI_LIB is missing; issue 28, lib/notmuch-abi)"

# abi_have_lib: whether this build's library exists.
abi_have_lib() {
    [ -f "$ABI_LIB" ]
}

# abi_sanitized: whether this build's library was built with AddressSanitizer (--enable-sanitizers):
# then every program that loads it must have ASan's runtime first (the walker is built with it, the
# others get it preloaded), and python's own leaks at exit are not ours to report.
abi_sanitized() {
    abi_have_lib && readelf -d "$ABI_LIB" 2>/dev/null | grep -q 'NEEDED.*libasan'
}

# on_debian COMMAND...: runs COMMAND on Debian's libnotmuch (the loader's default).
on_debian() {
    env -u LD_LIBRARY_PATH -u LD_PRELOAD ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@"
}

# on_ours COMMAND...: runs COMMAND with this build's library first on LD_LIBRARY_PATH (and ASan's
# runtime preloaded when the library needs it and COMMAND is not the walker, which links it).
on_ours() {
    if [ "$1" != "${ABI_WALK:-}" ] && abi_sanitized; then
        set -- env LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)" \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@"
    fi
    env LD_LIBRARY_PATH="$ABI_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}

# with_asan COMMAND...: COMMAND with ASan's runtime preloaded when this build's library needs it, for
# programs that load the library without being built with ASan (python3 under maildex exec).
with_asan() {
    # shellcheck disable=SC2046 # words without blanks
    set -- $(asan_env) "$@"
    "$@"
}

# asan_env: prints the words that make a command with_asan's (env and its two variables, or nothing),
# for a command that a shell function cannot wrap (one tmux runs, an ssh stand-in's script).
asan_env() {
    abi_sanitized || return 0
    echo env LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

# abi_build_walker: compiles test/libnotmuch/walk.c against the system's notmuch.h into $ABI_WALK
# (with the sanitizers when this build's library has them), or skips the whole script when there is
# no compiler or no notmuch.h (Debian's libnotmuch-dev).
abi_build_walker() {
    ABI_WALK=$TMP_DIRECTORY/walk
    san=
    abi_sanitized && san="-fsanitize=address,undefined -fno-omit-frame-pointer"
    # shellcheck disable=SC2086 # san is words
    if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 $san -o "$ABI_WALK" \
        "$srcdir/test/libnotmuch/walk.c" -lnotmuch > "$TMP_DIRECTORY/walk-build.log" 2>&1; then
        echo "1..0 # SKIP cannot build a libnotmuch client (is libnotmuch-dev installed?): $(head -n 3 "$TMP_DIRECTORY/walk-build.log" | tr '\n' ' ')"
        exit 0
    fi
    DEBIAN_LIB=$(env -u LD_LIBRARY_PATH ldd "$ABI_WALK" | awk '$1 == "libnotmuch.so.5" { print $3 }')
    export ABI_WALK DEBIAN_LIB
}

# abi_find_python MODULE: ABI_PYTHON becomes a python3 that imports MODULE (notmuch2, or notmuch: the
# legacy ctypes bindings) on Debian's library, or stays empty (pyenv's python3, first on PATH where
# the suite is developed, has neither; Debian's /usr/bin/python3 has both).
abi_find_python() {
    ABI_PYTHON=
    for py in python3 /usr/bin/python3; do
        if on_debian "$py" -c "import $1" >/dev/null 2>&1; then
            ABI_PYTHON=$(command -v "$py")
            break
        fi
    done
}

# abi_skip_rest SUBTESTS: while this build has no library, counts each subtest named in SUBTESTS (one
# a line) as skipped with abi_skip_reason and ends the script: the plan names what would have run.
abi_skip_rest() {
    abi_have_lib && return 0
    while read -r t; do
        test_begin_subtest "$t"
        test_skip_ "$abi_skip_reason"
    done <<EOF_SUBTESTS
$1
EOF_SUBTESTS
    test_done
}
