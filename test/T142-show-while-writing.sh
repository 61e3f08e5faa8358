#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `show` and `reply` open the database read-only and never wait for a writer (WAL readers): while another
# process holds SQLite's write transaction with uncommitted changes they answer at once with what was
# committed, and while `new` indexes thousands of messages every show of a message indexed before
# succeeds. A writer holds its transaction until they answered; the busy timeout a writer would wait is 10 s.
. "$(dirname "$0")/test-lib.sh"
test_require python3

add_lunch_corpus
DB=$MAIL_DIR/.maildex/maildex.db
# The same show and reply with no writer, timed: the baseline for the bound below.
start=$(date +%s%N)
maildex show --format=sexp thread:{id:msg1@example.org} > "$TMP_DIRECTORY/before"
maildex reply --format=json id:msg2@example.com > /dev/null 2>&1
baseline_ms=$(( ($(date +%s%N) - start) / 1000000 ))

# A writer takes the write lock, changes a tag without committing, and holds it until show and reply
# are done (60 s at most): they answered while it held the lock, however slow the machine.
python3 - "$DB" "$TMP_DIRECTORY/writing" "$TMP_DIRECTORY/release" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
db.execute("DELETE FROM message_tags WHERE message IN (SELECT id FROM messages WHERE message_id = 'msg1@example.org')")
open(sys.argv[2], "w").close()
for _ in range(1200):
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.05)
db.execute("ROLLBACK")
PY
writer=$!
while [ ! -e "$TMP_DIRECTORY/writing" ]; do sleep 0.05; done
start=$(date +%s%N)
maildex show --format=sexp thread:{id:msg1@example.org} > "$TMP_DIRECTORY/during" 2> "$TMP_DIRECTORY/err"
rc=$?
maildex reply --format=json id:msg2@example.com > /dev/null 2>> "$TMP_DIRECTORY/err" || rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
still_writing=$(kill -0 $writer 2>/dev/null && echo yes)
touch "$TMP_DIRECTORY/release"
wait $writer

# Waiting for the writer would cost the busy timeout (10 s): the bound is twice the baseline plus 2 s.
test_begin_subtest "show and reply answer while another process holds the write transaction"
test_expect_equal "$rc|$(cat "$TMP_DIRECTORY/err")|$still_writing|$([ "$elapsed_ms" -lt $((2 * baseline_ms + 2000)) ] && echo fast ||
    echo "slow: $elapsed_ms ms, $baseline_ms ms with no writer")" \
    "0||yes|fast"

test_begin_subtest "... and show what was committed, not the writer's uncommitted change"
test_expect_equal_file "$TMP_DIRECTORY/before" "$TMP_DIRECTORY/during"

# show during a first index of 3,000 files: the messages indexed before stay showable throughout.
python3 "$srcdir/bench/gen" --count 3000 --seed 132 "$MAIL_DIR/gen" > /dev/null
maildex new > /dev/null 2>&1 &
indexer=$!
shows=0 failures=0
while kill -0 $indexer 2>/dev/null; do
    maildex show --format=json --body=false thread:{id:msg1@example.org} > "$TMP_DIRECTORY/out" 2>> "$TMP_DIRECTORY/show-err" &&
        grep -q '"id": "msg3@example.net"' "$TMP_DIRECTORY/out" || failures=$((failures + 1))
    shows=$((shows + 1))
done
wait $indexer
rc=$?
test_begin_subtest "shows during new all succeed"
test_expect_equal "$rc $failures|$(cat "$TMP_DIRECTORY/show-err" 2>/dev/null)|$([ $shows -ge 1 ] && echo shown)" "0 0||shown"

test_done
