/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Date expressions for `date:`: a re-implementation of notmuch's parse_time_string() that keeps its grammar,
 * its quirks and its rounding, with GLib doing the calendar (parse-time-calendar.c: month lengths, leap
 * years, weekdays, time zones).
 *
 * Two phases, as in notmuch. Reading (parse-time-read.c) records which fields the text gives. Building,
 * here (build_time), then fills the missing fields from "now" with the requested rounding, subtracts the
 * relative amounts with mktime()-style overflow (Jan 31 minus one month is "Dec 31", Mar 31 minus one month
 * is "Feb 31" = Mar 2 or 3) and converts the wall-clock result through the given zone or the local one.
 * Daylight saving time gets no special treatment, as in notmuch. The `X..Y` text of a date: term becomes a
 * range here too.
 *
 * The date parser must not know the query language beyond the `X..Y` range form, and must never crash,
 * hang or overflow on any input: every number is bounded before it is used. */
#include "parse-time.h"

#include "parse-time-calendar.h"
#include "parse-time-fields.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

/* ---- building the result -------------------------------------------------------------------------- */

/* "now" as wall-clock fields in the zone the text gave, or in local time. */
static int reference_fields(const maildex__time_parse_t *p, time_t ref, GTimeZone *tz, maildex__civil_t *now, int *wday)
{
    GDateTime *utc, *dt;

    if (maildex__time_is_set(p, MAILDEX__TF_TZ))
        return maildex__civil_from_unix((int64_t) ref + p->value[MAILDEX__TF_TZ] * 60, now, wday);
    utc = g_date_time_new_from_unix_utc((gint64) ref);
    dt = utc ? g_date_time_to_timezone(utc, tz) : NULL;
    if (utc)
        g_date_time_unref(utc);
    if (!dt)
        return MAILDEX__PARSE_TIME_ERR_LIB;
    maildex__civil_from_date_time(now, dt);
    *wday = g_date_time_get_day_of_week(dt) % 7;
    g_date_time_unref(dt);
    return 0;
}

static int64_t now_field(const maildex__civil_t *now, enum maildex__time_field f)
{
    switch (f) {
    case MAILDEX__TF_SEC:
        return now->sec;
    case MAILDEX__TF_MIN:
        return now->min;
    case MAILDEX__TF_HOUR:
        return now->hour;
    case MAILDEX__TF_MDAY:
        return now->mday;
    case MAILDEX__TF_MON:
        return now->mon;
    default:
        return now->year;
    }
}

/* The smallest value of a field, which rounding puts in the fields finer than the text's finest. */
static int64_t first_value(enum maildex__time_field f)
{
    return f == MAILDEX__TF_MDAY || f == MAILDEX__TF_MON ? 1 : f == MAILDEX__TF_YEAR ? 1970 : 0;
}

/* Turns am/pm into a relative hour shift (12am is midnight, 12pm noon), as notmuch does. */
static int apply_ampm(maildex__time_parse_t *p)
{
    int64_t h, shift = 0;

    if (!maildex__time_is_set(p, MAILDEX__TF_AMPM))
        return 0;
    if (!maildex__time_is_set(p, MAILDEX__TF_HOUR))
        return MAILDEX__PARSE_TIME_ERR_TIMEFORMAT;
    h = p->value[MAILDEX__TF_HOUR];
    if (!maildex__time_valid_hour12(h))
        return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
    if (p->value[MAILDEX__TF_AMPM] && h != 12)
        shift = 12;
    else if (!p->value[MAILDEX__TF_AMPM] && h == 12)
        shift = -12;
    return maildex__time_add_field(p, MAILDEX__TF_REL_HOUR, -shift);
}

/* Fills the fields the text left out, finest first, rounding below the finest field it gave. Returns the
 * rounding still owed to a week ("2w", "this week"), which is decided once the weekday is known. */
