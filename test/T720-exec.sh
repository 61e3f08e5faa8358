#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# maildex exec CLIENT [ARGS...] (issue 28, deliver 3): the client runs with maildex's libnotmuch.so.5
# first on LD_LIBRARY_PATH, NOTMUCH_CONFIG naming the config maildex read, and a PATH whose notmuch is
# maildex; its exit status is its own, 127 or 126 when it cannot be run. A client printing its
# environment checks the variables; while this build has no library, MAILDEX_NOTMUCH_ABI_DIR points
# exec at a stand-in directory (a copy of Debian's library), which also shows that the loader takes
# the directory exec names. Python clients (notmuch2, and the legacy notmuch module that afew uses)
# open maildex's store through it once the library is built, and are skipped until then.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"

add_lunch_corpus
bindir=$MAILDEX_BUILDDIR/cli/notmuch-bin

# A stand-in library directory: exec needs a libnotmuch.so.5 there, and a copy (not a link) shows in
# /proc/self/maps under this directory's name.
standin=$TMP_DIRECTORY/standin
mkdir -p "$standin"
debian_lib=$(for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    [ -f "$d/libnotmuch.so.5" ] && echo "$d/libnotmuch.so.5" && break; done)
[ -n "$debian_lib" ] && cp "$debian_lib" "$standin/libnotmuch.so.5"
[ -n "$debian_lib" ] || : > "$standin/libnotmuch.so.5"

test_begin_subtest "exec without a client is an error (exit 1)"
output=$(maildex exec 2>&1; echo "exit $?")
test_expect_equal "$output" "maildex exec: no program to run (usage: maildex exec CLIENT [ARGS...])
exit 1"

test_begin_subtest "a client that is not found: exit 127 and a message naming it"
output=$(MAILDEX_NOTMUCH_ABI_DIR=$standin maildex exec no-such-client-here 2>&1; echo "exit $?")
test_expect_equal "$output" "maildex exec: cannot run 'no-such-client-here': No such file or directory
exit 127"

test_begin_subtest "a client that cannot be run: exit 126"
printf '#!/bin/sh\necho ran\n' > "$TMP_DIRECTORY/not-executable"
output=$(MAILDEX_NOTMUCH_ABI_DIR=$standin maildex exec "$TMP_DIRECTORY/not-executable" 2>&1; echo "exit $?")
test_expect_equal "$output" "maildex exec: cannot run '$TMP_DIRECTORY/not-executable': Permission denied
exit 126"

test_begin_subtest "the client's exit status is exec's"
test_expect_code 7 env MAILDEX_NOTMUCH_ABI_DIR="$standin" maildex exec sh -c 'exit 7'

# The environment the client sees, one variable a line.
cat > "$TMP_DIRECTORY/print-env" <<'EOF'
#!/bin/sh
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
echo "NOTMUCH_CONFIG=$NOTMUCH_CONFIG"
echo "MAILDEX_CONFIG=$MAILDEX_CONFIG"
echo "PATH=${PATH%%:*}:..."
echo "notmuch=$(command -v notmuch)"
echo "args=$*"
EOF
chmod +x "$TMP_DIRECTORY/print-env"

test_begin_subtest "the client's environment: the library first, the config maildex read, a notmuch that is maildex"
output=$(LD_LIBRARY_PATH=/somewhere MAILDEX_NOTMUCH_ABI_DIR=$standin maildex exec "$TMP_DIRECTORY/print-env" a --help)
test_expect_equal "$output" "LD_LIBRARY_PATH=$standin:/somewhere
NOTMUCH_CONFIG=$MAILDEX_CONFIG
MAILDEX_CONFIG=$MAILDEX_CONFIG
PATH=$bindir:...
notmuch=$bindir/notmuch
args=a --help"

test_begin_subtest "--config names the file for the client, as an absolute path"
cp "$MAILDEX_CONFIG" "$TMP_DIRECTORY/other-config"
output=$(cd "$TMP_DIRECTORY" && MAILDEX_NOTMUCH_ABI_DIR=$standin maildex --config=other-config exec "$TMP_DIRECTORY/print-env" | grep CONFIG)
test_expect_equal "$output" "NOTMUCH_CONFIG=$TMP_DIRECTORY/other-config
MAILDEX_CONFIG=$TMP_DIRECTORY/other-config"

test_begin_subtest "options after -- and after the client are the client's"
output=$(MAILDEX_NOTMUCH_ABI_DIR=$standin maildex exec -- "$TMP_DIRECTORY/print-env" --config=x | tail -n 1)
test_expect_equal "$output" "args=--config=x"

test_begin_subtest "a named config file that is missing: exec refuses (exit 1), the client does not run"
output=$(MAILDEX_NOTMUCH_ABI_DIR=$standin maildex --config="$TMP_DIRECTORY/missing" exec "$TMP_DIRECTORY/print-env" 2>/dev/null; echo "exit $?")
test_expect_equal "$output" "exit 1"

test_begin_subtest "no config file anywhere: exec runs the client all the same, the config variables left as they are"
mkdir -p "$TMP_DIRECTORY/no-config-home"
output=$(MAILDEX_CONFIG= HOME=$TMP_DIRECTORY/no-config-home MAILDEX_NOTMUCH_ABI_DIR=$standin \
         maildex exec "$TMP_DIRECTORY/print-env" > no-config.out 2>&1; echo "exit $?"; grep CONFIG no-config.out)
test_expect_equal "$output" "exit 0
NOTMUCH_CONFIG=
MAILDEX_CONFIG="

