/* Date expressions for `date:`: a re-implementation of notmuch's parse_time_string() that keeps its grammar,
 * its quirks and its rounding, with GLib doing the calendar (parse-time-calendar.c: month lengths, leap
 * years, weekdays, time zones).
 *
 * Two phases, as in notmuch. Reading (read_input) walks the text left to right and records which fields it
 * saw: absolute ones (second … year, weekday, am/pm, zone) may be given once, relative ones accumulate. A bare
 * number's meaning often depends on what follows ("20 May", "5pm", "3 days"), so it is held until the next
 * token either claims it or forces a decision (resolve_held). Building (build_time) then fills the missing
 * fields from "now" with the requested rounding, subtracts the relative amounts with mktime()-style overflow
 * (Jan 31 minus one month is "Dec 31", Mar 31 minus one month is "Feb 31" = Mar 2 or 3) and converts the
 * wall-clock result through the given zone or the local one. Daylight saving time gets no special
 * treatment, as in notmuch.
 *
 * This file must not know the query language beyond the `X..Y` range form, and must never crash, hang
 * or overflow on any input: every number is bounded before it is used. */
#include "parse-time.h"
#include "parse-time-calendar.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>
#include <talloc.h>

/* Fields of a parse. The SEC..YEAR and REL_SEC..REL_YEAR blocks must stay parallel (rel_of). */
enum field {
    F_SEC,
    F_MIN,
    F_HOUR,
    F_MDAY,
    F_MON,
    F_YEAR,
    F_WDAY, /* 0 = Sunday; counts back from today unless a day of the month is given */
    F_AMPM, /* 0 = am, 1 = pm */
    F_TZ,   /* minutes east of UTC */
    F_REL_SEC,
    F_REL_MIN,
    F_REL_HOUR,
    F_REL_DAY,
    F_REL_MON,
    F_REL_YEAR,
    F_REL_WEEK,
    F_COUNT,
    F_NONE = F_COUNT,
};

enum { UNSET, GIVEN, FROM_NOW };

/* Relative amounts beyond this many units reach past any int year (notmuch's own limit, through mktime());
 * refusing them early keeps every later multiplication inside int64_t. */
#define REL_LIMIT INT64_C(1000000000000)
/* Bare numbers longer than this are saturated; notmuch rejects anything above INT_MAX except after '@'. */
#define NUMBER_LIMIT INT64_C(100000000000000)

typedef struct {
    int64_t value[F_COUNT];
    unsigned char how[F_COUNT];
    enum field last; /* the field set most recently: "January 20" reads 20 as a day because of it */
    char delim;      /* the last separator seen since a field was set: '@', '+', '-' change meanings */
    struct {
        int len; /* digits in the number; 0 = nothing held; -1 = a number word ("two", "last") */
        int64_t value;
        char delim; /* the separator in front of it: "-0800" is a zone */
    } held;
} parse_t;

static int resolve_held(parse_t *p);

static bool is_set(const parse_t *p, enum field f)
{
    return p->how[f] != UNSET;
}

static enum field rel_of(enum field f)
{
    return (enum field) (f + (F_REL_SEC - F_SEC));
}

/* Absolute fields may be given once only: "2024 2025" or "Mon Tue" is an error, not a guess. */
static int set_field(parse_t *p, enum field f, int64_t v)
{
    int r;

    if (is_set(p, f))
        return MAILDEX__PARSE_TIME_ERR_ALREADYSET;
    p->how[f] = GIVEN;
    if ((r = resolve_held(p)))
        return r;
    p->delim = 0;
    p->value[f] = v;
    p->last = f;
    return 0;
}

static int add_field(parse_t *p, enum field f, int64_t v)
{
    int r;

    p->how[f] = GIVEN;
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
static int set_from_now(parse_t *p, const enum field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int r = set_field(p, fields[i], 0);
        if (r)
            return r;
        p->how[fields[i]] = FROM_NOW;
    }
    return 0;
}

static bool take_held(parse_t *p, int64_t *v, int *len, char *delim)
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

static int hold_number(parse_t *p, int64_t v, int len)
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

static bool valid_hour12(int64_t h)
{
    return h >= 1 && h <= 12;
}

static bool valid_time(int64_t h, int64_t m, int64_t s)
{
    if (h == 24 && m == 0 && s == 0) /* the end of a day */
        return true;
    return h >= 0 && h <= 23 && m >= 0 && m <= 59 && s >= 0 && s <= 59;
}

