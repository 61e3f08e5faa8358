/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Query terms: the nodes for the tokens that carry values (prefix:value, words, "phrases", and words
 * inside prefix:( groups), with the flags that say how the planner is to match them (phrase, wildcard,
 * regex, quoted, capitalised, stemmed), and notmuch's legacy `<epoch>..<epoch>` range. It reads only what
 * Xapian's syntax says about a value (quotes, a trailing `*`, /regex/ slashes, punctuation between words,
 * case); it must not interpret the words or dates themselves, which are the planner's. */
#include "parser.h"

#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>

/* Xapian does not stem a word directly followed by one of these (`plan(`, `plan"`, `plan*` in plain mode). */
static bool is_stem_preventer(char c)
{
    return c != '\0' && strchr("(/\\@<>=*[{\"", c) != NULL;
}

/* More than one word: a non-word byte between the first and the last word byte. */
static bool has_inner_break(const char *s)
{
    size_t n = strlen(s), a = 0, b = n;

    while (a < n && !maildex__qis_word_byte(s[a]))
        a++;
    while (b > a && !maildex__qis_word_byte(s[b - 1]))
        b--;
    for (size_t i = a; i < b; i++)
        if (!maildex__qis_word_byte(s[i]))
            return true;
    return false;
}

static bool has_word_byte(const char *s)
{
    for (; *s; s++)
        if (maildex__qis_word_byte(*s))
            return true;
    return false;
}

static bool starts_upper(const char *s)
{
    gunichar c = g_utf8_get_char_validated(s, -1);

    return c != (gunichar) -1 && c != (gunichar) -2 && g_unichar_isupper(c);
}

struct maildex__qnode *maildex__qterm_new(struct maildex__qparser *p, enum maildex__qfield field, const char *value,
                                          unsigned flags, size_t pos)
{
    struct maildex__qnode *n = maildex__qparse_node(p, MAILDEX__Q_TERM, pos);

    if (!n)
        return NULL;
    n->field = field;
    n->flags = flags;
    n->value = talloc_strdup(n, value); /* a copy under the node, so adopt() need only move nodes */
    if (!n->value) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    return n;
}

/* The node of a prefix's term; a user-defined field's node names its prefix. */
static struct maildex__qnode *prefixed_new(struct maildex__qparser *p, const struct maildex__qtoken *t,
                                           const char *value, unsigned flags)
{
    struct maildex__qnode *n = maildex__qterm_new(p, t->prefix->field, value, flags, t->pos);

    if (n && t->prefix->field == MAILDEX__QF_USER && (n->user_field = talloc_strdup(n, t->prefix->name)) == NULL) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    return n;
}

static bool strip_stars(char *s)
{
    size_t n = strlen(s);
    bool any = false;

    while (n > 0 && s[n - 1] == '*') {
        s[--n] = '\0';
        any = true;
    }
    return any;
}

/* A /regex/ value on a prefix that takes one: drops the slashes and sets the flag. As in notmuch, a value
 * that starts with '/' but does not end with one is an error, not a literal. */
static bool check_regex(struct maildex__qparser *p, const struct maildex__qtoken *t, char *value, unsigned *flags)
{
    size_t n = strlen(value);

    if (!t->prefix->regex || value[0] != '/')
        return true;
    if (n < 2 || value[n - 1] != '/') {
        maildex__qparse_fail(p, t->pos, "unmatched regex delimiter in '%s:%s'", t->prefix->name, value);
        return false;
    }
    memmove(value, value + 1, n - 2);
    value[n - 2] = '\0';
    *flags |= MAILDEX__QFLAG_REGEX;
    return true;
}

/* Xapian's stemming rule for one word: not stemmed when a stem preventer follows it. */
static bool first_word_unstemmed(const char *s)
{
    while (*s && !maildex__qis_word_byte(*s))
        s++;
    while (maildex__qis_word_byte(*s))
        s++;
    return is_stem_preventer(*s);
}

