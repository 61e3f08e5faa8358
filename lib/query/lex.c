/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The query lexer: cuts query text into Xapian's tokens (operators, parentheses, signs, words, "phrases",
 * prefix:values and prefix:( groups) as notmuch configures its QueryParser, dropping what Xapian's lexer
 * drops (a '(' or '"' that opens nothing, punctuation before a word, a sign before nothing), and holds
 * the table of notmuch's prefixes. It must not build nodes or give values a meaning: values are only
 * split off, with two exceptions that are Xapian syntax rather than meaning: an unprefixed word holding
 * `..` is notmuch's legacy range of seconds (anything but numbers there is an error, "unknown range
 * operation", as in notmuch), and a quoted date: value whose text up to the first space holds `..` is
 * lexed as Xapian's range lexer sees it, quotes and all (`date:"2021"..2022`). */
#include "parser.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

static const struct maildex__qprefix prefixes[] = {
    {"from", MAILDEX__QF_FROM, MAILDEX__QP_PROB, true, true, true, true},
    {"to", MAILDEX__QF_TO, MAILDEX__QP_PROB, false, false, true, false},
    {"subject", MAILDEX__QF_SUBJECT, MAILDEX__QP_PROB, true, true, true, true},
    {"body", MAILDEX__QF_BODY, MAILDEX__QP_PROB, false, false, true, false},
    {"attachment", MAILDEX__QF_ATTACHMENT, MAILDEX__QP_PROB, false, false, true, false},
    {"mimetype", MAILDEX__QF_MIMETYPE, MAILDEX__QP_PROB, false, false, true, false},
    {"tag", MAILDEX__QF_TAG, MAILDEX__QP_BOOL, true, true, true, false},
    {"is", MAILDEX__QF_TAG, MAILDEX__QP_BOOL, true, true, true, false},
    {"id", MAILDEX__QF_ID, MAILDEX__QP_BOOL, true, false, true, false},
    {"mid", MAILDEX__QF_ID, MAILDEX__QP_BOOL, true, true, true, false},
    {"thread", MAILDEX__QF_THREAD, MAILDEX__QP_THREAD, true, false, false, false},
    {"folder", MAILDEX__QF_FOLDER, MAILDEX__QP_BOOL, true, true, true, false},
    {"path", MAILDEX__QF_PATH, MAILDEX__QP_BOOL, true, true, true, false},
    {"property", MAILDEX__QF_PROPERTY, MAILDEX__QP_BOOL, true, false, true, false},
    {"date", MAILDEX__QF_DATE, MAILDEX__QP_RAW, true, false, false, false},
    {"lastmod", MAILDEX__QF_LASTMOD, MAILDEX__QP_RAW, true, false, false, false},
    {"query", MAILDEX__QF_FREE, MAILDEX__QP_QUERY, true, false, false, false},
    {"sexp", MAILDEX__QF_FREE, MAILDEX__QP_SEXP, true, false, false, false},
};

_Static_assert(sizeof prefixes / sizeof prefixes[0] == MAILDEX__QUERY_NPREFIXES, "MAILDEX__QUERY_NPREFIXES");

/* The user-defined fields (index.header.PREFIX) as probabilistic prefixes, like body:. */
static bool make_user_prefixes(struct maildex__qshared *sh)
{
    const char *const *names = sh->opts ? sh->opts->user_fields : NULL;
    size_t n = 0;

    while (names && names[n])
        n++;
    sh->user_prefixes = talloc_zero_array(sh->ctx, struct maildex__qprefix, n + 1);
    if (sh->user_prefixes == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        sh->user_prefixes[i] = (struct maildex__qprefix){names[i], MAILDEX__QF_USER, MAILDEX__QP_PROB,
                                                         false, false, true, false};
    sh->nuser_prefixes = n;
    return true;
}

static const struct maildex__qprefix *find_prefix(const struct maildex__qparser *p, const char *s, size_t n)
{
    struct maildex__qshared *sh = p->sh;

    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strlen(prefixes[i].name) == n && memcmp(prefixes[i].name, s, n) == 0)
            return &prefixes[i];
    if (sh->user_prefixes == NULL && !make_user_prefixes(sh))
        return NULL;
    for (size_t i = 0; i < sh->nuser_prefixes; i++)
        if (strlen(sh->user_prefixes[i].name) == n && memcmp(sh->user_prefixes[i].name, s, n) == 0)
            return &sh->user_prefixes[i];
    return NULL;
}

