/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for lib/query/parse-time.c: notmuch's T490 date parser cases, `date:` ranges against a fixed "now"
 * (Monday 2024-01-15 12:34:56 UTC) in UTC and in Helsinki time, the errors notmuch reports, and garbage that
 * must never crash. Expected instants are written as ISO 8601 text with an explicit offset and converted by
 * GLib's ISO parser, not by the code under test. */
#include "test.h"

#include "query/parse-time.h"

#include <glib.h>
#include <stdlib.h>
#include <time.h>

#define NOW ((time_t) 1705322096) /* 2024-01-15T12:34:56Z, a Monday */
#define HELSINKI_POSIX "EET-2EEST,M3.5.0/3,M10.5.0/4"

static void use_tz(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

/* "-inf"/"+inf" are the open ends; anything else is ISO 8601 with an offset. */
static int64_t instant(const char *iso)
{
    GDateTime *dt;
    int64_t t;

    if (strcmp(iso, "-inf") == 0)
        return INT64_MIN;
    if (strcmp(iso, "+inf") == 0)
        return INT64_MAX;
    dt = g_date_time_new_from_iso8601(iso, NULL);
    if (!dt) {
        printf("# bad expected time in the test table: %s\n", iso);
        return 0;
    }
    t = g_date_time_to_unix(dt);
    g_date_time_unref(dt);
    return t;
}

struct range_case {
    const char *expr, *from, *to;
};

/* Runs a table; reports every mismatch before failing, so one run shows them all. */
static int check_ranges(const struct range_case *cases, size_t n, time_t now)
{
    int bad = 0;

    for (size_t i = 0; i < n; i++) {
        int64_t from = 42, to = 42, want_from = instant(cases[i].from), want_to = instant(cases[i].to);
        const char *msg = "unset";
        int r = maildex__parse_date_range(cases[i].expr, now, &from, &to, &msg);

        if (r != 0 || from != want_from || to != want_to || msg != NULL) {
            printf("# date:%s -> r=%d (%s) [%" PRId64 ", %" PRId64 "], expected [%" PRId64 ", %" PRId64
                   "] = [%s, %s]\n",
                   cases[i].expr, r, msg ? msg : "no message", from, to, want_from, want_to,
                   cases[i].from, cases[i].to);
            bad++;
        }
    }
    return bad;
}

#define CHECK_RANGES(cases, now) ASSERT_EQ(check_ranges(cases, G_N_ELEMENTS(cases), now), 0)

/* notmuch's T490 "Date parser tests" and "Second rounding tests", reference Tue Jan 11 12:13:14 UTC 2011.
 * round: '=' exact, '_' down, '^' up inclusive, 'U' up (T490's ==>, ==_>, ==^>, ==^^>). */
TEST(t490_cases)
{
    static const struct {
        const char *in;
        char round;
        const char *out; /* ISO time, or the error code's number as text */
    } cases[] = {
        {"now", '=', "2011-01-11T12:13:14Z"},
        {"2010-1-1", '=', "E5"}, /* DATEFORMAT */
        {"Jan 2", '=', "2011-01-02T12:13:14Z"},
        {"Mon", '=', "2011-01-10T12:13:14Z"},
        {"last Friday", '=', "E4"}, /* FORMAT */
        {"2 hours ago", '=', "2011-01-11T10:13:14Z"},
        {"last month", '=', "2010-12-11T12:13:14Z"},
        {"month ago", '=', "2010-12-11T12:13:14Z"},
        {"two mo", '=', "2010-11-11T12:13:14Z"},
        {"3M", '=', "2010-10-11T12:13:14Z"},
        {"4-mont", '=', "2010-09-11T12:13:14Z"},
        {"5m", '=', "2011-01-11T12:08:14Z"},
        {"dozen mi", '=', "2011-01-11T12:01:14Z"},
        {"8am", '=', "2011-01-11T08:00:00Z"},
        {"monday", '=', "2011-01-10T12:13:14Z"},
        {"yesterday", '=', "2011-01-10T12:13:14Z"},
        {"tomorrow", '=', "E9"}, /* KEYWORD */
        {"", '=', "2011-01-11T12:13:14Z"},
        {"Aug 3 23:06:06 2012", '=', "2012-08-03T23:06:06Z"},
        {"Fri, 03 Aug 2012 23:07:46 +0100", '=', "2012-08-03T22:07:46Z"},
        {"2012-08-03 23:09:37+03:00", '=', "2012-08-03T20:09:37Z"},
        {"10:30:40", '=', "2011-01-11T10:30:40Z"},
        {"10:30:40", '^', "2011-01-11T10:30:40Z"},
        {"10:30:40", 'U', "2011-01-11T10:30:40Z"},
        {"10:30:40", '_', "2011-01-11T10:30:40Z"},
        {"10s", '=', "2011-01-11T12:13:04Z"},
        {"19701223s", '=', "2010-05-28T11:39:31Z"},
        {"19701223", '=', "1970-12-23T12:13:14Z"},
        {"19701223 +0100", '=', "1970-12-23T12:13:14Z"},
        {"today", 'U', "2011-01-12T00:00:00Z"},
        {"today", '^', "2011-01-11T23:59:59Z"},
        {"today", '_', "2011-01-11T00:00:00Z"},
        {"this week", 'U', "2011-01-16T00:00:00Z"},
        {"this week", '^', "2011-01-15T23:59:59Z"},
        {"this week", '_', "2011-01-09T00:00:00Z"},
        {"two months ago", '=', "2010-11-11T12:13:14Z"},
        {"two months", '=', "2010-11-11T12:13:14Z"},
        {"@1348569850", '=', "2012-09-25T10:44:10Z"},
        {"@10", '=', "1970-01-01T00:00:10Z"},
        {"9:15", '=', "2011-01-11T09:15:14Z"},
        {"12:34", '=', "2011-01-11T12:34:14Z"},
        {"10:30", '=', "2011-01-11T10:30:14Z"},
        {"10:30", '^', "2011-01-11T10:30:59Z"},
        {"10:30", 'U', "2011-01-11T10:31:00Z"},
        {"10:30", '_', "2011-01-11T10:30:00Z"},
    };
    const time_t ref = 1294747994; /* Tue Jan 11 12:13:14 UTC 2011 */
    int bad = 0;

    use_tz("UTC");
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int round = cases[i].round == '_'   ? MAILDEX__ROUND_DOWN
                    : cases[i].round == '^' ? MAILDEX__ROUND_UP_INCLUSIVE
                    : cases[i].round == 'U' ? MAILDEX__ROUND_UP
                                            : MAILDEX__ROUND_EXACT;
        time_t t = 42;
        int r = maildex__parse_time_string(cases[i].in, &t, &ref, round);
        int want_error = cases[i].out[0] == 'E' ? atoi(cases[i].out + 1) : 0;

        if (want_error ? (r != want_error || t != 42)
                       : (r != 0 || (int64_t) t != instant(cases[i].out))) {
            printf("# '%s' round %c -> r=%d (%s) t=%" PRId64 ", expected %s\n", cases[i].in,
                   cases[i].round, r, maildex__parse_time_strerror(r), (int64_t) t, cases[i].out);
            bad++;
        }
    }
    ASSERT_EQ(bad, 0);
}

