/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Status strings and the version string. */
#include "maildex.h"
#include "test.h"

#include <stdio.h>

TEST(status_strings_are_distinct_and_named)
{
    for (int i = 0; i < MAILDEX_STATUS_LAST; i++) {
        const char *s = maildex_status_to_string((maildex_status_t) i);
        ASSERT(s != NULL && s[0] != '\0');
        ASSERT(strcmp(s, "unknown status") != 0);
        for (int j = 0; j < i; j++)
            ASSERT(strcmp(s, maildex_status_to_string((maildex_status_t) j)) != 0);
    }
}

TEST(status_known_texts)
{
    ASSERT_STR_EQ(maildex_status_to_string(MAILDEX_STATUS_OK), "success");
    ASSERT_STR_EQ(maildex_status_to_string(MAILDEX_STATUS_DATABASE_TOO_NEW),
                  "database was written by a newer maildex");
    ASSERT_STR_EQ(maildex_status_to_string(MAILDEX_STATUS_DATABASE_BUSY),
                  "database is locked by another writer");
}

TEST(status_out_of_range)
{
    ASSERT_STR_EQ(maildex_status_to_string(MAILDEX_STATUS_LAST), "unknown status");
    ASSERT_STR_EQ(maildex_status_to_string((maildex_status_t) 12345), "unknown status");
    ASSERT_STR_EQ(maildex_status_to_string((maildex_status_t) -1), "unknown status");
}

TEST(version_string_matches_macros)
{
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", MAILDEX_VERSION_MAJOR, MAILDEX_VERSION_MINOR,
             MAILDEX_VERSION_PATCH);
    ASSERT_STR_EQ(maildex_version(), expected);
}

TEST_MAIN(TEST_ENTRY(status_strings_are_distinct_and_named) TEST_ENTRY(status_known_texts)
              TEST_ENTRY(status_out_of_range) TEST_ENTRY(version_string_matches_macros))