/* The end of a field name at i: Xapian reads word characters up to the ':' (notmuch's own names are
 * lower-case letters; user-defined ones start otherwise and may hold any word character). */
static size_t field_name_end(const struct maildex__qparser *p, size_t i)
{
    while (i < p->len && maildex__qis_word_byte(p->text[i]))
        i++;
    return i;
}

static char *dup_range(struct maildex__qparser *p, size_t from, size_t to)
{
    char *s = talloc_strndup(p->sh->ctx, p->text + from, to - from);

    if (!s)
        maildex__qparse_nomem(p);
    return s;
}

bool maildex__qlex_read_number(const char *s, size_t n, double *out)
{
    size_t i = 0, digits = 0;
    char buf[64];

    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (i != n || digits == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *out = g_ascii_strtod(buf, NULL);
    return true;
}

/* Is s[0, n) a number as Xapian's NumberRangeProcessor reads one (strtod), without exponents? */
static bool is_number(const char *s, size_t n)
{
    double ignored;

    return maildex__qlex_read_number(s, n, &ignored);
}

/* Where Xapian's range scan from i stops: at the first `..` (its first dot), whitespace or '(', or the
 * end. Xapian rescans at every step of its lexer, quadratic in a long word; the stop is remembered. */
static size_t range_stop(struct maildex__qparser *p, size_t i)
{
    size_t k;

    if (p->stop_known && i >= p->stop_from && i <= p->stop_at)
        return p->stop_at;
    for (k = i; k < p->len && !maildex__qis_space(p->text[k]) && p->text[k] != '('; k++)
        if (k + 1 < p->len && p->text[k] == '.' && p->text[k + 1] == '.')
            break;
    p->stop_known = true;
    p->stop_from = i;
    p->stop_at = k;
    return k;
}

int maildex__qlex_range_at(struct maildex__qparser *p, size_t i, bool *pending)
{
    size_t k = range_stop(p, i), b;

    if (pending)
        *pending = false;
    if (k + 1 >= p->len || p->text[k] != '.')
        return 0;
    for (b = k + 2; b < p->len && !maildex__qis_space(p->text[b]) && p->text[b] != ')'; b++)
        ;
    if (k == i && b == k + 2)
        return 0;
    if ((k - i >= 5 && memcmp(p->text + i, "date:", 5) == 0) || (k - i >= 8 && memcmp(p->text + i, "lastmod:", 8) == 0))
        return 1;
    if ((k == i || is_number(p->text + i, k - i)) && (b == k + 2 || is_number(p->text + k + 2, b - k - 2)))
        return 1;
    if (pending)
        *pending = k > i + 1 && memchr(p->text + i + 1, ':', k - i - 1) != NULL;
    return -1;
}

/* The end of the term Xapian reads at i: word bytes, joined into a phrase by punctuation (`a-b`,
 * `a.b`, `o'neil`) that a word byte follows, and in full mode one `*` after it that no word byte
 * follows (a wildcard). */
static size_t term_end(const struct maildex__qparser *p, size_t i)
{
    for (;;) {
        size_t j;

        while (i < p->len && maildex__qword_at(p->text, i, p->len))
            i++;
        for (j = i; j < p->len && maildex__qis_joiner(p->text[j]); j++)
            ;
        if (j == i || j >= p->len || !maildex__qword_at(p->text, j, p->len))
            break;
        i = j;
    }
    if (!p->plain && i < p->len && p->text[i] == '*' && (i + 1 == p->len || !maildex__qword_at(p->text, i + 1, p->len)))
        i++;
    return i;
}

/* Where the quoted value opened at p->cur ends (its closing quote, or the end of the text), and its
 * length once "" stands for one quote. Any double quote closes (maildex__qdquote_len), except that a boolean
 * value opened with '"' closes only with '"', as in Xapian. */
static size_t quoted_end(const struct maildex__qparser *p, bool boolean, size_t *n)
{
    size_t i = p->cur + maildex__qdquote_len(p->text, p->cur, p->len);
    bool ascii_only = boolean && p->text[p->cur] == '"';

    for (*n = 0; i < p->len; i++, (*n)++) {
        size_t q = maildex__qdquote_len(p->text, i, p->len);

        if (q && !(q == 1 && i + 1 < p->len && p->text[i + 1] == '"') && !(ascii_only && q != 1))
            break;
        if (q == 1)
            i++;
    }
    return i;
}

/* A "..." value starting at p->cur (on the quote); "" inside stands for one quote. An unterminated value
 * runs to the end of the text, as Xapian closes an open quote there. boolean: the value of a prefix
 * notmuch registers as boolean (quoted_end). */
static bool lex_quoted(struct maildex__qparser *p, struct maildex__qtoken *t, bool boolean)
{
    size_t open = p->cur + maildex__qdquote_len(p->text, p->cur, p->len), n, i = quoted_end(p, boolean, &n);
    char *buf = talloc_array(p->sh->ctx, char, n + 1);

    if (!buf) {
        maildex__qparse_nomem(p);
        return false;
    }
    for (size_t j = open, k = 0; k < n; j++, k++) {
        buf[k] = p->text[j];
        if (p->text[j] == '"')
            j++;
    }
    buf[n] = '\0';
    t->value = buf;
    t->value_pos = open;
    t->quoted = true;
    t->unterminated = i >= p->len;
    p->cur = i < p->len ? i + maildex__qdquote_len(p->text, i, p->len) : p->len;
    return true;
}

/* thread:{...}: up to the matching brace, skipping quoted strings, so the subquery may hold spaces. Text
 * stuck to the brace belongs to the value, as in Xapian, which must then end with '}' too
 * (`thread:{a}}` is the subquery `a}`, `thread:{a}b` is an error). */
static bool lex_braces(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    size_t open = p->cur, i = p->cur;
    int depth = 0;
    bool in_quote = false;

    /* Fail before scanning: each level of thread:{thread:{... would rescan the rest of the text. */
    if (p->sh->depth >= MAILDEX__QUERY_MAX_DEPTH) {
        maildex__qparse_fail(p, t->pos, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
        return false;
    }
    for (; i < p->len; i++) {
        char c = p->text[i];

        if (c == '"')
            in_quote = !in_quote;
        else if (!in_quote && c == '{')
            depth++;
        else if (!in_quote && c == '}' && --depth == 0)
            break;
    }
    while (i + 1 < p->len && !maildex__qis_space(p->text[i + 1]) && p->text[i + 1] != ')')
        i++;
    if (i >= p->len || p->text[i] != '}') {
        maildex__qparse_fail(p, open, "missing '}' in thread subquery");
        return false;
    }
    t->value_pos = open;
    t->brace_len = i + 1 - open; /* the subquery is parsed in place, never copied */
    p->cur = i + 1;
    return true;
}

/* An unquoted prefixed value: up to whitespace or ')' (as Xapian reads boolean terms), except that a
 * /regex/ runs to a closing slash followed by whitespace, ')' or the end, so it may contain ')'. */
static bool lex_plain_value(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    size_t start = p->cur, i = start;

    if (t->prefix->regex && p->text[i] == '/') {
        for (size_t j = i + 1; j < p->len; j++) {
            if (p->text[j] == '/' && (j + 1 == p->len || maildex__qis_space(p->text[j + 1]) || p->text[j + 1] == ')')) {
                i = j + 1;
                goto found;
            }
        }
    }
    while (i < p->len && !maildex__qis_space(p->text[i]) && p->text[i] != ')')
        i++;
found:
    t->value = dup_range(p, start, i);
    t->value_pos = start;
    p->cur = i;
    return t->value != NULL;
}

/* Xapian looks for a range before it looks for quotes: from p->cur (a quote) to the first space or ')',
 * does the text hold `..`? Then `date:"2021"..2022` and `date:"2021..2022"` are ranges whose sides keep
 * their quotes (the date parser skips them), while `date:"jan 15 2021..feb 2021"` is one quoted date. */
static bool quoted_run_is_range(const struct maildex__qparser *p)
{
    for (size_t i = p->cur; i + 1 < p->len && !maildex__qis_space(p->text[i]) && p->text[i] != ')'; i++)
        if (p->text[i] == '.' && p->text[i + 1] == '.')
            return true;
    return false;
}

/* In plain mode a probabilistic prefix without a field processor (to:, body:, attachment:, mimetype:)
 * takes a word only: before '"' or '(' it is no prefix, and `to:(a` is the words "to" and "a". The
 * others notmuch registers as boolean prefixes, so their values are read as always, quotes included,
 * and `tag:(a` is the tag "(a". */
static bool plain_drops_prefix(const struct maildex__qparser *p, const struct maildex__qprefix *pf, char next)
{
    return p->plain && pf->kind == MAILDEX__QP_PROB && !pf->processor && (next == '"' || next == '(');
}

/* The value of to:, body:, attachment: or mimetype: (prefixes Xapian itself reads, with no field
 * processor): the term after the colon and any phrase punctuation (`to:-bob` is to:bob). */
static bool lex_prob_value(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    size_t start = p->cur, end;

    if (p->text[start] != ':')
        while (start < p->len && strchr(".-/:\\@", p->text[start]))
            start++;
    end = term_end(p, start);
    t->value = dup_range(p, start, end);
    t->value_pos = start;
    p->cur = end;
    return t->value != NULL;
}

/* Is `name:` at p->cur a prefix Xapian takes? It needs a value: not whitespace, ')' or the end, and for
 * to:, body:, attachment: and mimetype: a word (after phrase punctuation), a quote or a '('. */
static bool takes_value(const struct maildex__qparser *p, const struct maildex__qprefix *pf, size_t colon)
{
    size_t i = colon + 1;

    if (i >= p->len || maildex__qis_space(p->text[i]) || p->text[i] == ')')
        return false;
    if (pf->kind != MAILDEX__QP_PROB || pf->processor || maildex__qdquote_len(p->text, i, p->len) || p->text[i] == '(')
        return true;
    if (p->text[i] != ':')
        while (i < p->len && strchr(".-/:\\@", p->text[i]))
            i++;
    return i < p->len && maildex__qword_at(p->text, i, p->len);
}

/* After the sign: `name:` of a known prefix followed by a value, or nothing (t->prefix stays NULL). */
static bool lex_prefixed(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    size_t i = p->cur;
    const struct maildex__qprefix *pf;
    char next;

    i = field_name_end(p, i);
    if (i == p->cur || i >= p->len || p->text[i] != ':')
        return true;
    pf = find_prefix(p, p->text + p->cur, i - p->cur);
    next = i + 1 < p->len ? p->text[i + 1] : '\0';
    if (next != '\0' && maildex__qdquote_len(p->text, i + 1, p->len))
        next = '"';
    if (!pf || !takes_value(p, pf, i) || plain_drops_prefix(p, pf, next))
        return true; /* `tag:` with no value is just the word "tag" */
    t->prefix = pf;
    p->cur = i + 1;
    if (next == '(' && pf->paren && !p->plain) {
        t->kind = MAILDEX__QT_GROUP;
        p->cur++;
        return true;
    }
    t->kind = MAILDEX__QT_PREFIXED;
    if (pf->kind == MAILDEX__QP_PROB && !pf->processor && next != '"')
        return lex_prob_value(p, t);
    if (next == '"' && pf->field == MAILDEX__QF_DATE && quoted_run_is_range(p))
        return lex_plain_value(p, t);
    if (next == '"')
        return lex_quoted(p, t, pf->kind != MAILDEX__QP_PROB || pf->processor);
    if (next == '{' && pf->kind == MAILDEX__QP_THREAD)
        return lex_braces(p, t);
    return lex_plain_value(p, t);
}

enum maildex__qtoken_kind maildex__qlex_operator_kind(const char *s, size_t n)
{
    static const struct {
        const char *word;
        enum maildex__qtoken_kind kind;
    } ops[] = {{"and", MAILDEX__QT_AND}, {"or", MAILDEX__QT_OR}, {"xor", MAILDEX__QT_XOR}, {"not", MAILDEX__QT_NOT}};

    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].word) == n && g_ascii_strncasecmp(ops[i].word, s, n) == 0)
            return ops[i].kind;
    return MAILDEX__QT_WORD;
}

