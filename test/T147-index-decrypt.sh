#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Decryption at index time against notmuch 0.37 with the same GNUPGHOME (notmuch-config(1) index.decrypt,
# notmuch-properties(7)): on the encrypted message of test/corpora/emacs, whose cleartext says "4711",
# the default (auto, no stored key) indexes no cleartext; `reindex --decrypt=true` indexes it, keeps the
# session key as a "session-key" property and marks index.decryption=success, and show and reply then
# decrypt with the stored key; --decrypt=false drops the cleartext and the key; nostash (option or
# config) indexes without keeping the key; without the secret key the property says failure;
# `show --decrypt=stash` keeps the key and re-indexes; `new` and `insert` take --decrypt too. The
# session key of a message is the same for both programs, so dumps are compared byte for byte.
# test-lib.sh moves into the test's directory: a relative srcdir would point nowhere after that.
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$srcdir/test/test-lib.sh"
test_require gpg
test_require gpgconf
differential_setup "deleted;spam"

crypto_corpus_setup T147
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

encrypted=id:encrypted-1@example.org

# Runs the command under both programs (with the environment given before on_both).
on_both() {
    "$NOTMUCH" "$@"
    maildex "$@"
}

# Prints "same: M" when the outputs n and m are equal, else both.
same() {
    if [ "$n" = "$m" ]; then
        printf 'same: %s\n' "$m"
    else
        printf 'notmuch: %s\nmaildex: %s\n' "$n" "$m"
    fi
}

# Runs the command under both programs and compares their stdout and stderr.
both() {
    n=$("$NOTMUCH" "$@" 2>&1)
    m=$(maildex "$@" 2>&1)
    same
}

# Runs the command under both programs: "same" or "differs", then how many lines of maildex's output
# match PATTERN.
matches() {
    pattern=$1
    shift
    both "$@" > /dev/null
    [ "$n" = "$m" ] && printf 'same ' || printf 'differs '
    printf '%s\n' "$m" | grep -c "$pattern"
}

# PROGRAM's dump of the properties, messages sorted (dump lists them in each index's own order).
properties() {
    "$1" dump --include=properties | { IFS= read -r header; echo "$header"; LC_ALL=C sort; }
}

# Both indexes' properties, and the search for the cleartext.
state() {
    n=$(properties "$NOTMUCH")
    m=$(properties maildex)
    same
    both search --output=messages 4711
}

test_begin_subtest "new (index.decrypt unset: auto) indexes no cleartext and records nothing"
test_expect_equal "$(state)" 'same: #notmuch-dump batch-tag:3 properties
same: '

test_begin_subtest "reindex --decrypt=true: the cleartext, the session key and index.decryption=success"
on_both reindex --decrypt=true "$encrypted"
test_expect_equal "$(state | sed 's/session-key=[0-9]*%3a[0-9A-F]*/session-key=KEY/')" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=success session-key=KEY
same: id:encrypted-1@example.org'

test_begin_subtest "property:index.decryption=success finds it"
test_expect_equal "$(both search --output=messages property:index.decryption=success)" \
    'same: id:encrypted-1@example.org'

test_begin_subtest "show (auto) decrypts with the stored session key, without the user's key"
test_expect_equal "$(GNUPGHOME=$NOKEYS matches '"encstatus": \[{"status": "good"}\].*The door code is 4711' show --format=json "$encrypted")" 'same 1'

test_begin_subtest "reply (auto) quotes the cleartext with the stored key"
test_expect_equal "$(GNUPGHOME=$NOKEYS both reply "$encrypted" | grep '^>\|^same')" 'same: From: Notmuch Test Suite <test_suite@notmuchmail.org>
> The door code is 4711.'

test_begin_subtest "show --decrypt=false does not use the stored key"
test_expect_equal "$(matches 'Non-text part: application/octet-stream' show --decrypt=false "$encrypted")" 'same 1'

test_begin_subtest "reindex (auto) keeps the cleartext through the stored key alone"
GNUPGHOME=$NOKEYS on_both reindex "$encrypted"
test_expect_equal "$(state | sed 's/session-key=[0-9]*%3a[0-9A-F]*/session-key=KEY/')" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=success session-key=KEY
same: id:encrypted-1@example.org'

test_begin_subtest "reindex --decrypt=false drops the cleartext and the session key; the tags stay"
on_both reindex --decrypt=false "$encrypted"
test_expect_equal "$(state; both search --output=tags "$encrypted")" 'same: #notmuch-dump batch-tag:3 properties
same: 
same: encrypted
inbox
unread'

