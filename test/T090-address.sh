#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `address`: senders and recipients of test/corpora/sample and three messages with odd address
# headers (an encoded word decoding to a comma, groups, quotes and backslashes in names, one address
# in two cases), byte for byte as notmuch 0.37 prints them: every --output, --deduplicate, sort and
# format; exclusion; errors and exit codes. The outputs printed after a whole pass (--output=count,
# --deduplicate=address) come in hash-table order, which notmuch leaves unspecified: they are sorted
# first, as notmuch's own T095 sorts them. Then where the mailboxes come from: the index, not the
# files (a changed file changes nothing until `reindex`), and the files for a message indexed
# before the index kept them.
. "$(dirname "$0")/test-lib.sh"
test_require sqlite3

# The files are made in name order, not in cp -R's (the source directory's own order, which differs
# from one checkout to the next): new files are read in inode order, as notmuch reads them, and among
# a name's equally frequent spellings --deduplicate=address keeps the first read.
(cd "$srcdir/test/corpora/sample" && find . -type d | sort | while read -r d; do mkdir -p "$MAIL_DIR/$d"; done &&
    find . -type f | sort | while read -r f; do cp "$f" "$MAIL_DIR/$f"; done)
mkdir -p "$MAIL_DIR/odd/cur" "$MAIL_DIR/odd/new" "$MAIL_DIR/odd/tmp"
cat > "$MAIL_DIR/odd/cur/1:2,S" <<'EOF'
From: =?utf-8?q?Doe=2C_John?= <john@example.com>
To: undisclosed-recipients:;
Cc: team: Ann <ann@example.com>, bob@example.com;
Bcc: "Back\\slash" <bs@example.com>, "Quote \"Q\" Person" <q@example.com>
Subject: odd addresses
Date: Tue, 02 Jan 2024 09:00:00 +0000
Message-ID: <odd1@example.com>

odd
EOF
cat > "$MAIL_DIR/odd/cur/2:2,S" <<'EOF'
From: Jane Roe <JANE@Example.COM>
To: "Roe, Jane (Work)" <jane@example.com>, Dr. Who <who@example.com>
Subject: case
Date: Tue, 02 Jan 2024 10:00:00 +0000
Message-ID: <odd2@example.com>

case
EOF
cat > "$MAIL_DIR/odd/cur/3:2,S" <<'EOF'
From: jane@example.com
To: =?ISO-8859-1?Q?J=F6rg?= <joerg@example.de>, "=?utf-8?b?5pel5pys?=" <nihon@example.jp>
Subject: deleted
Date: Tue, 02 Jan 2024 11:00:00 +0000
Message-ID: <odd3@example.com>

case
EOF
maildex new > /dev/null
maildex tag +deleted id:odd3@example.com
# carol@example.net is "Carol" in new/3 and "Carol, C." in cur/2: a whole pass keeps the spelling of
# the message indexed first, and notmuch (so maildex) lists a directory's subdirectories in inode
# order, which the file system does not promise to follow creation order (ext4 spreads directories
# over its block groups; under a parallel suite cur/ may get the higher number).
if [ "$(stat -c %i "$MAIL_DIR/cur")" -lt "$(stat -c %i "$MAIL_DIR/new")" ]; then
    CAROL='(:name "Carol, C." :address "carol@example.net" :name-addr "\"Carol, C.\" <carol@example.net>")'
else
    CAROL='(:name "Carol" :address "carol@example.net" :name-addr "Carol <carol@example.net>")'
fi
DB=$MAIL_DIR/.maildex/maildex.db

# The structured outputs of a whole pass, one item a line, sorted (the brackets taken off).
sorted_items() { sed -e '1s/^[[(]//' -e '$s/[])]$//' -e 's/,$//' | sort; }