/* A bare word: one Xapian term (term_end), so the punctuation after it separates it from the next token
 * (`a,tag:x` is `a` and tag:x, `plan*and` is plan and), or, when it holds `..`, everything up to whitespace,
 * a parenthesis or a quote, which Xapian tries as a range. Its first letters are an operator even with a sign
 * (the caller makes the sign a MAILDEX__QT_SIGN) or a `*` after them (`AND*`), but not in plain mode. */
static bool lex_word(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    size_t start = p->cur, i = start;

    /* Xapian's term here keeps an apostrophe or '&' between letters (`and'x` is no operator) */
    while (i < p->len &&
           (maildex__qword_at(p->text, i, p->len) ||
            (i > start && i + 1 < p->len && strchr("'&", p->text[i]) && maildex__qword_at(p->text, i + 1, p->len))))
        i++;
    t->kind = p->plain ? MAILDEX__QT_WORD : maildex__qlex_operator_kind(p->text + start, i - start);
    if (t->kind != MAILDEX__QT_WORD) {
        p->cur = i;
        return true;
    }
    i = term_end(p, start);
    if (i == start || maildex__qlex_range_at(p, start, NULL) > 0)
        for (i = start; i < p->len && !maildex__qis_space(p->text[i]) && !strchr("()\"", p->text[i]); i++)
            ;
    p->cur = i;
    t->value = dup_range(p, start, i);
    t->value_pos = start;
    return t->value != NULL;
}