/* A value for a probabilistic prefix: phrase, wildcard and case flags; the words themselves are left to
 * the planner. An empty quoted `to:""` is an empty phrase, which Xapian's grammar rejects, and so is
 * an unterminated `to:"...` (from: and subject: are read as boolean values, which may end with the
 * text); in plain mode
 * a trailing `*` is a wildcard only where notmuch's field processors (from:, subject:) read the value,
 * and elsewhere keeps the word from being stemmed. */
static struct maildex__qnode *prob_term(struct maildex__qparser *p, const struct maildex__qtoken *t, char *value,
                                        unsigned flags)
{
    bool processor = t->prefix->processor;
    bool wildcard_ok = (!t->quoted || (processor && strchr(value, ' ') == NULL)) && (!p->plain || processor);
    bool unstemmed;

    if (flags & MAILDEX__QFLAG_REGEX)
        return prefixed_new(p, t, value, flags);
    /* notmuch's from:/subject: field processors read an empty value as "no such header": the messages
     * without a word there (regexp-fields.cc), the sexp syntax's (not (from *)). */
    if (processor && *value == '\0') {
        struct maildex__qnode *any = prefixed_new(p, t, "", MAILDEX__QFLAG_WILDCARD);
        return any ? maildex__qparse_parent(p, MAILDEX__Q_NOT, t->pos, any) : NULL;
    }
    if (t->quoted && !processor && !has_word_byte(value)) {
        maildex__qparse_fail_retry(p, t->pos, "empty phrase in '%s:'", t->prefix->name);
        return NULL;
    }
    /* Xapian closes the quote at the end but keeps the prefix it pushed for it, and closing that as a
     * group, after everything else, fails (parse_expression) */
    if (t->kind == MAILDEX__QT_PREFIXED && t->unterminated && !processor)
        p->open_quote = true;
    unstemmed = !processor && !t->quoted &&
                (first_word_unstemmed(value) || (t->end < p->len && is_stem_preventer(p->text[t->end])));
    if (wildcard_ok && strip_stars(value))
        flags |= MAILDEX__QFLAG_WILDCARD;
    if (p->plain && !processor)
        strip_stars(value);
    if (has_inner_break(value))
        flags |= MAILDEX__QFLAG_PHRASE;
    else if (unstemmed && !(flags & MAILDEX__QFLAG_WILDCARD))
        flags |= MAILDEX__QFLAG_QUOTED;
    if (starts_upper(value))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return prefixed_new(p, t, value, flags);
}

/* notmuch's from: and subject: field processors parse a value that starts with '(' and ends with ')' as
 * a query whose default prefix is theirs: `subject:"(review or plan)"` is subject:review OR subject:plan,
 * `subject:"(pizza free)"` both words, and other prefixes inside keep their meaning. Only the quoted
 * form reaches the processor whole (unquoted, `subject:(` is a group). */
static bool is_paren_query(const struct maildex__qtoken *t)
{
    size_t n = strlen(t->value);

    return t->quoted && t->prefix->processor && n >= 2 && t->value[0] == '(' && t->value[n - 1] == ')' &&
           has_word_byte(t->value);
}

struct maildex__qnode *maildex__qterm_prefixed(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    unsigned flags = t->quoted ? MAILDEX__QFLAG_QUOTED : 0;
    char *value = t->value;

    if (t->prefix->kind == MAILDEX__QP_PROB && is_paren_query(t))
        return maildex__qexpand_paren(p, t);

    switch (t->prefix->kind) {
    case MAILDEX__QP_THREAD:
        return maildex__qexpand_thread(p, t);
    case MAILDEX__QP_QUERY:
        return maildex__qexpand_named(p, t);
    case MAILDEX__QP_RAW:
        return prefixed_new(p, t, value, flags);
    case MAILDEX__QP_SEXP:
        return maildex__qexpand_sexp(p, t);
    case MAILDEX__QP_BOOL:
    case MAILDEX__QP_PROB:
        break;
    }
    if (!check_regex(p, t, value, &flags))
        return NULL;
    if (t->prefix->kind == MAILDEX__QP_PROB)
        return prob_term(p, t, value, flags);
    return prefixed_new(p, t, value, flags);
}

