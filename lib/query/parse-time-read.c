/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a date text, the first of the date parser's two phases (notmuch's parse_time_string()): walks
 * the text left to right and records which fields it gives. Absolute ones (second … year, weekday, am/pm,
 * zone) may be given once, relative ones accumulate; a bare number's meaning often depends on what
 * follows ("20 May", "5pm", "3 days"), so it is held until the next token either claims it or forces a
 * decision (resolve_held). It holds notmuch's keyword table and number layouts. It must not fill in
 * what the text leaves out, nor read the clock: that is building (parse-time.c). */
#include "parse-time-fields.h"

#include "parse-time-calendar.h"
#include "parse-time.h"

#include <glib.h>
#include <string.h>

/* Relative amounts beyond this many units reach past any int year (notmuch's own limit, through mktime());
 * refusing them early keeps every later multiplication inside int64_t. */
#define REL_LIMIT INT64_C(1000000000000)
/* Bare numbers longer than this are saturated; notmuch rejects anything above INT_MAX except after '@'. */
#define NUMBER_LIMIT INT64_C(100000000000000)

static int resolve_held(maildex__time_parse_t *p);

/* Absolute fields may be given once only: "2024 2025" or "Mon Tue" is an error, not a guess. */
static int set_field(maildex__time_parse_t *p, enum maildex__time_field f, int64_t v)
{
    int r;

    if (maildex__time_is_set(p, f))
        return MAILDEX__PARSE_TIME_ERR_ALREADYSET;
    p->how[f] = MAILDEX__TF_GIVEN;
    if ((r = resolve_held(p)))
        return r;
    p->delim = 0;
    p->value[f] = v;
    p->last = f;
    return 0;
}

int maildex__time_add_field(maildex__time_parse_t *p, enum maildex__time_field f, int64_t v)
{
    int r;

    p->how[f] = MAILDEX__TF_GIVEN;
    if ((r = resolve_held(p)))
        return r;
    p->delim = 0;
    if (v > REL_LIMIT || v < -REL_LIMIT || p->value[f] + v > REL_LIMIT || p->value[f] + v < -REL_LIMIT)
        return MAILDEX__PARSE_TIME_ERR_FORMAT;
    p->value[f] += v;
    p->last = f;
    return 0;
}

/* "today" and "now" name fields whose values are known only once the zone is (after reading). */
static int set_from_now(maildex__time_parse_t *p, const enum maildex__time_field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int r = set_field(p, fields[i], 0);
        if (r)
            return r;
        p->how[fields[i]] = MAILDEX__TF_FROM_NOW;
    }
    return 0;
}

static bool take_held(maildex__time_parse_t *p, int64_t *v, int *len, char *delim)
{
    if (p->held.len == 0)
        return false;
    if (v)
        *v = p->held.value;
    if (len)
        *len = p->held.len;
    if (delim)
        *delim = p->held.delim;
    p->held.len = 0;
    p->held.value = 0;
    p->held.delim = 0;
    return true;
}

static int hold_number(maildex__time_parse_t *p, int64_t v, int len)
{
    char delim = p->delim;
    int r = resolve_held(p);

    if (r)
        return r;
    p->held.len = len;
    p->held.value = v;
    p->held.delim = delim;
    return 0;
}

static bool valid_mday(int64_t d)
{
    return d >= 1 && d <= 31;
}

static bool valid_mon(int64_t m)
{
    return m >= 1 && m <= 12;
}

/* Years before the epoch are refused, which is also what lets "+0100" read as a zone and "2012" as a year. */
static bool valid_year(int64_t y)
{
    return y >= 1970;
}

static bool valid_time(int64_t h, int64_t m, int64_t s)
{
    if (h == 24 && m == 0 && s == 0) /* the end of a day */
        return true;
    return h >= 0 && h <= 23 && m >= 0 && m <= 59 && s >= 0 && s <= 59;
}

#define KEEP (-1) /* set_fields, set_time, set_date: leave this field alone */

