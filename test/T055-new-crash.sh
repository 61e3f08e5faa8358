#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex new` killed with SIGKILL at several moments, then restarted from the killed state, ends with
# the same store as one uninterrupted run: same messages, tags, files, thread partition, ghosts and
# recorded directory mtimes, and an intact database. After every kill the database is readable.
#
# Kills are placed by progress, not by time, so that they land in the same phase on a fast or a
# loaded machine: `new --verbose` prints "i/N: path" as each file is applied (line-buffered, so a
# reader sees each line at once), and the test kills once the log has enough lines. new commits every 2000 files, so the
# points are chosen on both sides of that commit: before any commit, just after one, near the end.
# Two kills in the first second of a run also hit database creation and the scan.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3
test_require python3

GEN=$srcdir/bench/gen
REF=$TMP_DIRECTORY/ref
KIL=$TMP_DIRECTORY/killed
REF_CONFIG=$TMP_DIRECTORY/ref-config
KIL_CONFIG=$TMP_DIRECTORY/killed-config
for pair in "$REF_CONFIG:$REF" "$KIL_CONFIG:$KIL"; do
    sed "s|^path=.*|path=${pair#*:}|" "$MAILDEX_CONFIG" > "${pair%%:*}"
done

# One fixed mtime per pass for every directory of both trees: old enough for new to record it, equal
# in both trees so the recorded mtimes can be compared, different between passes so a changed
# directory looks changed.
now=$(date +%s)
set_dir_mtimes() {
    find "$REF" "$KIL" -path '*/.maildex' -prune -o -type d -exec touch -d "@$1" {} +
}

# killed_new LINES: runs new on the killed copy and kills it with SIGKILL once its verbose log has
# LINES lines (LINES=t:SECS: after SECS seconds instead). Sets killed_rc (137 when the kill landed)
# and killed_at (lines logged when it was killed).
killed_new() {
    log=$TMP_DIRECTORY/killed.log
    : > "$log"
    MAILDEX_CONFIG=$KIL_CONFIG maildex new --verbose > "$log" 2>&1 &
    pid=$!
    case $1 in
    t:*) sleep "${1#t:}" ;;
    *)
        while kill -0 "$pid" 2>/dev/null && [ "$(wc -l < "$log")" -lt "$1" ]; do
            sleep 0.005
        done ;;
    esac
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    killed_rc=$?
    killed_at=$(wc -l < "$log")
    echo "# kill at $1: exit status $killed_rc, $killed_at files logged" >&2
}

# After a kill: the database (when the run got far enough to create it) opens, reads and is intact.
# Prints "ok" or what is wrong.
check_readable() {
    db=$KIL/.maildex/maildex.db
    out=$(MAILDEX_CONFIG=$KIL_CONFIG maildex count '*' 2>&1)
    rc=$?
    # Killed before the schema was committed: the file is no database yet, and says so.
    if [ ! -e "$db" ] || [ "$(sqlite3 "$db" "SELECT count(*) FROM sqlite_master WHERE name = 'messages'")" = 0 ]; then
        case $rc:$out in
        "1:maildex count: no database at '$db': run 'maildex new' first") echo ok ;;
        *) echo "no schema yet, but count '*' exit $rc, printed '$out'" ;;
        esac
        return
    fi
    rows=$(sqlite3 "$db" "SELECT count(*) FROM messages" 2>&1)
    integrity=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
    if [ $rc -ne 0 ] || [ "$out" != "$rows" ] || [ "$integrity" != ok ]; then
        echo "count '*' exit $rc, printed '$out'; messages table: '$rows'; integrity: '$integrity'"
        return
    fi
    echo ok
}

# The whole comparable state of a store: messages with tags, files and thread sizes; the thread
# partition with ghosts; directory rows with their recorded mtimes; invariants that must hold.
full_dump() {
    db=$1/.maildex/maildex.db
    maildex_store_dump "$db"
    echo "-- threads"
    maildex_thread_dump "$db"
    echo "-- threads with ghosts"
    sqlite3 "$db" "SELECT group_concat(id, ' ') FROM (SELECT thread, id FROM (SELECT thread, message_id AS id FROM messages UNION ALL SELECT thread, 'ghost:' || message_id FROM ghosts) ORDER BY thread, id) GROUP BY thread" | sort
    echo "-- directories"
    sqlite3 "$db" "SELECT path, mtime FROM directories ORDER BY path"
    echo "-- invariants"
    sqlite3 "$db" "PRAGMA integrity_check;
      SELECT 'files', count(*) FROM files;
      SELECT 'fts rows', (SELECT count(*) FROM texts) = (SELECT count(*) FROM messages);
      SELECT 'bad thread sizes', count(*) FROM threads t WHERE messages != (SELECT count(*) FROM messages m WHERE m.thread = t.id);
      SELECT 'bad tag counts', count(*) FROM tags t WHERE messages != (SELECT count(*) FROM message_tags mt WHERE mt.tag = t.id);
      SELECT 'messages without files', count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.message = m.id)"
}