test_begin_subtest "default: each sender once, newest first, names decoded, quoted where needed"
maildex address '*' > OUTPUT
cat > EXPECTED <<'EOF'
Test User <user@example.org>
Erin <erin@example.net>
Dave Developer <dave@example.com>
François Lefèvre <francois@example.net>
Jane Roe <JANE@Example.COM>
"Doe, John" <john@example.com>
Build Bot <ci@example.com>
Carol <carol@example.net>
Bob <bob@example.com>
Alice Example <alice@example.org>
"Mallory, Frank" <frank.mallory@work.example.com>
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "--output=sender is the default"
maildex address --output=sender '*' > OUTPUT2
test_expect_equal_file OUTPUT OUTPUT2

test_begin_subtest "recipients, json: To, Cc, Bcc, group members, gmime's quoting"
maildex address --format=json --output=recipients 'path:odd/**' > OUTPUT
cat > EXPECTED <<'EOF'
[{"name": "Roe, Jane (Work)", "address": "jane@example.com", "name-addr": "\"Roe, Jane (Work)\" <jane@example.com>"},
{"name": "Dr. Who", "address": "who@example.com", "name-addr": "\"Dr. Who\" <who@example.com>"},
{"name": "Ann", "address": "ann@example.com", "name-addr": "Ann <ann@example.com>"},
{"name": "", "address": "bob@example.com", "name-addr": "bob@example.com"},
{"name": "Back\\slash", "address": "bs@example.com", "name-addr": "Back\\\\slash <bs@example.com>"},
{"name": "Quote \"Q\" Person", "address": "q@example.com", "name-addr": "Quote \"Q\" Person <q@example.com>"}]
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "notmuch.el's completion call: sexp, senders and recipients, each address once"
maildex address --format=sexp --format-version=5 --output=sender --output=recipients \
    --deduplicate=address '*' | sorted_items > OUTPUT
cat > EXPECTED <<'EOF'
(:name "" :address "dev@lists.example.org" :name-addr "dev@lists.example.org")
(:name "Alice Example" :address "alice@example.org" :name-addr "Alice Example <alice@example.org>")
(:name "Ann" :address "ann@example.com" :name-addr "Ann <ann@example.com>")
(:name "Back\\slash" :address "bs@example.com" :name-addr "Back\\\\slash <bs@example.com>")
(:name "Bob" :address "bob@example.com" :name-addr "Bob <bob@example.com>")
(:name "Build Bot" :address "ci@example.com" :name-addr "Build Bot <ci@example.com>")
CAROL
(:name "Dave Developer" :address "dave@example.com" :name-addr "Dave Developer <dave@example.com>")
(:name "Doe, John" :address "john@example.com" :name-addr "\"Doe, John\" <john@example.com>")
(:name "Dr. Who" :address "who@example.com" :name-addr "\"Dr. Who\" <who@example.com>")
(:name "Erin" :address "erin@example.net" :name-addr "Erin <erin@example.net>")
(:name "François Lefèvre" :address "francois@example.net" :name-addr "François Lefèvre <francois@example.net>")
(:name "Jane Roe" :address "JANE@Example.COM" :name-addr "Jane Roe <JANE@Example.COM>")
(:name "Mallory, Frank" :address "frank.mallory@work.example.com" :name-addr "\"Mallory, Frank\" <frank.mallory@work.example.com>")
(:name "Quote \"Q\" Person" :address "q@example.com" :name-addr "Quote \"Q\" Person <q@example.com>")
(:name "Test User" :address "user@example.org" :name-addr "Test User <user@example.org>")
(:name "Test User" :address "user@work.example.com" :name-addr "Test User <user@work.example.com>")
EOF
CAROL="$CAROL" awk '$0 == "CAROL" { print ENVIRON["CAROL"]; next } 1' EXPECTED > EXPECTED.carol && mv EXPECTED.carol EXPECTED
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "--deduplicate=no --sort=oldest-first, text0"
maildex address --deduplicate=no --sort=oldest-first --output=sender --output=recipients \
    --format=text0 'path:odd/**' > OUTPUT
