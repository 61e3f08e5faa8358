#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes that fail for want of room (a full disk, or here a file size limit: `ulimit -f` makes every
# write past it fail as ENOSPC would, without a filesystem to fill). `new` and `tag` exit 1 with a
# message naming the database and saying what to do; what was committed before stays whole, tags
# included; the next run with room finishes the job. SIGXFSZ is ignored so the write fails instead
# of killing the process, as a full disk does.
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require sqlite3

DB=$MAIL_DIR/.maildex/maildex.db
rmdir "$MAIL_DIR"
python3 "$srcdir/bench/gen" --count 300 --seed 61 "$MAIL_DIR" > /dev/null

# limited BLOCKS CMD...: runs maildex CMD with files limited to BLOCKS 512-byte blocks; sets rc and err.
limited() {
    blocks=$1
    shift
    # stderr goes through a pipe: a file would hit the same limit and lose the message
    rc=0
    err=$( (trap '' XFSZ; ulimit -f "$blocks"; maildex "$@" 2>&1 > /dev/null) ) || rc=$?
}

limited 40 new
test_begin_subtest "a first index that cannot write its database: exit 1, the database named, what to do"
case "$err" in
*"$DB"*"make room and run the command again"*) test_expect_equal "$rc" "1" ;;
*) test_failure_ "exit $rc: $err" ;;
esac

test_begin_subtest "... and the next run with room indexes everything"
maildex new > /dev/null 2>&1
test_expect_equal "$(maildex count --output=files '*')|$(maildex_store_check)" "300|ok"

maildex tag +kept -- '*'
maildex new > /dev/null 2>&1 # nothing new: its checkpoint empties the WAL, so a write must grow it
before=$(maildex_store_dump)
messages=$(maildex count '*')

limited 0 tag +late -- '*'
test_begin_subtest "tag with no room: exit 1 and the message, no message changed"
case "$err" in
*"$DB"*"what was committed before is kept"*) test_expect_equal "$rc|$(maildex count tag:late)|$(maildex_store_dump)" "1|0|$before" ;;
*) test_failure_ "exit $rc, WAL $(stat -c %s "$DB-wal" 2>&1) bytes: $err" ;;
esac

python3 "$srcdir/bench/gen" --sync --seed 7 --new 3000 --deletes 0 "$MAIL_DIR" > /dev/null

# The database's files may not grow past their size now plus about 1 MB: the first batch of 2,000
# new messages needs more.
wal_blocks=$(( ($(stat -c %s "$DB") + 1048576) / 512 ))
limited "$wal_blocks" new
test_begin_subtest "new with no room for its batch: exit 1 and the message"
case "$err" in
*"cannot commit"*"$DB"*"what was committed before is kept"*) test_expect_equal "$rc" "1" ;;
*) test_failure_ "exit $rc: $err" ;;
esac

test_begin_subtest "... the store is as it was, tags included, and intact"
test_expect_equal "$(maildex_store_dump)|$(maildex_store_check)" "$before|ok"

test_begin_subtest "the next runs with room add the new mail and tag it, the old tags kept"
maildex new > /dev/null 2>&1
maildex tag +late -- '*'
test_expect_equal "$(maildex count '*')|$(maildex count tag:kept)|$(maildex count tag:late)|$(maildex_store_check)" \
    "$((messages + 3000))|$messages|$((messages + 3000))|ok"

test_done
