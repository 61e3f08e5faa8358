#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Errors about the database that say what and where: a first `new` that cannot create the database's
# directory, a database file that is garbage or lost its tail, and SQLite errors that reach the user.
# Each message names the file, the reason and what to do; the exit status is notmuch's (1).
. "$(dirname "$0")/test-lib.sh"

DB=$MAIL_DIR/.maildex/maildex.db

test_begin_subtest "a first new with an unwritable mail root names the directory and the reason"
if can_drop_overrides; then
    chmod 555 "$MAIL_DIR"
    output=$(without_overrides maildex new 2>&1; echo "status=$?")
    chmod 755 "$MAIL_DIR"
    test_expect_equal "$output" "maildex new: cannot create directory '$MAIL_DIR/.maildex': Permission denied
status=1"
else
    test_skip_ "cannot drop root's permission overrides (no setpriv)"
fi

test_begin_subtest "a missing mail root is reported, not created"
printf '[database]\npath=%s\n' "$TMP_DIRECTORY/no/such/mail" > "$TMP_DIRECTORY/nomail"
output=$(maildex --config="$TMP_DIRECTORY/nomail" new 2>&1; echo "status=$?")
test_expect_equal "$output|$(ls "$TMP_DIRECTORY/no" 2>&1 >/dev/null | wc -l)" \
    "maildex new: cannot create directory '$TMP_DIRECTORY/no/such/mail/.maildex': '$TMP_DIRECTORY/no/such/mail' does not exist
status=1|1"

test_require python3
python3 "$srcdir/bench/gen" --count 300 "$MAIL_DIR" >/dev/null
maildex new >/dev/null
# A tag grows the database; with a reader open meanwhile its checkpoint cannot pass the reader's
# snapshot, so its pages stay in the WAL: the newest page 1 is there now.
python3 - "$DB" "$TMP_DIRECTORY/reader-ready" "$TMP_DIRECTORY/reader-go" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT count(*) FROM messages").fetchone()
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
PY
reader=$!
while [ ! -e "$TMP_DIRECTORY/reader-ready" ]; do sleep 0.05; done
maildex tag +marked -- '*'
touch "$TMP_DIRECTORY/reader-go"
wait $reader
count=$(maildex count '*')

# Runs every command that opens the database; prints each one's exit status and stderr.
every_command() {
    for cmd in "count *" "count tag:inbox" "search *" "search --output=tags *" "tag +x -- *" \
               "reindex id:none" "new"; do
        # shellcheck disable=SC2086
        err=$(set -f; maildex $cmd 2>&1 >/dev/null)
        echo "$? ${cmd%% *} $err"
    done
}

test_begin_subtest "a truncated database: every command fails with one message naming it (not a stale count)"
cp "$DB" "$TMP_DIRECTORY/good.db"
truncate -s $(($(stat -c %s "$DB") / 2 / 4096 * 4096)) "$DB"
every_command > OUTPUT
# One message, whatever the command; the sizes in it are the file's.
sed -E "s|^1 ([a-z]+) maildex \1: database '$DB' is corrupt \(truncated: its pages need [0-9]+ bytes, the file and its WAL hold [0-9]+\): |1 CORRUPT: |" OUTPUT |
    sort -u > OUTPUT.sorted
test_expect_equal "$(cat OUTPUT.sorted)" "1 CORRUPT: move it aside and run 'maildex new' to index the mail again; tags not kept as Maildir flags are lost"

test_begin_subtest "moving it aside and running new indexes the mail again"
mv "$DB" "$TMP_DIRECTORY/bad.db"
maildex new >/dev/null 2>&1
test_expect_equal "$?|$(maildex count '*')" "0|$count"

test_begin_subtest "a file that is not a database: every command fails with one message naming it"
for i in $(seq 200); do echo "this is not a database, it is a text file"; done > "$DB"
rm -f "$DB-wal" "$DB-shm"
every_command | sed -E "s/^1 ([a-z]+) maildex \1: /1 /" | sort -u > OUTPUT
test_expect_equal "$(cat OUTPUT)" "1 database '$DB' is corrupt (file is not a database): move it aside and run 'maildex new' to index the mail again; tags not kept as Maildir flags are lost"

cp "$TMP_DIRECTORY/good.db" "$DB"
rm -f "$DB-wal" "$DB-shm"

test_begin_subtest "a refused change says what maildex was doing and names the database, never SQLite's bare text"
# A constraint that refuses the tag 'collide' (a trigger: tagging inserts with OR IGNORE, so a
# UNIQUE index would be passed over in silence).
sqlite3 "$DB" "INSERT INTO tags(name) VALUES ('collide')"
sqlite3 "$DB" "CREATE TRIGGER refuse BEFORE INSERT ON message_tags
               WHEN NEW.tag = $(sqlite3 "$DB" "SELECT id FROM tags WHERE name = 'collide'")
               BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
output=$(maildex tag +collide -- '*' 2>&1; echo "status=$?")
case "$output" in
    "maildex tag: cannot "*": database '$DB' refused a change that contradicts its contents (SQLite: refused by the test); run the command again, and report a bug if it repeats
status=1") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "a damaged schema: the error names what maildex was doing and the database"
sqlite3 "$DB" "DROP TRIGGER refuse; DROP TABLE folders"
output=$(maildex search folder:INBOX 2>&1; echo "status=$?")
case "$output" in
    "maildex search: cannot "*": no such table: folders (database '$DB')
status=1") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_done
