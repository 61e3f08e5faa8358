#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Writers wait for each other and lose nothing. A write waits for SQLite's write lock (up to a
# minute) and an indexer for another indexer (up to ten minutes), saying on a terminal which maildex
# writer it waits for; `new` lets a waiting write in between two of its batches, so a tag during a
# first index waits for one batch, not for the run; two tag changes at once both land, flags and
# all; `new` takes what `insert` delivered while it scanned as known; `tag` and `insert` in a loop
# while `new` indexes thousands of files all succeed and all land; a post-new hook may run `maildex
# tag`. (The bounds themselves are unit-tested in
# test/unit/test-db.c with shortened waits; T053 covers new against new.) test/fault-shim.c stalls a
# writer inside its transaction, to hold the lock as long as a subtest needs.
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require script

SHIM=$MAILDEX_BUILDDIR/test/.libs/fault-shim.so
# the program linked to the shared libsqlite3, whose sqlite3_step the shim can interpose on
SHIM_PATH=$MAILDEX_BUILDDIR/test/shared-sqlite:$PATH
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
DB=$MAIL_DIR/.maildex/maildex.db
rmdir "$MAIL_DIR"
python3 "$srcdir/bench/gen" --count 6000 --seed 63 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["messages"])' "$TMP_DIRECTORY/gen.json")

# A first index of 6,000 files is three batch commits; a tag started once the first is there gets
# in at the next one.
maildex new > /dev/null 2>&1 &
indexer=$!
until [ "$(maildex count '*' 2> /dev/null)" -gt 0 ] 2> /dev/null; do sleep 0.05; done
maildex tag +early -- '*' 2> "$TMP_DIRECTORY/tag-err"
tag_rc=$?
if kill -0 $indexer 2>/dev/null; then indexing=still; else indexing=done; fi
wait $indexer
new_rc=$?
test_begin_subtest "a tag during a first index gets in between two of its batches, not after the run"
test_expect_equal "$tag_rc $new_rc $indexing|$(cat "$TMP_DIRECTORY/tag-err")" "0 0 still|"

test_begin_subtest "... it tagged what was indexed then, and the index went on to the end"
early=$(maildex count tag:early)
test_expect_equal "$([ "$early" -gt 0 ] && [ "$early" -lt "$total" ] && echo part)|$(maildex count '*')" \
    "part|$total"

test_begin_subtest "... and the store is consistent"
test_expect_equal "$(maildex_store_check)" "ok"

if [ ! -f "$SHIM" ]; then
    test_begin_subtest "writers waiting for a stalled writer"
    test_skip_ "$SHIM is built by 'make check'"
    test_done
fi

# stalled ARGS...: `maildex tag ARGS` in the background, stalled for two seconds in each write
# transaction; returns once it is inside the first (its pid is in "-writer"). Sets stalled to its
# pid.
stalled() {
    env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_STALL_IN_WRITE=2000 maildex tag "$@" 2> "$TMP_DIRECTORY/stalled-err" &
    stalled=$!
    until [ "$(cat "$DB-writer" 2>/dev/null)" = "$stalled" ] || ! kill -0 $stalled 2>/dev/null; do
        sleep 0.02
    done
}

stalled +first -- folder:INBOX
script -qec "maildex tag +second -- folder:INBOX" /dev/null > "$TMP_DIRECTORY/tty" 2>&1
second_rc=$?
wait $stalled
first_rc=$?
test_begin_subtest "a write waiting for another maildex writer names it on a terminal, then writes"
test_expect_equal "$first_rc $second_rc|$(tr -d '\r' < "$TMP_DIRECTORY/tty")" \
    "0 0|maildex tag: waiting for another maildex writer (pid $stalled)..."

test_begin_subtest "... both changes are there"
inbox=$(maildex count folder:INBOX)
test_expect_equal "$(maildex count tag:first) $(maildex count tag:second)" "$inbox $inbox"

test_begin_subtest "... and without a terminal (an editor's pipe) it says nothing"
stalled +third -- folder:INBOX
maildex tag +fourth -- folder:INBOX > "$TMP_DIRECTORY/out" 2>&1
fourth_rc=$?
wait $stalled
test_expect_equal "$? $fourth_rc|$(cat "$TMP_DIRECTORY/out")|$(maildex count tag:fourth)" "0 0||$inbox"

# Two flag changes at once on the same messages: the second reads its matches and their files after
# the first committed and renamed, so each file ends with both flags.
stalled -unread +seen-first -- folder:Archive
maildex tag +flagged +flagged-second -- folder:Archive
second_rc=$?
wait $stalled
first_rc=$?
archive=$(maildex count folder:Archive)
test_begin_subtest "two flag changes at once: both land on every message"
test_expect_equal "$first_rc $second_rc|$(maildex count 'folder:Archive and tag:seen-first and tag:flagged-second and tag:flagged and not tag:unread')" \
    "0 0|$archive"

test_begin_subtest "... every file has both flags, and new finds nothing to reconcile"
age_directories
unflagged=$(cd "$MAIL_DIR/Archive" && find . -type f ! -path './tmp/*' ! -path '*/tmp/*' ! -name '*:2,*F*S*' | wc -l)
test_expect_equal "$unflagged|$(maildex new 2>&1)" "0|No new mail."

