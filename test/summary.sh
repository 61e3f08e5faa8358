#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Prints the suite's closing line, "N passed, M failed", from automake's .trs files (one per test
# program; each TAP line counts as one test). Used by `make check` and by test/run-suite.
passed=0; failed=0
for trs in "$@"; do
    [ -f "$trs" ] || continue
    p=$(grep -c '^:test-result: \(PASS\|XFAIL\|SKIP\)' "$trs")
    f=$(grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)' "$trs")
    passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
