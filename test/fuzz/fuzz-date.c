/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzzes the date parser (lib/query/parse-time.c) with the input, up to its first NUL, as the text after
 * `date:` and as one date with each rounding, in UTC and in two zones with daylight saving (Helsinki, and
 * Lord Howe's half-hour shift), given as POSIX rules so no zone file is read. Checked: a return code from
 * query/parse-time.h with its message, and *t, *from, *to left alone on failure. */
#include "fuzz.h"

#include "query/parse-time.h"

#include <string.h>
#include <talloc.h>
#include <time.h>

#define NOW ((time_t) 1705322096) /* 2024-01-15T12:34:56Z */

static void check_text(const char *text)
{
    static const int roundings[] = {MAILDEX__ROUND_DOWN, MAILDEX__ROUND_UP, MAILDEX__ROUND_UP_INCLUSIVE,
                                    MAILDEX__ROUND_EXACT};
    int64_t from = 42, to = 43;
    const char *message = "unset";
    time_t ref = NOW;
    int r = maildex__parse_date_range(text, NOW, &from, &to, &message);

    if (r == 0)
        FUZZ_CHECK(message == NULL);
    else
        FUZZ_CHECK(message != NULL && from == 42 && to == 43);
    for (size_t i = 0; i < sizeof roundings / sizeof roundings[0]; i++) {
        time_t t = 42;
        r = maildex__parse_time_string(text, &t, &ref, roundings[i]);
        FUZZ_CHECK(r >= MAILDEX__PARSE_TIME_OK && r <= MAILDEX__PARSE_TIME_ERR_KEYWORD);
        FUZZ_CHECK(maildex__parse_time_strerror(r) != NULL);
        if (r != 0)
            FUZZ_CHECK(t == 42);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const zones[] = {"UTC", "EET-2EEST,M3.5.0/3,M10.5.0/4",
                                        "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"};
    char *text = talloc_strndup(NULL, (const char *) data, size);

    FUZZ_CHECK(text != NULL);
    for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++) {
        setenv("TZ", zones[i], 1);
        tzset();
        check_text(text);
    }
    talloc_free(text);
    return 0;
}
