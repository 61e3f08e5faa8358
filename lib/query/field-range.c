/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The handlers of date: and lastmod: (fields.h). A date range (notmuch's syntax, parse-time.h) is a
 * range of message keys, whose high bits are the date (maildex__key_of_date): it drives and is probed
 * on the messages' primary key, and its estimate is a count that stops at a cap. A lastmod: range is
 * probed on the messages row only. Nothing here composes terms or knows another field. */
#include "planner.h"
#include "fields.h"

#include "parse-time.h"

#include <stdlib.h>
#include <string.h>

/* messages.id is a date's key: see maildex__key_of_date. */
static int64_t date_key(int64_t t, bool upper)
{
    const int64_t lim = INT64_MAX >> MAILDEX__KEY_SHIFT;

    if (t >= lim)
        return INT64_MAX;
    if (t <= -lim)
        return INT64_MIN;
    return maildex__key_of_date(t) + (upper ? ((int64_t) 1 << MAILDEX__KEY_SHIFT) - 1 : 0);
}

/* The side of a date range text that does not parse, as notmuch names it: `foo` of `foo..2024`. */
static const char *bad_side(struct maildex__planner *p, const char *value)
{
    const char *dots = strstr(value, "..");
    char *begin = dots ? talloc_strndup(p->ctx, value, (size_t) (dots - value)) : NULL;
    time_t now = (time_t) p->now, t;

    if (begin == NULL)
        return value;
    if (*begin && maildex__parse_time_string(begin, &t, &now, MAILDEX__ROUND_DOWN) != 0)
        return begin;
    return strcmp(dots + 2, "!") == 0 ? begin : dots + 2;
}

/* A date range as a key range. A quoted date is one date for notmuch's date field processor, however
 * many `..` it holds (the parser has already lexed the quoted values that Xapian takes for ranges). */
static bool date_range(struct maildex__planner *p, const struct maildex__qnode *n, int64_t *lo, int64_t *hi)
{
    time_t now = (time_t) p->now, a, b;
    int64_t from, to;
    const char *err = NULL;

    if (n->flags & MAILDEX__QFLAG_QUOTED) {
        if (maildex__parse_time_string(n->value, &a, &now, MAILDEX__ROUND_DOWN) != 0 ||
            maildex__parse_time_string(n->value, &b, &now, MAILDEX__ROUND_UP_INCLUSIVE) != 0) {
            maildex__plan_syntax_error(
                p, n, maildex__plan_fmt(p, "Didn't understand date specification '%s'", n->value));
            return false;
        }
        from = (int64_t) a;
        to = (int64_t) b;
    } else if (maildex__parse_date_range(n->value, (time_t) p->now, &from, &to, &err) != 0) {
        maildex__plan_syntax_error(p, n, maildex__plan_fmt(p, "%s '%s'", err ? err : "Didn't understand date "
                                                                                   "specification",
                                                           bad_side(p, n->value)));
        return false;
    }
    /* notmuch starts an open range at DBL_MIN, the smallest positive double, so `date:..X` and `date:..`
     * leave out undated messages (date 0); the legacy `..N` comes as @0..@N and keeps them. */
    if (from == INT64_MIN)
        from = 1;
    *lo = date_key(from, false);
    *hi = date_key(to, true);
    return true;
}

static const char *date_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    int64_t lo, hi;

    if (!date_range(p, n, &lo, &hi))
        return "0";
    return maildex__plan_fmt(p, "%s.id BETWEEN ?%d AND ?%d", a, maildex__plan_int(p, lo),
                             maildex__plan_int(p, hi));
}

static bool date_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    int64_t lo, hi;

    if (!date_range(p, n, &lo, &hi))
        return false;
    return maildex__plan_arm(p, d, MAILDEX__DRIVER_DATE, "messages m", "m.id",
                             maildex__plan_fmt(p, "m.id BETWEEN ?%d AND ?%d", maildex__plan_int(p, lo),
                                               maildex__plan_int(p, hi)),
                             false);
}

static int64_t date_estimate(struct maildex__planner *p, const struct maildex__qnode *n, int64_t cap)
{
    int64_t lo, hi;

    if (!date_range(p, n, &lo, &hi))
        return 0;
    return maildex__plan_count(p, "messages WHERE id BETWEEN ?1 AND ?2", lo, hi, 2, cap);
}

static bool parse_int64(const char *s, size_t len, int64_t *v)
{
    char buf[32], *end;

    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *v = strtoll(buf, &end, 10);
    return *end == '\0';
}

static const char *lastmod_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    const char *dots = strstr(n->value, "..");
    const size_t len = strlen(n->value);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    bool ok;

    if (dots == NULL) {
        ok = parse_int64(n->value, len, &lo);
        hi = lo;
    } else {
        const size_t l1 = (size_t) (dots - n->value), l2 = len - l1 - 2;
        ok = (l1 == 0 || parse_int64(n->value, l1, &lo)) && (l2 == 0 || parse_int64(dots + 2, l2, &hi));
    }
    if (!ok) {
        maildex__plan_syntax_error(
            p, n, maildex__plan_fmt(p, "Didn't understand lastmod specification '%s'", n->value));
        return "0";
    }
    return maildex__plan_fmt(p, "%s.lastmod BETWEEN ?%d AND ?%d", a, maildex__plan_int(p, lo),
                             maildex__plan_int(p, hi));
}

/* ---- the handlers ---------------------------------------------------------------------------------------- */

const struct maildex__field_ops maildex__date_ops = {.probe = date_probe, .drive = date_drive, .estimate = date_estimate};
const struct maildex__field_ops maildex__lastmod_ops = {.probe = lastmod_probe, .cheap_estimate = true};