/* Sets fields[i] to values[i] in order, but those whose value is KEEP; stops at the first error. */
static int set_fields(maildex__time_parse_t *p, const enum maildex__time_field *fields, const int64_t *values, size_t n)
{
    int r = 0;

    for (size_t i = 0; i < n && !r; i++)
        if (values[i] != KEEP)
            r = set_field(p, fields[i], values[i]);
    return r;
}

static int set_time(maildex__time_parse_t *p, int64_t h, int64_t m, int64_t s)
{
    static const enum maildex__time_field fields[] = {MAILDEX__TF_HOUR, MAILDEX__TF_MIN, MAILDEX__TF_SEC};
    const int64_t values[] = {h, m, s};

    return set_fields(p, fields, values, G_N_ELEMENTS(fields));
}

static int set_date(maildex__time_parse_t *p, int64_t y, int64_t m, int64_t d)
{
    static const enum maildex__time_field fields[] = {MAILDEX__TF_YEAR, MAILDEX__TF_MON, MAILDEX__TF_MDAY};
    const int64_t values[] = {y, m, d};

    return set_fields(p, fields, values, G_N_ELEMENTS(fields));
}

static int set_zone(maildex__time_parse_t *p, char sign, int64_t h, int64_t m)
{
    if (h < 0 || h > 14 || m < 0 || m > 59 || m % 15)
        return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
    return set_field(p, MAILDEX__TF_TZ, (sign == '-' ? -1 : 1) * (h * 60 + m));
}

/* A held number nobody claimed: its digit count decides what it is. */
static int resolve_held(maildex__time_parse_t *p)
{
    int64_t v;
    int len;
    char d;

    if (!take_held(p, &v, &len, &d))
        return 0;
    switch (len) {
    case 1:
    case 2:
        if (p->last == MAILDEX__TF_MON) /* "January 20" */
            return valid_mday(v) ? set_field(p, MAILDEX__TF_MDAY, v) : MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
        if (len == 2 && (d == '+' || d == '-')) /* "+02" */
            return set_zone(p, d, v, 0);
        break;
    case 4:
        if (valid_year(v))
            return set_field(p, MAILDEX__TF_YEAR, v);
        if (d == '+' || d == '-') /* "-0800": no zone reaches 1970 minutes */
            return set_zone(p, d, v / 100, v % 100);
        break;
    case 6: /* HHMMSS */
        if (!valid_time(v / 10000, v / 100 % 100, v % 100))
            return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
        return set_time(p, v / 10000, v / 100 % 100, v % 100);
    case 8: /* YYYYMMDD */
        if (!valid_year(v / 10000) || !valid_mon(v / 100 % 100) || !valid_mday(v % 100))
            return MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
        return set_date(p, v / 10000, v / 100 % 100, v % 100);
    }
    return MAILDEX__PARSE_TIME_ERR_FORMAT;
}

/* ---- words ---------------------------------------------------------------------------------------- */

struct keyword;
typedef int keyword_fn(maildex__time_parse_t *p, const struct keyword *kw);

struct keyword {
    /* Letters up to '|' are required, the rest may follow in part; a leading '*' makes the match
     * case-sensitive. The first entry that matches wins, so "mon" is Monday and "mo" months. */
    const char *name;
    enum maildex__time_field field;
    int value;
    keyword_fn *apply; /* NULL: set field to value */
};

/* "3 days", "last month": a held number (default 1) multiplies the unit. */
static int kw_relative(maildex__time_parse_t *p, const struct keyword *kw)
{
    int64_t times = 1;

    take_held(p, &times, NULL, NULL);
    return maildex__time_add_field(p, kw->field, times * kw->value);
}

static int kw_number(maildex__time_parse_t *p, const struct keyword *kw)
{
    return hold_number(p, kw->value, -1);
}

static int kw_month(maildex__time_parse_t *p, const struct keyword *kw)
{
    if (p->held.len == 1 || p->held.len == 2) { /* "20 January" */
        int64_t d = 0;
        int r;

        take_held(p, &d, NULL, NULL);
        if (!valid_mday(d))
            return MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
        if ((r = set_field(p, MAILDEX__TF_MDAY, d)))
            return r;
    }
    return set_field(p, kw->field, kw->value);
}

