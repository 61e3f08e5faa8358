#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The house rules that no compiler checks: every source file carries its licence line (not
# build-aux/, which holds automake's own files under their own licences); every include and
# cross-file call of lib/ and cli/ points down the order the folders' READMEs state; no .c file is
# over 800 lines and no function over 80; doc/ARCHITECTURE.md names only paths that exist, and every
# .c and .h of lib/ and cli/ (test/house/).
. "$(dirname "$0")/test-lib.sh"

test_begin_subtest "every source file has an SPDX licence line"
missing=$(cd "$srcdir" && git ls-files 2>/dev/null | grep -E '\.(c|h|sh|py|el|vim|sql|awk|scd|am|ac)$|^(bench|hooks|\.ci)/[a-z-]+$|^test/run-suite$' |
    grep -Ev '^(test/corpora|test/expected|test/fuzz/corpus-|build-aux/)' |
    while read -r f; do grep -q 'SPDX-License-Identifier: GPL-3.0-or-later' "$f" || echo "$f"; done)
if [ ! -d "$srcdir/.git" ] && [ ! -f "$srcdir/.git" ]; then
    test_ok_ # a release tarball has no git to list its files
else
    test_expect_equal "$missing" ""
fi

test_begin_subtest "COPYING holds the GPL, version 3"
test_expect_equal "$(sed -n 1p "$srcdir/COPYING" | tr -s ' ')" " GNU GENERAL PUBLIC LICENSE"

test_begin_subtest "every arrow of lib/ and cli/ points down the order the READMEs state"
test_expect_equal "$(python3 "$srcdir/test/house/check-layers.py" "$srcdir" 2>&1 | grep -v ' 0 arrows pointing up')" ""

test_begin_subtest "no .c file over 800 lines, no function over 80"
test_expect_equal "$(python3 "$srcdir/test/house/check-limits.py" "$srcdir" 2>&1 | grep -v ' 0 over a limit')" ""

test_begin_subtest "doc/ARCHITECTURE.md names only paths that exist, and every file of lib/ and cli/"
if [ ! -d "$srcdir/.git" ] && [ ! -f "$srcdir/.git" ]; then
    test_ok_ # a release tarball holds only part of the tree the document describes
else
    test_expect_equal "$(python3 "$srcdir/test/house/check-doc-paths.py" "$srcdir" 2>&1 | grep -v ' 0 problems')" ""
fi

test_done
