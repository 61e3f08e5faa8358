#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dump and restore: notmuch's formats byte for byte (batch-tag and sup, odd tags and Message-IDs hex-
# encoded and quoted as notmuch does), --include, --output (a 0600 file, whole or not at all),
# --gzip and gzip detected on input, --accumulate, Maildir flags following restored tags, warnings for
# missing messages and bad lines, a dump -> restore into a fresh index -> dump round trip, a dump
# taken while `new` writes that is one consistent state, and memory that does not grow with the
# store.
. "$(dirname "$0")/test-lib.sh"

# Six messages with the Message-IDs that need care: quotes and parentheses, a '%', non-ASCII, a ')'.
i=0
for id in 'plain@x' 'odd "id" (x)@x' 'per%cent@x' 'café@x' 'a)b@x' 'sp ace@x'; do
    i=$((i + 1))
    generate_message "id=$id" "date=Mon, 01 Jan 2024 10:0$i:00 +0000" "filename=m$i:2," > /dev/null
done
maildex new > /dev/null

test_begin_subtest "dump of new messages: header, then one line per message, oldest first"
maildex dump > OUTPUT
cat > EXPECTED <<'EOF'
#notmuch-dump batch-tag:3 config,properties,tags
+inbox +unread -- id:plain@x
+inbox +unread -- id:"odd""id""(x)@x"
+inbox +unread -- id:per%cent@x
+inbox +unread -- id:"café@x"
+inbox +unread -- id:"a)b@x"
+inbox +unread -- id:space@x
EOF
test_expect_equal_file EXPECTED OUTPUT

# What notmuch 0.37 dumps for the same mail after the same restore (checked by hand; T130 checks it
# against notmuch itself): tags sorted bytewise, every byte outside [A-Za-z0-9+-_@=.,] as %xx.
cat > ODD <<'EOF'
#notmuch-dump batch-tag:3 config,properties,tags
#@ query.lunch subject%3alunch%20and%20tag%3ainbox
+%22q%22 +%25 +-dash +a+b=c,d +inbox +tab%09here +to%20do +%c3%bc -- id:plain@x
#= plain@x k=a%20b k=v sp%20ace=%25
+%28paren%29 +inbox +unread -- id:"odd""id""(x)@x"
+ +inbox +unread +x -- id:per%cent@x
#= per%25cent@x =empty-key
+inbox +unread +y -- id:"café@x"
 -- id:"a)b@x"
+inbox +unread -- id:space@x
EOF

test_begin_subtest "restore of odd tags, ids, properties and config, then dump: the same bytes"
maildex restore < ODD
rc=$?
maildex dump > OUTPUT
test_expect_equal_file ODD OUTPUT
test_begin_subtest "... exit status 0"
test_expect_equal "$rc" 0

test_begin_subtest "restored tags are searchable and properties are queryable"
output=$(maildex search --output=messages 'tag:"to do" and tag:ü and tag:% and property:"k=a b"' \
    'and property:"sp ace=%"')
test_expect_equal "$output" "id:plain@x"

test_begin_subtest "dump --query=sexp dumps what the same infix query dumps (notmuch-git calls it so)"
test_expect_equal "$(maildex dump --format=batch-tag --query=sexp -- '(tag inbox)' 2>&1; echo "rc=$?")" \
    "$(maildex dump --format=batch-tag -- tag:inbox 2>&1; echo "rc=$?")"

test_begin_subtest "restored flag tags renamed the Maildir files (no unread: S)"
output=$(cd "$MAIL_DIR/cur" && ls | sort | tr '\n' ' ')
test_expect_equal "$output" "m1:2,S m2:2, m3:2, m4:2, m5:2,S m6:2, "

test_begin_subtest "round trip: dump, restore into a fresh index of the same mail, dump: identical"
cp OUTPUT BEFORE
mv "$MAIL_DIR/.maildex" "$TMP_DIRECTORY/old-index"
maildex new > /dev/null
maildex restore --input=BEFORE
maildex dump > AFTER
test_expect_equal_file BEFORE AFTER

