#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's first command, as a newcomer pastes it on a fresh Debian machine: in a fresh copy of
# the source tree (the files git tracks, nothing built), as root with no sudo on the machine it
# installs the packages with apt-get itself, builds, indexes the sample Maildir and searches it; as
# a user, the same install goes through sudo. apt-get and sudo are stand-ins that record how they
# were called (the packages are installed already: CI's .ci/run installed them); everything after
# the install runs for real. A whole build from nothing takes minutes: the slow tier
# (MAILDEX_SLOW_TESTS=1), which .ci/run runs on every submission, right after the README's test
# command.
. "$(dirname "$0")/test-lib.sh"
test_require git
test_require bash

if [ "${MAILDEX_SLOW_TESTS:-}" != 1 ]; then
    echo "1..0 # SKIP the slow tier (MAILDEX_SLOW_TESTS=1): a whole build from a fresh copy"
    exit 0
fi
if ! git -C "$srcdir" rev-parse --git-dir > /dev/null 2>&1; then
    echo "1..0 # SKIP not a git checkout: no list of the files a fresh clone has"
    exit 0
fi
if command -v sudo > /dev/null 2>&1; then
    echo "1..0 # SKIP sudo is installed: no machine without it to try the command on"
    exit 0
fi

TRY=$(sed -n '/<!-- try-command -->/,/^```$/p' "$srcdir/README.md" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
CHECKOUT=$TMP_DIRECTORY/checkout
FAKE=$TMP_DIRECTORY/fake-bin
CALLS=$TMP_DIRECTORY/calls
mkdir -p "$CHECKOUT" "$FAKE"
(cd "$srcdir" && git ls-files -z | xargs -0 tar -cf - 2> /dev/null) | tar -xf - -C "$CHECKOUT"
cat > "$FAKE/apt-get" <<EOF
#!/bin/sh
echo "apt-get uid=\$(id -u) via=\${VIA_SUDO:-none} \$1" >> "$CALLS"
EOF
cat > "$FAKE/sudo.user" <<'EOF'
#!/bin/sh
VIA_SUDO=sudo exec "$@"
EOF
chmod +x "$FAKE/apt-get" "$FAKE/sudo.user"

test_begin_subtest "the README has a first command that installs, builds, indexes and searches"
case "$TRY" in
*"apt-get install"*"../configure"*"maildex new"*"maildex search"*) test_ok_ ;;
*) test_failure_ "README.md's try-command is: $TRY" ;;
esac

# As root on a fresh machine: no sudo anywhere on PATH, the command run by bash in the checkout.
env -u MAILDEX_CONFIG -u NOTMUCH_CONFIG HOME="$TMP_DIRECTORY/home" PATH="$FAKE:/usr/local/bin:/usr/bin:/bin" \
    bash -e -c "cd '$CHECKOUT' && $TRY" > "$TMP_DIRECTORY/try.out" 2> "$TMP_DIRECTORY/try.err"
rc=$?
test_begin_subtest "as root with no sudo: the whole command succeeds, apt-get runs itself"
test_expect_equal "$rc|$(cat "$CALLS" 2>/dev/null | tr '\n' ';')" \
    "0|apt-get uid=$(id -u) via=none update;apt-get uid=$(id -u) via=none install;"
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP_DIRECTORY/try.err" | tail -n 20

test_begin_subtest "... it built maildex and its search found the sample's mail, as the suite's build does"
rm -rf "$TMP_DIRECTORY/sample"
cp -r "$srcdir/test/corpora/sample" "$TMP_DIRECTORY/sample"
printf '[database]\npath=%s\n[user]\nname=You\nprimary_email=you@example.org\n' "$TMP_DIRECTORY/sample" \
    > "$TMP_DIRECTORY/sample.config"
MAILDEX_CONFIG=$TMP_DIRECTORY/sample.config maildex new > /dev/null 2>&1
want=$(MAILDEX_CONFIG=$TMP_DIRECTORY/sample.config maildex count '*')
lunch=$(MAILDEX_CONFIG=$TMP_DIRECTORY/sample.config maildex search lunch | wc -l)
test_expect_equal "$([ -x "$CHECKOUT/build/cli/maildex" ] && echo built)|$(tail -n 1 "$TMP_DIRECTORY/try.out")|$(grep -c '^thread:' "$TMP_DIRECTORY/try.out")" \
    "built|$want|$lunch"

# As a user: sudo is there, and the install goes through it.
: > "$CALLS"
install=${TRY%%&& autoreconf*}
ln -s sudo.user "$FAKE/sudo"
env PATH="$FAKE:/usr/local/bin:/usr/bin:/bin" bash -e -c "$install" > /dev/null 2>&1
rc=$?
test_begin_subtest "as a user with sudo: apt-get runs through sudo"
test_expect_equal "$rc|$(cat "$CALLS" 2>/dev/null | tr '\n' ';')" \
    "0|apt-get uid=$(id -u) via=sudo update;apt-get uid=$(id -u) via=sudo install;"

test_done
