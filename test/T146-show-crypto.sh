#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# show's crypto against notmuch 0.37 with the same GNUPGHOME: on the signed and the encrypted message
# of test/corpora/emacs (made with its throw-away keys, test-keys.asc), `--verify` gives each
# multipart/signed part its sigstatus and the message its crypto map, `--decrypt=true` decrypts with
# the gpg-agent (encstatus, the decrypted part in place of the ciphertext, "decrypted": "full") and
# implies --verify, `--decrypt=auto` decrypts nothing (no stored session keys), and without the keys
# the signature is an "error" with key-missing and the decryption "bad". JSON is compared after
# parsing; S-expressions, text and what both print on stderr byte for byte. reply --decrypt too.
# test-lib.sh moves into the test's directory: a relative srcdir would point nowhere after that.
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$srcdir/test/test-lib.sh"
test_require python3
test_require gpg
test_require gpgconf
differential_setup "deleted;spam"

crypto_corpus_setup T146
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

signed=id:signed-1@example.org
encrypted=id:encrypted-1@example.org

# Runs show with the arguments under both programs; leaves n.out n.err m.out m.err.
both() {
    "$NOTMUCH" show "$@" > "$TMP_DIRECTORY/n.out" 2> "$TMP_DIRECTORY/n.err"
    echo "rc $?" >> "$TMP_DIRECTORY/n.err"
    maildex show "$@" > "$TMP_DIRECTORY/m.out" 2> "$TMP_DIRECTORY/m.err"
    echo "rc $?" >> "$TMP_DIRECTORY/m.err"
}

# Compares the parsed JSON of both and prints what PY (an expression over message m, maildex's
# first message) says of it: "same: VALUE" or the two outputs.
json_same() {
    python3 - "$TMP_DIRECTORY/n.out" "$TMP_DIRECTORY/m.out" "$1" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
m_all = json.load(open(sys.argv[2]))
if n != m_all or not m_all:
    print("differs:\nnotmuch: %s\nmaildex: %s" % (json.dumps(n, sort_keys=True), json.dumps(m_all, sort_keys=True)))
else:
    m = m_all[0][0][0]
    print("same: %s" % json.dumps(eval(sys.argv[3]), sort_keys=True))
PY
}

test_begin_subtest "--verify: sigstatus of the multipart/signed part and the crypto map, as notmuch"
both --format=json --verify "$signed"
test_expect_equal "$(json_same '[m["body"][0]["sigstatus"][0]["status"], m["body"][0]["sigstatus"][0]["userid"], m["crypto"]["signed"]["status"][0]["fingerprint"]]')" \
    'same: ["good", "Alice Example <alice@example.org>", "4009647587E9AD15EF4176CC6B0E07E10CE90D25"]'

test_begin_subtest "... and the same stderr"
test_expect_equal_file "$TMP_DIRECTORY/n.err" "$TMP_DIRECTORY/m.err"

test_begin_subtest "--verify --format=sexp byte for byte"
both --format=sexp --verify "$signed"
test_expect_equal "$(cmp "$TMP_DIRECTORY/n.out" "$TMP_DIRECTORY/m.out" && grep -o ':sigstatus ((:status "good"' "$TMP_DIRECTORY/m.out")" \
    ':sigstatus ((:status "good"'

test_begin_subtest "--decrypt=true implies --verify"
both --format=json --decrypt=true "$signed"
test_expect_equal "$(json_same 'm["body"][0]["sigstatus"][0]["status"]')" 'same: "good"'

test_begin_subtest "no crypto without --verify or --decrypt=true"
both --format=json "$signed"
test_expect_equal "$(json_same '["sigstatus" in m["body"][0], m["crypto"]]')" 'same: [false, {}]'

test_begin_subtest "--decrypt=true: encstatus, the decrypted text as the second child, decrypted full"
both --format=json --decrypt=true "$encrypted"
test_expect_equal "$(json_same '[m["body"][0]["encstatus"], m["body"][0]["content"][1]["content"], m["crypto"]]')" \
    'same: [[{"status": "good"}], "The door code is 4711.\n", {"decrypted": {"status": "full"}}]'

test_begin_subtest "... and the same stderr"
test_expect_equal_file "$TMP_DIRECTORY/n.err" "$TMP_DIRECTORY/m.err"

test_begin_subtest "--decrypt=true --format=sexp byte for byte"
both --format=sexp --decrypt=true "$encrypted"
test_expect_equal "$(cmp "$TMP_DIRECTORY/n.out" "$TMP_DIRECTORY/m.out" && grep -o ':encstatus ((:status "good"))' "$TMP_DIRECTORY/m.out")" \
    ':encstatus ((:status "good"))'

