/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse-time-calendar.h: the date parser's calendar (parse-time-calendar.c), which reading a date ("@epoch")
 * and building its result share: wall-clock fields to seconds since the epoch and back, for any year
 * mktime() takes, in UTC or a GLib zone. */
#ifndef MAILDEX_PARSE_TIME_CALENDAR_H
#define MAILDEX_PARSE_TIME_CALENDAR_H

#include <glib.h>
#include <stdint.h>

/* A broken-down wall-clock time whose fields may be out of range (mktime's struct tm, in int64_t). */
typedef struct {
    int64_t year, mon, mday, hour, min, sec; /* mon 1-based */
} maildex__civil_t;

/* The wall-clock fields of dt. */
void maildex__civil_from_date_time(maildex__civil_t *c, GDateTime *dt);

/* The UTC wall-clock fields of x seconds since the epoch, and its weekday (0 = Sunday) when wday is set.
 * Returns 0, or MAILDEX__PARSE_TIME_ERR_LIB beyond any int year. */
int maildex__civil_from_unix(int64_t x, maildex__civil_t *c, int *wday);

/* Seconds since the epoch of wall-clock time c read in zone tz, or as UTC when tz is NULL. Fields may be out
 * of range and are carried as glibc's mktime() does: months into years first, then days, hours and minutes as
 * a count from the first of that month ("Feb 31" is Mar 2 or 3), all on the wall clock; seconds outside 0-59,
 * though, are added to the resulting instant (glibc's leap-second handling), so "19701223s" is exactly that
 * many seconds before now even across a change to or from summer time. Returns 0, or
 * MAILDEX__PARSE_TIME_ERR_LIB beyond any int year. */
int maildex__civil_to_unix(const maildex__civil_t *c, GTimeZone *tz, int64_t *out);

#endif