static int kw_ampm(maildex__time_parse_t *p, const struct keyword *kw)
{
    if (p->held.len == 1 || p->held.len == 2) { /* "5pm" is 5:00:00 pm */
        int64_t h = 0;
        int r;

        take_held(p, &h, NULL, NULL);
        if (!maildex__time_valid_hour12(h))
            return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
        if ((r = set_time(p, h, 0, 0)))
            return r;
    }
    return set_field(p, kw->field, kw->value);
}

static int kw_time_of_day(maildex__time_parse_t *p, const struct keyword *kw)
{
    return set_time(p, kw->value, 0, 0);
}

static int kw_today(maildex__time_parse_t *p, const struct keyword *kw)
{
    static const enum maildex__time_field fields[] = {MAILDEX__TF_YEAR, MAILDEX__TF_MON, MAILDEX__TF_MDAY};

    (void) kw;
    return set_from_now(p, fields, G_N_ELEMENTS(fields));
}

static int kw_now(maildex__time_parse_t *p, const struct keyword *kw)
{
    static const enum maildex__time_field fields[] = {MAILDEX__TF_HOUR, MAILDEX__TF_MIN, MAILDEX__TF_SEC};

    (void) kw;
    return set_from_now(p, fields, G_N_ELEMENTS(fields));
}

/* "1st", "22nd", "3rd", "4th": the suffix must fit the number, except that "th" fits any day. */
static int kw_ordinal(maildex__time_parse_t *p, const struct keyword *kw)
{
    int64_t d;
    int len;
    bool fits;

    if (!take_held(p, &d, &len, NULL) || (len != 1 && len != 2))
        return MAILDEX__PARSE_TIME_ERR_DATEFORMAT;
    if (strcmp(kw->name, "st") == 0)
        fits = d == 1 || d == 21 || d == 31;
    else if (strcmp(kw->name, "nd") == 0)
        fits = d == 2 || d == 22;
    else if (strcmp(kw->name, "rd") == 0)
        fits = d == 3 || d == 23;
    else
        fits = valid_mday(d);
    return fits ? set_field(p, MAILDEX__TF_MDAY, d) : MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
}

static int kw_ignore(maildex__time_parse_t *p, const struct keyword *kw)
{
    (void) p, (void) kw;
    return 0;
}

/* notmuch's table, in its order (order decides ties). Its "a.m."/"p.m." entries are left out: its matcher
 * stops at the first non-letter, so they can never match there either. */