python3 "$GEN" --count 3000 --seed 55 "$REF" > "$TMP_DIRECTORY/gen.json"
# .maildex exists before the first run so that creating it does not change the root's mtime, which
# would make the reference (root changed in the current second) and the restarted runs differ.
mkdir -m 700 "$REF/.maildex"
cp -a "$REF" "$KIL"
set_dir_mtimes $((now - 100))
messages=$(sed -E 's/.*"messages": ([0-9]+).*/\1/' "$TMP_DIRECTORY/gen.json")

test_begin_subtest "reference: one uninterrupted run indexes the generated tree"
output=$(MAILDEX_CONFIG=$REF_CONFIG maildex new 2>&1 | tail -n 1)
test_expect_equal "$output" "Added $messages new messages to the database."

# Pass 1 on the killed copy: first run of an empty database.
pass1_ok=true
pass1_log=
for point in t:0 t:0.02 t:0.05 1000 2300 500 t:0.2; do
    killed_new "$point"
    state=$(check_readable)
    pass1_log="$pass1_log
kill at $point (exit $killed_rc after $killed_at files): $state"
    [ "$state" = ok ] || pass1_ok=false
    case $point in
    1000 | 2300 | 500) [ "$killed_rc" = 137 ] || { pass1_ok=false; pass1_log="$pass1_log (the kill did not land)"; } ;;
    esac
done

test_begin_subtest "pass 1: after every kill the database is intact and count '*' works"
if $pass1_ok; then test_ok_; else test_failure_ "$pass1_log"; fi

test_begin_subtest "pass 1: the kill after the first batch commit left committed messages behind"
test_expect_equal "$(sqlite3 "$KIL/.maildex/maildex.db" "SELECT count(*) >= 1900 FROM messages")" "1"

test_begin_subtest "pass 1: the finishing run succeeds"
test_expect_code 0 env MAILDEX_CONFIG="$KIL_CONFIG" maildex new

full_dump "$REF" > "$TMP_DIRECTORY/ref.dump"
full_dump "$KIL" > "$TMP_DIRECTORY/killed.dump"

test_begin_subtest "pass 1: the killed-and-finished store equals the reference"
test_expect_equal_file "$TMP_DIRECTORY/ref.dump" "$TMP_DIRECTORY/killed.dump"

test_begin_subtest "pass 1: the reference is sane (every message, ok, invariants hold)"
output=$(sed -n '/^-- invariants/,$p' "$TMP_DIRECTORY/ref.dump"; sqlite3 "$REF/.maildex/maildex.db" "SELECT count(*) FROM messages")
test_expect_equal "$output" "-- invariants
ok
files|3000
fts rows|1
bad thread sizes|0
bad tag counts|0
messages without files|0
$messages"

test_begin_subtest "pass 1: directory mtimes were recorded, so the next run reads nothing"
test_expect_equal "$(MAILDEX_CONFIG=$KIL_CONFIG maildex new 2>&1)" "No new mail."

# Pass 2: an mbsync-like sync pass large enough to cross a batch commit (1500 new files, 600 flag
# renames, 50 new/ -> cur/, 50 moves between folders, 50 deletions), the same on both trees.
for tree in "$REF" "$KIL"; do
    python3 "$GEN" --sync --seed 56 --new 1500 --flags 600 --newcur 50 --moves 50 --deletes 50 \
        "$tree" > "$TMP_DIRECTORY/sync.json"
done
set_dir_mtimes $((now - 50))

test_begin_subtest "pass 2: reference run over the sync pass"
test_expect_code 0 env MAILDEX_CONFIG="$REF_CONFIG" maildex new

pass2_ok=true
pass2_log=
for point in 300 2050 t:0.03; do
    killed_new "$point"
    state=$(check_readable)
    pass2_log="$pass2_log
kill at $point (exit $killed_rc after $killed_at files): $state"
    [ "$state" = ok ] || pass2_ok=false
    [ "$point" = 2050 ] && after_commit=$(sqlite3 "$KIL/.maildex/maildex.db" "SELECT count(*) FROM messages")
    case $point in
    300 | 2050) [ "$killed_rc" = 137 ] || { pass2_ok=false; pass2_log="$pass2_log (the kill did not land)"; } ;;
    esac
done

test_begin_subtest "pass 2: after every kill the database is intact and count '*' works"
if $pass2_ok; then test_ok_; else test_failure_ "$pass2_log"; fi

test_begin_subtest "pass 2: the kill after the batch commit left part of the sync pass committed"
test_expect_equal "$((${after_commit:-0} > messages))" "1"

test_begin_subtest "pass 2: the finishing run succeeds"
test_expect_code 0 env MAILDEX_CONFIG="$KIL_CONFIG" maildex new

full_dump "$REF" > "$TMP_DIRECTORY/ref.dump"
full_dump "$KIL" > "$TMP_DIRECTORY/killed.dump"

test_begin_subtest "pass 2: the killed-and-finished store equals the reference"
test_expect_equal_file "$TMP_DIRECTORY/ref.dump" "$TMP_DIRECTORY/killed.dump"

test_begin_subtest "pass 2: the sync pass reached the store (files on disk = files rows)"
on_disk=$(find "$REF" -path '*/.maildex' -prune -o -path '*/tmp' -prune -o -type f -print | wc -l)
test_expect_equal "$(sqlite3 "$KIL/.maildex/maildex.db" "SELECT count(*) FROM files")" "$on_disk"

test_done