/* Is the byte at i, which is not whitespace, one Xapian's lexer drops without making a token? In plain
 * mode every parenthesis and double quote; otherwise a '(' or '"' with only whitespace after it, an
 * empty `()` or `""` (spaces inside allowed; *skip_to is set past it), and a '(' after a word or other
 * punctuation rather than whitespace, a parenthesis or a sign (`a(b` is `a b`). In both, punctuation
 * before a word (`'tag:x`, `.tag:x` are tag:x), except a sign where a sign can be. (A word with `..`
 * was taken as a range before this is asked.) */
static bool ignored_at(const struct maildex__qparser *p, size_t i, size_t *skip_to)
{
    size_t q = maildex__qdquote_len(p->text, i, p->len), j = i + (q ? q : 1);
    char c = q ? '"' : p->text[i], prev = i ? p->text[i - 1] : ' ';

    *skip_to = j;
    if ((maildex__qis_word_byte(c) && !q) || (!p->plain && c == ')'))
        return false;
    if (!strchr("()\"", c))
        return p->plain || !((c == '+' || c == '-') && (maildex__qis_space(prev) || prev == '('));
    if (p->plain)
        return true;
    while (j < p->len && maildex__qis_space(p->text[j]))
        j++;
    if (j >= p->len || (c == '(' && !maildex__qis_space(prev) && !strchr("()+-", prev)))
        return true;
    if (c == '(') {
        *skip_to = j + 1;
        return p->text[j] == ')';
    }
    *skip_to = j + maildex__qdquote_len(p->text, j, p->len);
    return maildex__qdquote_len(p->text, j, p->len) > 0;
}