test_begin_subtest "without the secret key: index.decryption=failure and no cleartext"
GNUPGHOME=$NOKEYS on_both reindex --decrypt=true "$encrypted"
test_expect_equal "$(state)" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=failure
same: '

test_begin_subtest "reindex --decrypt=nostash: the cleartext without keeping the key"
on_both reindex --decrypt=nostash "$encrypted"
test_expect_equal "$(state)" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=success
same: id:encrypted-1@example.org'

test_begin_subtest "index.decrypt=false in the config is what reindex does without --decrypt"
printf '[index]\ndecrypt=false\n' >> "$NOTMUCH_CONFIG"
[ "$MAILDEX_CONFIG" = "$NOTMUCH_CONFIG" ] || printf '[index]\ndecrypt=false\n' >> "$MAILDEX_CONFIG"
on_both reindex "$encrypted"
test_expect_equal "$(state)" 'same: #notmuch-dump batch-tag:3 properties
same: '

test_begin_subtest "show --decrypt=stash keeps the key and indexes the cleartext"
on_both show --decrypt=stash "$encrypted" > /dev/null 2>&1
test_expect_equal "$(state | sed 's/session-key=[0-9]*%3a[0-9A-F]*/session-key=KEY/')" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=success session-key=KEY
same: id:encrypted-1@example.org'

test_begin_subtest "new --decrypt=true (over index.decrypt=nostash) indexes new copies, keeping their keys"
sed -i 's/^decrypt=false$/decrypt=nostash/' "$NOTMUCH_CONFIG" "$MAILDEX_CONFIG"
mkdir -p "$MAIL_DIR/copy/cur" "$MAIL_DIR/copy/new" "$MAIL_DIR/copy/tmp" "$MAIL_DIR/copy2/cur" "$MAIL_DIR/copy2/new" "$MAIL_DIR/copy2/tmp"
sed 's/^Message-ID: <encrypted-1@/Message-ID: <encrypted-2@/' "$MAIL_DIR/new/1000000011.encrypted" > "$MAIL_DIR/copy/new/2"
sed 's/^Message-ID: <encrypted-1@/Message-ID: <encrypted-3@/' "$MAIL_DIR/new/1000000011.encrypted" > "$MAIL_DIR/copy2/new/3"
on_both new --decrypt=true > /dev/null 2>&1
test_expect_equal "$(state | sed 's/session-key=[0-9]*%3a[0-9A-F]*/session-key=KEY/')" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=success session-key=KEY
#= encrypted-2@example.org index.decryption=success session-key=KEY
#= encrypted-3@example.org index.decryption=success session-key=KEY
same: id:encrypted-1@example.org
id:encrypted-2@example.org
id:encrypted-3@example.org'

test_begin_subtest "insert takes index.decrypt from the config (nostash) and --decrypt=false"
sed 's/^Message-ID: <encrypted-1@/Message-ID: <encrypted-4@/' "$MAIL_DIR/new/1000000011.encrypted" > "$TMP_DIRECTORY/4"
sed 's/^Message-ID: <encrypted-1@/Message-ID: <encrypted-5@/' "$MAIL_DIR/new/1000000011.encrypted" > "$TMP_DIRECTORY/5"
"$NOTMUCH" insert < "$TMP_DIRECTORY/4"
"$NOTMUCH" insert --decrypt=false < "$TMP_DIRECTORY/5"
maildex insert < "$TMP_DIRECTORY/4"
maildex insert --decrypt=false < "$TMP_DIRECTORY/5"
test_expect_equal "$(both search --output=messages property:index.decryption=success and not property:session-key=x and id:encrypted-4@example.org or id:encrypted-5@example.org and 4711)" \
    'same: id:encrypted-4@example.org'

test_begin_subtest "index.decrypt stored in the database (config set --database) when the file has none"
sed -i '/^\[index\]$/d; /^decrypt=/d' "$NOTMUCH_CONFIG" "$MAILDEX_CONFIG"
on_both config set --database index.decrypt false
on_both reindex id:encrypted-2@example.org
test_expect_equal "$(state | sed 's/session-key=[0-9]*%3a[0-9A-F]*/session-key=KEY/')" 'same: #notmuch-dump batch-tag:3 properties
#= encrypted-1@example.org index.decryption=success session-key=KEY
#= encrypted-3@example.org index.decryption=success session-key=KEY
#= encrypted-4@example.org index.decryption=success
same: id:encrypted-1@example.org
id:encrypted-3@example.org
id:encrypted-4@example.org'

test_done