struct maildex__qnode *maildex__qterm_group(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    struct maildex__qnode *n;

    if (t->kind == MAILDEX__QT_WORD && !has_word_byte(t->value))
        return NULL;
    t->prefix = p->group;
    n = maildex__qterm_prefixed(p, t);
    if (n && p->stem && n->kind == MAILDEX__Q_TERM && t->prefix->processor &&
        !(n->flags & (MAILDEX__QFLAG_PHRASE | MAILDEX__QFLAG_WILDCARD | MAILDEX__QFLAG_REGEX | MAILDEX__QFLAG_QUOTED |
                      MAILDEX__QFLAG_CAPITALISED)))
        n->flags |= MAILDEX__QFLAG_STEM;
    return n;
}

/* notmuch's legacy unprefixed `<epoch>..<epoch>` (a Xapian number range over the date): becomes
 * date:@A..@B, with a start always written out. An open date: start leaves out undated messages (date 0,
 * notmuch starts it at the smallest positive double), an open legacy start does not: `..N` is @0..@N.
 * Xapian takes any word with `..` (but `..` itself) for a range, so a side that is not a number is an
 * error, as `foo..bar`, `wait...` and the `..2021-02` of `date:"jan 15 2021"..2021-02` are in notmuch.
 * Returns NULL without failing when the word holds no `..`. */
static struct maildex__qnode *legacy_range(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    const char *s = t->value, *dots = strstr(s, "..");
    size_t nlo, nhi;
    double lo = 0, hi = 0;
    int64_t ilo;
    char *value;

    if (!dots || strcmp(s, "..") == 0)
        return NULL;
    nlo = (size_t) (dots - s);
    nhi = strlen(dots + 2);
    if ((nlo && !maildex__qlex_read_number(s, nlo, &lo)) || (nhi && !maildex__qlex_read_number(dots + 2, nhi, &hi))) {
        maildex__qparse_fail(
            p, t->pos, "unknown range operation '%s' (a word with '..' is a range of seconds since the epoch)", s);
        return NULL;
    }
    /* No message is dated before 1970 (an undated one is at 0). */
    if (nhi && hi < 0)
        return maildex__qparse_node(p, MAILDEX__Q_NONE, t->pos);
    lo = lo < 0 ? 0 : lo;
    /* Dates are whole seconds: round into the range (1e15 seconds is far beyond any date). */
    lo = lo > 1e15 ? 1e15 : lo;
    hi = hi > 1e15 ? 1e15 : hi;
    ilo = (int64_t) lo;
    ilo += (double) ilo < lo;
    if (nhi)
        value = talloc_asprintf(p->sh->ctx, "@%" PRId64 "..@%" PRId64, ilo, (int64_t) hi);
    else
        value = talloc_asprintf(p->sh->ctx, "@%" PRId64 "..", ilo);
    if (!value) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    return maildex__qterm_new(p, MAILDEX__QF_DATE, value, 0, t->pos);
}

/* Whether a free word is also a thread id, as notmuch reads it. Xapian looks an unprefixed word up under
 * every field's term prefix, the thread ids' among them, unless it stems the word (one that starts with
 * a lower-case letter and no stem preventer follows), and lower-cases it: so a bare thread id such as
 * 0000000000000001, which notmuch.el's `notmuch-show` may be given, finds its thread (notmuch's T450
 * "notmuch-show with nonexistent CWD"). Only this case of that accident is kept: a thread id is never a
 * word one searches the text for, while a capitalised word finding a tag of that name would surprise
 * (doc/query-syntax.md). */
static bool is_bare_thread_id(const char *value, unsigned flags)
{
    size_t n = 0;

    if (flags & (MAILDEX__QFLAG_PHRASE | MAILDEX__QFLAG_WILDCARD))
        return false;
    for (; value[n]; n++)
        if (!g_ascii_isxdigit(value[n]))
            return false;
    return n == 16 && (!g_ascii_islower(value[0]) || (flags & MAILDEX__QFLAG_QUOTED));
}

