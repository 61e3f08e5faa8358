#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The benchmark's libnotmuch phases keep working (bench/run --libnotmuch, bench/README.md): at 300
# files, one run, with notmuch, every lib_* phase prints a sane line for Debian's library, whose walk
# read every message of the corpus; maildex's line is the same walk through this build's library, or
# "skipped" naming the missing library while there is none. Not a speed test: doc/performance.md
# holds the 10k runs.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require python3
differential_setup ""
abi_build_walker     # skips the script where the benchmark could not build its client either

test_begin_subtest "bench/run --libnotmuch --vs notmuch --scale 300 --runs 1 exits 0"
python3 "$srcdir/bench/run" --scale 300 --runs 1 --vs notmuch --libnotmuch --phase first_index --markdown \
    --workdir "$TMP_DIRECTORY/bench" --maildex "$MAILDEX_BUILDDIR/cli/maildex" --libnotmuch-dir "$ABI_DIR" \
    > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
code=$?
test_expect_equal "$code" "0"
[ "$code" = 0 ] || sed 's/^/# /' "$TMP_DIRECTORY/err"

test_begin_subtest "each lib_* phase: Debian's library walked every message; maildex's the same, or skipped"
python3 - "$TMP_DIRECTORY/out" "$ABI_DIR" > "$TMP_DIRECTORY/problems" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
meta = [l["meta"] for l in lines if "meta" in l][0]
messages = meta["corpus"]["messages"]
by = {(l["phase"], l["tool"]): l for l in lines if "phase" in l}
for phase in ("lib_open", "lib_messages", "lib_threads"):
    nm, md = by.get((phase, "notmuch")), by.get((phase, "maildex"))
    if nm is None or md is None:
        print("%s: lines missing" % phase)
        continue
    if nm.get("runs") != 1 or not 0 < nm["median_ms"] < 60000:
        print("%s: bad numbers %s" % (phase, nm))
    walked = dict(zip(nm.get("walked", "").split()[::2], map(int, nm.get("walked", "").split()[1::2])))
    want = 0 if phase == "lib_open" else messages
    if walked.get("messages") != want:
        print("%s: notmuch walked %s, the corpus has %d messages" % (phase, nm.get("walked"), messages))
    if "skipped" in md:
        if sys.argv[2] not in md["skipped"] or meta["libnotmuch"]["maildex"] is not None:
            print("%s: skipped, but not for want of %s: %s" % (phase, sys.argv[2], md))
    elif md.get("same_walk") is not True:
        print("%s: maildex's library read otherwise: %s against %s" % (phase, md.get("walked"), nm.get("walked")))
if not meta["libnotmuch"]["notmuch"]:
    print("meta: Debian's library not found")
EOF
test_expect_equal "$(cat "$TMP_DIRECTORY/problems")" ""

test_begin_subtest "the Markdown table has a row per lib_* phase"
test_expect_equal "$(grep -c '^| lib_\(open\|messages\|threads\) |' "$TMP_DIRECTORY/out")" "3"

test_done
