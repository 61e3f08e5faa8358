#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# compact: the database rebuilt without its free pages and put in place in one transaction. Nothing
# is lost (the dump before and after is the same, searches answer the same), the file shrinks,
# --backup=DIR keeps the old database (DIR must be new, as notmuch wants it), --quiet is quiet; readers
# running meanwhile (separate processes, and one holding a read transaction open across the swap)
# see the old database or the new one and never an error; tags written by other processes meanwhile
# are all there at the end; and the write-ahead log is empty and the database whole afterwards.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

python3 - "$MAIL_DIR" <<'PYTHON'
import os, sys
os.makedirs(sys.argv[1] + "/cur")
for i in range(3000):
    with open("%s/cur/%05d:2,%s" % (sys.argv[1], i, "S" if i % 4 else ""), "w") as f:
        f.write("From: p%d@example.org\nSubject: subject %d\nMessage-ID: <c%d@x>\n"
                "Date: Mon, 1 Jan 2024 %02d:%02d:00 +0000\n\nbody words %d and more words\n"
                % (i % 40, i, i, i // 60 % 24, i % 60, i % 97))
PYTHON
maildex new > /dev/null
DB=$MAIL_DIR/.maildex/maildex.db
# Free pages: 600 tags on every tenth message, then removed.
seq 0 10 2999 | sed 's/.*/+a-long-tag-name-to-make-pages-&-x +another-one-& -- id:c&@x/' | maildex tag --batch
seq 0 10 2999 | sed 's/.*/-a-long-tag-name-to-make-pages-&-x -another-one-& -- id:c&@x/' | maildex tag --batch
maildex dump > BEFORE
maildex search --output=summary 'words and tag:unread' > SEARCH_BEFORE

test_begin_subtest "compact: notmuch's lines and the sizes, exit 0"
size_before=$(($(stat -c %s "$DB") + $(stat -c %s "$DB-wal")))
maildex compact > OUTPUT
rc=$?
echo "# $(grep Compacted OUTPUT)"
size_after=$(stat -c %s "$DB")
sed -E 's/from [0-9]+ to [0-9]+ bytes/from N to M bytes/' OUTPUT > OUTPUT.sanitized
test_expect_equal "$rc $(cat OUTPUT.sanitized)" "0 Compacting database...
Compacted database '$DB' from N to M bytes.
Done."

test_begin_subtest "... the sizes printed are the database's before and after, and it shrank"
test_expect_equal "$(grep -o 'from [0-9]* to [0-9]*' OUTPUT) $((size_after < size_before))" \
    "from $size_before to $size_after 1"

test_begin_subtest "nothing lost: the same dump, the same search"
maildex dump > AFTER
maildex search --output=summary 'words and tag:unread' > SEARCH_AFTER
test_expect_equal "$(cmp -s BEFORE AFTER && echo same) $(cmp -s SEARCH_BEFORE SEARCH_AFTER && echo same)" \
    "same same"

test_begin_subtest "the write-ahead log is empty and the database is whole"
test_expect_equal "$(stat -c %s "$DB-wal") $(maildex_store_check "$DB" | tr '\n' ' ')" "0 ok "

test_begin_subtest "--backup=DIR: the old database kept in DIR, the new one in place"
maildex tag +after-backup -- id:c1@x
maildex compact --backup="$TMP_DIRECTORY/backup" > OUTPUT
output="$(tail -n 2 OUTPUT | head -n 1)|$(ls "$TMP_DIRECTORY/backup")|\
$(stat -c %a "$TMP_DIRECTORY/backup")|\
$(MAILDEX_DATABASE=$TMP_DIRECTORY/backup/maildex.db maildex count tag:after-backup)|$(maildex count tag:after-backup)"
test_expect_equal "$output" "The old database has been moved to $TMP_DIRECTORY/backup.|maildex.db|700|1|1"

test_begin_subtest "--backup=DIR when DIR exists: refused before anything is done, exit 1"
maildex compact --backup="$TMP_DIRECTORY/backup" > OUTPUT 2> ERR
rc=$?
test_expect_equal "$rc $(cat OUTPUT ERR)" "1 maildex compact: cannot create the backup directory \
'$TMP_DIRECTORY/backup': File exists (it must not exist yet)"

test_begin_subtest "--quiet prints nothing"
output=$(maildex compact --quiet 2>&1)
test_expect_equal "$?|$output" "0|"

test_begin_subtest "readers in other processes while compact runs: never an error, always the same answer"
expected=$(maildex count 'words and tag:inbox')
(
    n=0
    while [ ! -e STOP ]; do
        out=$(maildex count 'words and tag:inbox' 2>&1)
        echo "$? $out" >> READS
        out=$(maildex search --output=messages --limit=1 tag:after-backup 2>&1)
        echo "$? $out" >> READS
        n=$((n + 1))
    done
) &
readers=$!
for i in 1 2 3 4 5; do
    maildex compact --quiet || echo "compact failed" >> READS
done
touch STOP
wait $readers
bad=$(grep -v -x -e "0 $expected" -e "0 id:c1@x" READS | sort | uniq -c)
test_expect_equal "$bad $(($(wc -l < READS) > 4))" " 1"

test_begin_subtest "writers in other processes while compact runs: every tag they set is there after"
rm -f STOP
(
    i=0
    while [ ! -e STOP ] || [ $i -lt 20 ]; do
        maildex tag +w$i -- id:c$i@x 2>> WERR || echo "tag $i failed" >> WERR
        i=$((i + 1))
    done
    echo $i > WROTE
) &
writer=$!
for i in 1 2 3 4 5; do
    maildex compact --quiet 2>> CERR || echo "compact failed" >> CERR
done
touch STOP
wait $writer
n=$(cat WROTE)
missing=0
i=0
while [ $i -lt "$n" ]; do
    [ "$(maildex count tag:w$i)" = 1 ] || missing=$((missing + 1))
    i=$((i + 1))
done
test_expect_equal "$missing|$(cat WERR CERR 2> /dev/null)" "0|"

test_begin_subtest "a reader holding a transaction open across the swap keeps its snapshot, no error"
mkfifo IN
sqlite3 "$DB" < IN > HELD 2>&1 &
held=$!
exec 3> IN
echo "BEGIN; SELECT count(*) FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE t.name = 'held';" >&3
sleep 0.3
maildex tag +held -- id:c2@x
maildex compact --quiet
echo "SELECT count(*) FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE t.name = 'held'; COMMIT;" >&3
echo "SELECT count(*) FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE t.name = 'held';" >&3
exec 3>&-
wait $held
test_expect_equal "$(tr '\n' ' ' < HELD)|$(maildex count tag:held)" "0 0 1 |1"

test_begin_subtest "... and the database is whole after the next write's checkpoint"
maildex tag -held -- id:c2@x
maildex compact --quiet
test_expect_equal "$(maildex_store_check "$DB" | tr '\n' ' ')$(stat -c %s "$DB-wal" 2> /dev/null || echo 0)" "ok 0"

test_begin_subtest "compact of a read-only file: an error naming the database, exit 1"
if can_drop_overrides; then
    chmod 444 "$DB"
    without_overrides maildex compact > /dev/null 2> ERR
    rc=$?
    chmod 644 "$DB"
    test_expect_equal "$rc $(grep -c "$DB" ERR)" "1 1"
else
    test_skip_ "cannot drop root's permission overrides"
fi

test_done