static const struct keyword keywords[] = {
    {"sun|day", MAILDEX__TF_WDAY, 0, NULL},
    {"mon|day", MAILDEX__TF_WDAY, 1, NULL},
    {"tue|sday", MAILDEX__TF_WDAY, 2, NULL},
    {"wed|nesday", MAILDEX__TF_WDAY, 3, NULL},
    {"thu|rsday", MAILDEX__TF_WDAY, 4, NULL},
    {"fri|day", MAILDEX__TF_WDAY, 5, NULL},
    {"sat|urday", MAILDEX__TF_WDAY, 6, NULL},

    {"jan|uary", MAILDEX__TF_MON, 1, kw_month},
    {"feb|ruary", MAILDEX__TF_MON, 2, kw_month},
    {"mar|ch", MAILDEX__TF_MON, 3, kw_month},
    {"apr|il", MAILDEX__TF_MON, 4, kw_month},
    {"may", MAILDEX__TF_MON, 5, kw_month},
    {"jun|e", MAILDEX__TF_MON, 6, kw_month},
    {"jul|y", MAILDEX__TF_MON, 7, kw_month},
    {"aug|ust", MAILDEX__TF_MON, 8, kw_month},
    {"sep|tember", MAILDEX__TF_MON, 9, kw_month},
    {"oct|ober", MAILDEX__TF_MON, 10, kw_month},
    {"nov|ember", MAILDEX__TF_MON, 11, kw_month},
    {"dec|ember", MAILDEX__TF_MON, 12, kw_month},

    {"y|ears", MAILDEX__TF_REL_YEAR, 1, kw_relative},
    {"mo|nths", MAILDEX__TF_REL_MON, 1, kw_relative},
    {"*M", MAILDEX__TF_REL_MON, 1, kw_relative},
    {"w|eeks", MAILDEX__TF_REL_WEEK, 1, kw_relative},
    {"d|ays", MAILDEX__TF_REL_DAY, 1, kw_relative},
    {"h|ours", MAILDEX__TF_REL_HOUR, 1, kw_relative},
    {"hr|s", MAILDEX__TF_REL_HOUR, 1, kw_relative},
    {"mi|nutes", MAILDEX__TF_REL_MIN, 1, kw_relative},
    {"mins", MAILDEX__TF_REL_MIN, 1, kw_relative},
    {"*m", MAILDEX__TF_REL_MIN, 1, kw_relative},
    {"s|econds", MAILDEX__TF_REL_SEC, 1, kw_relative},
    {"secs", MAILDEX__TF_REL_SEC, 1, kw_relative},

    {"one", MAILDEX__TF_NONE, 1, kw_number},
    {"two", MAILDEX__TF_NONE, 2, kw_number},
    {"three", MAILDEX__TF_NONE, 3, kw_number},
    {"four", MAILDEX__TF_NONE, 4, kw_number},
    {"five", MAILDEX__TF_NONE, 5, kw_number},
    {"six", MAILDEX__TF_NONE, 6, kw_number},
    {"seven", MAILDEX__TF_NONE, 7, kw_number},
    {"eight", MAILDEX__TF_NONE, 8, kw_number},
    {"nine", MAILDEX__TF_NONE, 9, kw_number},
    {"ten", MAILDEX__TF_NONE, 10, kw_number},
    {"dozen", MAILDEX__TF_NONE, 12, kw_number},
    {"hundred", MAILDEX__TF_NONE, 100, kw_number},
    {"this", MAILDEX__TF_NONE, 0, kw_number},
    {"last", MAILDEX__TF_NONE, 1, kw_number},

    {"yesterday", MAILDEX__TF_REL_DAY, 1, kw_relative},
    {"today", MAILDEX__TF_NONE, 0, kw_today},
    {"now", MAILDEX__TF_NONE, 0, kw_now},
    {"noon", MAILDEX__TF_NONE, 12, kw_time_of_day},
    {"midnight", MAILDEX__TF_NONE, 0, kw_time_of_day},
    {"am", MAILDEX__TF_AMPM, 0, kw_ampm},
    {"pm", MAILDEX__TF_AMPM, 1, kw_ampm},
    {"st", MAILDEX__TF_NONE, 0, kw_ordinal},
    {"nd", MAILDEX__TF_NONE, 0, kw_ordinal},
    {"rd", MAILDEX__TF_NONE, 0, kw_ordinal},
    {"th", MAILDEX__TF_NONE, 0, kw_ordinal},
    {"ago", MAILDEX__TF_NONE, 0, kw_ignore},

    /* Zones, in minutes east of UTC. */
    {"pst", MAILDEX__TF_TZ, -8 * 60, NULL},
    {"mst", MAILDEX__TF_TZ, -7 * 60, NULL},
    {"cst", MAILDEX__TF_TZ, -6 * 60, NULL},
    {"est", MAILDEX__TF_TZ, -5 * 60, NULL},
    {"ast", MAILDEX__TF_TZ, -4 * 60, NULL},
    {"nst", MAILDEX__TF_TZ, -(3 * 60 + 30), NULL},
    {"gmt", MAILDEX__TF_TZ, 0, NULL},
    {"utc", MAILDEX__TF_TZ, 0, NULL},
    {"wet", MAILDEX__TF_TZ, 0, NULL},
    {"cet", MAILDEX__TF_TZ, 1 * 60, NULL},
    {"eet", MAILDEX__TF_TZ, 2 * 60, NULL},
    {"fet", MAILDEX__TF_TZ, 3 * 60, NULL},
    {"wat", MAILDEX__TF_TZ, 1 * 60, NULL},
    {"cat", MAILDEX__TF_TZ, 2 * 60, NULL},
    {"eat", MAILDEX__TF_TZ, 3 * 60, NULL},
};

