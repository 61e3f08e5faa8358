#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Writers wait for each other, readers never make them wait. Two `new` runs at once: the second takes
# the indexer lock before it scans, waits for the first (saying so on a terminal) and then sees the
# first one's work, so both exit 0 and every message is added once. `tag` during a first index takes
# SQLite's write lock between the indexer's batches and never leaves a tag on a message that is gone.
# Readers during a first index never fail; a reader holding a snapshot does not make `new` wait out its
# busy timeout at the final checkpoint.
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require sqlite3
test_require flock
test_require script

DB=$MAIL_DIR/.maildex/maildex.db
rmdir "$MAIL_DIR"
python3 "$srcdir/bench/gen" --count 3000 --seed 53 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
messages=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["messages"])' "$TMP_DIRECTORY/gen.json")

# two_new_runs: starts two `new` at once; sets rc1, rc2, errors (both stderrs), added (the sum of
# their "Added N" lines) and nothing_new (how many said "No new mail.").
two_new_runs() {
    maildex new > "$TMP_DIRECTORY/out1" 2> "$TMP_DIRECTORY/err1" &
    first=$!
    maildex new > "$TMP_DIRECTORY/out2" 2> "$TMP_DIRECTORY/err2"
    rc2=$?
    wait $first
    rc1=$?
    errors=$(cat "$TMP_DIRECTORY/err1" "$TMP_DIRECTORY/err2")
    added=$(cat "$TMP_DIRECTORY/out1" "$TMP_DIRECTORY/out2" | sed -n 's/^Added \([0-9]*\) new messages.*/\1/p' |
        awk '{ n += $1 } END { print n + 0 }')
    nothing_new=$(cat "$TMP_DIRECTORY/out1" "$TMP_DIRECTORY/out2" | grep -c '^No new mail.$')
}

two_new_runs
test_begin_subtest "two new runs at once: both exit 0, nothing on stderr"
test_expect_equal "$rc1 $rc2|$errors" "0 0|"

test_begin_subtest "... one adds every message, the other finds nothing new"
test_expect_equal "$added|$nothing_new|$(maildex count '*')" "$messages|1|$messages"

test_begin_subtest "... and the store is consistent"
test_expect_equal "$(maildex_store_check)" "ok"

# The same on a store that exists, with more new mail than one batch: before, the second run scanned
# before taking the write lock and applied its stale scan between the first one's batches ("UNIQUE
# constraint failed: files.directory, files.name").
python3 "$srcdir/bench/gen" --sync --seed 7 --new 2500 --flags 300 --deletes 0 "$MAIL_DIR" > /dev/null
two_new_runs
test_begin_subtest "two new runs at once on a sync pass: both exit 0, every new message added once"
test_expect_equal "$rc1 $rc2|$errors|$added|$(maildex count '*')" \
    "0 0||2500|$((messages + 2500))"

test_begin_subtest "... and the store is consistent"
test_expect_equal "$(maildex_store_check)" "ok"
messages=$((messages + 2500))

# Another indexer holds the lock (flock(1) stands in for it): new waits, says so on a terminal, and
# runs once the lock is free.
python3 "$srcdir/bench/gen" --sync --seed 1 --new 20 --flags 0 --newcur 0 --moves 0 --deletes 0 "$MAIL_DIR" >/dev/null
flock "$DB-lock" sh -c "touch '$TMP_DIRECTORY/locked'; sleep 2" &
holder=$!
while [ ! -e "$TMP_DIRECTORY/locked" ]; do sleep 0.05; done
start=$(date +%s%N)
script -qec "maildex new" /dev/null > "$TMP_DIRECTORY/tty-new" 2>&1
rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
wait $holder
test_begin_subtest "new waits for another indexer, says so on a terminal, then indexes"
test_expect_equal "$rc|$(grep -c 'maildex new: waiting for another maildex writer to finish indexing\.\.\.' "$TMP_DIRECTORY/tty-new")|$(tail -n 1 "$TMP_DIRECTORY/tty-new" | tr -d '\r')" \
    "0|1|Added 20 new messages to the database."

test_begin_subtest "... for as long as the other one holds the lock"
test_expect_equal "$([ "$elapsed_ms" -ge 1000 ] && echo waited)" "waited"