/* A `+`/`-` at p->cur where a sign can be: at the start of a word (after whitespace, '(' or the start). */
static bool sign_at(const struct maildex__qparser *p)
{
    char c = p->text[p->cur], prev = p->cur ? p->text[p->cur - 1] : ' ';

    return !p->plain && (c == '+' || c == '-') && (maildex__qis_space(prev) || prev == '(');
}

/* Does the sign at p->cur (sign_at) have a term after it, rather than whitespace, another sign or the
 * end, which make Xapian drop it? */
static bool sign_taken(const struct maildex__qparser *p)
{
    char next = p->cur + 1 < p->len ? p->text[p->cur + 1] : '\0';

    return next != '\0' && !maildex__qis_space(next) && next != '+' && next != '-';
}

/* Takes the sign at p->cur (sign_at) into t->sign: love or hate. As in Xapian, a sign at the very end
 * is dropped, and so is one followed by whitespace or another sign (both signs). */
static void lex_sign(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    if (sign_taken(p)) {
        t->sign = p->text[p->cur];
        t->pos = p->cur++;
    } else {
        p->cur += p->cur + 1 < p->len ? 2 : 1;
    }
}

const struct maildex__qprefix *maildex__qlex_boolean_term_at(const struct maildex__qparser *p, size_t i)
{
    size_t name = i;
    const struct maildex__qprefix *pf;

    i = field_name_end(p, i);
    if (i == name || i >= p->len || p->text[i] != ':')
        return NULL;
    pf = find_prefix(p, p->text + name, i - name);
    if (!pf || !pf->grouped || pf->field == MAILDEX__QF_LASTMOD || !takes_value(p, pf, i))
        return NULL;
    return pf;
}