/* Does the word (its n letters) name the keyword: at least its required part, at most all of it? */
static bool keyword_matches(const char *word, size_t n, const char *name)
{
    bool exact_case = name[0] == '*';
    const char *full = name + exact_case;
    const char *bar = strchr(full, '|');
    size_t required = bar ? (size_t) (bar - full) : strlen(full);
    size_t i = 0;

    if (n < required)
        return false;
    for (const char *k = full; i < n; k++) {
        if (*k == '|')
            continue;
        if (*k == '\0')
            return false; /* the word is longer than the keyword */
        if (exact_case ? word[i] != *k : g_ascii_tolower(word[i]) != *k)
            return false;
        i++;
    }
    return true;
}

/* Returns the number of characters read (> 0) or minus an error code. */
static int read_keyword(maildex__time_parse_t *p, const char *s)
{
    size_t n = 0;
    int r;

    while (g_ascii_isalpha(s[n]))
        n++;
    for (size_t i = 0; i < G_N_ELEMENTS(keywords); i++) {
        const struct keyword *kw = &keywords[i];

        if (!keyword_matches(s, n, kw->name))
            continue;
        r = kw->apply ? kw->apply(p, kw) : set_field(p, kw->field, kw->value);
        return r ? -r : (int) n;
    }
    return -MAILDEX__PARSE_TIME_ERR_KEYWORD;
}

/* ---- numbers -------------------------------------------------------------------------------------- */

/* Reads a run of digits, saturating the value; *len is the run's length. */
static int64_t read_digits(const char *s, const char **end, int *len)
{
    int64_t v = 0;
    const char *q = s;

    while (g_ascii_isdigit(*q)) {
        if (v < NUMBER_LIMIT)
            v = v * 10 + (*q - '0');
        q++;
    }
    *end = q;
    *len = q - s > 1000 ? 1000 : (int) (q - s);
    return v;
}

/* "@1700000000": all of second … year in UTC. */
static int set_epoch(maildex__time_parse_t *p, int64_t v)
{
    static const enum maildex__time_field order[] = {MAILDEX__TF_SEC, MAILDEX__TF_MIN, MAILDEX__TF_HOUR,
                                                     MAILDEX__TF_MDAY, MAILDEX__TF_MON, MAILDEX__TF_YEAR};
    maildex__civil_t c = {0};
    int r = maildex__civil_from_unix(v, &c, NULL);
    const int64_t values[] = {c.sec, c.min, c.hour, c.mday, c.mon, c.year};

    if (!r)
        r = set_fields(p, order, values, G_N_ELEMENTS(order));
    return r ? r : set_field(p, MAILDEX__TF_TZ, 0);
}

static bool is_date_sep(char c)
{
    return c == '/' || c == '-' || c == '.';
}

/* Two-digit years: 00-69 are 2000s, 70-99 1900s; no year at all stays KEEP. */
static int64_t full_year(int64_t y, int len)
{
    if (len == 2)
        return (y < 70 ? 2000 : 1900) + y;
    return len == 4 ? y : KEEP;
}

/* The layout is chosen by the separator and the digit counts, never by the values: "20/5/2005" is M/D/Y
 * and so an invalid date. */