#define KEEP (-1) /* set_fields, set_time, set_date: leave this field alone */

/* Sets fields[i] to values[i] in order, but those whose value is KEEP; stops at the first error. */
static int set_fields(parse_t *p, const enum field *fields, const int64_t *values, size_t n)
{
    int r = 0;

    for (size_t i = 0; i < n && !r; i++)
        if (values[i] != KEEP)
            r = set_field(p, fields[i], values[i]);
    return r;
}

static int set_time(parse_t *p, int64_t h, int64_t m, int64_t s)
{
    static const enum field fields[] = {F_HOUR, F_MIN, F_SEC};
    const int64_t values[] = {h, m, s};

    return set_fields(p, fields, values, G_N_ELEMENTS(fields));
}

static int set_date(parse_t *p, int64_t y, int64_t m, int64_t d)
{
    static const enum field fields[] = {F_YEAR, F_MON, F_MDAY};
    const int64_t values[] = {y, m, d};

    return set_fields(p, fields, values, G_N_ELEMENTS(fields));
}

static int set_zone(parse_t *p, char sign, int64_t h, int64_t m)
{
    if (h < 0 || h > 14 || m < 0 || m > 59 || m % 15)
        return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
    return set_field(p, F_TZ, (sign == '-' ? -1 : 1) * (h * 60 + m));
}