printf '%s\0' '"Doe, John" <john@example.com>' 'Ann <ann@example.com>' 'bob@example.com' \
    'Back\\slash <bs@example.com>' 'Quote "Q" Person <q@example.com>' 'Jane Roe <JANE@Example.COM>' \
    '"Roe, Jane (Work)" <jane@example.com>' '"Dr. Who" <who@example.com>' > EXPECTED
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "--output=address prints the address alone (text)"
maildex address --output=recipients --output=address 'path:odd/** or path:lists/**' > OUTPUT
cat > EXPECTED <<'EOF'
dev@lists.example.org
erin@example.net
dave@example.com
jane@example.com
who@example.com
ann@example.com
bob@example.com
bs@example.com
q@example.com
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "--output=address changes nothing in json"
maildex address --format=json --output=address 'path:odd/**' > OUTPUT
maildex address --format=json 'path:odd/**' > EXPECTED
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "--output=count: each mailbox with its count"
maildex address --output=sender --output=count '*' | sort > OUTPUT
cat > EXPECTED <<'EOF'
1	"Doe, John" <john@example.com>
1	"Mallory, Frank" <frank.mallory@work.example.com>
1	Alice Example <alice@example.org>
1	Bob <bob@example.com>
1	Build Bot <ci@example.com>
1	Carol <carol@example.net>
1	Dave Developer <dave@example.com>
1	Erin <erin@example.net>
1	François Lefèvre <francois@example.net>
1	Jane Roe <JANE@Example.COM>
2	Test User <user@example.org>
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "--output=count --deduplicate=address, json"
maildex address --output=count --format=json --deduplicate=address --output=recipients \
    'path:odd/** or path:lists/**' | sorted_items > OUTPUT
cat > EXPECTED <<'EOF'
{"name": "", "address": "bob@example.com", "name-addr": "bob@example.com", "count": 1}
{"name": "", "address": "dev@lists.example.org", "name-addr": "dev@lists.example.org", "count": 3}
{"name": "Ann", "address": "ann@example.com", "name-addr": "Ann <ann@example.com>", "count": 1}
{"name": "Back\\slash", "address": "bs@example.com", "name-addr": "Back\\\\slash <bs@example.com>", "count": 1}
{"name": "Dave Developer", "address": "dave@example.com", "name-addr": "Dave Developer <dave@example.com>", "count": 1}
{"name": "Dr. Who", "address": "who@example.com", "name-addr": "\"Dr. Who\" <who@example.com>", "count": 1}
{"name": "Erin", "address": "erin@example.net", "name-addr": "Erin <erin@example.net>", "count": 1}
{"name": "Quote \"Q\" Person", "address": "q@example.com", "name-addr": "Quote \"Q\" Person <q@example.com>", "count": 1}
{"name": "Roe, Jane (Work)", "address": "jane@example.com", "name-addr": "\"Roe, Jane (Work)\" <jane@example.com>", "count": 1}
EOF
test_expect_equal_file EXPECTED OUTPUT

# Two spellings of one address, equally frequent, in one message (From before To): the first read.
test_begin_subtest "--deduplicate=address folds the case of addresses and counts every spelling"
maildex address --output=sender --output=recipients --output=count --output=address \
    --deduplicate=address 'path:odd/**' | sort > OUTPUT
printf '1\t%s\n' ann@example.com bob@example.com bs@example.com john@example.com q@example.com \
    who@example.com > EXPECTED
printf '2\tJANE@Example.COM\n' >> EXPECTED
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "excluded messages are left out unless --exclude=false"
output=$(maildex address --output=recipients --output=address 'id:odd3@example.com';
         echo --; maildex address --exclude=false --output=recipients 'id:odd3@example.com';
         echo --; maildex address --output=recipients 'id:odd3@example.com and tag:deleted')
test_expect_equal "$output" '--
Jörg <joerg@example.de>
日本 <nihon@example.jp>
--
Jörg <joerg@example.de>
日本 <nihon@example.jp>'

test_begin_subtest "nothing matches: an empty list in each format"
output=$(maildex address --format=json nothing-matches; maildex address --format=sexp nothing-matches;
         maildex address nothing-matches | wc -c)