static int fill_fields(maildex__time_parse_t *p, const maildex__civil_t *now, int round)
{
    int week_round = MAILDEX__ROUND_EXACT;

    for (enum maildex__time_field f = MAILDEX__TF_SEC; f <= MAILDEX__TF_YEAR; f++) {
        if (round != MAILDEX__ROUND_EXACT) {
            if (maildex__time_is_set(p, f) || maildex__time_is_set(p, maildex__time_rel_of(f))) {
                /* The finest field given: rounding up moves on by one of it (a relative -1). */
                if (round >= MAILDEX__ROUND_UP && f != MAILDEX__TF_SEC) {
                    p->value[maildex__time_rel_of(f)] -= 1;
                    p->how[maildex__time_rel_of(f)] = MAILDEX__TF_GIVEN;
                    if (round == MAILDEX__ROUND_UP_INCLUSIVE) {
                        p->value[MAILDEX__TF_REL_SEC] += 1;
                        p->how[MAILDEX__TF_REL_SEC] = MAILDEX__TF_GIVEN;
                    }
                }
                round = MAILDEX__ROUND_EXACT;
            } else if (f == MAILDEX__TF_MDAY && maildex__time_is_set(p, MAILDEX__TF_REL_WEEK)) {
                week_round = round;
                round = MAILDEX__ROUND_EXACT;
            } else {
                p->value[f] = first_value(f);
                p->how[f] = MAILDEX__TF_GIVEN;
            }
        }
        if (!maildex__time_is_set(p, f)) {
            p->value[f] = now_field(now, f);
            p->how[f] = MAILDEX__TF_GIVEN;
        }
    }
    return week_round;
}

/* Moves c to the start of its week (Sunday 00:00, as notmuch) or, rounding up, to the next one. */
static int round_to_week(maildex__civil_t *c, int week_round)
{
    int64_t x;
    int wday, r;

    if ((r = maildex__civil_to_unix(c, NULL, &x)) || (r = maildex__civil_from_unix(x, c, &wday)))
        return r;
    c->hour = c->min = c->sec = 0;
    if (week_round >= MAILDEX__ROUND_UP) {
        c->mday += 7 - wday;
        if (week_round == MAILDEX__ROUND_UP_INCLUSIVE)
            c->sec = -1;
    } else {
        c->mday -= wday;
    }
    return 0;
}

static int build_time(maildex__time_parse_t *p, time_t ref, int round, time_t *out)
{
    GTimeZone *tz = maildex__time_is_set(p, MAILDEX__TF_TZ) ? NULL : g_time_zone_new_local();
    maildex__civil_t now, c;
    int64_t result;
    int today, week_round, r;

    if ((r = reference_fields(p, ref, tz, &now, &today)))
        goto done;
    for (enum maildex__time_field f = MAILDEX__TF_SEC; f <= MAILDEX__TF_YEAR; f++)
        if (p->how[f] == MAILDEX__TF_FROM_NOW)
            p->value[f] = now_field(&now, f), p->how[f] = MAILDEX__TF_GIVEN;
    /* A weekday without a day of the month means the last such day before today ("Mon" on a Monday is
     * a week ago); with one ("Fri, 03 Aug 2012") it is ignored. */
    if (maildex__time_is_set(p, MAILDEX__TF_WDAY) && !maildex__time_is_set(p, MAILDEX__TF_MDAY)) {
        int64_t wday = p->value[MAILDEX__TF_WDAY];

        if ((r = maildex__time_add_field(p, MAILDEX__TF_REL_DAY, today > wday ? today - wday : today + 7 - wday)))
            goto done;
        p->how[MAILDEX__TF_WDAY] = MAILDEX__TF_UNSET;
    }
    if ((r = apply_ampm(p)))
        goto done;
    week_round = fill_fields(p, &now, round);
    c.sec = p->value[MAILDEX__TF_SEC] - p->value[MAILDEX__TF_REL_SEC];
    c.min = p->value[MAILDEX__TF_MIN] - p->value[MAILDEX__TF_REL_MIN];
    c.hour = p->value[MAILDEX__TF_HOUR] - p->value[MAILDEX__TF_REL_HOUR];
    c.mday = p->value[MAILDEX__TF_MDAY] - p->value[MAILDEX__TF_REL_DAY] - 7 * p->value[MAILDEX__TF_REL_WEEK];
    c.mon = p->value[MAILDEX__TF_MON] - p->value[MAILDEX__TF_REL_MON];
    c.year = p->value[MAILDEX__TF_YEAR] - p->value[MAILDEX__TF_REL_YEAR];
    if (week_round != MAILDEX__ROUND_EXACT && (r = round_to_week(&c, week_round)))
        goto done;
    if ((r = maildex__civil_to_unix(&c, tz, &result)))
        goto done;
    /* Wall clock at a fixed offset east of UTC: UTC is that much earlier. */
    *out = (time_t) (tz ? result : result - p->value[MAILDEX__TF_TZ] * 60);
done:
    if (tz)
        g_time_zone_unref(tz);
    return r;
}