/* A held number nobody claimed: its digit count decides what it is. */
static int resolve_held(parse_t *p)
{
    int64_t v;
    int len;
    char d;

    if (!take_held(p, &v, &len, &d))
        return 0;
    switch (len) {
    case 1:
    case 2:
        if (p->last == F_MON) /* "January 20" */
            return valid_mday(v) ? set_field(p, F_MDAY, v) : MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
        if (len == 2 && (d == '+' || d == '-')) /* "+02" */
            return set_zone(p, d, v, 0);
        break;
    case 4:
        if (valid_year(v))
            return set_field(p, F_YEAR, v);
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
typedef int keyword_fn(parse_t *p, const struct keyword *kw);

struct keyword {
    /* Letters up to '|' are required, the rest may follow in part; a leading '*' makes the match
     * case-sensitive. The first entry that matches wins, so "mon" is Monday and "mo" months. */
    const char *name;
    enum field field;
    int value;
    keyword_fn *apply; /* NULL: set field to value */
};

/* "3 days", "last month": a held number (default 1) multiplies the unit. */
static int kw_relative(parse_t *p, const struct keyword *kw)
{
    int64_t times = 1;

    take_held(p, &times, NULL, NULL);
    return add_field(p, kw->field, times * kw->value);
}

static int kw_number(parse_t *p, const struct keyword *kw)
{
    return hold_number(p, kw->value, -1);
}

static int kw_month(parse_t *p, const struct keyword *kw)
{
    if (p->held.len == 1 || p->held.len == 2) { /* "20 January" */
        int64_t d = 0;
        int r;

        take_held(p, &d, NULL, NULL);
        if (!valid_mday(d))
            return MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
        if ((r = set_field(p, F_MDAY, d)))
            return r;
    }
    return set_field(p, kw->field, kw->value);
}

static int kw_ampm(parse_t *p, const struct keyword *kw)
{
    if (p->held.len == 1 || p->held.len == 2) { /* "5pm" is 5:00:00 pm */
        int64_t h = 0;
        int r;

        take_held(p, &h, NULL, NULL);
        if (!valid_hour12(h))
            return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
        if ((r = set_time(p, h, 0, 0)))
            return r;
    }
    return set_field(p, kw->field, kw->value);
}

static int kw_time_of_day(parse_t *p, const struct keyword *kw)
{
    return set_time(p, kw->value, 0, 0);
}

static int kw_today(parse_t *p, const struct keyword *kw)
{
    static const enum field fields[] = {F_YEAR, F_MON, F_MDAY};

    (void) kw;
    return set_from_now(p, fields, G_N_ELEMENTS(fields));
}

static int kw_now(parse_t *p, const struct keyword *kw)
{
    static const enum field fields[] = {F_HOUR, F_MIN, F_SEC};

    (void) kw;
    return set_from_now(p, fields, G_N_ELEMENTS(fields));
}

/* "1st", "22nd", "3rd", "4th": the suffix must fit the number, except that "th" fits any day. */
static int kw_ordinal(parse_t *p, const struct keyword *kw)
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
    return fits ? set_field(p, F_MDAY, d) : MAILDEX__PARSE_TIME_ERR_INVALIDDATE;
}

static int kw_ignore(parse_t *p, const struct keyword *kw)
{
    (void) p, (void) kw;
    return 0;
}

/* notmuch's table, in its order (order decides ties). Its "a.m."/"p.m." entries are left out: its matcher
 * stops at the first non-letter, so they can never match there either. */
static const struct keyword keywords[] = {
    {"sun|day", F_WDAY, 0, NULL},
    {"mon|day", F_WDAY, 1, NULL},
    {"tue|sday", F_WDAY, 2, NULL},
    {"wed|nesday", F_WDAY, 3, NULL},
    {"thu|rsday", F_WDAY, 4, NULL},
    {"fri|day", F_WDAY, 5, NULL},
    {"sat|urday", F_WDAY, 6, NULL},

    {"jan|uary", F_MON, 1, kw_month},
    {"feb|ruary", F_MON, 2, kw_month},
    {"mar|ch", F_MON, 3, kw_month},
    {"apr|il", F_MON, 4, kw_month},
    {"may", F_MON, 5, kw_month},
    {"jun|e", F_MON, 6, kw_month},
    {"jul|y", F_MON, 7, kw_month},
    {"aug|ust", F_MON, 8, kw_month},
    {"sep|tember", F_MON, 9, kw_month},
    {"oct|ober", F_MON, 10, kw_month},
    {"nov|ember", F_MON, 11, kw_month},
    {"dec|ember", F_MON, 12, kw_month},

    {"y|ears", F_REL_YEAR, 1, kw_relative},
    {"mo|nths", F_REL_MON, 1, kw_relative},
    {"*M", F_REL_MON, 1, kw_relative},
    {"w|eeks", F_REL_WEEK, 1, kw_relative},
    {"d|ays", F_REL_DAY, 1, kw_relative},
    {"h|ours", F_REL_HOUR, 1, kw_relative},
    {"hr|s", F_REL_HOUR, 1, kw_relative},
    {"mi|nutes", F_REL_MIN, 1, kw_relative},
    {"mins", F_REL_MIN, 1, kw_relative},
    {"*m", F_REL_MIN, 1, kw_relative},
    {"s|econds", F_REL_SEC, 1, kw_relative},
    {"secs", F_REL_SEC, 1, kw_relative},

    {"one", F_NONE, 1, kw_number},
    {"two", F_NONE, 2, kw_number},
    {"three", F_NONE, 3, kw_number},
    {"four", F_NONE, 4, kw_number},
    {"five", F_NONE, 5, kw_number},
    {"six", F_NONE, 6, kw_number},
    {"seven", F_NONE, 7, kw_number},
    {"eight", F_NONE, 8, kw_number},
    {"nine", F_NONE, 9, kw_number},
    {"ten", F_NONE, 10, kw_number},
    {"dozen", F_NONE, 12, kw_number},
    {"hundred", F_NONE, 100, kw_number},
    {"this", F_NONE, 0, kw_number},
    {"last", F_NONE, 1, kw_number},

    {"yesterday", F_REL_DAY, 1, kw_relative},
    {"today", F_NONE, 0, kw_today},
    {"now", F_NONE, 0, kw_now},
    {"noon", F_NONE, 12, kw_time_of_day},
    {"midnight", F_NONE, 0, kw_time_of_day},
    {"am", F_AMPM, 0, kw_ampm},
    {"pm", F_AMPM, 1, kw_ampm},
    {"st", F_NONE, 0, kw_ordinal},
    {"nd", F_NONE, 0, kw_ordinal},
    {"rd", F_NONE, 0, kw_ordinal},
    {"th", F_NONE, 0, kw_ordinal},
    {"ago", F_NONE, 0, kw_ignore},

    /* Zones, in minutes east of UTC. */
    {"pst", F_TZ, -8 * 60, NULL},
    {"mst", F_TZ, -7 * 60, NULL},
    {"cst", F_TZ, -6 * 60, NULL},
    {"est", F_TZ, -5 * 60, NULL},
    {"ast", F_TZ, -4 * 60, NULL},
    {"nst", F_TZ, -(3 * 60 + 30), NULL},
    {"gmt", F_TZ, 0, NULL},
    {"utc", F_TZ, 0, NULL},
    {"wet", F_TZ, 0, NULL},
    {"cet", F_TZ, 1 * 60, NULL},
    {"eet", F_TZ, 2 * 60, NULL},
    {"fet", F_TZ, 3 * 60, NULL},
    {"wat", F_TZ, 1 * 60, NULL},
    {"cat", F_TZ, 2 * 60, NULL},
    {"eat", F_TZ, 3 * 60, NULL},
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
static int read_keyword(parse_t *p, const char *s)
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
static int set_epoch(parse_t *p, int64_t v)
{
    static const enum field order[] = {F_SEC, F_MIN, F_HOUR, F_MDAY, F_MON, F_YEAR};
    maildex__civil_t c = {0};
    int r = maildex__civil_from_unix(v, &c, NULL);
    const int64_t values[] = {c.sec, c.min, c.hour, c.mday, c.mon, c.year};

    if (!r)
        r = set_fields(p, order, values, G_N_ELEMENTS(order));
    return r ? r : set_field(p, F_TZ, 0);
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
static int read_date(parse_t *p, char sep, const int64_t v[3], const int n[3])
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

static int read_time(parse_t *p, const int64_t v[3], const int n[3])
{
    if ((n[0] != 1 && n[0] != 2) || n[1] != 2 || (n[2] != 0 && n[2] != 2))
        return MAILDEX__PARSE_TIME_ERR_TIMEFORMAT;
    /* After a time, "+03:00" and "-06:00" are zones; before one, '-' is just a separator. */
    if (is_set(p, F_HOUR) && is_set(p, F_MIN) && n[0] == 2 && n[2] == 0 &&
        (p->delim == '+' || p->delim == '-'))
        return set_zone(p, p->delim, v[0], v[1]);
    if (!valid_time(v[0], v[1], n[2] ? v[2] : 0))
        return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
    return set_time(p, v[0], v[1], n[2] ? v[2] : KEEP);
}

/* One number, or two or three joined by the same separator (a date with / - . or a time with :).
 * Returns the number of characters read (> 0) or minus an error code. */
static int read_number(parse_t *p, const char *s)
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
static int read_delims(parse_t *p, const char *s)
{
    int n = 0;

    while (s[n] && !g_ascii_isalnum(s[n]))
        p->delim = s[n++];
    return n;
}

static int read_input(parse_t *p, const char *s)
{
    const char *q = s;

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

/* ---- building the result -------------------------------------------------------------------------- */

/* "now" as wall-clock fields in the zone the text gave, or in local time. */
static int reference_fields(const parse_t *p, time_t ref, GTimeZone *tz, maildex__civil_t *now, int *wday)
{
    GDateTime *utc, *dt;

    if (is_set(p, F_TZ))
        return maildex__civil_from_unix((int64_t) ref + p->value[F_TZ] * 60, now, wday);
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

static int64_t now_field(const maildex__civil_t *now, enum field f)
{
    switch (f) {
    case F_SEC:
        return now->sec;
    case F_MIN:
        return now->min;
    case F_HOUR:
        return now->hour;
    case F_MDAY:
        return now->mday;
    case F_MON:
        return now->mon;
    default:
        return now->year;
    }
}

/* The smallest value of a field, which rounding puts in the fields finer than the text's finest. */
static int64_t first_value(enum field f)
{
    return f == F_MDAY || f == F_MON ? 1 : f == F_YEAR ? 1970 : 0;
}

/* Turns am/pm into a relative hour shift (12am is midnight, 12pm noon), as notmuch does. */
static int apply_ampm(parse_t *p)
{
    int64_t h, shift = 0;

    if (!is_set(p, F_AMPM))
        return 0;
    if (!is_set(p, F_HOUR))
        return MAILDEX__PARSE_TIME_ERR_TIMEFORMAT;
    h = p->value[F_HOUR];
    if (!valid_hour12(h))
        return MAILDEX__PARSE_TIME_ERR_INVALIDTIME;
    if (p->value[F_AMPM] && h != 12)
        shift = 12;
    else if (!p->value[F_AMPM] && h == 12)
        shift = -12;
    return add_field(p, F_REL_HOUR, -shift);
}

/* Fills the fields the text left out, finest first, rounding below the finest field it gave. Returns the
 * rounding still owed to a week ("2w", "this week"), which is decided once the weekday is known. */
static int fill_fields(parse_t *p, const maildex__civil_t *now, int round)
{
    int week_round = MAILDEX__ROUND_EXACT;

    for (enum field f = F_SEC; f <= F_YEAR; f++) {
        if (round != MAILDEX__ROUND_EXACT) {
            if (is_set(p, f) || is_set(p, rel_of(f))) {
                /* The finest field given: rounding up moves on by one of it (a relative -1). */
                if (round >= MAILDEX__ROUND_UP && f != F_SEC) {
                    p->value[rel_of(f)] -= 1;
                    p->how[rel_of(f)] = GIVEN;
                    if (round == MAILDEX__ROUND_UP_INCLUSIVE) {
                        p->value[F_REL_SEC] += 1;
                        p->how[F_REL_SEC] = GIVEN;
                    }
                }
                round = MAILDEX__ROUND_EXACT;
            } else if (f == F_MDAY && is_set(p, F_REL_WEEK)) {
                week_round = round;
                round = MAILDEX__ROUND_EXACT;
            } else {
                p->value[f] = first_value(f);
                p->how[f] = GIVEN;
            }
        }
        if (!is_set(p, f)) {
            p->value[f] = now_field(now, f);
            p->how[f] = GIVEN;
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

static int build_time(parse_t *p, time_t ref, int round, time_t *out)
{
    GTimeZone *tz = is_set(p, F_TZ) ? NULL : g_time_zone_new_local();
    maildex__civil_t now, c;
    int64_t result;
    int today, week_round, r;

    if ((r = reference_fields(p, ref, tz, &now, &today)))
        goto done;
    for (enum field f = F_SEC; f <= F_YEAR; f++)
        if (p->how[f] == FROM_NOW)
            p->value[f] = now_field(&now, f), p->how[f] = GIVEN;
    /* A weekday without a day of the month means the last such day before today ("Mon" on a Monday is
     * a week ago); with one ("Fri, 03 Aug 2012") it is ignored. */
    if (is_set(p, F_WDAY) && !is_set(p, F_MDAY)) {
        int64_t wday = p->value[F_WDAY];

        if ((r = add_field(p, F_REL_DAY, today > wday ? today - wday : today + 7 - wday)))
            goto done;
        p->how[F_WDAY] = UNSET;
    }
    if ((r = apply_ampm(p)))
        goto done;
    week_round = fill_fields(p, &now, round);
    c.sec = p->value[F_SEC] - p->value[F_REL_SEC];
    c.min = p->value[F_MIN] - p->value[F_REL_MIN];
    c.hour = p->value[F_HOUR] - p->value[F_REL_HOUR];
    c.mday = p->value[F_MDAY] - p->value[F_REL_DAY] - 7 * p->value[F_REL_WEEK];
    c.mon = p->value[F_MON] - p->value[F_REL_MON];
    c.year = p->value[F_YEAR] - p->value[F_REL_YEAR];
    if (week_round != MAILDEX__ROUND_EXACT && (r = round_to_week(&c, week_round)))
        goto done;
    if ((r = maildex__civil_to_unix(&c, tz, &result)))
        goto done;
    /* Wall clock at a fixed offset east of UTC: UTC is that much earlier. */
    *out = (time_t) (tz ? result : result - p->value[F_TZ] * 60);
done:
    if (tz)
        g_time_zone_unref(tz);
    return r;
}

int maildex__parse_time_string(const char *s, time_t *t, const time_t *ref, int round)
{
    parse_t p;
    time_t result, reference = ref ? *ref : time(NULL);
    int r;

    if (!s || !t || round < MAILDEX__ROUND_DOWN || round > MAILDEX__ROUND_UP_INCLUSIVE)
        return MAILDEX__PARSE_TIME_ERR;
    /* Beyond this "now" is outside years 1-9999 anyway, and zone arithmetic on it could overflow. */
    if ((reference == (time_t) -1 && !ref) || reference > INT64_C(1000000000000) ||
        reference < -INT64_C(1000000000000))
        return MAILDEX__PARSE_TIME_ERR_LIB;
    memset(&p, 0, sizeof p);
    p.last = F_NONE;
    if ((r = read_input(&p, s)) || (r = build_time(&p, reference, round, &result)))
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