TEST(absolute_forms_utc)
{
    static const struct range_case cases[] = {
        {"2024", "2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z"},
        {"2024-01", "2024-01-01T00:00:00Z", "2024-01-31T23:59:59Z"},
        {"2024-01-01", "2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z"},
        {"2024-02", "2024-02-01T00:00:00Z", "2024-02-29T23:59:59Z"},
        {"20240115", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"01/02/2024", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59Z"},
        {"1/2/24", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59Z"},
        {"12/25", "2024-12-25T00:00:00Z", "2024-12-25T23:59:59Z"},
        {"1/2024", "2024-01-01T00:00:00Z", "2024-01-31T23:59:59Z"},
        {"15-01-2024", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"15-01-99", "1999-01-15T00:00:00Z", "1999-01-15T23:59:59Z"},
        {"15-01", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"03-2023", "2023-03-01T00:00:00Z", "2023-03-31T23:59:59Z"},
        {"15.1.2024", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"5.6.70", "1970-06-05T00:00:00Z", "1970-06-05T23:59:59Z"},
        {"15.01", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"jan_2_2024", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59Z"},
        {"jan 2 2024", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59Z"},
        {"2_JAN_2024", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59Z"},
        {"1st_jan_2024", "2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z"},
        {"feb_22nd", "2024-02-22T00:00:00Z", "2024-02-22T23:59:59Z"},
        {"3rd-march-2023", "2023-03-03T00:00:00Z", "2023-03-03T23:59:59Z"},
        {"11th_nov_2023", "2023-11-11T00:00:00Z", "2023-11-11T23:59:59Z"},
        {"january", "2024-01-01T00:00:00Z", "2024-01-31T23:59:59Z"},
        {"aug_2012", "2012-08-01T00:00:00Z", "2012-08-31T23:59:59Z"},
        {"2012_sept", "2012-09-01T00:00:00Z", "2012-09-30T23:59:59Z"},
        /* notmuch does not check the day against the month: mktime-style overflow */
        {"2024-02-30", "2024-03-01T00:00:00Z", "2024-03-01T23:59:59Z"},
        {"@1700000000", "2023-11-14T22:13:20Z", "2023-11-14T22:13:20Z"},
        {"@1700000000..@1700003600", "2023-11-14T22:13:20Z", "2023-11-14T23:13:20Z"},
        {"2010-12-16..12/16/2010", "2010-12-16T00:00:00Z", "2010-12-16T23:59:59Z"},
        {"2010-12-16..!", "2010-12-16T00:00:00Z", "2010-12-16T23:59:59Z"},
        {"2024-01-01..2024-02", "2024-01-01T00:00:00Z", "2024-02-29T23:59:59Z"},
        {"2023-12-31..2024-01-01_10:30", "2023-12-31T00:00:00Z", "2024-01-01T10:30:59Z"},
        {"..jan_2_2024", "-inf", "2024-01-02T23:59:59Z"},
        {"2024-01-01..", "2024-01-01T00:00:00Z", "+inf"},
        {"..", "-inf", "+inf"},
    };

    use_tz("UTC");
    CHECK_RANGES(cases, NOW);
}

TEST(times_utc)
{
    static const struct range_case cases[] = {
        {"2024-01-01_10:30", "2024-01-01T10:30:00Z", "2024-01-01T10:30:59Z"},
        {"2024-01-01_10:30:15", "2024-01-01T10:30:15Z", "2024-01-01T10:30:15Z"},
        {"2024-01-01_103015", "2024-01-01T10:30:15Z", "2024-01-01T10:30:15Z"},
        {"9:05", "2024-01-15T09:05:00Z", "2024-01-15T09:05:59Z"},
        {"10:30pm", "2024-01-15T22:30:00Z", "2024-01-15T22:30:59Z"},
        {"10:30_am", "2024-01-15T10:30:00Z", "2024-01-15T10:30:59Z"},
        {"5pm", "2024-01-15T17:00:00Z", "2024-01-15T17:00:00Z"},
        {"12am", "2024-01-15T00:00:00Z", "2024-01-15T00:00:00Z"},
        {"12pm", "2024-01-15T12:00:00Z", "2024-01-15T12:00:00Z"},
        {"8am..5pm", "2024-01-15T08:00:00Z", "2024-01-15T17:00:00Z"},
        {"noon", "2024-01-15T12:00:00Z", "2024-01-15T12:00:00Z"},
        {"midnight..noon", "2024-01-15T00:00:00Z", "2024-01-15T12:00:00Z"},
        {"now", "2024-01-15T12:34:56Z", "2024-01-15T12:34:56Z"},
        {"noon..now", "2024-01-15T12:00:00Z", "2024-01-15T12:34:56Z"},
        {"2024-01-15_24:00:00", "2024-01-16T00:00:00Z", "2024-01-16T00:00:00Z"},
        {"Fri, 03 Aug 2012 23:07:46 +0100", "2012-08-03T22:07:46Z", "2012-08-03T22:07:46Z"},
    };

    use_tz("UTC");
    CHECK_RANGES(cases, NOW);
}

TEST(zones)
{
    static const struct range_case cases[] = {
        {"2024-01-01_10:00+02:00", "2024-01-01T08:00:00Z", "2024-01-01T08:00:59Z"},
        {"2024-01-01_10:00_+0200", "2024-01-01T08:00:00Z", "2024-01-01T08:00:59Z"},
        {"2024-01-01_10:00-0800", "2024-01-01T18:00:00Z", "2024-01-01T18:00:59Z"},
        {"2024-01-01_10:00-05", "2024-01-01T15:00:00Z", "2024-01-01T15:00:59Z"},
        {"2024-01-01_EET", "2023-12-31T22:00:00Z", "2024-01-01T21:59:59Z"},
        {"2024-01-01_pst", "2024-01-01T08:00:00Z", "2024-01-02T07:59:59Z"},
        {"2024-01-01_10:00_UTC", "2024-01-01T10:00:00Z", "2024-01-01T10:00:59Z"},
        {"2024-01-01_10:00_nst", "2024-01-01T13:30:00Z", "2024-01-01T13:30:59Z"},
        {"18-Nov-2009_02:19:26-0800..2009-11-18_04:49:52-06:00", "2009-11-18T10:19:26Z",
         "2009-11-18T10:49:52Z"},
    };

    /* A local zone far from every one above, so a zone that is ignored shows. */
    use_tz("America/New_York");
    CHECK_RANGES(cases, NOW);
}

TEST(relative_forms_utc)
{
    static const struct range_case cases[] = {
        {"yesterday", "2024-01-14T00:00:00Z", "2024-01-14T23:59:59Z"},
        {"yesterday..!", "2024-01-14T00:00:00Z", "2024-01-14T23:59:59Z"},
        {"today", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"today..", "2024-01-15T00:00:00Z", "+inf"},
        {"3d..", "2024-01-12T00:00:00Z", "+inf"},
        {"3_days..", "2024-01-12T00:00:00Z", "+inf"},
        {"three-days-ago", "2024-01-12T00:00:00Z", "2024-01-12T23:59:59Z"},
        {"dozen days", "2024-01-03T00:00:00Z", "2024-01-03T23:59:59Z"},
        {"2h", "2024-01-15T10:00:00Z", "2024-01-15T10:59:59Z"},
        {"3hrs..", "2024-01-15T09:00:00Z", "+inf"},
        {"10m", "2024-01-15T12:24:00Z", "2024-01-15T12:24:59Z"},
        {"10_mins", "2024-01-15T12:24:00Z", "2024-01-15T12:24:59Z"},
        {"hundred_minutes", "2024-01-15T10:54:00Z", "2024-01-15T10:54:59Z"},
        {"30s", "2024-01-15T12:34:26Z", "2024-01-15T12:34:26Z"},
        {"m", "2024-01-15T12:33:00Z", "2024-01-15T12:33:59Z"},
        /* A month back with no day given covers that whole month. */
        {"10M", "2023-03-01T00:00:00Z", "2023-03-31T23:59:59Z"},
        {"M", "2023-12-01T00:00:00Z", "2023-12-31T23:59:59Z"},
        {"last_month", "2023-12-01T00:00:00Z", "2023-12-31T23:59:59Z"},
        {"this_month", "2024-01-01T00:00:00Z", "2024-01-31T23:59:59Z"},
        {"1y", "2023-01-01T00:00:00Z", "2023-12-31T23:59:59Z"},
        {"five years ago", "2019-01-01T00:00:00Z", "2019-12-31T23:59:59Z"},
        {"this year", "2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z"},
        /* Weeks run Sunday to Saturday. */
        {"2w..", "2023-12-31T00:00:00Z", "+inf"},
        {"2w", "2023-12-31T00:00:00Z", "2024-01-06T23:59:59Z"},
        {"this_week", "2024-01-14T00:00:00Z", "2024-01-20T23:59:59Z"},
        {"two weeks ago..", "2023-12-31T00:00:00Z", "+inf"},
        {"5M2d", "2023-08-13T00:00:00Z", "2023-08-13T23:59:59Z"},
        {"1y2M3w4d", "2022-10-21T00:00:00Z", "2022-10-21T23:59:59Z"},
        /* Weekday names count back from today; today itself is a week ago. */
        {"monday", "2024-01-08T00:00:00Z", "2024-01-08T23:59:59Z"},
        {"fri", "2024-01-12T00:00:00Z", "2024-01-12T23:59:59Z"},
        {"Sunday..", "2024-01-14T00:00:00Z", "+inf"},
        /* Relative parts combined with absolute ones are relative to them. */
        {"2024-01-01_2d", "2023-12-30T00:00:00Z", "2023-12-30T23:59:59Z"},
        {"jan_31_2024_1_month", "2023-12-31T00:00:00Z", "2023-12-31T23:59:59Z"},
        {"2024-03-31_1M", "2024-03-02T00:00:00Z", "2024-03-02T23:59:59Z"},
        {"5pm_yesterday", "2024-01-14T17:00:00Z", "2024-01-14T17:00:00Z"},
        {"yesterday_10:00", "2024-01-14T10:00:00Z", "2024-01-14T10:00:59Z"},
        {"2d..yesterday", "2024-01-13T00:00:00Z", "2024-01-14T23:59:59Z"},
    };

    use_tz("UTC");
    CHECK_RANGES(cases, NOW);
}

/* Each year is read with its own zone rules: US summer time began in April in 1984 but on the second
 * Sunday of March (March 11 in 1984's calendar) from 2007 on. */
TEST(local_rules_of_the_year)
{
    static const struct range_case cases[] = {
        {"1984-03-11", "1984-03-11T00:00:00-05:00", "1984-03-11T23:59:59-05:00"},
        {"1984-04-29", "1984-04-29T00:00:00-05:00", "1984-04-29T23:59:59-04:00"},
        {"2007-03-11", "2007-03-11T00:00:00-05:00", "2007-03-11T23:59:59-04:00"},
        {"1984-07-04_noon", "1984-07-04T12:00:00-04:00", "1984-07-04T12:00:00-04:00"},
    };

    use_tz("America/New_York");
    CHECK_RANGES(cases, NOW);
}

/* Years GLib cannot hold still work, as with notmuch's mktime(): 2400 years is exactly six 400-year
 * Gregorian cycles of 146097 days. */
TEST(years_before_one)
{
    const int64_t cycles = 6 * INT64_C(146097) * 86400;
    int64_t from, to;

    use_tz("UTC");
    ASSERT_EQ(maildex__parse_date_range("2400y", NOW, &from, &to, NULL), 0);
    ASSERT_EQ(from, instant("2024-01-01T00:00:00Z") - cycles);
    ASSERT_EQ(to, instant("2024-12-31T23:59:59Z") - cycles);
    ASSERT_EQ(maildex__parse_date_range("2400_years_3w..", NOW, &from, &to, NULL), 0);
    ASSERT_EQ(from, instant("2023-12-24T00:00:00Z") - cycles); /* 2023-12-25 is a Monday in any cycle */
    ASSERT_EQ(to, INT64_MAX);
}

/* Seconds need '@' in date:, as in notmuch: `date:1700000000..` and `date:1960..1971` are errors (notmuch
 * reads both sides as dates). The unprefixed legacy `A..B` reaches this function as `@A..@B`. Quoted sides
 * (Xapian hands `date:"2021"..2022` over with its quotes) are read as dates, the quotes skipped. */
TEST(legacy_epoch_range)
{
    static const struct range_case cases[] = {
        {"@1700000000..@1700003600", "2023-11-14T22:13:20Z", "2023-11-14T23:13:20Z"},
        {"@0..@1700003600", "1970-01-01T00:00:00Z", "2023-11-14T23:13:20Z"},
        {"@1700000000..", "2023-11-14T22:13:20Z", "+inf"},
        {"@0..@5", "1970-01-01T00:00:00Z", "1970-01-01T00:00:05Z"},
        /* digits that read as a date stay a date */
        {"2023..2024", "2023-01-01T00:00:00Z", "2024-12-31T23:59:59Z"},
        {"\"2021\"..2022", "2021-01-01T00:00:00Z", "2022-12-31T23:59:59Z"},
        {"\"2021..2022\"", "2021-01-01T00:00:00Z", "2022-12-31T23:59:59Z"},
    };
    static const char *const bad[] = {"1700000000..1700003600", "..1700003600", "1700000000..", "0..5",
                                      "1960..1971", "1969..1971", "\"1960..1971\""};
    int64_t from = 42, to = 43;

    use_tz("UTC");
    CHECK_RANGES(cases, NOW);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        const char *msg = NULL;

        if (maildex__parse_date_range(bad[i], NOW, &from, &to, &msg) == 0 || msg == NULL)
            printf("# date:%s was accepted\n", bad[i]);
        ASSERT_NE(maildex__parse_date_range(bad[i], NOW, &from, &to, NULL), 0);
    }
    ASSERT_EQ(from, 42);
    ASSERT_EQ(to, 43);
}

static const struct range_case helsinki_cases[] = {
    {"2024-01-01", "2024-01-01T00:00:00+02:00", "2024-01-01T23:59:59+02:00"},
    {"2024", "2024-01-01T00:00:00+02:00", "2024-12-31T23:59:59+02:00"},
    {"2024-07", "2024-07-01T00:00:00+03:00", "2024-07-31T23:59:59+03:00"},
    /* The day summer time starts has 23 hours, the day it ends 25. */
    {"2024-03-31", "2024-03-31T00:00:00+02:00", "2024-03-31T23:59:59+03:00"},
    {"2024-10-27", "2024-10-27T00:00:00+03:00", "2024-10-27T23:59:59+02:00"},
    {"today", "2024-01-15T00:00:00+02:00", "2024-01-15T23:59:59+02:00"},
    {"yesterday", "2024-01-14T00:00:00+02:00", "2024-01-14T23:59:59+02:00"},
    {"2h", "2024-01-15T12:00:00+02:00", "2024-01-15T12:59:59+02:00"},
    {"noon", "2024-01-15T12:00:00+02:00", "2024-01-15T12:00:00+02:00"},
    {"jul_4_2023_noon", "2023-07-04T12:00:00+03:00", "2023-07-04T12:00:00+03:00"},
    {"2024-01-01_10:00_UTC", "2024-01-01T10:00:00Z", "2024-01-01T10:00:59Z"},
    {"2024-01-01_10:00+05:00", "2024-01-01T10:00:00+05:00", "2024-01-01T10:00:59+05:00"},
    {"@1700000000", "2023-11-14T22:13:20Z", "2023-11-14T22:13:20Z"},
    {"2w", "2023-12-31T00:00:00+02:00", "2024-01-06T23:59:59+02:00"},
    /* Summer time keeps its rule in far years too (GLib alone drops it before the year 3000). */
    {"5000-07-01", "5000-07-01T00:00:00+03:00", "5000-07-01T23:59:59+03:00"},
};

/* Across a change of summer time, minutes, hours and days move the wall clock while seconds move the
 * instant, as glibc's mktime() does for notmuch. */
TEST(relative_across_summer_time)
{
    static const struct range_case cases[] = {
        {"5000h", "2023-06-21T06:00:00+03:00", "2023-06-21T06:59:59+03:00"},
        {"19701223s", "2023-06-01T15:01:13+03:00", "2023-06-01T15:01:13+03:00"},
        {"180d", "2023-07-19T00:00:00+03:00", "2023-07-19T23:59:59+03:00"},
    };

    use_tz("Europe/Helsinki");
    CHECK_RANGES(cases, NOW);
}

TEST(helsinki_named_zone)
{
    use_tz("Europe/Helsinki");
    CHECK_RANGES(helsinki_cases, NOW);
}

TEST(helsinki_posix_rule)
{
    use_tz(HELSINKI_POSIX);
    CHECK_RANGES(helsinki_cases, NOW);
}

/* Near midnight UTC the local calendar day is already the next one: "today" must be the local day. */
TEST(local_day_differs_from_utc_day)
{
    static const struct range_case cases[] = {
        {"today", "2024-01-16T00:00:00+02:00", "2024-01-16T23:59:59+02:00"},
        {"today_utc", "2024-01-15T00:00:00Z", "2024-01-15T23:59:59Z"},
        {"tue", "2024-01-09T00:00:00+02:00", "2024-01-09T23:59:59+02:00"},
    };
    const time_t late = 1705361400; /* 2024-01-15T23:30:00Z = Tuesday 01:30 in Helsinki */

    use_tz("Europe/Helsinki");
    CHECK_RANGES(cases, late);
}

TEST(time_string_defaults_to_current_time)
{
    time_t before = time(NULL), t = 0, after;

    use_tz("UTC");
    ASSERT_EQ(maildex__parse_time_string("now", &t, NULL, MAILDEX__ROUND_DOWN), 0);
    after = time(NULL);
    ASSERT(t >= before && t <= after);
    ASSERT_EQ(maildex__parse_time_string("now", NULL, NULL, MAILDEX__ROUND_DOWN), MAILDEX__PARSE_TIME_ERR);
    ASSERT_EQ(maildex__parse_time_string(NULL, &t, NULL, MAILDEX__ROUND_DOWN), MAILDEX__PARSE_TIME_ERR);
    ASSERT_EQ(maildex__parse_time_string("now", &t, NULL, 7), MAILDEX__PARSE_TIME_ERR);
}

TEST(errors)
{
    static const struct {
        const char *expr;
        int code;
    } cases[] = {
        {"2024-01-01T11:00..", MAILDEX__PARSE_TIME_ERR_KEYWORD},
        {"garbage", MAILDEX__PARSE_TIME_ERR_KEYWORD},
        {"tomorrow", MAILDEX__PARSE_TIME_ERR_KEYWORD},
        {"2024..tomorrow", MAILDEX__PARSE_TIME_ERR_KEYWORD},
        {"", MAILDEX__PARSE_TIME_ERR},
        {"2010-1-1", MAILDEX__PARSE_TIME_ERR_DATEFORMAT},
        {"January-2-2024", MAILDEX__PARSE_TIME_ERR_DATEFORMAT}, /* "2-2024" reads as a D-YYYY date */
        {"20/5/2005", MAILDEX__PARSE_TIME_ERR_INVALIDDATE},
        {"2024-13", MAILDEX__PARSE_TIME_ERR_INVALIDDATE},
        {"1969", MAILDEX__PARSE_TIME_ERR_FORMAT},
        {"2024-01-32", MAILDEX__PARSE_TIME_ERR_INVALIDDATE},
        {"25:00", MAILDEX__PARSE_TIME_ERR_INVALIDTIME},
        {"13pm", MAILDEX__PARSE_TIME_ERR_INVALIDTIME},
        {"pm", MAILDEX__PARSE_TIME_ERR_TIMEFORMAT},
        {"10:30+15:00", MAILDEX__PARSE_TIME_ERR_INVALIDTIME},
        {"2024 2025", MAILDEX__PARSE_TIME_ERR_ALREADYSET},
        {"mon tue", MAILDEX__PARSE_TIME_ERR_ALREADYSET},
        {"last friday", MAILDEX__PARSE_TIME_ERR_FORMAT},
        {"2024-01-01_10", MAILDEX__PARSE_TIME_ERR_FORMAT},
        {"1nd_jan", MAILDEX__PARSE_TIME_ERR_INVALIDDATE},
        {"st", MAILDEX__PARSE_TIME_ERR_DATEFORMAT},
        {"a.m.", MAILDEX__PARSE_TIME_ERR_KEYWORD},
        {"1700000000", MAILDEX__PARSE_TIME_ERR_FORMAT}, /* an epoch needs '@' outside a range */
        {"99999999999999999999..", MAILDEX__PARSE_TIME_ERR_FORMAT},
        {"2147483647 years 2147483647 years", MAILDEX__PARSE_TIME_ERR_LIB}, /* beyond any int year */
        {"2147483647 weeks 2147483647 weeks", MAILDEX__PARSE_TIME_ERR_LIB},
    };
    int bad = 0;

    use_tz("UTC");
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int64_t from = 42, to = 43;
        const char *msg = NULL;
        int r = maildex__parse_date_range(cases[i].expr, NOW, &from, &to, &msg);

        if (r != cases[i].code || from != 42 || to != 43 || msg == NULL) {
            printf("# date:%s -> r=%d (%s), expected %d\n", cases[i].expr, r, msg ? msg : "no message",
                   cases[i].code);
            bad++;
        }
    }
    ASSERT_EQ(bad, 0);
    {
        const char *msg = NULL;
        int64_t from, to;

        ASSERT_NE(maildex__parse_date_range("garbage", NOW, &from, &to, &msg), 0);
        ASSERT_STR_EQ(msg, "Didn't understand date specification");
        ASSERT_NE(maildex__parse_date_range(NULL, NOW, &from, &to, &msg), 0);
        ASSERT(msg != NULL);
        ASSERT_NE(maildex__parse_date_range("x", NOW, &from, &to, NULL), 0);
    }
}

/* Pieces that exercise every path, glued with every separator, plus raw random bytes: nothing may crash,
 * hang or trip a sanitizer, and a single term X must give from <= to. */
TEST(garbage_never_crashes)
{
    static const char *const pieces[] = {
        "2024", "-", "01", "/", "15", ".", ":", "30", "+", "0200", "@", "1700000000", "..", "!", "_", " ",
        "jan", "mon", "M", "m", "w", "d", "y", "h", "s", "last", "this", "two", "dozen", "pm", "am",
        "noon", "now", "today", "yesterday", "utc", "st", "th", "ago", "123456", "20240115", "99999999999",
        "x", "\xff", "\x80", "..!", ",", "24:00:00", "1", "7",
    };
    static const char *const zones[] = {"UTC", "Europe/Helsinki", HELSINKI_POSIX, "Asia/Kolkata"};
    GRand *rng = g_rand_new_with_seed(20240115);
    char buf[128];
    int parsed = 0, inverted = 0;

    for (int i = 0; i < 40000; i++) {
        size_t len = 0;
        int64_t from, to;
        const char *msg;
        int r;

        if (i % 10000 == 0)
            use_tz(zones[i / 10000 % G_N_ELEMENTS(zones)]);
        if (i % 4 == 0) {
            int n = g_rand_int_range(rng, 0, 40);

            for (int k = 0; k < n; k++)
                buf[len++] = (char) g_rand_int_range(rng, 1, 256);
        } else {
            int n = g_rand_int_range(rng, 1, 8);

            for (int k = 0; k < n; k++) {
                const char *piece = pieces[g_rand_int_range(rng, 0, G_N_ELEMENTS(pieces))];
                size_t pl = strlen(piece);

                if (len + pl >= sizeof buf)
                    break;
                memcpy(buf + len, piece, pl);
                len += pl;
            }
        }
        buf[len] = '\0';
        r = maildex__parse_date_range(buf, NOW + g_rand_int_range(rng, -100000000, 100000000), &from, &to,
                                      &msg);
        ASSERT(r == 0 ? msg == NULL : msg != NULL);
        if (r == 0) {
            parsed++;
            if (!strstr(buf, "..") && strcmp(buf, "!") != 0 && from > to) {
                if (inverted++ < 5)
                    printf("# '%s': from %" PRId64 " > to %" PRId64 "\n", buf, from, to);
            }
        }
    }
    g_rand_free(rng);
    printf("# %d of 40000 random expressions parsed\n", parsed);
    ASSERT(parsed > 1000);
    ASSERT_EQ(inverted, 0);
}

TEST_MAIN(TEST_ENTRY(t490_cases) TEST_ENTRY(absolute_forms_utc) TEST_ENTRY(times_utc) TEST_ENTRY(zones)
          TEST_ENTRY(relative_forms_utc) TEST_ENTRY(local_rules_of_the_year) TEST_ENTRY(years_before_one)
          TEST_ENTRY(legacy_epoch_range) TEST_ENTRY(relative_across_summer_time)
          TEST_ENTRY(helsinki_named_zone) TEST_ENTRY(helsinki_posix_rule)
          TEST_ENTRY(local_day_differs_from_utc_day) TEST_ENTRY(time_string_defaults_to_current_time)
          TEST_ENTRY(errors) TEST_ENTRY(garbage_never_crashes))
