#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `tag`: changes from the command line and from --batch (notmuch's hex-encoded batch lines, what
# notmuch.el sends), --remove-all, the errors notmuch gives, excluded messages, the revision, and
# Maildir flag synchronisation: files renamed to the flags of their tags, a file in new/ moving to
# cur/ only when its name changes, and a later `new` finding nothing to do. On the three-message
# thread of notmuch-compat.md 2.2 (msg1 cur/1:2,S, msg2 cur/2:2,, msg3 new/3).
. "$(dirname "$0")/test-lib.sh"

add_lunch_corpus
tags_of() { maildex search --output=tags --exclude=false "id:$1" | tr '\n' ' ' | sed 's/ $//'; }
files() { maildex search --output=files --exclude=false '*' | sed "s|^$MAIL_DIR/||" | sort; }

test_begin_subtest "+tag -tag on a query; nothing printed"
output=$(maildex tag +lunch -inbox -- from:bob 2>&1)
test_expect_equal "$output|$(tags_of msg2@example.com)" "|lunch unread"

test_begin_subtest "without --, the first word that is not a change starts the query"
maildex tag +menu subject:lunch and tag:attachment
test_expect_equal "$(maildex search --output=messages tag:menu)" "id:msg3@example.net"

test_begin_subtest "-unread renames a cur/ file to :2,S"
maildex tag -unread -- id:msg2@example.com
test_expect_equal "$(files)" "cur/1:2,S
cur/2:2,S
new/3"

test_begin_subtest "a flag tag moves a file from new/ to cur/ with its flags"
maildex tag +flagged -- id:msg3@example.net
test_expect_equal "$(files)|$(tags_of msg3@example.net)" "cur/1:2,S
cur/2:2,S
cur/3:2,F|attachment flagged inbox menu unread"

test_begin_subtest "a file in new/ whose flags do not change stays in new/"
generate_message id=fresh@x dir=new filename=fresh > /dev/null
maildex new > /dev/null
maildex tag -inbox +seen-later -- id:fresh@x
test_expect_equal "$(files | grep fresh)|$(tags_of fresh@x)" "new/fresh|seen-later unread"

test_begin_subtest "the database follows the renames: new finds nothing to do"
age_directories
output=$(maildex new 2>&1)
test_expect_equal "$output|$(tags_of msg2@example.com)|$(tags_of msg3@example.net)" \
    "No new mail.|lunch|attachment flagged inbox menu unread"

test_begin_subtest "--remove-all leaves exactly the tags given (and syncs the flags)"
maildex tag --remove-all +kept -- id:msg3@example.net
test_expect_equal "$(tags_of msg3@example.net)|$(files | grep 3:)" "kept|cur/3:2,S"

test_begin_subtest "a change bumps the revision; a change that changes nothing does not"
r1=$(maildex count --lastmod '*' | cut -f3)
maildex tag +kept -- id:msg3@example.net
r2=$(maildex count --lastmod '*' | cut -f3)
maildex tag +other -- id:msg3@example.net
r3=$(maildex count --lastmod '*' | cut -f3)
test_expect_equal "$([ "$r1" = "$r2" ] && echo same)|$([ "$r3" -gt "$r2" ] && echo bumped)" "same|bumped"

test_begin_subtest "excluded messages are tagged too (exclude_tags do not apply)"
maildex tag +deleted -- id:msg1@example.org
maildex tag +found -- tag:deleted
test_expect_equal "$(tags_of msg1@example.org)" "deleted found inbox"