test_begin_subtest "--decrypt=true --format=text byte for byte"
both --format=text --decrypt=true "$encrypted"
test_expect_equal "$(cmp "$TMP_DIRECTORY/n.out" "$TMP_DIRECTORY/m.out" && grep -x 'The door code is 4711.' "$TMP_DIRECTORY/m.out")" \
    'The door code is 4711.'

test_begin_subtest "--decrypt=auto decrypts nothing without a stored session key and says so on stderr"
both --format=json --decrypt=auto "$encrypted"
test_expect_equal "$(json_same '["encstatus" in m["body"][0], m["body"][0]["content"][1]["content-type"], m["crypto"]]')|$(cat "$TMP_DIRECTORY/m.err")|$(cmp -s "$TMP_DIRECTORY/n.err" "$TMP_DIRECTORY/m.err" && echo same-stderr)" \
    'same: [false, "application/octet-stream", {}]|Failed to decrypt part: no error explanation given
rc 0|same-stderr'

# reply --decrypt=true quotes the decrypted text and shows it in the original, but verifies nothing;
# its default (auto) says on stderr that it could not decrypt, except for headers-only.
test_begin_subtest "reply --decrypt=true quotes the decrypted text, as notmuch"
"$NOTMUCH" reply --decrypt=true "$encrypted" > "$TMP_DIRECTORY/n.out" 2>&1
maildex reply --decrypt=true "$encrypted" > "$TMP_DIRECTORY/m.out" 2>&1
test_expect_equal "$(cmp "$TMP_DIRECTORY/n.out" "$TMP_DIRECTORY/m.out" && grep -x '> The door code is 4711.' "$TMP_DIRECTORY/m.out")" \
    '> The door code is 4711.'

test_begin_subtest "reply --format=json --decrypt=true: the original decrypted, its signatures not verified"
for q in "$encrypted" "$signed"; do
    "$NOTMUCH" reply --format=json --decrypt=true "$q"
done > "$TMP_DIRECTORY/n.out" 2>&1
for q in "$encrypted" "$signed"; do
    maildex reply --format=json --decrypt=true "$q"
done > "$TMP_DIRECTORY/m.out" 2>&1
test_expect_equal "$(cmp "$TMP_DIRECTORY/n.out" "$TMP_DIRECTORY/m.out" && grep -c '"encstatus": \[{"status": "good"}\]' "$TMP_DIRECTORY/m.out"; grep -c sigstatus "$TMP_DIRECTORY/m.out")" \
    '1
0'

test_begin_subtest "reply's stderr without --decrypt, every format, as notmuch"
for f in default json sexp headers-only; do
    "$NOTMUCH" reply --format=$f "$encrypted" 2>&1 > /dev/null | sed "s/^/$f: /"
done > "$TMP_DIRECTORY/n.err"
for f in default json sexp headers-only; do
    maildex reply --format=$f "$encrypted" 2>&1 > /dev/null | sed "s/^/$f: /"
done > "$TMP_DIRECTORY/m.err"
test_expect_equal "$(cmp "$TMP_DIRECTORY/n.err" "$TMP_DIRECTORY/m.err" && grep -c 'Failed to decrypt part' "$TMP_DIRECTORY/m.err")" 3

GNUPGHOME=$NOKEYS
test_begin_subtest "without the key: an error signature with the key id and key-missing"
both --format=json --verify "$signed"
test_expect_equal "$(json_same 'm["body"][0]["sigstatus"]')" \
    'same: [{"errors": {"key-missing": true}, "keyid": "6B0E07E10CE90D25", "status": "error"}]'

test_begin_subtest "... format-version 3 gives the errors as gmime's number"
both --format=json --format-version=3 --verify "$signed"
test_expect_equal "$(json_same 'm["body"][0]["sigstatus"][0]["errors"]')" 'same: 128'

test_begin_subtest "without the secret key: encstatus bad, the ciphertext shown, gpg's reason on stderr as notmuch"
both --format=json --decrypt=true "$encrypted"
test_expect_equal "$(json_same '[m["body"][0]["encstatus"], m["body"][0]["content"][1]["content-type"]]')|$(cmp -s "$TMP_DIRECTORY/n.err" "$TMP_DIRECTORY/m.err" && echo same-stderr)" \
    'same: [[{"status": "bad"}], "application/octet-stream"]|same-stderr'

test_done
