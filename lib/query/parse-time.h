/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The date expressions behind the `date:` query prefix: notmuch 0.37's parse_time_string() and its range glue
 * (parse-time-string/parse-time-string.c, lib/parse-time-vrp.cc), same syntax, same rounding, same errors,
 * rewritten on GLib's GDateTime/GTimeZone (notmuch-compat.md 3.5).
 *
 * Accepted: absolute dates (YYYY-MM[-DD], DD-MM[-[YY]YY], MM-YYYY, M[M]/D[D][/[YY]YY], M[M]/YYYY,
 * D[D].M[M][.[YY]YY], YYYYMMDD, month and weekday names, ordinals 1st/2nd/3rd/Nth), times (H[H]:MM[:SS],
 * HHMMSS, am/pm, noon, midnight, now), zones (+HH, +HHMM, +HH:MM after a time, utc gmt pst … eet),
 * `@epoch`, and relative parts that always count into the past and accumulate (`5M2d`, `two weeks ago`,
 * `last month`, `this week`, `yesterday`, `today`). Terms are separated by anything that is not a letter or
 * a digit (space, `_`, `-`, `,` …). Local time comes from the TZ environment variable (GLib re-reads it).
 *
 * This module only turns text into seconds: it must not know the query grammar, the store or the clock
 * beyond the "now" it is handed (or time(NULL) when it is not). */
#ifndef MAILDEX_PARSE_TIME_H
#define MAILDEX_PARSE_TIME_H

#include <stdint.h>
#include <time.h>

/* How fields the text leaves out are filled in, relative to the most precise field it gives:
 *   ROUND_DOWN          finer fields take their smallest value ("2024-01" -> 2024-01-01 00:00:00);
 *   ROUND_UP            the given field is advanced by one and finer fields are smallest (-> 2024-02-01 00:00:00);
 *   ROUND_UP_INCLUSIVE  as ROUND_UP, minus one second (-> 2024-01-31 23:59:59);
 *   ROUND_EXACT         every missing field comes from "now".
 * Seconds given explicitly are never rounded. The values match notmuch's PARSE_TIME_* rounding constants. */
typedef enum {
    MAILDEX__ROUND_DOWN = -1,
    MAILDEX__ROUND_UP = 1,
    MAILDEX__ROUND_UP_INCLUSIVE = 2,
    MAILDEX__ROUND_EXACT = 0,
} maildex__round_t;

/* Return codes of maildex__parse_time_string, in notmuch's order (PARSE_TIME_ERR_*). */
typedef enum {
    MAILDEX__PARSE_TIME_OK = 0,
    MAILDEX__PARSE_TIME_ERR,             /* unspecified error (NULL arguments, bad rounding mode) */
    MAILDEX__PARSE_TIME_ERR_LIB,         /* result beyond any int year, or "now" unknown */
    MAILDEX__PARSE_TIME_ERR_ALREADYSET,  /* a field given twice ("2024 2025") */
    MAILDEX__PARSE_TIME_ERR_FORMAT,      /* a number or word in a place where it means nothing */
    MAILDEX__PARSE_TIME_ERR_DATEFORMAT,  /* a date in none of the accepted layouts ("2010-1-1") */
    MAILDEX__PARSE_TIME_ERR_TIMEFORMAT,  /* a time in none of the accepted layouts, or am/pm without an hour */
    MAILDEX__PARSE_TIME_ERR_INVALIDDATE, /* a date field out of range (month 13, year before 1970) */
    MAILDEX__PARSE_TIME_ERR_INVALIDTIME, /* a time field out of range (25:00, 13pm, +15:00 zone) */
    MAILDEX__PARSE_TIME_ERR_KEYWORD,     /* an unknown word ("tomorrow", "T" in "2024-01-01T11:00") */
} maildex__parse_time_status_t;

/* Parses the date/time text s into *t (seconds since the epoch), filling fields s leaves out from the
 * reference time *ref (NULL: the current time) as round (a maildex__round_t) says. Returns 0 and sets *t,
 * or one of MAILDEX__PARSE_TIME_ERR_* and leaves *t alone. The empty string is valid: with ROUND_EXACT it is
 * *ref, with any other rounding 1970-01-01 00:00:00 local time (as in notmuch). */
int maildex__parse_time_string(const char *s, time_t *t, const time_t *ref, int round);

/* A short English description of a maildex__parse_time_string return code (static storage). */
const char *maildex__parse_time_strerror(int status);

/* Parses the text of a `date:` term (what follows "date:") into the inclusive range [*from, *to]:
 *   "X..Y"  since X (ROUND_DOWN) until Y (ROUND_UP_INCLUSIVE), both read against the same now;
 *   "X.." / "..Y" / ".."  an open end is INT64_MIN or INT64_MAX;
 *   "X" and "X..!"  the same as "X..X";
 * Each side is a date; seconds need '@' (the query parser writes notmuch's legacy unprefixed `A..B`
 * as `@A..@B`), so "1700000000.." and "1960..1971" are errors, as in notmuch.
 * Returns 0 on success, with *error_message (when error_message is not NULL) set to NULL. On failure returns
 * the maildex__parse_time_string code of the side that failed (MAILDEX__PARSE_TIME_ERR for an empty or NULL
 * expr), leaves *from and *to alone and sets *error_message to a static message such as "Didn't understand
 * date specification"; the caller adds the quoted term, as notmuch does. */
int maildex__parse_date_range(const char *expr, time_t now, int64_t *from, int64_t *to,
                              const char **error_message);

#endif