# Another process holds SQLite's write lock for a second: tag waits (not failing) and says so.
python3 - "$DB" "$TMP_DIRECTORY/writing" <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(1.5)
db.execute("COMMIT")
PY
writer=$!
while [ ! -e "$TMP_DIRECTORY/writing" ]; do sleep 0.05; done
script -qec "maildex tag +waited -- tag:inbox" /dev/null > "$TMP_DIRECTORY/tty" 2>&1
rc=$?
wait $writer
test_begin_subtest "tag waits for another writer, says so on a terminal, then tags"
test_expect_equal "$rc|$(grep -c 'maildex tag: waiting for another process writing to the database' "$TMP_DIRECTORY/tty")|$(maildex count tag:waited)" \
    "0|1|$(maildex count tag:inbox)"

# tag while a first index runs: every tag lands on a message that exists.
rm -rf "$MAIL_DIR/.maildex"
maildex new > /dev/null 2>&1 &
indexer=$!
until maildex count '*' >/dev/null 2>&1; do sleep 0.05; done
tag_failures=0
for i in 1 2 3 4 5 6 7 8; do
    maildex tag +during$i -- '*' 2>> "$TMP_DIRECTORY/tag-err" || tag_failures=$((tag_failures + 1))
done
wait $indexer
rc=$?
test_begin_subtest "tag during a first index: every tag and the index succeed"
test_expect_equal "$rc $tag_failures|$(cat "$TMP_DIRECTORY/tag-err")" "0 0|"

test_begin_subtest "... and the store is consistent (no tag of a message that is not there)"
test_expect_equal "$(maildex_store_check)" "ok"

# Readers during a first index: every count, search and address succeeds and the count never goes
# down (each reads a committed snapshot; none waits for the writer).
rm -rf "$MAIL_DIR/.maildex"
maildex new > /dev/null 2>&1 &
indexer=$!
until maildex count '*' >/dev/null 2>&1; do sleep 0.05; done
read_failures=0 reads=0 last=0 fell=""
while kill -0 $indexer 2>/dev/null; do
    n=$(maildex count '*' 2>> "$TMP_DIRECTORY/read-err") || read_failures=$((read_failures + 1))
    [ "${n:-0}" -lt "$last" ] && fell="$fell $last->$n"
    last=${n:-$last}
    maildex search --output=threads --limit=50 tag:inbox > /dev/null 2>> "$TMP_DIRECTORY/read-err" ||
        read_failures=$((read_failures + 1))
    # notmuch.el's address completion, which reads every match
    maildex address --format=sexp --format-version=5 --output=sender --output=recipients \
        --deduplicate=address '*' > /dev/null 2>> "$TMP_DIRECTORY/read-err" ||
        read_failures=$((read_failures + 1))
    reads=$((reads + 3))
done
wait $indexer
rc=$?
test_begin_subtest "reads during a first index all succeed, and the count never goes down"
test_expect_equal "$rc $read_failures|$fell|$(cat "$TMP_DIRECTORY/read-err")|$([ $reads -ge 2 ] && echo read)" "0 0|||read"

# A reader holds a snapshot the whole time: new's final checkpoint does not wait for it. The same
# new without the reader, timed first, is the baseline: a new that waited would take the busy
# timeout (10 s) longer. The bound is twice the baseline plus 5 s, so a slow build (ThreadSanitizer,
# where new takes seconds and a loaded machine doubles that) passes, while the usual build (a
# baseline well under a second) still catches a wait.
python3 "$srcdir/bench/gen" --sync --seed 3 --new 50 "$MAIL_DIR" >/dev/null
start=$(date +%s%N)
maildex new > /dev/null 2>&1
baseline_ms=$(( ($(date +%s%N) - start) / 1000000 ))
python3 - "$DB" "$TMP_DIRECTORY/reader-ready" <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT count(*) FROM messages").fetchone()
open(sys.argv[2], "w").close()
time.sleep(20)
PY
reader=$!
while [ ! -e "$TMP_DIRECTORY/reader-ready" ]; do sleep 0.1; done
python3 "$srcdir/bench/gen" --sync --seed 2 --new 50 "$MAIL_DIR" >/dev/null
start=$(date +%s%N)
maildex new > "$TMP_DIRECTORY/out" 2>&1
rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill $reader 2>/dev/null
wait $reader 2>/dev/null
test_begin_subtest "new with a reader open finishes without waiting for it (under twice as long as without plus 5 s, busy timeout 10 s)"
test_expect_equal "$rc $([ "$elapsed_ms" -lt $((2 * baseline_ms + 5000)) ] && echo fast ||
    echo "slow: $elapsed_ms ms, $baseline_ms ms without the reader")" "0 fast"

test_begin_subtest "... and once the reader is gone, the next write empties the WAL"
maildex tag +after -- id:nosuchmessage >/dev/null 2>&1
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex_store_check)" "ok"
test_done