int maildex__parse_time_string(const char *s, time_t *t, const time_t *ref, int round)
{
    maildex__time_parse_t p;
    time_t result, reference = ref ? *ref : time(NULL);
    int r;

    if (!s || !t || round < MAILDEX__ROUND_DOWN || round > MAILDEX__ROUND_UP_INCLUSIVE)
        return MAILDEX__PARSE_TIME_ERR;
    /* Beyond this "now" is outside years 1-9999 anyway, and zone arithmetic on it could overflow. */
    if ((reference == (time_t) -1 && !ref) || reference > INT64_C(1000000000000) ||
        reference < -INT64_C(1000000000000))
        return MAILDEX__PARSE_TIME_ERR_LIB;
    if ((r = maildex__time_read(&p, s)) || (r = build_time(&p, reference, round, &result)))
        return r;
    *t = result;
    return 0;
}

const char *maildex__parse_time_strerror(int status)
{
    switch (status) {
    case MAILDEX__PARSE_TIME_OK:
        return "success";
    case MAILDEX__PARSE_TIME_ERR_LIB:
        return "date out of range";
    case MAILDEX__PARSE_TIME_ERR_ALREADYSET:
        return "a date or time field is given twice";
    case MAILDEX__PARSE_TIME_ERR_FORMAT:
        return "unrecognised date/time format";
    case MAILDEX__PARSE_TIME_ERR_DATEFORMAT:
        return "unrecognised date format";
    case MAILDEX__PARSE_TIME_ERR_TIMEFORMAT:
        return "unrecognised time format";
    case MAILDEX__PARSE_TIME_ERR_INVALIDDATE:
        return "invalid date";
    case MAILDEX__PARSE_TIME_ERR_INVALIDTIME:
        return "invalid time";
    case MAILDEX__PARSE_TIME_ERR_KEYWORD:
        return "unknown word in date";
    default:
        return "cannot parse date";
    }
}

/* ---- date: ranges --------------------------------------------------------------------------------- */

static const char not_understood[] = "Didn't understand date specification";

/* Each side is a date, never bare seconds: notmuch rejects `date:1700000000..` and `date:1960..1971`
 * ("Didn't understand date specification '1960'"). The unprefixed legacy `<epoch>..<epoch>` reaches this
 * function already written as `@A..@B` by the query parser. */
static int parse_side(const char *s, time_t now, int round, int64_t *out)
{
    time_t t;
    int r = maildex__parse_time_string(s, &t, &now, round);

    if (r == 0)
        *out = (int64_t) t;
    return r;
}

int maildex__parse_date_range(const char *expr, time_t now, int64_t *from, int64_t *to,
                              const char **error_message)
{
    void *local = talloc_new(NULL);
    const char *dots, *begin, *end, *message = not_understood;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    int r = MAILDEX__PARSE_TIME_ERR;

    if (!expr || !*expr) {
        message = "empty date specification";
        goto done;
    }
    dots = strstr(expr, "..");
    begin = dots ? talloc_strndup(local, expr, (size_t) (dots - expr)) : expr;
    end = dots ? dots + 2 : expr;
    if (!begin) {
        message = "out of memory";
        goto done;
    }
    if (strcmp(end, "!") == 0 && *begin)
        end = begin;
    if (*begin && (r = parse_side(begin, now, MAILDEX__ROUND_DOWN, &lo)))
        goto done;
    if (*end && (r = parse_side(end, now, MAILDEX__ROUND_UP_INCLUSIVE, &hi)))
        goto done;
    *from = lo;
    *to = hi;
    message = NULL;
    r = 0;
done:
    if (error_message)
        *error_message = message;
    talloc_free(local);
    return r;
}