test_begin_subtest "sup format: tags as they are, properties and config as in batch-tag"
maildex dump --format=sup > OUTPUT
cat > EXPECTED <<'EOF'
#notmuch-dump sup:3 config,properties,tags
#@ query.lunch subject%3alunch%20and%20tag%3ainbox
plain@x ("q" % -dash a+b=c,d inbox tab	here to do ü)
#= plain@x k=a%20b k=v sp%20ace=%25
odd"id"(x)@x ((paren) inbox unread)
per%cent@x ( inbox unread x)
#= per%25cent@x =empty-key
café@x (inbox unread y)
a)b@x ()
space@x (inbox unread)
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "restore --format=sup (and auto) reads a sup dump"
printf '#notmuch-dump sup:3 tags\nspace@x (s1 s2)\nplain@x ()\n' > SUP
maildex restore --format=sup < SUP
printf 'space@x (s3)\n' | maildex restore
output=$(maildex dump --include=tags id:space@x id:plain@x)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 tags
 -- id:plain@x
+s3 -- id:space@x"

test_begin_subtest "auto is not fooled by a '(' in a quoted Message-ID of a batch-tag line"
printf '+p -- id:"odd""id""(x)@x"\n' | maildex restore
output=$(maildex search --output=tags 'id:"odd""id""(x)@x"')
test_expect_equal "$output" "p"

test_begin_subtest "--include=tags, --include=config, --include twice: the header says what follows"
maildex restore < BEFORE
{
    maildex dump --include=tags id:plain@x
    maildex dump --include=config
    maildex dump --include=properties --include=config id:plain@x
} > OUTPUT
cat > EXPECTED <<'EOF'
#notmuch-dump batch-tag:3 tags
+%22q%22 +%25 +-dash +a+b=c,d +inbox +tab%09here +to%20do +%c3%bc -- id:plain@x
#notmuch-dump batch-tag:3 config
#@ query.lunch subject%3alunch%20and%20tag%3ainbox
#notmuch-dump batch-tag:3 config,properties
#@ query.lunch subject%3alunch%20and%20tag%3ainbox
#= plain@x k=a%20b k=v sp%20ace=%25
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "restore --include=tags leaves properties and config alone"
maildex config set --database query.lunch "changed"
sed 's/k=v/k=w/' BEFORE | maildex restore --include=tags
output=$(maildex dump --include=config --include=properties id:plain@x)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 config,properties
#@ query.lunch changed
#= plain@x k=a%20b k=v sp%20ace=%25"

test_begin_subtest "... and does not read the parts it leaves: a bad #= or #@ line is no failure then"
printf '#= space@x k\n#@ a%%zz b\n+t -- id:space@x\n' | maildex restore --include=tags 2> ERR
rc=$?
test_expect_equal "$rc $(maildex search --output=tags id:space@x) $(cat ERR)" "0 t "

test_begin_subtest "restore --include=properties --include=config leaves tags alone"
maildex tag +extra -- id:plain@x
sed 's/k=v/k=w/' BEFORE | maildex restore --include=properties --include=config
output=$(maildex dump id:plain@x)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 config,properties,tags
#@ query.lunch subject%3alunch%20and%20tag%3ainbox
+%22q%22 +%25 +-dash +a+b=c,d +extra +inbox +tab%09here +to%20do +%c3%bc -- id:plain@x
#= plain@x k=a%20b k=w sp%20ace=%25"

test_begin_subtest "restore replaces tags; --accumulate adds to them"
maildex restore < BEFORE
printf '+new -- id:space@x\n' | maildex restore --accumulate
printf '+other -- id:per%%cent@x\n' | maildex restore
output=$(maildex dump --include=tags id:space@x or id:per%cent@x)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 tags
+other -- id:per%cent@x
+inbox +new +unread -- id:space@x"

test_begin_subtest "a query selects what is dumped; -- ends the options"
output=$(maildex dump --include=tags -- tag:other or 'id:"a)b@x"')
test_expect_equal "$output" "#notmuch-dump batch-tag:3 tags
+other -- id:per%cent@x
 -- id:\"a)b@x\""

