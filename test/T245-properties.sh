#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Message properties through the command line: set by restore's "#=" lines, searched with
# property:KEY=VALUE, dumped after their message's tag line, kept when a file is renamed or moved and
# by reindex (which drops the "index.*" keys, as notmuch's reindex does), gone with the message, and
# a change bumps the database revision (count --lastmod) as a tag change does.
. "$(dirname "$0")/test-lib.sh"

add_lunch_corpus

test_begin_subtest "#= lines set properties; property: finds them, exactly and case-sensitively"
cat > PROPS <<'EOF'
#= msg1@example.org index.decryption=success k=v k=two%20words sp%20ace=x
#= msg2@example.com k=v
EOF
maildex restore --include=properties < PROPS
output="$(maildex search --output=messages property:k=v | tr '\n' ' ')|\
$(maildex search --output=messages 'property:"k=two words"')|\
$(maildex search --output=messages 'property:"sp ace=x"')|\
$(maildex count property:K=v) $(maildex count property:k=V) $(maildex count property:k)"
test_expect_equal "$output" "id:msg2@example.com id:msg1@example.org |id:msg1@example.org|id:msg1@example.org|0 0 0"

test_begin_subtest "properties combine with other terms"
output=$(maildex search --output=messages 'property:k=v and not from:bob')
test_expect_equal "$output" "id:msg1@example.org"

test_begin_subtest "dump: a #= line after the message's tag line, pairs sorted by key and value"
maildex dump --include=tags --include=properties > OUTPUT
cat > EXPECTED <<'EOF'
#notmuch-dump batch-tag:3 properties,tags
+inbox -- id:msg1@example.org
#= msg1@example.org index.decryption=success k=two%20words k=v sp%20ace=x
+inbox +unread -- id:msg2@example.com
#= msg2@example.com k=v
+attachment +inbox +unread -- id:msg3@example.net
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "a #= line replaces the message's properties"
printf '#= msg2@example.com other=1\n' | maildex restore
output=$(maildex dump --include=properties)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 properties
#= msg1@example.org index.decryption=success k=two%20words k=v sp%20ace=x
#= msg2@example.com other=1"

test_begin_subtest "a property change gives the database a new revision"
before=$(maildex count --lastmod '*' | cut -f3)
printf '#= msg2@example.com other=2\n' | maildex restore
after=$(maildex count --lastmod '*' | cut -f3)
test_expect_equal "$((after > before)) $(maildex count lastmod:$after..$after)" "1 1"

test_begin_subtest "... and an unchanged one does not"
printf '#= msg2@example.com other=2\n' | maildex restore
test_expect_equal "$(maildex count --lastmod '*' | cut -f3)" "$after"

test_begin_subtest "a renamed file keeps its message's properties"
mv "$MAIL_DIR/cur/1:2,S" "$MAIL_DIR/cur/1:2,FS"
maildex new > /dev/null
test_expect_equal "$(maildex search --output=messages property:k=v)" "id:msg1@example.org"

test_begin_subtest "reindex keeps properties but drops the index.* ones, as notmuch does"
maildex reindex id:msg1@example.org
output=$(maildex dump --include=properties id:msg1@example.org)
test_expect_equal "$output" "#notmuch-dump batch-tag:3 properties
#= msg1@example.org k=two%20words k=v sp%20ace=x"

test_begin_subtest "a message whose last file goes takes its properties along"
rm "$MAIL_DIR/cur/1:2,FS"
maildex new > /dev/null
output="$(maildex count property:k=v) $(sqlite3 "$MAIL_DIR/.maildex/maildex.db" 'SELECT count(*) FROM properties')"
test_expect_equal "$output" "0 1"

test_done