static int read_date(maildex__time_parse_t *p, char sep, const int64_t v[3], const int n[3])
{
    int64_t y = KEEP, m = KEEP, d = KEEP;
    bool short_field[2] = {n[0] == 1 || n[0] == 2, n[1] == 1 || n[1] == 2};
    bool opt_year = n[2] == 0 || n[2] == 2 || n[2] == 4;

    if (sep == '/') {
        if (short_field[0] && short_field[1] && opt_year) /* M[M]/D[D][/YY[YY]] */
            y = full_year(v[2], n[2]), m = v[0], d = v[1];
        else if (short_field[0] && n[1] == 4 && n[2] == 0) /* M[M]/YYYY */
            y = v[1], m = v[0];
        else
            return MAILDEX__PARSE_TIME_ERR_DATEFORMAT;
    } else if (sep == '-') {
        if (n[0] == 4 && n[1] == 2 && (n[2] == 0 || n[2] == 2)) /* YYYY-MM[-DD] */
            y = v[0], m = v[1], d = n[2] ? v[2] : KEEP;
        else if (n[0] == 2 && n[1] == 2 && opt_year) /* DD-MM[-YY[YY]] */
            y = full_year(v[2], n[2]), m = v[1], d = v[0];
        else if (n[0] == 2 && n[1] == 4 && n[2] == 0) /* MM-YYYY */
            y = v[1], m = v[0];
        else
            return MAILDEX__PARSE_TIME_ERR_DATEFORMAT;
    } else { /* D[D].M[M][.YY[YY]] */
        if (!short_field[0] || !short_field[1] || !opt_year)
            return MAILDEX__PARSE_TIME_ERR_DATEFORMAT;
        y = full_year(v[2], n[2]), m = v[1], d = v[0];
    }
    if ((y != KEEP && !valid_year(y)) || (m != KEEP && !valid_mon(m)) || (d != KEEP && !valid_mday(d)))
        return MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
    return set_date(p, y, m, d);
}

static int read_time(maildex__time_parse_t *p, const int64_t v[3], const int n[3])
{
    if ((n[0] != 1 && n[0] != 2) || n[1] != 2 || (n[2] != 0 && n[2] != 2))
        return MAILDEX__PARSE_TIME_ERR_TIMEFORMAT;
    /* After a time, "+03:00" and "-06:00" are zones; before one, '-' is just a separator. */
    if (maildex__time_is_set(p, MAILDEX__TF_HOUR) && maildex__time_is_set(p, MAILDEX__TF_MIN) && n[0] == 2 &&
        n[2] == 0 && (p->delim == '+' || p->delim == '-'))
        return set_zone(p, p->delim, v[0], v[1]);
    if (!valid_time(v[0], v[1], n[2] ? v[2] : 0))
        return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
    return set_time(p, v[0], v[1], n[2] ? v[2] : KEEP);
}

/* One number, or two or three joined by the same separator (a date with / - . or a time with :).
 * Returns the number of characters read (> 0) or minus an error code. */
static int read_number(maildex__time_parse_t *p, const char *s)
{
    int64_t v[3] = {0, 0, 0};
    int n[3] = {0, 0, 0};
    const char *q = s;
    char sep;
    int r;

    v[0] = read_digits(q, &q, &n[0]);
    sep = *q;
    if ((sep == ':' || is_date_sep(sep)) && g_ascii_isdigit(q[1])) {
        v[1] = read_digits(q + 1, &q, &n[1]);
        if (*q == sep && g_ascii_isdigit(q[1]))
            v[2] = read_digits(q + 1, &q, &n[2]);
        r = sep == ':' ? read_time(p, v, n) : read_date(p, sep, v, n);
    } else if (p->delim == '@') {
        r = set_epoch(p, v[0]);
    } else if (v[0] > G_MAXINT) {
        r = MAILDEX__PARSE_TIME_ERR_FORMAT;
    } else {
        r = hold_number(p, v[0], n[0]);
    }
    return r ? -r : (int) (q - s);
}

/* Everything that is neither letter nor digit separates terms; only the last one before a term can matter. */
static int read_delims(maildex__time_parse_t *p, const char *s)
{
    int n = 0;

    while (s[n] && !g_ascii_isalnum(s[n]))
        p->delim = s[n++];
    return n;
}

int maildex__time_read(maildex__time_parse_t *p, const char *s)
{
    const char *q = s;

    memset(p, 0, sizeof *p);
    p->last = MAILDEX__TF_NONE;
    while (*q) {
        int n;

        if (g_ascii_isalpha(*q))
            n = read_keyword(p, q);
        else if (g_ascii_isdigit(*q))
            n = read_number(p, q);
        else
            n = read_delims(p, q);
        if (n <= 0)
            return n < 0 ? -n : MAILDEX__PARSE_TIME_ERR;
        q += n;
    }
    return resolve_held(p);
}