/* The node of a free word: the text, or for a bare thread id the text or the thread. */
static struct maildex__qnode *free_word_node(struct maildex__qparser *p, char *value, unsigned flags, size_t pos)
{
    struct maildex__qnode *text = maildex__qterm_new(p, MAILDEX__QF_FREE, value, flags, pos);
    struct maildex__qvec either = {0};
    char *id;

    if (text == NULL || !is_bare_thread_id(value, flags))
        return text;
    if ((id = talloc_strdup(p->sh->ctx, value)) == NULL) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    for (char *c = id; *c; c++)
        *c = g_ascii_tolower(*c);
    if (!maildex__qparse_push(p, &either, text) ||
        !maildex__qparse_push(p, &either, maildex__qterm_new(p, MAILDEX__QF_THREAD, id, 0, pos)) ||
        either.v[1] == NULL)
        return NULL;
    return maildex__qparse_combine(p, MAILDEX__Q_OR, &either);
}

/* One run of word bytes and joiners from a free-text word, joiners trimmed off its ends; next is the
 * byte after the run (a stem preventer there keeps a single word from being stemmed). */
static bool free_segment(struct maildex__qparser *p, struct maildex__qvec *out, const char *s, size_t n, bool wildcard,
                         char next, size_t pos)
{
    unsigned flags = 0;
    char *value;

    while (n > 0 && maildex__qis_joiner(s[0]))
        s++, n--;
    while (n > 0 && maildex__qis_joiner(s[n - 1]))
        next = s[--n];
    if (n == 0)
        return true;
    value = talloc_strndup(p->sh->ctx, s, n);
    if (!value) {
        maildex__qparse_nomem(p);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (maildex__qis_joiner(s[i]))
            flags |= MAILDEX__QFLAG_PHRASE;
    if (wildcard)
        flags |= MAILDEX__QFLAG_WILDCARD;
    else if (!(flags & MAILDEX__QFLAG_PHRASE) && is_stem_preventer(next))
        flags |= MAILDEX__QFLAG_QUOTED;
    if (starts_upper(value))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return maildex__qparse_push(p, out, free_word_node(p, value, flags, pos));
}

struct maildex__qnode *maildex__qterm_free_word(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    struct maildex__qnode *range = legacy_range(p, t);
    struct maildex__qvec out = {0};
    char *s = t->value;
    char after = t->end < p->len ? p->text[t->end] : '\0';
    bool wildcard;
    size_t i = 0, n;

    if (range || p->sh->failed)
        return range;
    wildcard = !p->plain && strip_stars(s);
    n = strlen(s);
    while (i < n) {
        size_t start = i;

        while (i < n && (maildex__qis_word_byte(s[i]) || maildex__qis_joiner(s[i])))
            i++;
        if (i > start && !free_segment(p, &out, s + start, i - start, wildcard && i == n, i < n ? s[i] : after,
                                       t->pos))
            return NULL;
        while (i < n && !maildex__qis_word_byte(s[i]) && !maildex__qis_joiner(s[i]))
            i++;
    }
    if (out.n == 0)
        return NULL;
    for (size_t k = 0; k < out.n; k++)
        if (!out.v[k])
            return NULL;
    return maildex__qparse_combine(p, MAILDEX__Q_AND, &out);
}

struct maildex__qnode *maildex__qterm_free_phrase(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    char *s = t->value;
    size_t n = strlen(s);
    unsigned flags = MAILDEX__QFLAG_QUOTED;

    while (n > 0 && maildex__qis_space(s[n - 1]))
        s[--n] = '\0';
    while (maildex__qis_space(*s))
        s++;
    if (!has_word_byte(s)) {
        maildex__qparse_fail_retry(p, t->pos, "empty phrase");
        return NULL;
    }
    if (has_inner_break(s))
        flags |= MAILDEX__QFLAG_PHRASE;
    if (starts_upper(s))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return free_word_node(p, s, flags, t->pos);
}
