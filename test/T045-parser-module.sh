#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The parser module (maildex-mime.so, lib/mime/mime.h): which one the program loads, and the refusal, with a
# message naming the file and what differs, of a module built from another version of maildex. The
# wrong modules are test/mime-skew.c, built by `make check`.
. "$(dirname "$0")/test-lib.sh"

generate_message filename=first >/dev/null
skew=$MAILDEX_BUILDDIR/test/.libs

# Runs `maildex new` with the module $1 and prints its stderr, its status and the message count.
new_with_module() {
    MAILDEX_MIME_MODULE=$1 maildex new 2>&1 >/dev/null
    echo "status=$?"
    maildex count '*'
}

test_begin_subtest "the build tree's maildex loads this build's module without \$MAILDEX_MIME_MODULE"
output=$(env -u MAILDEX_MIME_MODULE maildex new 2>&1; echo "status=$?")
test_expect_equal "$output" "Found 1 total files (that's not much mail).
Processed 1 file in almost no time.
Added 1 new message to the database.
status=0"

generate_message filename=second >/dev/null

test_begin_subtest "the program to install looks in \$(pkglibdir), not in the build tree"
installed=$MAILDEX_BUILDDIR/cli/install/maildex
output=$(env -u MAILDEX_MIME_MODULE "$installed" new 2>&1; echo "status=$?")
case "$output" in
    "maildex new: cannot load the message parser '$MAILDEX_BUILDDIR/"*) test_failure_ "$output" ;;
    "maildex new: cannot load the message parser '/"*"/maildex-mime.so': "*"
status=1") test_ok_ ;;
    *"status=0") test_skip_ "a maildex-mime.so is installed in \$(pkglibdir)" ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "a missing module is named, with where its name came from"
output=$(new_with_module /nonexistent/maildex-mime.so)
test_expect_equal "$output" "maildex new: cannot load the message parser '/nonexistent/maildex-mime.so' (named by \$MAILDEX_MIME_MODULE): cannot open shared object file: No such file or directory
status=1
1"

test_begin_subtest "a file that is not a shared object is refused"
echo "not a library" > "$TMP_DIRECTORY/text.so"
output=$(new_with_module "$TMP_DIRECTORY/text.so")
case "$output" in
    "maildex new: cannot load the message parser '$TMP_DIRECTORY/text.so' (named by \$MAILDEX_MIME_MODULE): "*"
status=1
1") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "a shared object without the parser's table is refused"
lib=$MAILDEX_BUILDDIR/lib/.libs/libmaildex.so
if [ -f "$lib" ]; then
    output=$(new_with_module "$lib")
    test_expect_equal "$output" "maildex new: cannot use the message parser '$lib' (named by \$MAILDEX_MIME_MODULE): it has no maildex_mime_ops (not a maildex parser module)
status=1
1"
else
    test_skip_ "no shared libmaildex in this build"
fi

# Expects `maildex new` with the skewed module $1 to be refused for the reason matching the glob $2.
expect_refused() {
    module=$skew/mime-skew-$1.so
    if [ ! -f "$module" ]; then
        test_skip_ "$module is built by 'make check'"
        return
    fi
    output=$(new_with_module "$module")
    case "$output" in
        "maildex new: cannot use the message parser '$module' (named by \$MAILDEX_MIME_MODULE): "$2" (the program and the module must come from the same build)
status=1
1") test_ok_ ;;
        *) test_failure_ "$output" ;;
    esac
}

test_begin_subtest "a module of another ABI version is refused"
expect_refused abi "it was built for parser module ABI [0-9]*, this maildex uses ABI [0-9]*"

test_begin_subtest "a module whose table of entry points has another size is refused"
expect_refused ops "its table of entry points is [0-9]* bytes, this maildex's is [0-9]*"

test_begin_subtest "a module whose parsed message has another size is refused"
expect_refused message "its struct maildex__parsed_message is [0-9]* bytes, this maildex's is [0-9]*"

test_begin_subtest "a module from before the table had a version is refused"
expect_refused old "it was built for parser module ABI [0-9]*, this maildex uses ABI [0-9]*"

test_begin_subtest "reindex refuses a wrong module the same way"
module=$skew/mime-skew-abi.so
if [ -f "$module" ]; then
    output=$(MAILDEX_MIME_MODULE=$module maildex reindex '*' 2>&1; echo "status=$?")
    case "$output" in
        "maildex reindex: cannot use the message parser '$module' (named by \$MAILDEX_MIME_MODULE): it was built for parser module ABI "*"
status=1") test_ok_ ;;
        *) test_failure_ "$output" ;;
    esac
else
    test_skip_ "$module is built by 'make check'"
fi

test_begin_subtest "after the refusals, this build's module indexes what was left"
output=$(maildex new 2>&1; echo "status=$?"; maildex count '*')
test_expect_equal "$output" "Processed 1 file in almost no time.
Added 1 new message to the database.
status=0
2"

test_done