test_begin_subtest "tags with spaces, quotes and non-ASCII"
maildex tag '+two words' '+say "hi"' +café -- id:msg1@example.org
test_expect_equal "$(maildex count --exclude=false 'tag:"two words"'; maildex count --exclude=false 'tag:"say ""hi"""'
    maildex count --exclude=false tag:café)" "1
1
1"

test_begin_subtest "--batch: hex-decoded tags, optional --, comments and empty lines skipped"
printf '+a%%20b -c -- id:msg1@example.org\n# a comment\n\n\t+batch2 id:msg2@example.com\n-- id:nobody@x\n' |
    maildex tag --batch
test_expect_equal "$(maildex count --exclude=false 'tag:"a b"'; maildex count --exclude=false tag:a
    tags_of msg2@example.com)" "1
0
batch2 lunch"

test_begin_subtest "--batch: bad lines are reported with the line, the rest applied, exit 1"
printf '+%%zz -- id:msg1@example.org\n+nothing\n+ -- id:msg1@example.org\n+good -- id:msg2@example.com\n' \
    > "$TMP_DIRECTORY/batch"
maildex tag --input="$TMP_DIRECTORY/batch" > "$TMP_DIRECTORY/out" 2>&1
code=$?
test_expect_equal "$code|$(cat "$TMP_DIRECTORY/out")|$(tags_of msg2@example.com)" "1|Warning: hex decoding of tag %zz failed [+%zz -- id:msg1@example.org]
Warning: no query string [+nothing]
Warning: empty tag forbidden [+ -- id:msg1@example.org]|batch2 good lunch"

test_begin_subtest "errors: no change, no query, empty tag, tag starting with -, batch with a query"
{
    maildex tag -- tag:inbox; echo "exit $?"
    maildex tag +x; echo "exit $?"
    maildex tag + -- '*'; echo "exit $?"
    maildex tag +-x -- '*'; echo "exit $?"
    maildex tag --batch +x -- '*' < /dev/null; echo "exit $?"
    maildex tag +x -- 'tag:inbox and ('; echo "exit $?"
} > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(sed 's/maildex tag: syntax error.*/maildex tag: SYNTAX/' "$TMP_DIRECTORY/out")" "maildex tag: requires at least one tag to add or remove (+TAG or -TAG)
exit 1
maildex tag: requires at least one search term after the tags (use '*' for every message)
exit 1
maildex tag: invalid tag change '+': empty tag forbidden
exit 1
maildex tag: invalid tag change '+-x': tag starting with '-' forbidden
exit 1
maildex tag: '+x': with --batch or --input the tag changes and queries are read from the input, not the command line
exit 1
maildex tag: SYNTAX
Query string was: tag:inbox and (
exit 1"

test_begin_subtest "usage errors: -- with nothing after it, and an input file that cannot be opened"
{
    maildex tag +x --; echo "exit $?"
    maildex tag --input="$TMP_DIRECTORY/no-such-input"; echo "exit $?"
} > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$(cat "$TMP_DIRECTORY/out")" "maildex tag: requires at least one search term after the tags (use '*' for every message)
exit 1
maildex tag: cannot open '$TMP_DIRECTORY/no-such-input': No such file or directory
exit 1"

if [ -n "${NOTMUCH:-}" ] && [ -x "$NOTMUCH" ]; then
    test_begin_subtest "usage errors: the exit status of notmuch"
    # notmuch opens its database before it reads the arguments: give it one, on a copy of the mail.
    mkdir -p "$TMP_DIRECTORY/nm-mail"
    cp -r "$MAIL_DIR/cur" "$TMP_DIRECTORY/nm-mail/"
    printf '[database]\npath=%s\n' "$TMP_DIRECTORY/nm-mail" > "$TMP_DIRECTORY/nm-config"
    NOTMUCH_CONFIG=$TMP_DIRECTORY/nm-config "$NOTMUCH" new >/dev/null 2>&1
    mine=$(for args in "-- tag:inbox" "+x" "+x --" "+ -- *" "+-x -- *" "-- +x"; do
        (set -f; maildex tag $args >/dev/null 2>&1; echo "[$?]"); done)
    theirs=$(for args in "-- tag:inbox" "+x" "+x --" "+ -- *" "+-x -- *" "-- +x"; do
        (set -f; NOTMUCH_CONFIG=$TMP_DIRECTORY/nm-config "$NOTMUCH" tag $args >/dev/null 2>&1
         echo "[$?]"); done)
    test_expect_equal "$mine" "$theirs"
fi

test_begin_subtest "--batch: notmuch's warnings word for word (its T150 \"checking error messages\")"
printf '+0\n+a +b\n+a +b \n+c +d --\n+%%zz -- id:whatever\n+ +e -- id:foo\n+- -- id:foo\n' |
    maildex tag --batch > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/out")" "1|Warning: no query string [+0]
Warning: no query string [+a +b]
Warning: missing query string [+a +b ]
Warning: no query string after -- [+c +d --]
Warning: hex decoding of tag %zz failed [+%zz -- id:whatever]
Warning: empty tag forbidden [+ +e -- id:foo]
Warning: tag starting with '-' forbidden [+- -- id:foo]"

test_begin_subtest "--batch: tags are checked before they are decoded: %2d adds a tag starting with '-'"
printf '+%%2dx -- id:msg1@example.org\n' | maildex tag --batch > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/out")|$(maildex count --exclude=false 'tag:"-x"')" "0||1"

test_begin_subtest "--batch: notmuch's hex decoding: either case, %0a a newline, %00 ends the tag"
printf '+nl%%0Aline +nul%%00dropped +UP%%41%%4a -- id:msg1@example.org\n' | maildex tag --batch
maildex search --output=tags --format=json --exclude=false id:msg1@example.org > "$TMP_DIRECTORY/out"
test_expect_equal "$(grep -c '"nl\\nline"' "$TMP_DIRECTORY/out")|$(maildex count --exclude=false tag:nul tag:UPAJ)" "1|1"

long=$(printf '%0201d' 0)
test_begin_subtest "a tag longer than 200 bytes: refused on a message, nothing changed, exit 1"
before=$(maildex count --lastmod '*' | cut -f3)
maildex tag +ok-before "+$long" -- id:msg1@example.org > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/out")|$(maildex count --lastmod '*' | cut -f3)" \
    "1|maildex tag: cannot add tag '$long': tag value is too long (exceeds 200 bytes)|$before"

test_begin_subtest "... but not when no message matches, nor when removed (as notmuch); 200 bytes is fine"
maildex tag "+$long" -- id:nobody@example.org; a=$?
maildex tag "-$long" -- id:msg1@example.org; b=$?
maildex tag "+${long#0}" -- id:msg2@example.com; c=$?
test_expect_equal "$a $b $c|$(maildex count --exclude=false "tag:${long#0}")" "0 0 0|1"

test_begin_subtest "--batch: a line that cannot be applied stops the batch there, exit 1 (notmuch's tag_file)"
printf '+first -- id:msg2@example.com\n+%s -- id:msg2@example.com\n+never -- id:msg2@example.com\n' "$long" |
    maildex tag --batch > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(sed 's/tag .0*.:/tag LONG:/' "$TMP_DIRECTORY/out")|$(maildex count tag:first) $(maildex count tag:never)" \
    "1|maildex tag: cannot add tag LONG: tag value is too long (exceeds 200 bytes)|1 0"

test_begin_subtest "--batch: a query that does not parse stops the batch too"
printf '+q1 -- id:msg2@example.com\n+q2 -- tag:inbox and (\n+q3 -- id:msg2@example.com\n' | maildex tag --batch > /dev/null 2>&1
test_expect_equal "$?|$(maildex count tag:q1) $(maildex count tag:q3)" "1|1 0"

test_begin_subtest "removing a tag nobody has, and an empty removal, change nothing"
before=$(maildex count --lastmod '*' | cut -f3)
maildex tag -nosuchtag - -- '*'
test_expect_equal "$?|$(maildex count --lastmod '*' | cut -f3)" "0|$before"

test_begin_subtest "with synchronize_flags=false, no file is renamed"
sed -i 's/^synchronize_flags=true/synchronize_flags=false/' "$MAILDEX_CONFIG"
before=$(files)
maildex tag +unread +draft -- '*'
test_expect_equal "$(files)" "$before"

# Every command is a process of its own whose first connection reads every frame of the WAL: a tag
# (notmuch.el runs one per key) must not leave its frames there for all later commands to read.
test_begin_subtest "tag, one line at a time as notmuch.el sends it, leaves an empty WAL behind"
for i in 1 2 3; do
    printf '+wal%s -- *\n' "$i" | maildex tag --batch
done
test_expect_equal "$(stat -c %s "$MAIL_DIR/.maildex/maildex.db-wal")|$(maildex count tag:wal3)" "0|$(maildex count '*')"

test_done
