/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Calendar arithmetic for the date parser on GLib's GDateTime and GTimeZone: wall-clock fields to seconds
 * and back, with fields out of range carried as glibc's mktime() carries them, and years beyond GLib's
 * 1-9999 moved into its range by whole 400-year cycles. It must not know the date syntax, nor "now":
 * it only converts. */
#include "parse-time-calendar.h"

#include "parse-time.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b < 0);
}

void maildex__civil_from_date_time(maildex__civil_t *c, GDateTime *dt)
{
    c->year = g_date_time_get_year(dt);
    c->mon = g_date_time_get_month(dt);
    c->mday = g_date_time_get_day_of_month(dt);
    c->hour = g_date_time_get_hour(dt);
    c->min = g_date_time_get_minute(dt);
    c->sec = g_date_time_get_second(dt);
}

/* GLib holds years 1-9999 only, while notmuch's mktime() takes any int year ("3000 years ago" is a valid,
 * if empty, range there). The Gregorian calendar repeats every 400 years (146097 days, whole weeks), so
 * other years are moved by whole cycles into GLib's range and the cycles added back afterwards. */
#define CYCLE_YEARS INT64_C(400)
#define CYCLE_SECONDS (INT64_C(146097) * 86400)
#define UNIX_2000 INT64_C(946684800)
#define YEAR_LIMIT INT64_C(4000000000) /* any int year, as mktime(); keeps every product inside int64_t */
#define OFFSET_LIMIT INT64_C(2000000000000000) /* seconds: INT_MAX weeks fit */

/* Months beyond this keep year * 12 + month inside int64_t (a date's relative months stop here too). */
#define MONTH_LIMIT INT64_C(1000000000000)

#define UNIX_YEAR_1 INT64_C(-62135596800)
#define UNIX_YEAR_10000 INT64_C(253402300800)

/* How many 400-year cycles to take from a year to bring it where GLib gets it right: none for years 1-2599,
 * so that real years keep their own zone rules; later ones land in 2200-2599, where only a zone's
 * recurring summer-time rule applies, as it would for them (GLib 2.74 stops applying that rule a little
 * before the year 3000, glibc does not). */
static int64_t cycles_to_fit(int64_t year)
{
    return year >= 1 && year <= 2599 ? 0 : floor_div(year - 2200, CYCLE_YEARS);
}

int maildex__civil_from_unix(int64_t x, maildex__civil_t *c, int *wday)
{
    int64_t cycles = x >= UNIX_YEAR_1 && x < UNIX_YEAR_10000 ? 0 : floor_div(x - UNIX_2000, CYCLE_SECONDS);
    GDateTime *dt;

    if (cycles < -YEAR_LIMIT / CYCLE_YEARS || cycles > YEAR_LIMIT / CYCLE_YEARS)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    dt = g_date_time_new_from_unix_utc(x - cycles * CYCLE_SECONDS);
    if (!dt)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    maildex__civil_from_date_time(c, dt);
    c->year += cycles * CYCLE_YEARS;
    if (wday)
        *wday = g_date_time_get_day_of_week(dt) % 7;
    g_date_time_unref(dt);
    return 0;
}

int maildex__civil_to_unix(const maildex__civil_t *c, GTimeZone *tz, int64_t *out)
{
    int64_t months, year, offset, cycles, naive;
    int64_t sec = c->sec < 0 ? 0 : c->sec > 59 ? 59 : c->sec, extra = c->sec - sec;
    GDateTime *dt;
    maildex__civil_t n;
    int r;

    if (c->year < -YEAR_LIMIT || c->year > YEAR_LIMIT || c->mon < -MONTH_LIMIT || c->mon > MONTH_LIMIT ||
        extra < -OFFSET_LIMIT || extra > OFFSET_LIMIT)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    months = c->year * 12 + (c->mon - 1);
    year = floor_div(months, 12);
    offset = (((c->mday - 1) * 24 + c->hour) * 60 + c->min) * 60 + sec;
    if (year < -YEAR_LIMIT || year > YEAR_LIMIT || offset < -OFFSET_LIMIT || offset > OFFSET_LIMIT)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    cycles = cycles_to_fit(year);
    dt = g_date_time_new_utc((int) (year - cycles * CYCLE_YEARS), (int) (months - year * 12 + 1), 1, 0, 0, 0);
    if (!dt)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    naive = g_date_time_to_unix(dt) + cycles * CYCLE_SECONDS + offset;
    g_date_time_unref(dt);
    if (!tz) {
        *out = naive + extra;
        return 0;
    }
    /* Read the carried wall clock in tz; far years get the zone rules of their 2200-2599 twin. */
    if ((r = maildex__civil_from_unix(naive, &n, NULL)))
        return r;
    cycles = cycles_to_fit(n.year);
    dt = g_date_time_new(tz, (int) (n.year - cycles * CYCLE_YEARS), (int) n.mon, (int) n.mday, (int) n.hour,
                         (int) n.min, (gdouble) n.sec);
    if (!dt)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    *out = g_date_time_to_unix(dt) + cycles * CYCLE_SECONDS + extra;
    g_date_time_unref(dt);
    return 0;
}
