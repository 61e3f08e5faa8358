#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The ABI of maildex's libnotmuch.so.5 (issue 28, "Done when": the ABI test): its soname is
# libnotmuch.so.5; it defines, as functions, every notmuch_* function Debian's libnotmuch.so.5
# defines, and exports nothing else (no maildex_*, no C++ or other symbol); and what notmuch 0.37's
# T360-symbol-hiding checks holds: the exported functions are exactly those notmuch.h declares, no
# Xapian symbol leaks, and opening a path that holds no store fails with a status and a message.
# T360 itself runs outside the suite (notmuch's source and helpers; the command is in
# doc/libnotmuch.md):
#     /work/shared/notmuch-suite/run.sh -l BUILD/lib/notmuch-abi/.libs BUILD/cli/maildex T360
# While this build has no library, the checks of ours are skipped (SKIP lines say why); the checks
# of Debian's library and of the tools run anyway, so the test is known to see what it checks.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require readelf
test_require nm
abi_build_walker
header=${NOTMUCH_H:-/usr/include/notmuch.h}

# defined_functions LIB: the dynamic symbols LIB defines as functions, sorted.
defined_functions() {
    readelf --dyn-syms -W "$1" | sed -e 's/\[[^]]*\]//' |
        awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" { sub(/@.*/, "", $8); print $8 }' | sort -u
}
# defined_symbols LIB: every symbol LIB exports (defined, any type), sorted.
defined_symbols() {
    nm -D --defined-only "$1" | awk '{ print $3 }' | sed 's/@.*//' | sort -u
}
# The functions notmuch.h declares, as T360 lists them.
sed -n 's/^\(notmuch_[a-zA-Z0-9_]*\)[[:blank:]]*(.*/\1/p' "$header" | sort -u > "$TMP_DIRECTORY/declared"
defined_functions "$DEBIAN_LIB" | grep '^notmuch_' > "$TMP_DIRECTORY/debian.functions"
defined_symbols "$DEBIAN_LIB" > "$TMP_DIRECTORY/debian.symbols"

test_begin_subtest "Debian's libnotmuch.so.5 defines exactly the functions notmuch.h declares ($(wc -l < "$TMP_DIRECTORY/declared"))"
test_expect_equal_file "$TMP_DIRECTORY/declared" "$TMP_DIRECTORY/debian.functions"

# Debian's library also exports the typeinfo objects (_ZTI) and their names (_ZTS) of the Xapian
# exceptions it throws inside: C++ needs them to match exceptions across shared objects, and
# notmuch's build does not hide them. They are Xapian internals, not notmuch's API: no C client can
# name them, and a library with no Xapian in it has none to export. So they are the one allowed
# difference, checked here to be all that Debian's exports beside the functions.
test_begin_subtest "Debian's other exports are Xapian's exception typeinfo alone (the allowed difference)"
test_expect_equal "$(grep -v '^notmuch_' "$TMP_DIRECTORY/debian.symbols" | grep -v '^_ZT[IS]N6Xapian')" ""

if ! abi_have_lib; then
    for name in "its soname is libnotmuch.so.5" \
        "it defines, as functions, every notmuch_* function Debian's defines" \
        "it exports nothing else (no maildex_*, no _Z* C++ or other symbol)" \
        "T360: its exported functions are those notmuch.h declares" \
        "T360: no Xapian symbol, no Xapian library" \
        "every library it needs is found" \
        "a client links against it and runs on it" \
        "T360: opening a path with no store fails with a status and a message, as Debian's"; do
        test_begin_subtest "$name"
        test_skip_ "$abi_skip_reason"
    done
    test_done
fi

defined_functions "$ABI_LIB" > "$TMP_DIRECTORY/ours.functions"
defined_symbols "$ABI_LIB" > "$TMP_DIRECTORY/ours.symbols"

test_begin_subtest "its soname is libnotmuch.so.5"
test_expect_equal "$(readelf -d "$ABI_LIB" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "libnotmuch.so.5"

test_begin_subtest "it defines, as functions, every notmuch_* function Debian's defines"
test_expect_equal "$(comm -23 "$TMP_DIRECTORY/debian.functions" "$TMP_DIRECTORY/ours.functions")" ""

test_begin_subtest "it exports nothing else (no maildex_*, no _Z* C++ or other symbol)"
test_expect_equal "$(comm -23 "$TMP_DIRECTORY/ours.symbols" "$TMP_DIRECTORY/debian.functions")" ""

test_begin_subtest "T360: its exported functions are those notmuch.h declares"
test_expect_equal_file "$TMP_DIRECTORY/declared" "$TMP_DIRECTORY/ours.functions"

test_begin_subtest "T360: no Xapian symbol, no Xapian library"
test_expect_equal "$(grep -i xapian "$TMP_DIRECTORY/ours.symbols"; readelf -d "$ABI_LIB" | grep -i 'NEEDED.*xapian')" ""

test_begin_subtest "every library it needs is found"
test_expect_equal "$(ldd "$ABI_LIB" | grep 'not found')" ""

test_begin_subtest "a client links against it and runs on it"
# The walker was linked against Debian's; this one is linked against ours, as T360's test_C is.
ln -sf "$ABI_LIB" "$TMP_DIRECTORY/libnotmuch.so"
san=
abi_sanitized && san="-fsanitize=address,undefined"
# shellcheck disable=SC2086 # san is words
if ${CC:-cc} -std=c11 -D_GNU_SOURCE $san -o "$TMP_DIRECTORY/walk-ours" "$srcdir/test/libnotmuch/walk.c" \
    -L"$TMP_DIRECTORY" -lnotmuch > "$TMP_DIRECTORY/link.log" 2>&1; then
    output=$(on_ours "$TMP_DIRECTORY/walk-ours" open "$TMP_DIRECTORY/nonexistent" 2>/dev/null;
             on_ours ldd "$TMP_DIRECTORY/walk-ours" | awk '$1 == "libnotmuch.so.5" { print $3 }')
    test_expect_equal "$output" "open: Something went wrong trying to read or write a file, database NULL, message given
$ABI_LIB"
else
    test_failure_ "$(cat "$TMP_DIRECTORY/link.log")"
fi

# T360 opens a directory holding an empty .notmuch/ (notmuch's answer there is PATH_ERROR, in
# Xapian's words, which maildex's library gives too: the suite's T360 compares the words) and a path
# that does not exist; a directory with nothing in it is FILE_ERROR. Each status is compared.
test_begin_subtest "T360: opening a path with no store fails with a status and a message, as Debian's"
mkdir -p "$TMP_DIRECTORY/fakedb/.notmuch" "$TMP_DIRECTORY/empty"
for side in on_debian on_ours; do
    for path in nonexistent empty fakedb; do
        "$side" "$ABI_WALK" open "$TMP_DIRECTORY/$path" 2>/dev/null
    done > "$TMP_DIRECTORY/open.$side"
done
sed -i 's/^open: No error occurred, .*/open: succeeded/' "$TMP_DIRECTORY/open.on_ours" "$TMP_DIRECTORY/open.on_debian"
test_expect_equal_file "$TMP_DIRECTORY/open.on_debian" "$TMP_DIRECTORY/open.on_ours"

test_done
