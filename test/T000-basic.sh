#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The test library itself and the binary's most basic contract.
. "$(dirname "$0")/test-lib.sh"

test_begin_subtest "the maildex under test is the one just built"
test_expect_equal "$(command -v maildex)" "$MAILDEX_BUILDDIR/cli/maildex"

test_begin_subtest "--version prints 'maildex X.Y.Z'"
output=$(maildex --version)
case "$output" in
    "maildex "[0-9]*.[0-9]*.[0-9]*) test_ok_ ;;
    *) test_failure_ "got: $output" ;;
esac

test_begin_subtest "an unknown command exits 1 and says so on stderr"
output=$(maildex no-such-command 2>&1 >/dev/null; echo "status=$?")
test_expect_equal "$output" "maildex: unknown command 'no-such-command' (see 'maildex help')
status=1"

test_begin_subtest "an unknown global option exits 1"
test_expect_code 1 maildex --frobnicate

test_begin_subtest "the test config is the one in use"
test_expect_equal "$(maildex config get user.name)" "Notmuch Test Suite"

test_begin_subtest "the shared library exports only the maildex_ API"
lib=$MAILDEX_BUILDDIR/lib/.libs/libmaildex.so
if [ -f "$lib" ] && command -v nm >/dev/null; then
    output=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^maildex_[a-z]' | grep -v '^_' )
    test_expect_equal "$output" ""
else
    test_ok_ # a static-only build has nothing to check
fi

test_begin_subtest "every function declared in maildex.h is exported"
if [ -f "$lib" ] && command -v nm >/dev/null; then
    # Function types (typedef int maildex_write_fn(...)) are declared, not defined.
    declared=$(sed -n '/^typedef/d; s/^[a-z_ ]*[ *]\(maildex_[a-z_]*\)(.*/\1/p' "$srcdir/lib/maildex.h" | sort -u)
    exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
    test_expect_equal "$(printf '%s\n' "$declared" | comm -23 - /dev/fd/3 3<<EOF3
$exported
EOF3
)" ""
else
    test_ok_
fi

test_begin_subtest "the command line does not load gmime, gobject or gio (they are loaded to parse mail only)"
if command -v ldd >/dev/null; then
    test_expect_equal "$(ldd "$MAILDEX_BUILDDIR/cli/maildex" | grep -c -E 'gmime|gobject|gio-')" "0"
else
    test_ok_
fi

test_begin_subtest "the README installs exactly the packages CI installs"
readme=$(sed -n '/<!-- try-command -->/,/^```$/p' "$srcdir/README.md" | sed -n 's/.*install -y --no-install-recommends \([^&]*\) &&.*/\1/p' | tr ' ' '\n' | grep . | sort)
ci=$(sed -n 's/^packages: //p' "$srcdir/.ci/packages" | tr ' ' '\n' | grep . | sort)
test_expect_equal "$readme" "$ci"

test_done