test_expect_equal "$output" '[]
()
0'

test_begin_subtest "--output=count with --deduplicate=no: notmuch's error, exit 1"
maildex address --output=count --deduplicate=no '*' > OUTPUT 2>&1
echo "exit $?" >> OUTPUT
printf '%s\n' '--output=count is not applicable with --deduplicate=no' 'exit 1' > EXPECTED
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "no query: exit 1 with a message"
maildex address > OUTPUT 2>&1
echo "exit $?" >> OUTPUT
printf '%s\n' 'Error: maildex address requires at least one search term.' 'exit 1' > EXPECTED
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "a malformed query: exit 1, the query named"
maildex address 'from:a and' > OUTPUT 2>&1
echo "exit $?" >> OUTPUT
tail -n 2 OUTPUT > OUTPUT2
printf '%s\n' 'Query string was: from:a and' 'exit 1' > EXPECTED
test_expect_equal_file EXPECTED OUTPUT2

test_begin_subtest "format versions: too old 20, too new 21"
output=$(maildex address --format-version=0 '*' 2>/dev/null; echo "exit $?";
         maildex address --format-version=6 '*' 2>/dev/null; echo "exit $?";
         maildex address --format=json --format-version=1 id:odd2@example.com >/dev/null; echo "exit $?")
test_expect_equal "$output" 'exit 20
exit 21
exit 0'

test_begin_subtest "unknown keywords are refused, exit 1"
output=$(for o in --output=senders --deduplicate=yes --exclude=flag --sort=random --format=xml; do
             maildex address "$o" '*' >/dev/null 2>&1; echo "$o $?"; done)
test_expect_equal "$output" '--output=senders 1
--deduplicate=yes 1
--exclude=flag 1
--sort=random 1
--format=xml 1'

test_begin_subtest "the index answers, not the file: a changed From shows after reindex only"
before=$(maildex address 'id:odd2@example.com')
sed -i 's/^From: Jane Roe <JANE@Example.COM>$/From: "Roe, J." <jr@example.com>/' "$MAIL_DIR/odd/cur/2:2,S"
unchanged=$(maildex address 'id:odd2@example.com')
maildex reindex 'id:odd2@example.com'
after=$(maildex address 'id:odd2@example.com')
test_expect_equal "$before|$unchanged|$after" \
    'Jane Roe <JANE@Example.COM>|Jane Roe <JANE@Example.COM>|"Roe, J." <jr@example.com>'

test_begin_subtest "reindex with a new date moves the addresses with the message"
sed -i 's/^Date: Tue, 02 Jan 2024 10:00:00 +0000$/Date: Wed, 03 Jan 2024 10:00:00 +0000/' \
    "$MAIL_DIR/odd/cur/2:2,S"
maildex reindex 'id:odd2@example.com'
output=$(maildex address --output=recipients 'id:odd2@example.com'; maildex_store_check "$DB")
test_expect_equal "$output" '"Roe, Jane (Work)" <jane@example.com>
"Dr. Who" <who@example.com>
ok'

test_begin_subtest "a message indexed before addresses were stored is read from its file"
maildex address --deduplicate=no --output=sender --output=recipients --format=json '*' > EXPECTED
sqlite3 "$DB" 'DELETE FROM addresses'
maildex address --deduplicate=no --output=sender --output=recipients --format=json '*' > OUTPUT
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "... until reindex stores them again"
maildex reindex '*'
maildex address --deduplicate=no --output=sender --output=recipients --format=json '*' > OUTPUT
output=$(maildex_store_check "$DB")
test_expect_equal "$(cmp -s EXPECTED OUTPUT && echo same) $output" 'same ok'

test_begin_subtest "a removed message takes its addresses along"
rm "$MAIL_DIR/odd/cur/1:2,S"
maildex new > /dev/null
output=$(maildex address --output=recipients --output=address 'path:odd/**'; maildex_store_check "$DB")
test_expect_equal "$output" 'jane@example.com
who@example.com
ok'

test_done