test_begin_subtest "a named query selects what is dumped"
maildex restore < BEFORE
output=$(maildex config set query.odd 'tag:x or tag:y' && maildex dump --include=tags query:odd)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 tags
+ +inbox +unread +x -- id:per%cent@x
+inbox +unread +y -- id:\"café@x\""

test_begin_subtest "--output: the dump in a new file of mode 0600, nothing else left beside it"
mkdir out
(umask 022 && maildex dump --output=out/dump.txt)
output="$(stat -c %a out/dump.txt) $(ls out | tr '\n' ' ')"
test_expect_equal "$output" "600 dump.txt "
test_begin_subtest "... holding what stdout gets"
maildex dump > OUTPUT
test_expect_equal_file OUTPUT out/dump.txt

test_begin_subtest "--output over an existing file replaces it whole"
echo old > out/old.txt
chmod 644 out/old.txt
maildex dump --output=out/old.txt
output="$(stat -c %a out/old.txt) $(cmp -s OUTPUT out/old.txt && echo same)"
test_expect_equal "$output" "600 same"

test_begin_subtest "--output in a directory that does not exist: an error naming it, exit 1"
maildex dump --output=nowhere/dump.txt 2> ERR
rc=$?
test_expect_equal "$rc $(cat ERR)" "1 maildex dump: cannot create a file beside 'nowhere/dump.txt': No such file or directory"

test_begin_subtest "--gzip to stdout and to a file: gunzip gives the plain dump"
maildex dump --gzip > out/stdout.gz
maildex dump --gzip --output=out/file.gz
output="$(gunzip -c out/stdout.gz | cmp - OUTPUT && echo same) $(gunzip -c out/file.gz | cmp - OUTPUT && echo same)"
test_expect_equal "$output" "same same"

test_begin_subtest "restore reads gzip from stdin and from --input without being told"
maildex tag +clobbered -- '*'
maildex restore < out/stdout.gz
maildex dump > AFTER
maildex tag +clobbered -- '*'
maildex restore --input=out/file.gz
maildex dump >> AFTER
cat OUTPUT OUTPUT > EXPECTED
test_expect_equal_file EXPECTED AFTER

test_begin_subtest "a truncated gzip dump: an error naming the input, exit 1"
head -c 60 out/file.gz > out/cut.gz
maildex restore --input=out/cut.gz 2> ERR
rc=$?
test_expect_equal "$rc $(cat ERR)" "1 maildex restore: cannot read 'out/cut.gz': unexpected end of file"

test_begin_subtest "restore of a missing file: an error naming it, exit 1"
maildex restore --input=nothere 2> ERR
rc=$?
test_expect_equal "$rc $(cat ERR)" "1 maildex restore: cannot open 'nothere': No such file or directory"

test_begin_subtest "restore takes no arguments"
maildex restore --input=BEFORE extra 2> ERR
rc=$?
test_expect_equal "$rc $(cat ERR)" "1 maildex restore: unexpected argument 'extra' (the dump is read from standard input or --input=FILE)"

test_begin_subtest "missing messages: one warning each, the others applied, exit 0"
printf '+w1 -- id:gone@x\n+w2 -- id:space@x\n#= gone2@x k=v\n' | maildex restore 2> ERR
rc=$?
output="$rc $(maildex search --output=tags id:space@x)
$(cat ERR)"
test_expect_equal "$output" "0 w2
Warning: cannot apply tags to missing message: gone@x
Warning: cannot apply properties to missing message: gone2@x"

test_begin_subtest "bad lines: notmuch's warning each, every good line applied, exit 1"
cat > BAD <<'EOF'
# a comment, then a blank line

