/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Regular expressions as notmuch has them: POSIX extended (regcomp with REG_EXTENDED | REG_NOSUB),
 * case-sensitive, in the process's LC_CTYPE. glibc's matcher simulates the automaton instead of
 * backtracking, so matching costs the value's length times the pattern's size, never exponential
 * time: a PCRE engine spent over a minute on `(a|b)*` repeated 2,000 times against 20,000 subjects.
 * Two things glibc does not bound are refused up front: back-references (\1..\9, an extension to
 * ERE whose matching is exponential) and patterns whose counted repetitions multiply into a huge
 * automaton (`((a{1,100}){1,100}){1,100}` does not compile in 20 s). This file registers the SQL
 * function regexp(pattern, value) on a connection and serves the planner's checks and plan-time
 * matches; it knows nothing of queries or the schema. */
#include "regexp.h"

#include <glib.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* The most atoms a pattern may expand to once counted repetitions are unrolled. */
#define MAX_EXPANDED 100000

/* A pattern's size once counted repetitions are unrolled, a bound on the automaton glibc builds:
 * a group's size is the sum of its pieces (alternatives add up too), x{m,n} is n copies of x
 * (m when n is open). Saturates above MAX_EXPANDED. Stops at the end of the pattern or at an
 * unmatched ')'. */
static double expanded_size(const char **s, int depth)
{
    double total = 0, last = 0;

    while (**s && total <= MAX_EXPANDED) {
        const char c = *(*s)++;
        if (c == ')' && depth > 0)
            break;
        if (c == '(') {
            last = expanded_size(s, depth + 1);
            total += last;
        } else if (c == '[') {
            /* a bracket expression is one atom: skip to its closing ']' (one right after the
             * opening, or after '^', is a member) */
            if (**s == '^')
                (*s)++;
            if (**s == ']')
                (*s)++;
            while (**s && **s != ']')
                (*s)++;
            if (**s)
                (*s)++;
            total += last = 1;
        } else if (c == '{' && last > 0) {
            char *end;
            long lo = strtol(*s, &end, 10), hi = lo;
            if (*end == ',')
                hi = g_ascii_isdigit(end[1]) ? strtol(end + 1, &end, 10) : (end++, lo);
            *s = *end == '}' ? end + 1 : end;
            total += last * (double) (MAX(lo, hi) > 1 ? MAX(lo, hi) - 1 : 0);
            last *= MAX(lo, hi);
        } else if (c == '\\' && **s) {
            (*s)++;
            total += last = 1;
        } else if (c != '|' && c != '*' && c != '+' && c != '?' && c != '^' && c != '$') {
            total += last = 1;
        }
    }
    return total;
}

static bool has_backreference(const char *pattern)
{
    bool in_bracket = false;

    for (const char *s = pattern; *s; s++) {
        if (in_bracket) {
            in_bracket = *s != ']';
        } else if (*s == '[') {
            in_bracket = true;
            if (s[1] == '^')
                s++;
            if (s[1] == ']')
                s++;
        } else if (*s == '\\' && s[1]) {
            if (s[1] >= '1' && s[1] <= '9')
                return true;
            s++;
        }
    }
    return false;
}

struct maildex__regex {
    regex_t re;
};

char *maildex__regex_compile(void *ctx, const char *pattern, struct maildex__regex **out)
{
    struct maildex__regex *r;
    const char *p = pattern;
    char buf[256];
    int rc;

    *out = NULL;
    if (has_backreference(pattern))
        return talloc_asprintf(ctx, "invalid regex '%s': back-references are not supported",
                               pattern);
    if (expanded_size(&p, 0) > MAX_EXPANDED)
        return talloc_asprintf(ctx, "invalid regex '%s': its repetitions make it too large",
                               pattern);
    r = g_new0(struct maildex__regex, 1);
    rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &r->re, buf, sizeof buf);
        g_free(r);
        return talloc_asprintf(ctx, "invalid regex '%s': %s", pattern, buf);
    }
    *out = r;
    return NULL;
}

bool maildex__regex_match(const struct maildex__regex *r, const char *text)
{
    return regexec(&r->re, text ? text : "", 0, NULL, 0) == 0;
}

void maildex__regex_free(struct maildex__regex *r)
{
    if (r == NULL)
        return;
    regfree(&r->re);
    g_free(r);
}

char *maildex__regex_check(void *ctx, const char *pattern)
{
    struct maildex__regex *r;
    char *error = maildex__regex_compile(ctx, pattern, &r);

    maildex__regex_free(r);
    return error;
}

static void regex_free_aux(void *r)
{
    maildex__regex_free(r);
}

/* regexp(pattern, value), compiled once per statement (SQLite's auxdata). The planner checks every
 * pattern before it reaches SQL, so a failure here is an invalid pattern written by hand. */
static void regexp_fn(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    struct maildex__regex *r = sqlite3_get_auxdata(c, 0);
    const char *text;

    (void) argc;
    if (r == NULL) {
        const char *pattern = (const char *) sqlite3_value_text(argv[0]);
        char *error = maildex__regex_compile(NULL, pattern ? pattern : "", &r);
        if (error) {
            sqlite3_result_error(c, error, -1);
            talloc_free(error);
            return;
        }
        sqlite3_set_auxdata(c, 0, r, regex_free_aux);
        r = sqlite3_get_auxdata(c, 0);
        if (r == NULL) {
            sqlite3_result_error_nomem(c);
            return;
        }
    }
    text = (const char *) sqlite3_value_text(argv[1]);
    sqlite3_result_int(c, text != NULL && maildex__regex_match(r, text));
}

int maildex__regexp_register(sqlite3 *sql)
{
    return sqlite3_create_function_v2(sql, "regexp", 2,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                      regexp_fn, NULL, NULL, NULL);
}