test_begin_subtest "the notmuch the client runs is maildex, on maildex's store"
output=$(MAILDEX_NOTMUCH_ABI_DIR=$standin maildex exec sh -c 'notmuch count "*"; notmuch --version')
test_expect_equal "$output" "3
$(maildex --version)"

test_begin_subtest "the loader takes the library from the directory exec names"
python=$(command -v /usr/bin/python3 python3 | head -n 1)
if [ -n "$debian_lib" ]; then
    output=$(MAILDEX_NOTMUCH_ABI_DIR=$standin maildex exec "$python" -c '
import ctypes
ctypes.CDLL("libnotmuch.so.5")
print(sorted({l.split()[-1] for l in open("/proc/self/maps") if "libnotmuch.so" in l}))')
    test_expect_equal "$output" "['$standin/libnotmuch.so.5']"
else
    test_skip_ "Debian's libnotmuch5 is not installed (no library to stand in)"
fi

# The build tree's own library.
test_begin_subtest "without MAILDEX_NOTMUCH_ABI_DIR, cli/maildex gives its build tree's lib/notmuch-abi/.libs"
if [ -f "$BUILD_ABI_DIR/libnotmuch.so.5" ]; then
    output=$(env -u MAILDEX_NOTMUCH_ABI_DIR -u LD_LIBRARY_PATH maildex exec "$TMP_DIRECTORY/print-env" | head -n 1)
    test_expect_equal "$output" "LD_LIBRARY_PATH=$BUILD_ABI_DIR"
else
    output=$(env -u MAILDEX_NOTMUCH_ABI_DIR maildex exec "$TMP_DIRECTORY/print-env" 2>&1; echo "exit $?")
    test_expect_equal "$output" "maildex exec: cannot use '$BUILD_ABI_DIR/libnotmuch.so.5': No such file or directory (maildex's libnotmuch.so.5 is not built or not installed)
exit 1"
fi

# Hooks get what exec gives a client (cli/base/client-env.c): a post-new hook running afew or a
# notmuch2 script reaches maildex's store, and its notmuch is maildex.
test_begin_subtest "a hook's environment: the library first, a notmuch that is maildex, as exec gives"
mkdir -p "$MAIL_DIR/.maildex/hooks"
printf '#!/bin/sh\n"%s" > "%s"\n' "$TMP_DIRECTORY/print-env" "$TMP_DIRECTORY/hook-env" \
    > "$MAIL_DIR/.maildex/hooks/post-new"
chmod +x "$MAIL_DIR/.maildex/hooks/post-new"
LD_LIBRARY_PATH=/somewhere MAILDEX_NOTMUCH_ABI_DIR=$standin maildex new > /dev/null 2>&1
test_expect_equal "$(cat "$TMP_DIRECTORY/hook-env")" "LD_LIBRARY_PATH=$standin:/somewhere
NOTMUCH_CONFIG=$MAILDEX_CONFIG
MAILDEX_CONFIG=$MAILDEX_CONFIG
PATH=$bindir:...
notmuch=$bindir/notmuch
args="

test_begin_subtest "a hook that runs a notmuch2 script reads maildex's store through the library"
abi_find_python notmuch2
if ! abi_have_lib; then
    test_skip_ "$abi_skip_reason"
elif [ -z "$ABI_PYTHON" ]; then
    test_skip_ "no python3 here imports notmuch2 (Debian's python3-notmuch2)"
else
    cat > "$MAIL_DIR/.maildex/hooks/post-new" <<EOF
#!/bin/sh
exec "$ABI_PYTHON" -c 'import notmuch2; print(notmuch2.Database().count_messages("*"))' > "$TMP_DIRECTORY/hook-count" 2>&1
EOF
    with_asan maildex new > /dev/null 2>&1
    test_expect_equal "$(cat "$TMP_DIRECTORY/hook-count")" "3"
fi
rm -f "$MAIL_DIR/.maildex/hooks/post-new"

# python_client MODULE NAME SCRIPT EXPECTED: a subtest that SCRIPT, run by a python3 that imports
# MODULE (Debian's python3-MODULE) through maildex exec, prints EXPECTED.
python_client() {
    abi_find_python "$1"
    test_begin_subtest "$2"
    if ! abi_have_lib; then
        test_skip_ "$abi_skip_reason"
    elif [ -z "$ABI_PYTHON" ]; then
        test_skip_ "no python3 here imports $1 (Debian's python3-$1)"
    else
        test_expect_equal "$(with_asan maildex exec "$ABI_PYTHON" -c "$3" 2>&1)" "$4"
    fi
}

python_client notmuch2 "a notmuch2 script opens maildex's store through exec" '
import notmuch2
db = notmuch2.Database()
print(db.count_messages("*"), sorted(str(m.messageid) for m in db.messages("Lunch")))
print(sorted({l.split()[-1] for l in open("/proc/self/maps") if "libnotmuch.so" in l}))' \
    "3 ['msg1@example.org', 'msg2@example.com', 'msg3@example.net']
['$(readlink -f "$ABI_LIB")']"

python_client notmuch "the legacy notmuch module (python3-notmuch, ctypes) loads it and reads the store" '
import notmuch
db = notmuch.Database(mode=notmuch.Database.MODE.READ_ONLY)
q = notmuch.Query(db, "tag:attachment")
print(q.count_messages(), [m.get_message_id() for m in q.search_messages()])' \
    "1 ['msg3@example.net']"

test_done
