/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A tiny unit-test runner in libuv's style, speaking TAP.
 *
 * Each test/unit/test-NAME.c is one test program: it defines tests with TEST(name) and ends with
 *     TEST_MAIN(TEST_ENTRY(first) TEST_ENTRY(second))
 * The shared driver (test/unit/runner.c) runs every listed test, or only those named on the command line
 * (`test/unit/test-sprinter json_every_byte`), so a single test can be run alone under gdb.
 * A failed ASSERT prints both sides and the location, then abandons the current test (longjmp), so the
 * other tests still run. This file must not grow a framework: macros only. */
#ifndef MAILDEX_TEST_H
#define MAILDEX_TEST_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

extern jmp_buf test__abort;
extern int test__failed;
/* Where test programs find the source tree (test/corpora, ../shared) and a scratch directory. */
extern const char *test_srcdir;
extern const char *test_tmpdir;

#define TEST(name)                                                                           \
    void test_##name(void);                                                                  \
    void test_##name(void)

#define TEST__FAIL(...)                                                                      \
    do {                                                                                     \
        fprintf(stdout, "# %s:%d: ", __FILE__, __LINE__);                                    \
        fprintf(stdout, __VA_ARGS__);                                                        \
        fputc('\n', stdout);                                                                 \
        test__failed = 1;                                                                    \
        longjmp(test__abort, 1);                                                             \
    } while (0)

#define ASSERT(cond)                                                                         \
    do {                                                                                     \
        if (!(cond))                                                                         \
            TEST__FAIL("assertion failed: %s", #cond);                                       \
    } while (0)

#define ASSERT_EQ(a, b)                                                                      \
    do {                                                                                     \
        int64_t test__a = (int64_t) (a), test__b = (int64_t) (b);                            \
        if (test__a != test__b)                                                              \
            TEST__FAIL("%s == %s: %" PRId64 " != %" PRId64, #a, #b, test__a, test__b);       \
    } while (0)

#define ASSERT_NE(a, b)                                                                      \
    do {                                                                                     \
        int64_t test__a = (int64_t) (a), test__b = (int64_t) (b);                            \
        if (test__a == test__b)                                                              \
            TEST__FAIL("%s != %s: both %" PRId64, #a, #b, test__a);                          \
    } while (0)

#define ASSERT_LT(a, b)                                                                      \
    do {                                                                                     \
        int64_t test__a = (int64_t) (a), test__b = (int64_t) (b);                            \
        if (!(test__a < test__b))                                                            \
            TEST__FAIL("%s < %s: %" PRId64 " >= %" PRId64, #a, #b, test__a, test__b);        \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                                  \
    do {                                                                                     \
        const char *test__a = (a), *test__b = (b);                                           \
        if (test__a == NULL || test__b == NULL || strcmp(test__a, test__b) != 0)             \
            TEST__FAIL("%s == %s:\n#   got:      \"%s\"\n#   expected: \"%s\"", #a, #b,      \
                       test__a ? test__a : "(null)", test__b ? test__b : "(null)");          \
    } while (0)

/* Byte-exact comparison for strings that may hold NULs or control bytes. */
#define ASSERT_MEM_EQ(a, alen, b, blen)                                                      \
    do {                                                                                     \
        size_t test__al = (alen), test__bl = (blen);                                         \
        if (test__al != test__bl || memcmp((a), (b), test__al) != 0)                         \
            TEST__FAIL("%s == %s: lengths %zu and %zu or bytes differ", #a, #b, test__al,    \
                       test__bl);                                                            \
    } while (0)

struct test_entry {
    const char *name;
    void (*fn)(void);
};
int test_run(int argc, char **argv, const struct test_entry *tests, size_t n);

#define TEST_ENTRY(name) {#name, test_##name},
#define TEST_MAIN(...)                                                                       \
    int main(int argc, char **argv)                                                          \
    {                                                                                        \
        static const struct test_entry tests[] = {__VA_ARGS__};                              \
        return test_run(argc, argv, tests, sizeof tests / sizeof tests[0]);                  \
    }

/* A fresh empty directory under test_tmpdir for this test; removed when the program ends unless
 * MAILDEX_TEST_KEEP is set. The string is static storage valid for the program's life. */
const char *test_scratch_dir(const char *label);

#endif