/* Moves p->cur to the next token, past whitespace, what Xapian drops (ignored_at) and a sign, which
 * goes into t->sign. Fails on a word Xapian rejects as a range (maildex__qlex_range_at). */
static bool lex_start(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    bool deferred = false; /* a range error at a sign, pending on the term after it */

    for (;;) {
        size_t to;
        bool pending;
        int range;

        while (p->cur < p->len && maildex__qis_space(p->text[p->cur]))
            p->cur++;
        if (p->cur >= p->len)
            break;
        range = maildex__qlex_range_at(p, p->cur, &pending);
        if (deferred || range < 0) {
            if (range <= 0 && maildex__qlex_boolean_term_at(p, p->cur))
                break;
            if (!deferred && pending && !t->sign && sign_at(p))
                deferred = true;
            else
                goto bad_range;
        } else if (range > 0) {
            break;
        }
        if (ignored_at(p, p->cur, &to)) {
            p->cur = to;
        } else if (sign_at(p)) {
            char sign = t->sign;

            if (sign && sign_taken(p))
                break; /* a second sign: the first has no term (lex) */
            lex_sign(p, t);
            t->sign = sign ? sign : t->sign;
        } else {
            break;
        }
        if (deferred && !t->sign)
            goto bad_range; /* a dropped sign ends Xapian's lexer step */
    }
    if (!t->sign)
        t->pos = p->cur;
    t->detached = t->sign && p->cur > t->pos + 1;
    return true;
bad_range:
    maildex__qparse_fail(p, p->cur,
                         "unknown range operation '%.*s' (a word with '..' is a range of seconds since the epoch)",
                         (int) strcspn(p->text + p->cur, " \t\n\r\f\v"), p->text + p->cur);
    return false;
}

/* The token at p->cur, with its sign. A sign before nothing that can take it (the end, ')', an
 * operator) becomes a MAILDEX__QT_SIGN token of its own, and what follows is lexed again next time. */
static bool lex(struct maildex__qparser *p, struct maildex__qtoken *t)
{
    size_t after_sign;

    memset(t, 0, sizeof *t);
    if (!lex_start(p, t))
        return false;
    after_sign = t->sign ? t->pos + 1 : p->cur;
    if (t->sign && p->cur < p->len && sign_at(p)) {
        t->kind = MAILDEX__QT_SIGN; /* a sign before another sign */
    } else if (p->cur >= p->len) {
        t->kind = MAILDEX__QT_EOF;
    } else if (p->text[p->cur] == '(' || p->text[p->cur] == ')') {
        t->kind = p->text[p->cur++] == '(' ? MAILDEX__QT_LPAREN : MAILDEX__QT_RPAREN;
    } else if (maildex__qdquote_len(p->text, p->cur, p->len)) {
        t->kind = MAILDEX__QT_PHRASE;
        if (!lex_quoted(p, t, false))
            return false;
    } else {
        if (!lex_prefixed(p, t))
            return false;
        if (!t->prefix && !lex_word(p, t))
            return false;
    }
    if (t->sign && (t->kind == MAILDEX__QT_EOF || t->kind == MAILDEX__QT_RPAREN || t->kind == MAILDEX__QT_SIGN ||
                    maildex__qis_operator(t->kind))) {
        t->kind = MAILDEX__QT_SIGN;
        p->cur = after_sign;
    }
    t->end = p->cur;
    return true;
}

const struct maildex__qtoken *maildex__qlex_peek(struct maildex__qparser *p)
{
    if (!p->have_tok) {
        if (!lex(p, &p->tok)) {
            p->tok.kind = MAILDEX__QT_EOF;
            p->tok.pos = p->tok.end = p->len;
        }
        p->have_tok = true;
    }
    return &p->tok;
}

void maildex__qlex_advance(struct maildex__qparser *p)
{
    p->have_tok = false;
}