# insert holds its transaction open after linking the file into a folder it created (stalled at its
# commit) while new scans: new lists the folder and the file as new, then, once insert committed,
# must take both as the ones insert indexed.
printf 'From: a@example.org\nTo: b@example.org\nSubject: race\nMessage-Id: <race@x>\n\nbody\n' > "$TMP_DIRECTORY/race"
env LD_PRELOAD="$SHIM" PATH="$SHIM_PATH" MAILDEX_STALL_AT_COMMIT=3000 maildex insert --create-folder --folder=Race +raced \
    < "$TMP_DIRECTORY/race" 2> "$TMP_DIRECTORY/insert-err" &
inserter=$!
until [ -n "$(ls "$MAIL_DIR/Race/new" 2> /dev/null)" ] || ! kill -0 $inserter 2> /dev/null; do sleep 0.02; done
maildex new > /dev/null 2> "$TMP_DIRECTORY/new-err"
new_rc=$?
wait $inserter
test_begin_subtest "new scanning while insert delivers into a new folder: both succeed, the message indexed once"
test_expect_equal "$? $new_rc|$(cat "$TMP_DIRECTORY/insert-err" "$TMP_DIRECTORY/new-err")|$(maildex search --output=tags id:race@x | tr '\n' ' ')|$(maildex search --output=files id:race@x | wc -l)" \
    "0 0||inbox raced unread |1"

# The loop of issue 12: tag and insert, one after the other, all the while new indexes a sync pass
# of 3,000 new files.
python3 "$srcdir/bench/gen" --sync --seed 65 --new 3000 --flags 300 --newcur 0 --moves 0 --deletes 0 "$MAIL_DIR" > /dev/null
before=$(maildex count '*')
maildex search --output=messages --limit=40 folder:Archive | sed 's/^id://' > "$TMP_DIRECTORY/targets"
maildex new > /dev/null 2> "$TMP_DIRECTORY/new-err" &
indexer=$!
i=0 failures=0 overlapped=no
while read -r target; do
    i=$((i + 1))
    # whether a write of the loop began while new indexed (after the first one, new may be done on a
    # loaded machine: the first tag and insert wait for its batches)
    kill -0 $indexer 2> /dev/null && overlapped=yes
    maildex tag "+loop$i" -- "id:$target" 2>> "$TMP_DIRECTORY/loop-err" || failures=$((failures + 1))
    printf 'From: me@example.org\nTo: you@example.org\nSubject: loop %s\nMessage-Id: <loop-%s@x>\n\nsent %s\n' \
        "$i" "$i" "$i" | maildex insert --folder=Sent +sent -inbox 2>> "$TMP_DIRECTORY/loop-err" ||
        failures=$((failures + 1))
done < "$TMP_DIRECTORY/targets"
wait $indexer
new_rc=$?
test_begin_subtest "tag and insert in a loop while new indexes 3,000 files: no failure, no message"
test_expect_equal "$new_rc $failures $overlapped $i|$(cat "$TMP_DIRECTORY/new-err" "$TMP_DIRECTORY/loop-err")" "0 0 yes 40|"

test_begin_subtest "... every tag change is there"
found=0 i=0
while read -r target; do
    i=$((i + 1))
    found=$((found + $(maildex count --exclude=false "id:$target and tag:loop$i")))
done < "$TMP_DIRECTORY/targets"
test_expect_equal "$found" "40"

test_begin_subtest "... every inserted message is there once, in Sent, with its tags; and all of new's"
test_expect_equal "$(maildex count 'folder:Sent and tag:sent and tag:unread and not tag:inbox and subject:loop')|$(maildex search --output=files 'subject:loop and folder:Sent' | wc -l)|$(maildex count '*')" \
    "40|40|$((before + 3000 + 40))"

test_begin_subtest "... and new afterwards finds nothing to reconcile"
age_directories
test_expect_equal "$(maildex new 2>&1)|$(maildex_store_check)" "No new mail.|ok"

test_begin_subtest "a post-new hook may run maildex tag"
mkdir -p "$MAIL_DIR/.maildex/hooks"
printf '#!/bin/sh\nmaildex tag +hooked -- folder:Sent\necho "tag exit $?"\n' > "$MAIL_DIR/.maildex/hooks/post-new"
chmod +x "$MAIL_DIR/.maildex/hooks/post-new"
python3 "$srcdir/bench/gen" --sync --seed 64 --new 30 --flags 0 --newcur 0 --moves 0 --deletes 0 "$MAIL_DIR" > /dev/null
output=$(maildex new 2>&1)
test_expect_equal "$?|$(printf '%s\n' "$output" | tail -n 1)|$(maildex count tag:hooked)" \
    "0|tag exit 0|$(maildex count folder:Sent)"
rm "$MAIL_DIR/.maildex/hooks/post-new"

test_begin_subtest "the store is consistent after all of it"
test_expect_equal "$(maildex_store_check)" "ok"

test_done