+a +b
+%zz -- id:space@x
+e +f tag:abc
+e -- id:some)stuff
#= space@x k
+good -- id:space@x
+ok -- id:plain@x
EOF
maildex restore < BAD 2> ERR
rc=$?
output="$rc $(maildex search --output=tags id:space@x) $(maildex search --output=tags id:plain@x)
$(cat ERR)"
test_expect_equal "$output" "1 good ok
Warning: no query string [+a +b]
Warning: hex decoding of tag %zz failed [+%zz -- id:space@x]
Warning: not an id query: tag:abc (skipping)
Warning: cannot parse query: id:some)stuff (skipping)
Warning: property k has no '=' [#= space@x k]"

test_begin_subtest "restoring an empty input or only comments changes nothing, exit 0"
maildex dump > BEFORE2
maildex restore < /dev/null && printf '# c\n\n  \t\n' | maildex restore
rc=$?
maildex dump > AFTER
test_expect_equal "$rc $(cmp -s BEFORE2 AFTER && echo same)" "0 same"

# n messages in DIR/mail with a config in DIR/config, not yet indexed.
generate_store() {
    python3 - "$1/mail" "$2" <<'PYTHON'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(root + "/cur")
for i in range(n):
    with open("%s/cur/%05d:2,%s" % (root, i, "S" if i % 3 else ""), "w") as f:
        f.write("From: a%d@example.org\nSubject: s%d\nMessage-ID: <c%d@x>\n\nbody\n" % (i % 50, i, i))
PYTHON
    printf '[database]\npath=%s\n[new]\ntags=unread;inbox;\n' "$1/mail" > "$1/config"
}

test_begin_subtest "a dump taken while new writes is one committed state: 0, 2000, ... or all of them"
generate_store "$TMP_DIRECTORY/s10k" 10000
export MAILDEX_CONFIG=$TMP_DIRECTORY/s10k/config
maildex new > /dev/null 2>&1 &
pid=$!
: > COUNTS
while kill -0 $pid 2>/dev/null; do
    if maildex dump --include=tags > SNAP 2>/dev/null; then
        # one line per message after the header, each with all its tags (new.tags, and unread only
        # without S), or none at all
        echo "$(($(wc -l < SNAP) - 1)) $(grep -c -E '^\+inbox( \+unread)? -- id:c[0-9]+@x$' SNAP)" >> COUNTS
    fi
done
wait $pid
maildex dump --include=tags | wc -l >> COUNTS
bad=$(awk 'NF == 2 && ($1 != $2 || $1 % 2000 != 0) { print }' COUNTS)
test_expect_equal "$bad$(tail -n 1 COUNTS)" "10001"

test_begin_subtest "restore of 10,000 lines in batches: every line applied, a bad one in the middle skipped"
maildex dump --include=tags | awk 'NR == 5000 { print "+%zz -- id:bad" } { sub(/^\+inbox/, "+r +inbox"); print }' > R10K
maildex restore < R10K 2> ERR
rc=$?
test_expect_equal "$rc $(maildex count tag:r) $(cat ERR)" "1 10000 Warning: hex decoding of tag %zz failed [+%zz -- id:bad]"

test_begin_subtest "restore holds no lock while it waits for its input: a tag meanwhile goes through"
{ sleep 3; echo "+slow -- id:c1@x"; } | maildex restore &
pid=$!
sleep 0.5
timeout 2 maildex tag +meanwhile -- id:c2@x
rc=$?
wait $pid
test_expect_equal "$rc $(maildex search --output=tags id:c1@x) $(maildex count tag:meanwhile)" "0 slow 1"

test_begin_subtest "dump streams: peak memory at 10,000 messages within 2 MB of 1,000's"
generate_store "$TMP_DIRECTORY/s1k" 1000
MAILDEX_CONFIG=$TMP_DIRECTORY/s1k/config maildex new > /dev/null
if sanitizer_build; then
    # A sanitizer keeps freed memory in quarantine and adds its shadow: its peak measures that.
    test_skip_ "built with a sanitizer"
elif [ -x /usr/bin/time ]; then
    for n in 1k 10k; do
        MAILDEX_CONFIG=$TMP_DIRECTORY/s$n/config /usr/bin/time -f %M -o KB.$n maildex dump | wc -l > LINES.$n
    done
    echo "# dump peak RSS: 1,000 messages $(cat KB.1k) KB, 10,000 messages $(cat KB.10k) KB"
    test_expect_equal "$(cat LINES.1k LINES.10k | tr '\n' ' ')$(($(cat KB.10k) - $(cat KB.1k) < 2048))" "1001 10001 1"
else
    test_skip_ "/usr/bin/time is not installed"
fi

test_done
