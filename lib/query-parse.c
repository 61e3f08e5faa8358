/* Parser for notmuch 0.37's query language (compat reference §1.3, §3), producing the tree in lib/query.h.
 *
 * It follows Xapian's QueryParser as notmuch configures it: default operator AND, precedence
 * OR < XOR < AND/NOT, `-`/`+` love/hate, quoted phrases, and the grouping rule notmuch users rely on: in a
 * run of terms with no explicit operator, terms whose prefix is boolean or has a field processor are ORed
 * per prefix name and the groups ANDed (`tag:a from:b tag:c` = `(tag:a OR tag:c) AND from:b`). It must not
 * interpret values (dates, regexes, words) beyond splitting them off the query text, touch the store, or
 * recurse without bound: every nesting (parentheses, prefix groups, thread:{}, query:) counts
 * towards MAILDEX__QUERY_MAX_DEPTH, and long flat queries are handled with loops.
 *
 * Values are only split off, with three exceptions that are Xapian syntax rather than meaning: an
 * unprefixed word holding `..` is notmuch's legacy range of seconds (anything but numbers there is an
 * error, "unknown range operation", as in notmuch); a quoted date: value whose text up to the first
 * space holds `..` is lexed as Xapian's range lexer sees it, quotes and all (`date:"2021"..2022`); and a
 * quoted from:/subject: value in parentheses is a query of its own with that default prefix
 * (`subject:"(review or plan)"`), as notmuch's field processors read it.
 *
 * Malformed queries are read as Xapian 1.4 reads them (doc/query-syntax.md, "Malformed queries"): an
 * unclosed '(' or '"' is closed at the end, and a '(' or '"' that opens nothing (at the end, `()`,
 * `""`, a '(' stuck to a word) is dropped. A query Xapian's grammar rejects with "parse error" (an
 * unmatched ')', an empty group or phrase, only excluded terms, a sign with no term) is parsed again in
 * plain mode, as QueryParser::parse_query does: every word a term; operators, parentheses, quotes,
 * signs and wildcards are ignored, but prefixes that notmuch registers as boolean or with a field
 * processor keep their values. An operator missing an operand stays an error, as there ("Syntax:
 * <expression> AND <expression>"), unless Xapian forgets it and restarts (note_restart).
 *
 * Deliberate differences from notmuch: `prefix:(...)` groups apply the prefix to every word inside and
 * work for boolean prefixes too (Xapian gives only the first word the prefix, and reads `tag:(a` as the
 * tag "(a"), an unquoted `thread:{...}` may contain spaces, an unquoted `tag:/re(g)ex/` runs to the
 * closing slash, a prefixed probabilistic value with `..` (`subject:wait...`) is words, not a range
 * error, a from:/subject: value is not parsed again as a query (but for `"(...)"`), an operator is one
 * with a `+` or `#` stuck to it, and nesting deeper than MAILDEX__QUERY_MAX_DEPTH is an error. */
#include "query.h"

#include <glib.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>

#define NO_POS SIZE_MAX

enum pkind { PK_PROB, PK_BOOL, PK_RAW, PK_THREAD, PK_QUERY, PK_SEXP };

struct prefix {
    const char *name;
    enum maildex__qfield field;
    enum pkind kind;
    bool grouped;   /* boolean or field-processor prefix: same-name terms in a run are ORed */
    bool regex;     /* accepts /regex/ values */
    bool paren;     /* accepts prefix:( ... ) */
    bool processor; /* from:/subject: field processor: `"bob*"` is still a wildcard */
};

static const struct prefix prefixes[] = {
    {"from", MAILDEX__QF_FROM, PK_PROB, true, true, true, true},
    {"to", MAILDEX__QF_TO, PK_PROB, false, false, true, false},
    {"subject", MAILDEX__QF_SUBJECT, PK_PROB, true, true, true, true},
    {"body", MAILDEX__QF_BODY, PK_PROB, false, false, true, false},
    {"attachment", MAILDEX__QF_ATTACHMENT, PK_PROB, false, false, true, false},
    {"mimetype", MAILDEX__QF_MIMETYPE, PK_PROB, false, false, true, false},
    {"tag", MAILDEX__QF_TAG, PK_BOOL, true, true, true, false},
    {"is", MAILDEX__QF_TAG, PK_BOOL, true, true, true, false},
    {"id", MAILDEX__QF_ID, PK_BOOL, true, false, true, false},
    {"mid", MAILDEX__QF_ID, PK_BOOL, true, true, true, false},
    {"thread", MAILDEX__QF_THREAD, PK_THREAD, true, false, false, false},
    {"folder", MAILDEX__QF_FOLDER, PK_BOOL, true, true, true, false},
    {"path", MAILDEX__QF_PATH, PK_BOOL, true, true, true, false},
    {"property", MAILDEX__QF_PROPERTY, PK_BOOL, true, false, true, false},
    {"date", MAILDEX__QF_DATE, PK_RAW, true, false, false, false},
    {"lastmod", MAILDEX__QF_LASTMOD, PK_RAW, true, false, false, false},
    {"query", MAILDEX__QF_FREE, PK_QUERY, true, false, false, false},
    {"sexp", MAILDEX__QF_FREE, PK_SEXP, false, false, false, false},
};

/* T_SIGN is a '+' or '-' with no term after it (before ')', an operator or the end): Xapian's LOVE or
 * HATE token that its grammar then rejects. */
enum tok_kind { T_EOF, T_LPAREN, T_RPAREN, T_AND, T_OR, T_XOR, T_NOT, T_SIGN, T_WORD, T_PHRASE, T_PREFIXED, T_GROUP };

struct token {
    enum tok_kind kind;
    size_t pos, end;            /* byte range in the parser's text */
    char sign;                  /* '+', '-' or 0 */
    const struct prefix *prefix; /* T_PREFIXED, T_GROUP */
    char *value;                /* T_WORD, T_PHRASE, T_PREFIXED (talloc'd) */
    size_t value_pos;           /* where the value starts in the text */
    size_t brace_len;           /* unquoted thread:{...}: value is NULL, the braces are text[value_pos, +len) */
    bool quoted;
    bool unterminated;          /* quoted, and the closing quote is missing */
    bool detached;              /* signed, with punctuation Xapian drops between the sign and the token */
};

/* State shared by a parse and the nested parses of its thread:{} and query: terms. */
struct shared {
    void *ctx; /* everything is allocated here; the result is moved out at the end */
    const struct maildex__query_options *opts;
    bool failed, nomem;
    bool retry; /* the failure is one Xapian calls "parse error": parse the text again in plain mode */
    size_t restart;     /* NO_POS, or where Xapian forgets the failure and parses again (note_restart) */
    int restart_groups; /* groups open at restart */
    char *error;
    int depth;
    const char *expanding[MAILDEX__QUERY_MAX_DEPTH + 1]; /* named queries being expanded, outermost first */
    int nexpanding;
};

struct parser {
    struct shared *sh;
    const char *text;
    size_t len, cur;
    size_t base;      /* offset of text in the text error positions refer to */
    size_t pos_fixed; /* NO_POS, or the position every node gets (inside a query: expansion) */
    const struct prefix *group; /* default prefix inside prefix:( ... ) */
    bool stem;        /* inside a quoted from:/subject: query value: words given the group prefix are stemmed */
    bool plain;       /* Xapian's second reading: no operators, groups, phrases, signs or wildcards */
    int open_groups;  /* groups open at the current token */
    bool stop_known;  /* range_stop: from any position in [stop_from, stop_at] the scan stops at stop_at */
    size_t stop_from, stop_at;
    bool open_quote;  /* a to:"..., body:"... runs to the end: Xapian fails once it has read everything */
    bool have_tok;
    struct token tok;
};

struct vec {
    struct maildex__qnode **v;
    size_t n, cap;
};

/* ---- errors and allocation ---------------------------------------------------------------------- */

static void nomem(struct parser *p)
{
    p->sh->failed = true;
    p->sh->nomem = true;
}

/* Records the first error as "<what> at position <abs_pos>: <message>". */
__attribute__((format(printf, 4, 0))) static void vfail(struct parser *p, const char *what, size_t abs_pos,
                                                        const char *fmt, va_list ap)
{
    char *msg;

    if (p->sh->failed)
        return;
    p->sh->failed = true;
    msg = talloc_vasprintf(p->sh->ctx, fmt, ap);
    if (msg)
        p->sh->error = talloc_asprintf(p->sh->ctx, "%s at position %zu: %s", what, abs_pos, msg);
    if (!p->sh->error)
        p->sh->nomem = true;
}

/* A syntax error at pos in the parser's text. */
__attribute__((format(printf, 3, 4))) static void fail(struct parser *p, size_t pos, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail(p, "syntax error", p->base + pos, fmt, ap);
    va_end(ap);
}

/* A syntax error Xapian's grammar reports as "parse error", which makes QueryParser parse the text again
 * in plain mode (parse_text). The message is only seen if that fails too. */
__attribute__((format(printf, 3, 4))) static void fail_retry(struct parser *p, size_t pos, const char *fmt, ...)
{
    va_list ap;

    if (p->sh->failed)
        return;
    p->sh->retry = true;
    va_start(ap, fmt);
    vfail(p, "syntax error", p->base + pos, fmt, ap);
    va_end(ap);
}

/* A well-formed query that cannot be run (unknown or cyclic named query, unsupported prefix). */
__attribute__((format(printf, 4, 5))) static void fail_query(struct parser *p, size_t abs_pos, const char *what,
                                                             const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail(p, what, abs_pos, fmt, ap);
    va_end(ap);
}

static bool enter(struct parser *p, size_t pos)
{
    if (++p->sh->depth > MAILDEX__QUERY_MAX_DEPTH) {
        fail(p, pos, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
        return false;
    }
    return true;
}

static void leave(struct parser *p)
{
    p->sh->depth--;
}

static size_t node_pos(const struct parser *p, size_t pos)
{
    return p->pos_fixed != NO_POS ? p->pos_fixed : p->base + pos;
}

static struct maildex__qnode *new_node(struct parser *p, enum maildex__qkind kind, size_t pos)
{
    struct maildex__qnode *n = talloc_zero(p->sh->ctx, struct maildex__qnode);

    if (!n) {
        nomem(p);
        return NULL;
    }
    n->kind = kind;
    n->pos = node_pos(p, pos);
    return n;
}

static bool vec_push(struct parser *p, struct vec *v, struct maildex__qnode *n)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        struct maildex__qnode **nv = talloc_realloc(p->sh->ctx, v->v, struct maildex__qnode *, cap);

        if (!nv) {
            nomem(p);
            return false;
        }
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = n;
    return true;
}

/* A node of kind (NOT or THREAD) whose one child is child; pos as for new_node. */
static struct maildex__qnode *new_parent(struct parser *p, enum maildex__qkind kind, size_t pos,
                                         struct maildex__qnode *child)
{
    struct maildex__qnode *n = new_node(p, kind, pos);

    if (!n)
        return NULL;
    n->children = talloc_array(n, struct maildex__qnode *, 1);
    if (!n->children) {
        nomem(p);
        return NULL;
    }
    n->children[0] = child;
    n->nchildren = 1;
    return n;
}

static struct maildex__qnode *wrap_not(struct parser *p, struct maildex__qnode *child)
{
    struct maildex__qnode *n = new_parent(p, MAILDEX__Q_NOT, 0, child);

    if (n)
        n->pos = child->pos;
    return n;
}

/* Combines v's nodes with kind (AND, OR or XOR), flattening children of the same kind and dropping `*`
 * where it changes nothing, so `a and (b and c)` and `* tag:x` come out flat. One node is returned as is. */
static struct maildex__qnode *combine(struct parser *p, enum maildex__qkind kind, struct vec *v)
{
    struct vec out = {0};
    struct maildex__qnode *n;
    size_t nall = 0;

    if (v->n == 1)
        return v->v[0];
    for (size_t i = 0; i < v->n; i++)
        nall += v->v[i]->kind == MAILDEX__Q_ALL;
    if (kind == MAILDEX__Q_OR && nall)
        return new_node(p, MAILDEX__Q_ALL, 0);
    for (size_t i = 0; i < v->n; i++) {
        struct maildex__qnode *c = v->v[i];

        if (kind == MAILDEX__Q_AND && c->kind == MAILDEX__Q_ALL && nall < v->n)
            continue;
        if (c->kind == kind) {
            for (size_t j = 0; j < c->nchildren; j++)
                if (!vec_push(p, &out, c->children[j]))
                    return NULL;
        } else if (!vec_push(p, &out, c)) {
            return NULL;
        }
    }
    if (out.n == 1)
        return out.v[0];
    n = new_node(p, kind, 0);
    if (!n)
        return NULL;
    n->pos = out.v[0]->pos;
    n->children = talloc_steal(n, out.v);
    n->nchildren = out.n;
    return n;
}

/* ---- characters --------------------------------------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A byte of a word: ASCII letters and digits, '_', and any byte of a UTF-8 sequence. */
static bool is_word_byte(char c)
{
    unsigned char u = (unsigned char) c;

    return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}

/* Punctuation that joins words into a phrase (Xapian's phrase generators, plus the apostrophe). */
static bool is_joiner(char c)
{
    return c != '\0' && strchr(".-/:\\@'", c) != NULL;
}

/* Xapian does not stem a word directly followed by one of these (`plan(`, `plan"`, `plan*` in plain mode). */
static bool is_stem_preventer(char c)
{
    return c != '\0' && strchr("(/\\@<>=*[{\"", c) != NULL;
}

/* The length of the double quote at i: 1 for '"', 3 for the curly quotes U+201C and U+201D, which Xapian
 * takes for quotes too, and 0 for anything else. */
static size_t dquote_len(const char *s, size_t i, size_t len)
{
    if (s[i] == '"')
        return 1;
    if (i + 2 < len && s[i] == '\xe2' && s[i + 1] == '\x80' && (s[i + 2] == '\x9c' || s[i + 2] == '\x9d'))
        return 3;
    return 0;
}

/* A byte of a word in the text, where a curly quote is punctuation. */
static bool word_at(const char *s, size_t i, size_t len)
{
    return is_word_byte(s[i]) && !dquote_len(s, i, len);
}

/* More than one word: a non-word byte between the first and the last word byte. */
static bool has_inner_break(const char *s)
{
    size_t n = strlen(s), a = 0, b = n;

    while (a < n && !is_word_byte(s[a]))
        a++;
    while (b > a && !is_word_byte(s[b - 1]))
        b--;
    for (size_t i = a; i < b; i++)
        if (!is_word_byte(s[i]))
            return true;
    return false;
}

static bool has_word_byte(const char *s)
{
    for (; *s; s++)
        if (is_word_byte(*s))
            return true;
    return false;
}

static bool starts_upper(const char *s)
{
    gunichar c = g_utf8_get_char_validated(s, -1);

    return c != (gunichar) -1 && c != (gunichar) -2 && g_unichar_isupper(c);
}

/* ---- lexer -------------------------------------------------------------------------------------- */

static const struct prefix *find_prefix(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strlen(prefixes[i].name) == n && memcmp(prefixes[i].name, s, n) == 0)
            return &prefixes[i];
    return NULL;
}

static char *dup_range(struct parser *p, size_t from, size_t to)
{
    char *s = talloc_strndup(p->sh->ctx, p->text + from, to - from);

    if (!s)
        nomem(p);
    return s;
}

/* Is text[from, to) a number as Xapian's NumberRangeProcessor reads one (strtod), without exponents? */
static bool is_number(const char *s, size_t n);

/* Where Xapian's range scan from i stops: at the first `..` (its first dot), whitespace or '(', or the
 * end. Xapian rescans at every step of its lexer, quadratic in a long word; the stop is remembered. */
static size_t range_stop(struct parser *p, size_t i)
{
    size_t k;

    if (p->stop_known && i >= p->stop_from && i <= p->stop_at)
        return p->stop_at;
    for (k = i; k < p->len && !is_space(p->text[k]) && p->text[k] != '('; k++)
        if (k + 1 < p->len && p->text[k] == '.' && p->text[k + 1] == '.')
            break;
    p->stop_known = true;
    p->stop_from = i;
    p->stop_at = k;
    return k;
}

/* Xapian tries the word at every step of its lexer (a token or a punctuation mark, outside quotes) as a
 * range first: the text up to whitespace or '(' holding `..`, the upper side running to whitespace or
 * ')'. Returns 0 when it is none (or `..` alone, which Xapian drops), 1 for a range notmuch's
 * processors take (date:, lastmod:, numbers: the legacy range of seconds), -1 for one they do not
 * ("Unknown range operation"); *pending (if not NULL) is then set if the lower side holds ':' after its first byte,
 * an error Xapian forgets if the same lexer step reaches a boolean-prefixed term (`tag:a..b` is the tag
 * "a..b"). */
static int range_at(struct parser *p, size_t i, bool *pending)
{
    size_t k = range_stop(p, i), b;

    if (pending)
        *pending = false;
    if (k + 1 >= p->len || p->text[k] != '.')
        return 0;
    for (b = k + 2; b < p->len && !is_space(p->text[b]) && p->text[b] != ')'; b++)
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
static size_t term_end(const struct parser *p, size_t i)
{
    for (;;) {
        size_t j;

        while (i < p->len && word_at(p->text, i, p->len))
            i++;
        for (j = i; j < p->len && is_joiner(p->text[j]); j++)
            ;
        if (j == i || j >= p->len || !word_at(p->text, j, p->len))
            break;
        i = j;
    }
    if (!p->plain && i < p->len && p->text[i] == '*' && (i + 1 == p->len || !word_at(p->text, i + 1, p->len)))
        i++;
    return i;
}

/* Where the quoted value opened at p->cur ends (its closing quote, or the end of the text), and its
 * length once "" stands for one quote. Any double quote closes (dquote_len), except that a boolean
 * value opened with '"' closes only with '"', as in Xapian. */
static size_t quoted_end(const struct parser *p, bool boolean, size_t *n)
{
    size_t i = p->cur + dquote_len(p->text, p->cur, p->len);
    bool ascii_only = boolean && p->text[p->cur] == '"';

    for (*n = 0; i < p->len; i++, (*n)++) {
        size_t q = dquote_len(p->text, i, p->len);

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
static bool lex_quoted(struct parser *p, struct token *t, bool boolean)
{
    size_t open = p->cur + dquote_len(p->text, p->cur, p->len), n, i = quoted_end(p, boolean, &n);
    char *buf = talloc_array(p->sh->ctx, char, n + 1);

    if (!buf) {
        nomem(p);
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
    p->cur = i < p->len ? i + dquote_len(p->text, i, p->len) : p->len;
    return true;
}

/* thread:{...}: up to the matching brace, skipping quoted strings, so the subquery may hold spaces. Text
 * stuck to the brace belongs to the value, as in Xapian, which must then end with '}' too
 * (`thread:{a}}` is the subquery `a}`, `thread:{a}b` is an error). */
static bool lex_braces(struct parser *p, struct token *t)
{
    size_t open = p->cur, i = p->cur;
    int depth = 0;
    bool in_quote = false;

    /* Fail before scanning: each level of thread:{thread:{... would rescan the rest of the text. */
    if (p->sh->depth >= MAILDEX__QUERY_MAX_DEPTH) {
        fail(p, t->pos, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
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
    while (i + 1 < p->len && !is_space(p->text[i + 1]) && p->text[i + 1] != ')')
        i++;
    if (i >= p->len || p->text[i] != '}') {
        fail(p, open, "missing '}' in thread subquery");
        return false;
    }
    t->value_pos = open;
    t->brace_len = i + 1 - open; /* the subquery is parsed in place, never copied */
    p->cur = i + 1;
    return true;
}

/* An unquoted prefixed value: up to whitespace or ')' (as Xapian reads boolean terms), except that a
 * /regex/ runs to a closing slash followed by whitespace, ')' or the end, so it may contain ')'. */
static bool lex_plain_value(struct parser *p, struct token *t)
{
    size_t start = p->cur, i = start;

    if (t->prefix->regex && p->text[i] == '/') {
        for (size_t j = i + 1; j < p->len; j++) {
            if (p->text[j] == '/' && (j + 1 == p->len || is_space(p->text[j + 1]) || p->text[j + 1] == ')')) {
                i = j + 1;
                goto found;
            }
        }
    }
    while (i < p->len && !is_space(p->text[i]) && p->text[i] != ')')
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
static bool quoted_run_is_range(const struct parser *p)
{
    for (size_t i = p->cur; i + 1 < p->len && !is_space(p->text[i]) && p->text[i] != ')'; i++)
        if (p->text[i] == '.' && p->text[i + 1] == '.')
            return true;
    return false;
}

static bool is_operator(enum tok_kind k)
{
    return k == T_AND || k == T_OR || k == T_XOR || k == T_NOT;
}

/* In plain mode a probabilistic prefix without a field processor (to:, body:, attachment:, mimetype:)
 * takes a word only: before '"' or '(' it is no prefix, and `to:(a` is the words "to" and "a". The
 * others notmuch registers as boolean prefixes, so their values are read as always, quotes included,
 * and `tag:(a` is the tag "(a". */
static bool plain_drops_prefix(const struct parser *p, const struct prefix *pf, char next)
{
    return p->plain && pf->kind == PK_PROB && !pf->processor && (next == '"' || next == '(');
}

/* The value of to:, body:, attachment: or mimetype: (prefixes Xapian itself reads, with no field
 * processor): the term after the colon and any phrase punctuation (`to:-bob` is to:bob). */
static bool lex_prob_value(struct parser *p, struct token *t)
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
static bool takes_value(const struct parser *p, const struct prefix *pf, size_t colon)
{
    size_t i = colon + 1;

    if (i >= p->len || is_space(p->text[i]) || p->text[i] == ')')
        return false;
    if (pf->kind != PK_PROB || pf->processor || dquote_len(p->text, i, p->len) || p->text[i] == '(')
        return true;
    if (p->text[i] != ':')
        while (i < p->len && strchr(".-/:\\@", p->text[i]))
            i++;
    return i < p->len && word_at(p->text, i, p->len);
}

/* After the sign: `name:` of a known prefix followed by a value, or nothing (t->prefix stays NULL). */
static bool lex_prefixed(struct parser *p, struct token *t)
{
    size_t i = p->cur;
    const struct prefix *pf;
    char next;

    while (i < p->len && p->text[i] >= 'a' && p->text[i] <= 'z')
        i++;
    if (i == p->cur || i >= p->len || p->text[i] != ':')
        return true;
    pf = find_prefix(p->text + p->cur, i - p->cur);
    next = i + 1 < p->len ? p->text[i + 1] : '\0';
    if (next != '\0' && dquote_len(p->text, i + 1, p->len))
        next = '"';
    if (!pf || !takes_value(p, pf, i) || plain_drops_prefix(p, pf, next))
        return true; /* `tag:` with no value is just the word "tag" */
    if (pf->kind == PK_SEXP) {
        fail_query(p, p->base + t->pos, "unsupported prefix", "sexp: queries are not supported");
        return false;
    }
    t->prefix = pf;
    p->cur = i + 1;
    if (next == '(' && pf->paren && !p->plain) {
        t->kind = T_GROUP;
        p->cur++;
        return true;
    }
    t->kind = T_PREFIXED;
    if (pf->kind == PK_PROB && !pf->processor && next != '"')
        return lex_prob_value(p, t);
    if (next == '"' && pf->field == MAILDEX__QF_DATE && quoted_run_is_range(p))
        return lex_plain_value(p, t);
    if (next == '"')
        return lex_quoted(p, t, pf->kind != PK_PROB || pf->processor);
    if (next == '{' && pf->kind == PK_THREAD)
        return lex_braces(p, t);
    return lex_plain_value(p, t);
}

static enum tok_kind operator_kind(const char *s, size_t n)
{
    static const struct {
        const char *word;
        enum tok_kind kind;
    } ops[] = {{"and", T_AND}, {"or", T_OR}, {"xor", T_XOR}, {"not", T_NOT}};

    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].word) == n && g_ascii_strncasecmp(ops[i].word, s, n) == 0)
            return ops[i].kind;
    return T_WORD;
}

/* A bare word: one Xapian term (term_end), so the punctuation after it separates it from the next token
 * (`a,tag:x` is `a` and tag:x, `plan*and` is plan and), or, when it holds `..`, everything up to
 * whitespace, a parenthesis or a quote, which Xapian tries as a range. Its first letters are an operator
 * even with a sign (the caller makes the sign a T_SIGN) or a `*` after them (`AND*`), but not in plain
 * mode. */
static bool lex_word(struct parser *p, struct token *t)
{
    size_t start = p->cur, i = start;

    /* Xapian's term here keeps an apostrophe or '&' between letters (`and'x` is no operator) */
    while (i < p->len && (word_at(p->text, i, p->len) || (i > start && i + 1 < p->len && strchr("'&", p->text[i]) &&
                                                        word_at(p->text, i + 1, p->len))))
        i++;
    t->kind = p->plain ? T_WORD : operator_kind(p->text + start, i - start);
    if (t->kind != T_WORD) {
        p->cur = i;
        return true;
    }
    i = term_end(p, start);
    if (i == start || range_at(p, start, NULL) > 0)
        for (i = start; i < p->len && !is_space(p->text[i]) && !strchr("()\"", p->text[i]); i++)
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
static bool ignored_at(const struct parser *p, size_t i, size_t *skip_to)
{
    size_t q = dquote_len(p->text, i, p->len), j = i + (q ? q : 1);
    char c = q ? '"' : p->text[i], prev = i ? p->text[i - 1] : ' ';

    *skip_to = j;
    if ((is_word_byte(c) && !q) || (!p->plain && c == ')'))
        return false;
    if (!strchr("()\"", c))
        return p->plain || !((c == '+' || c == '-') && (is_space(prev) || prev == '('));
    if (p->plain)
        return true;
    while (j < p->len && is_space(p->text[j]))
        j++;
    if (j >= p->len || (c == '(' && !is_space(prev) && !strchr("()+-", prev)))
        return true;
    if (c == '(') {
        *skip_to = j + 1;
        return p->text[j] == ')';
    }
    *skip_to = j + dquote_len(p->text, j, p->len);
    return dquote_len(p->text, j, p->len) > 0;
}

/* A `+`/`-` at p->cur where a sign can be: at the start of a word (after whitespace, '(' or the start). */
static bool sign_at(const struct parser *p)
{
    char c = p->text[p->cur], prev = p->cur ? p->text[p->cur - 1] : ' ';

    return !p->plain && (c == '+' || c == '-') && (is_space(prev) || prev == '(');
}

/* Does the sign at p->cur (sign_at) have a term after it, rather than whitespace, another sign or the
 * end, which make Xapian drop it? */
static bool sign_taken(const struct parser *p)
{
    char next = p->cur + 1 < p->len ? p->text[p->cur + 1] : '\0';

    return next != '\0' && !is_space(next) && next != '+' && next != '-';
}

/* Takes the sign at p->cur (sign_at) into t->sign: love or hate. As in Xapian, a sign at the very end
 * is dropped, and so is one followed by whitespace or another sign (both signs). */
static void lex_sign(struct parser *p, struct token *t)
{
    if (sign_taken(p)) {
        t->sign = p->text[p->cur];
        t->pos = p->cur++;
    } else {
        p->cur += p->cur + 1 < p->len ? 2 : 1;
    }
}

static const struct prefix *boolean_term_at(const struct parser *p, size_t i);

/* Moves p->cur to the next token, past whitespace, what Xapian drops (ignored_at) and a sign, which
 * goes into t->sign. Fails on a word Xapian rejects as a range (range_at). */
static bool lex_start(struct parser *p, struct token *t)
{
    bool deferred = false; /* a range error at a sign, pending on the term after it */

    for (;;) {
        size_t to;
        bool pending;
        int range;

        while (p->cur < p->len && is_space(p->text[p->cur]))
            p->cur++;
        if (p->cur >= p->len)
            break;
        range = range_at(p, p->cur, &pending);
        if (deferred || range < 0) {
            if (range <= 0 && boolean_term_at(p, p->cur))
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
    fail(p, p->cur, "unknown range operation '%.*s' (a word with '..' is a range of seconds since the epoch)",
         (int) strcspn(p->text + p->cur, " \t\n\r\f\v"), p->text + p->cur);
    return false;
}

/* The token at p->cur, with its sign. A sign before nothing that can take it (the end, ')', an
 * operator) becomes a T_SIGN token of its own, and what follows is lexed again next time. */
static bool lex(struct parser *p, struct token *t)
{
    size_t after_sign;

    memset(t, 0, sizeof *t);
    if (!lex_start(p, t))
        return false;
    after_sign = t->sign ? t->pos + 1 : p->cur;
    if (t->sign && p->cur < p->len && sign_at(p)) {
        t->kind = T_SIGN; /* a sign before another sign */
    } else if (p->cur >= p->len) {
        t->kind = T_EOF;
    } else if (p->text[p->cur] == '(' || p->text[p->cur] == ')') {
        t->kind = p->text[p->cur++] == '(' ? T_LPAREN : T_RPAREN;
    } else if (dquote_len(p->text, p->cur, p->len)) {
        t->kind = T_PHRASE;
        if (!lex_quoted(p, t, false))
            return false;
    } else {
        if (!lex_prefixed(p, t))
            return false;
        if (!t->prefix && !lex_word(p, t))
            return false;
    }
    if (t->sign && (t->kind == T_EOF || t->kind == T_RPAREN || t->kind == T_SIGN || is_operator(t->kind))) {
        t->kind = T_SIGN;
        p->cur = after_sign;
    }
    t->end = p->cur;
    return true;
}

static const struct token *peek(struct parser *p)
{
    if (!p->have_tok) {
        if (!lex(p, &p->tok)) {
            p->tok.kind = T_EOF;
            p->tok.pos = p->tok.end = p->len;
        }
        p->have_tok = true;
    }
    return &p->tok;
}

static void advance(struct parser *p)
{
    p->have_tok = false;
}

/* ---- terms -------------------------------------------------------------------------------------- */

static struct maildex__qnode *new_term(struct parser *p, enum maildex__qfield field, const char *value, unsigned flags,
                                       size_t pos)
{
    struct maildex__qnode *n = new_node(p, MAILDEX__Q_TERM, pos);

    if (!n)
        return NULL;
    n->field = field;
    n->flags = flags;
    n->value = talloc_strdup(n, value); /* a copy under the node, so adopt() need only move nodes */
    if (!n->value) {
        nomem(p);
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

static struct maildex__qnode *parse_text(struct parser *p);

/* Parses text[0, len) (not necessarily NUL-terminated) as a query of its own. */
static struct maildex__qnode *nested_parse(struct parser *p, const char *text, size_t len, size_t base,
                                           size_t pos_fixed, size_t pos)
{
    struct parser sub = {.sh = p->sh, .text = text, .len = len, .base = base, .pos_fixed = pos_fixed};
    struct maildex__qnode *n;

    if (!enter(p, pos))
        return NULL;
    n = parse_text(&sub);
    leave(p);
    return n;
}

static struct maildex__qnode *thread_term(struct parser *p, const struct token *t)
{
    struct maildex__qnode *sub;
    const char *inner;
    size_t n;

    if (t->brace_len) {
        inner = p->text + t->value_pos;
        n = t->brace_len;
    } else if (t->value[0] == '{') {
        inner = t->value;
        n = strlen(t->value);
    } else {
        return new_term(p, MAILDEX__QF_THREAD, t->value, t->quoted ? MAILDEX__QFLAG_QUOTED : 0, t->pos);
    }
    if (n < 2 || inner[n - 1] != '}') {
        fail(p, t->pos, "missing '}' in thread subquery");
        return NULL;
    }
    /* Positions inside a quoted subquery are only approximate when it holds "" escapes. */
    sub = nested_parse(p, inner + 1, n - 2, p->base + t->value_pos + 1, p->pos_fixed, t->pos);
    return sub ? new_parent(p, MAILDEX__Q_THREAD, t->pos, sub) : NULL;
}

static void fail_cycle(struct parser *p, size_t pos, const char *name)
{
    struct shared *sh = p->sh;
    char *chain = talloc_strdup(sh->ctx, "");

    for (int i = 0; chain && i < sh->nexpanding; i++)
        chain = talloc_asprintf_append(chain, "query:%s -> ", sh->expanding[i]);
    chain = chain ? talloc_asprintf_append(chain, "query:%s", name) : NULL;
    if (!chain) {
        nomem(p);
        return;
    }
    /* Reported at the query: term of the outermost query, where the user can see it. */
    fail_query(p, node_pos(p, pos), "named query cycle", "%s", chain);
}

static struct maildex__qnode *query_term(struct parser *p, const struct token *t)
{
    struct shared *sh = p->sh;
    const char *stored = NULL;
    char *copy;
    struct maildex__qnode *n;

    for (int i = 0; i < sh->nexpanding; i++) {
        if (strcmp(sh->expanding[i], t->value) == 0) {
            fail_cycle(p, t->pos, t->value);
            return NULL;
        }
    }
    if (sh->opts && sh->opts->lookup)
        stored = sh->opts->lookup(sh->opts->lookup_data, t->value);
    if (!stored) {
        fail_query(p, p->base + t->pos, "unknown query", "no query named '%s' (config key query.%s)", t->value,
                   t->value);
        return NULL;
    }
    copy = talloc_strdup(sh->ctx, stored);
    if (!copy) {
        nomem(p);
        return NULL;
    }
    if (sh->nexpanding >= MAILDEX__QUERY_MAX_DEPTH) {
        fail(p, t->pos, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
        return NULL;
    }
    sh->expanding[sh->nexpanding++] = t->value;
    n = nested_parse(p, copy, strlen(copy), 0, node_pos(p, t->pos), t->pos);
    sh->nexpanding--;
    /* Errors inside refer to positions in the stored text: say which one. Cycles already name it. */
    if (!n && sh->error && !sh->nomem && strncmp(sh->error, "named query cycle", 17) != 0) {
        char *wrapped = talloc_asprintf(sh->ctx, "in query:%s: %s", t->value, sh->error);

        if (wrapped)
            sh->error = wrapped;
    }
    return n;
}

/* A /regex/ value on a prefix that takes one: drops the slashes and sets the flag. As in notmuch, a value
 * that starts with '/' but does not end with one is an error, not a literal. */
static bool check_regex(struct parser *p, const struct token *t, char *value, unsigned *flags)
{
    size_t n = strlen(value);

    if (!t->prefix->regex || value[0] != '/')
        return true;
    if (n < 2 || value[n - 1] != '/') {
        fail(p, t->pos, "unmatched regex delimiter in '%s:%s'", t->prefix->name, value);
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
    while (*s && !is_word_byte(*s))
        s++;
    while (is_word_byte(*s))
        s++;
    return is_stem_preventer(*s);
}

/* A value for a probabilistic prefix: phrase, wildcard and case flags; the words themselves are left to
 * the planner. An empty quoted `to:""` is an empty phrase, which Xapian's grammar rejects, and so is
 * an unterminated `to:"...` (from: and subject: are read as boolean values, which may end with the
 * text); in plain mode
 * a trailing `*` is a wildcard only where notmuch's field processors (from:, subject:) read the value,
 * and elsewhere keeps the word from being stemmed. */
static struct maildex__qnode *prob_term(struct parser *p, const struct token *t, char *value, unsigned flags)
{
    bool processor = t->prefix->processor;
    bool wildcard_ok = (!t->quoted || (processor && strchr(value, ' ') == NULL)) && (!p->plain || processor);
    bool unstemmed;

    if (flags & MAILDEX__QFLAG_REGEX)
        return new_term(p, t->prefix->field, value, flags, t->pos);
    if (t->quoted && !processor && !has_word_byte(value)) {
        fail_retry(p, t->pos, "empty phrase in '%s:'", t->prefix->name);
        return NULL;
    }
    /* Xapian closes the quote at the end but keeps the prefix it pushed for it, and closing that as a
     * group, after everything else, fails (parse_expression) */
    if (t->kind == T_PREFIXED && t->unterminated && !processor)
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
    return new_term(p, t->prefix->field, value, flags, t->pos);
}

/* notmuch's from: and subject: field processors parse a value that starts with '(' and ends with ')' as
 * a query whose default prefix is theirs: `subject:"(review or plan)"` is subject:review OR subject:plan,
 * `subject:"(pizza free)"` both words, and other prefixes inside keep their meaning. Only the quoted
 * form reaches the processor whole (unquoted, `subject:(` is a group). */
static bool is_paren_query(const struct token *t)
{
    size_t n = strlen(t->value);

    return t->quoted && t->prefix->processor && n >= 2 && t->value[0] == '(' && t->value[n - 1] == ')' &&
           has_word_byte(t->value);
}

static struct maildex__qnode *paren_query(struct parser *p, const struct token *t)
{
    /* Positions inside are only approximate when the value held "" escapes. */
    struct parser sub = {.sh = p->sh, .text = t->value, .len = strlen(t->value), .base = p->base + t->value_pos,
                         .pos_fixed = p->pos_fixed, .group = t->prefix, .stem = true};
    struct maildex__qnode *n;

    if (!enter(p, t->pos))
        return NULL;
    n = parse_text(&sub);
    leave(p);
    return n;
}

/* The node for `prefix:value` (or a value inherited from a prefix:( group); NULL with no failure when the
 * value yields nothing. */
static struct maildex__qnode *prefixed_term(struct parser *p, const struct token *t)
{
    unsigned flags = t->quoted ? MAILDEX__QFLAG_QUOTED : 0;
    char *value = t->value;

    if (t->prefix->kind == PK_PROB && is_paren_query(t))
        return paren_query(p, t);

    switch (t->prefix->kind) {
    case PK_THREAD:
        return thread_term(p, t);
    case PK_QUERY:
        return query_term(p, t);
    case PK_RAW:
        return new_term(p, t->prefix->field, value, flags, t->pos);
    case PK_SEXP: /* rejected by the lexer */
        return NULL;
    case PK_BOOL:
    case PK_PROB:
        break;
    }
    if (!check_regex(p, t, value, &flags))
        return NULL;
    if (t->prefix->kind == PK_PROB)
        return prob_term(p, t, value, flags);
    return new_term(p, t->prefix->field, value, flags, t->pos);
}

/* One side of a legacy range: digits with an optional sign and fraction (Xapian reads the sides with
 * strtod). */
static bool read_number(const char *s, size_t n, double *out)
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

static bool is_number(const char *s, size_t n)
{
    double ignored;

    return read_number(s, n, &ignored);
}

/* notmuch's legacy unprefixed `<epoch>..<epoch>` (a Xapian number range over the date): becomes
 * date:@A..@B, with a start always written out. An open date: start leaves out undated messages (date 0,
 * notmuch starts it at the smallest positive double), an open legacy start does not: `..N` is @0..@N.
 * Xapian takes any word with `..` (but `..` itself) for a range, so a side that is not a number is an
 * error, as `foo..bar`, `wait...` and the `..2021-02` of `date:"jan 15 2021"..2021-02` are in notmuch.
 * Returns NULL without failing when the word holds no `..`. */
static struct maildex__qnode *legacy_range(struct parser *p, const struct token *t)
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
    if ((nlo && !read_number(s, nlo, &lo)) || (nhi && !read_number(dots + 2, nhi, &hi))) {
        fail(p, t->pos, "unknown range operation '%s' (a word with '..' is a range of seconds since the epoch)",
             s);
        return NULL;
    }
    /* No message is dated before 1970 (an undated one is at 0). */
    if (nhi && hi < 0)
        return new_node(p, MAILDEX__Q_NONE, t->pos);
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
        nomem(p);
        return NULL;
    }
    return new_term(p, MAILDEX__QF_DATE, value, 0, t->pos);
}

/* One run of word bytes and joiners from a free-text word, joiners trimmed off its ends; next is the
 * byte after the run (a stem preventer there keeps a single word from being stemmed). */
static bool free_segment(struct parser *p, struct vec *out, const char *s, size_t n, bool wildcard, char next,
                         size_t pos)
{
    unsigned flags = 0;
    char *value;

    while (n > 0 && is_joiner(s[0]))
        s++, n--;
    while (n > 0 && is_joiner(s[n - 1]))
        next = s[--n];
    if (n == 0)
        return true;
    value = talloc_strndup(p->sh->ctx, s, n);
    if (!value) {
        nomem(p);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (is_joiner(s[i]))
            flags |= MAILDEX__QFLAG_PHRASE;
    if (wildcard)
        flags |= MAILDEX__QFLAG_WILDCARD;
    else if (!(flags & MAILDEX__QFLAG_PHRASE) && is_stem_preventer(next))
        flags |= MAILDEX__QFLAG_QUOTED;
    if (starts_upper(value))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return vec_push(p, out, new_term(p, MAILDEX__QF_FREE, value, flags, pos));
}

/* A bare word: a-b-c, a.b.c, alice@example.org stay one phrase term; other punctuation separates words
 * (`hello,world` is two terms) and a word of punctuation only (a stray `'`) yields nothing. In plain
 * mode a trailing `*` is punctuation, which keeps the word before it from being stemmed. */
static struct maildex__qnode *free_word(struct parser *p, const struct token *t)
{
    struct maildex__qnode *range = legacy_range(p, t);
    struct vec out = {0};
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

        while (i < n && (is_word_byte(s[i]) || is_joiner(s[i])))
            i++;
        if (i > start && !free_segment(p, &out, s + start, i - start, wildcard && i == n, i < n ? s[i] : after,
                                       t->pos))
            return NULL;
        while (i < n && !is_word_byte(s[i]) && !is_joiner(s[i]))
            i++;
    }
    if (out.n == 0)
        return NULL;
    for (size_t k = 0; k < out.n; k++)
        if (!out.v[k])
            return NULL;
    return combine(p, MAILDEX__Q_AND, &out);
}

static struct maildex__qnode *free_phrase(struct parser *p, const struct token *t)
{
    char *s = t->value;
    size_t n = strlen(s);
    unsigned flags = MAILDEX__QFLAG_QUOTED;

    while (n > 0 && is_space(s[n - 1]))
        s[--n] = '\0';
    while (is_space(*s))
        s++;
    if (!has_word_byte(s)) {
        fail_retry(p, t->pos, "empty phrase");
        return NULL;
    }
    if (has_inner_break(s))
        flags |= MAILDEX__QFLAG_PHRASE;
    if (starts_upper(s))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return new_term(p, MAILDEX__QF_FREE, s, flags, t->pos);
}

/* ---- restarts ---------------------------------------------------------------------------------- */

/* A term at i with a prefix notmuch registers as boolean (all grouped ones but lastmod:, a range), which
 * Xapian reads as a boolean filter; NULL if there is none. */
static const struct prefix *boolean_term_at(const struct parser *p, size_t i)
{
    size_t name = i;
    const struct prefix *pf;

    while (i < p->len && p->text[i] >= 'a' && p->text[i] <= 'z')
        i++;
    if (i == name || i >= p->len || p->text[i] != ':')
        return NULL;
    pf = find_prefix(p->text + name, i - name);
    if (!pf || !pf->grouped || pf->field == MAILDEX__QF_LASTMOD || !takes_value(p, pf, i))
        return NULL;
    return pf;
}

/* The precedence levels of the grammar, loosest first: an expression of one level is operands of the
 * next joined by its operators (`and` and `not` share one), and the last is [not] run. */
enum level { LEVEL_OR = 1, LEVEL_XOR, LEVEL_AND, LEVEL_UNARY };

static enum level precedence(enum tok_kind k)
{
    return k == T_OR ? LEVEL_OR : k == T_XOR ? LEVEL_XOR : LEVEL_AND;
}

/* Xapian (1.4) forgets a syntax error raised while it reads an operator or a sign if the same lexer
 * step goes on (through more operators and signs) to a term with a prefix notmuch registers as boolean:
 * its lexer clears the error before such a term, meaning to clear a failed range, and its grammar has
 * been reset by the error. The query starts again after the token that failed, everything before is
 * lost, and notmuch answers `a or or tag:x`, `tag:y or -tag:x` and `-tag:y and tag:x` with tag:x.
 * Notes where parse_text is to parse again, if so: from is the end of the failed token (a sign right
 * there is dropped, as the reset grammar rejects it in turn). Call before failing. */
static void note_restart(struct parser *p, size_t from)
{
    size_t i = from, start;
    const struct prefix *pf;

    if (p->sh->failed || p->plain)
        return;
    for (;;) {
        size_t end;

        while (i < p->len && is_space(p->text[i]))
            i++;
        if (i + 1 < p->len && strchr("+-", p->text[i]) && !strchr(" \t\n\r\f\v+-", p->text[i + 1])) {
            i++;
            break;
        }
        for (end = i; end < p->len && word_at(p->text, end, p->len); end++)
            ;
        if (end == i || operator_kind(p->text + i, end - i) == T_WORD)
            break;
        i = end;
    }
    pf = boolean_term_at(p, i);
    if (!pf || (pf->field == MAILDEX__QF_DATE && range_at(p, i, NULL) > 0))
        return;
    for (start = from; start < p->len && is_space(p->text[start]); start++)
        ;
    p->sh->restart = p->text[start] == '+' || p->text[start] == '-' ? start + 1 : start;
    p->sh->restart_groups = p->open_groups;
}

/* ---- grammar ------------------------------------------------------------------------------------ */

static struct maildex__qnode *parse_or(struct parser *p, size_t open_pos, const char *open_what);
static struct maildex__qnode *parse_level(struct parser *p, enum level level, const struct token *after,
                                          bool *empty);

/* ( ... ) or prefix:( ... ); the opening token has been consumed. A group still open at the end of the
 * text is closed there, as Xapian closes it. */
static struct maildex__qnode *parse_group(struct parser *p, const struct token *open)
{
    const struct prefix *saved = p->group;
    char what[32];
    struct maildex__qnode *n = NULL;

    if (open->kind == T_GROUP)
        snprintf(what, sizeof what, "'%s:('", open->prefix->name);
    else
        snprintf(what, sizeof what, "'('");
    if (!enter(p, open->pos))
        return NULL;
    if (open->kind == T_GROUP)
        p->group = open->prefix;
    p->open_groups++;
    n = parse_or(p, open->pos, what);
    p->open_groups--;
    p->group = saved;
    leave(p);
    if (n && peek(p)->kind == T_RPAREN)
        advance(p);
    return n;
}

struct item {
    struct maildex__qnode *node;
    const char *key; /* prefix name for OR grouping, or NULL */
    char sign;
};

struct items {
    struct item *v;
    size_t n, cap;
};

static bool items_push(struct parser *p, struct items *it, struct maildex__qnode *node, const char *key, char sign)
{
    if (it->n == it->cap) {
        size_t cap = it->cap ? it->cap * 2 : 8;
        struct item *nv = talloc_realloc(p->sh->ctx, it->v, struct item, cap);

        if (!nv) {
            nomem(p);
            return false;
        }
        it->v = nv;
        it->cap = cap;
    }
    it->v[it->n++] = (struct item){node, key, sign};
    return true;
}

/* A word or phrase inside prefix:( ... ), which gets the group's prefix. Punctuation alone yields
 * nothing there either. */
static struct maildex__qnode *group_term(struct parser *p, struct token *t)
{
    struct maildex__qnode *n;

    if (t->kind == T_WORD && !has_word_byte(t->value))
        return NULL;
    t->prefix = p->group;
    n = prefixed_term(p, t);
    if (n && p->stem && n->kind == MAILDEX__Q_TERM && t->prefix->processor &&
        !(n->flags & (MAILDEX__QFLAG_PHRASE | MAILDEX__QFLAG_WILDCARD | MAILDEX__QFLAG_REGEX | MAILDEX__QFLAG_QUOTED |
                      MAILDEX__QFLAG_CAPITALISED)))
        n->flags |= MAILDEX__QFLAG_STEM;
    return n;
}

/* Xapian groups ranges by value slot, apart from the date: field processor's terms: `date:2023
 * date:2021` and `date:2020..2021 1600000000..1700000000` are ORed, `date:2023 date:2020..2021` ANDed. */
#define DATE_RANGE_KEY "date.."

/* The node one item token stands for; NULL with no failure if it yields nothing. */
static struct maildex__qnode *item_node(struct parser *p, struct token *t, const char **key)
{
    struct maildex__qnode *n;

    *key = NULL;
    switch (t->kind) {
    case T_LPAREN:
    case T_GROUP:
        return parse_group(p, t);
    case T_PREFIXED:
        if (t->prefix->grouped)
            *key = t->prefix->name;
        if (t->prefix->field == MAILDEX__QF_DATE && !t->quoted && strstr(t->value, ".."))
            *key = DATE_RANGE_KEY;
        return prefixed_term(p, t);
    case T_WORD:
        if (p->group)
            return group_term(p, t);
        n = free_word(p, t);
        if (n && n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_DATE)
            *key = DATE_RANGE_KEY;
        return n;
    case T_PHRASE:
        return p->group ? group_term(p, t) : free_phrase(p, t);
    default:
        return NULL;
    }
}

/* Combines a run of items: hated items become NOT, grouped prefixes are ORed per name at the place of
 * their first term, and everything is ANDed. A run of hated items only is Xapian's "Can't just hate!",
 * a parse error found at the token after the run (which is why a lone `-tag:inbox` finds tag:inbox:
 * the plain reading drops the sign). */
static struct maildex__qnode *combine_items(struct parser *p, struct items *it, size_t pos)
{
    enum { NKEYS = sizeof prefixes / sizeof prefixes[0] + 1 };
    struct {
        const char *key;
        size_t slot;
        struct vec terms;
    } groups[NKEYS];
    size_t ngroups = 0;
    struct vec out = {0};
    bool positive = false;

    for (size_t i = 0; i < it->n; i++)
        positive |= it->v[i].sign != '-';
    if (!positive) {
        if (is_operator(peek(p)->kind))
            note_restart(p, peek(p)->end);
        fail_retry(p, pos, "nothing to exclude from (a query of '-' terms only)");
        return NULL;
    }
    for (size_t i = 0; i < it->n; i++) {
        struct item *x = &it->v[i];
        size_t g = 0;

        if (x->sign == '-') {
            struct maildex__qnode *n = wrap_not(p, x->node);

            if (!n || !vec_push(p, &out, n))
                return NULL;
            continue;
        }
        if (!x->key) {
            if (!vec_push(p, &out, x->node))
                return NULL;
            continue;
        }
        while (g < ngroups && strcmp(groups[g].key, x->key) != 0)
            g++;
        if (g == ngroups) {
            if (ngroups == NKEYS || !vec_push(p, &out, x->node))
                return NULL; /* more keys than prefixes cannot happen */
            groups[g].key = x->key;
            groups[g].slot = out.n - 1;
            memset(&groups[g].terms, 0, sizeof groups[g].terms);
            ngroups++;
        }
        if (!vec_push(p, &groups[g].terms, x->node))
            return NULL;
    }
    for (size_t g = 0; g < ngroups; g++) {
        struct maildex__qnode *n = combine(p, MAILDEX__Q_OR, &groups[g].terms);

        if (!n)
            return NULL;
        out.v[groups[g].slot] = n;
    }
    return combine(p, MAILDEX__Q_AND, &out);
}

/* The operator at peek(p) (`and`, `or`, `xor`) has no left operand. Xapian takes it all the same and
 * fails only when it combines it, after its right operand: at the next operator that binds no tighter
 * (where it may restart, note_restart), a ')' or the end. */
static void fail_missing_left(struct parser *p)
{
    struct token op = *peek(p);
    const struct token *next;
    bool e;

    advance(p);
    parse_level(p, precedence(op.kind) + 1, &op, &e);
    next = peek(p);
    if (p->sh->failed)
        return;
    if (e && is_operator(next->kind) && next->kind != T_NOT && precedence(next->kind) > precedence(op.kind)) {
        fail_missing_left(p); /* that one has no left operand either */
        return;
    }
    if (is_operator(next->kind) && precedence(next->kind) <= precedence(op.kind))
        note_restart(p, next->end);
    fail(p, op.pos, "expected a term before '%.*s'", (int) (op.end - op.pos), p->text + op.pos);
}

/* op has no right operand. When that is because another operator follows, Xapian finds out while
 * reading that operator if it binds no tighter (`a or or`, `a and or`, `not not`), and may restart
 * after it (note_restart); one that binds tighter has no left operand (fail_missing_left). */
static void fail_after(struct parser *p, const struct token *op)
{
    const struct token *next = peek(p);

    if (is_operator(next->kind) && next->kind != T_NOT && precedence(next->kind) > precedence(op->kind)) {
        fail_missing_left(p);
        return;
    }
    if (is_operator(next->kind) && precedence(next->kind) <= precedence(op->kind))
        note_restart(p, next->end);
    fail(p, next->pos, "expected a term after '%.*s'", (int) (op->end - op->pos), p->text + op->pos);
}

/* A sign with no term to take it (`a -)`, `-not a`, `-'`): Xapian's grammar has LOVE or HATE with
 * nothing after it, a parse error, found at the next token (and a restart after it if it is an
 * operator). A `-` whose term is missing right after `and` is reported as Xapian reports it, as `and`
 * missing its operand. */
static void fail_sign(struct parser *p, const struct token *t, const struct token *after, bool excluding)
{
    if (excluding) {
        fail_after(p, after);
        return;
    }
    if (is_operator(peek(p)->kind))
        note_restart(p, peek(p)->end);
    else if (peek(p)->sign)
        note_restart(p, peek(p)->pos); /* found at a second sign, which goes on to its term */
    fail_retry(p, t->pos, "'%c' with no term after it", t->sign);
}

/* Is text[from, to) whitespace only? A sign right after an operator is Xapian's HATE_AFTER_AND only when
 * nothing else came between them. */
static bool only_space(const struct parser *p, size_t from, size_t to)
{
    while (from < to && is_space(p->text[from]))
        from++;
    return from >= to;
}

/* A free word of letters and digits only: what Xapian may gather into a group of terms. */
static bool plain_word(const struct parser *p, const struct token *t)
{
    if (t->kind != T_WORD || p->group)
        return false;
    for (const char *s = t->value; *s; s++)
        if (!is_word_byte(*s))
            return false;
    return true;
}

/* A sign that punctuation Xapian drops separates from its word (`-'foo bar`) applies to the group of
 * plain words the word starts, as Xapian's lexer only forms groups in a new step: -(foo bar). first
 * is the node of t, the signed word (a detached plain_word). */
static struct maildex__qnode *detached_group(struct parser *p, struct maildex__qnode *first, const struct token *t)
{
    struct vec v = {0};
    size_t end = t->end;

    if (!vec_push(p, &v, first))
        return NULL;
    for (;;) {
        struct token w = *peek(p);
        struct maildex__qnode *n;

        if (p->sh->failed || w.sign || !plain_word(p, &w) || !only_space(p, end, w.pos))
            break;
        advance(p);
        n = free_word(p, &w);
        if (!n || !vec_push(p, &v, n))
            return NULL;
        end = w.end;
    }
    return combine(p, MAILDEX__Q_AND, &v);
}

/* Can a sign apply to the node a token yielded? Not to nothing (`-'`) nor, in Xapian's grammar, to a
 * range (which only a sign away from it can precede: `-. 1..2`). */
static bool signable(const struct maildex__qnode *n, const char *key)
{
    return n && !(key && strcmp(key, DATE_RANGE_KEY) == 0) &&
           !(n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_LASTMOD);
}

/* A run of items with no operator between them (Xapian's "prob"). after is the operator token right
 * before the run, or NULL. A `-` right after `and` excludes the whole run (`a and -b c` is
 * `a and not (b c)`); right after `or`, `xor` or `not` it is an error, as in Xapian. *empty is set when
 * the run yields no item: tokens that yield nothing (`'`, `*`) are dropped, as Xapian's lexer drops
 * the punctuation they are made of. */
static struct maildex__qnode *parse_seq(struct parser *p, const struct token *after, bool *empty)
{
    struct items it = {0};
    struct maildex__qnode *n;
    bool excluding = after && peek(p)->sign == '-' && only_space(p, after->end, peek(p)->pos);
    size_t first = peek(p)->pos;

    *empty = true;
    if (excluding && after->kind != T_AND) {
        note_restart(p, peek(p)->pos);
        fail(p, peek(p)->pos, "'-' cannot follow '%.*s' (use 'and -' or 'and not')", (int) (after->end - after->pos),
             p->text + after->pos);
        return NULL;
    }
    for (bool head = true;; head = false) {
        struct token t = *peek(p);
        const char *key;
        bool group;

        if (p->sh->failed)
            return NULL;
        if (t.kind == T_EOF || t.kind == T_RPAREN || is_operator(t.kind))
            break;
        advance(p);
        if (t.kind == T_SIGN) {
            fail_sign(p, &t, after, head && excluding);
            return NULL;
        }
        if (head && excluding)
            t.sign = 0; /* the `-` of `and -` excludes the whole run */
        group = t.sign && t.detached && plain_word(p, &t);
        n = item_node(p, &t, &key);
        if (n && group)
            n = detached_group(p, n, &t);
        if (!p->sh->failed && t.sign && !signable(n, key))
            fail_sign(p, &t, after, false);
        if (p->sh->failed)
            return NULL;
        if (n && !items_push(p, &it, n, key, t.sign))
            return NULL;
    }
    if (it.n == 0)
        return NULL;
    *empty = false;
    n = combine_items(p, &it, first);
    return n && excluding ? wrap_not(p, n) : n;
}

/* [not] run; after as for parse_seq. `not not a` is an error, as in Xapian. */
static struct maildex__qnode *parse_unary(struct parser *p, const struct token *after, bool *empty)
{
    struct token t = *peek(p);
    struct maildex__qnode *child;
    bool e;

    if (p->sh->failed)
        return NULL;
    if (t.kind != T_NOT)
        return parse_seq(p, after, empty);
    if (after && after->kind == T_NOT) {
        fail_after(p, after);
        return NULL;
    }
    advance(p);
    *empty = false;
    child = parse_seq(p, &t, &e);
    if (p->sh->failed)
        return NULL;
    if (e) {
        fail_after(p, &t);
        return NULL;
    }
    return wrap_not(p, child);
}

/* An expression of level: operands of the next level joined by level's operators (`a not b` is a and not
 * b), or at LEVEL_UNARY [not] run. after as for parse_seq. */
static struct maildex__qnode *parse_level(struct parser *p, enum level level, const struct token *after,
                                          bool *empty)
{
    static const enum maildex__qkind kinds[] = {
        [LEVEL_OR] = MAILDEX__Q_OR, [LEVEL_XOR] = MAILDEX__Q_XOR, [LEVEL_AND] = MAILDEX__Q_AND};
    struct vec v = {0};
    struct maildex__qnode *x;

    if (level == LEVEL_UNARY)
        return parse_unary(p, after, empty);
    x = parse_level(p, level + 1, after, empty);
    if (!x || !vec_push(p, &v, x))
        return NULL;
    for (;;) {
        struct token t = *peek(p);
        bool e;

        if (p->sh->failed)
            return NULL;
        if (!is_operator(t.kind) || precedence(t.kind) != level)
            break;
        advance(p);
        x = parse_level(p, level + 1, &t, &e);
        if (p->sh->failed)
            return NULL;
        if (e) {
            fail_after(p, &t);
            return NULL;
        }
        if (t.kind == T_NOT)
            x = wrap_not(p, x);
        if (!x || !vec_push(p, &v, x))
            return NULL;
    }
    return combine(p, kinds[level], &v);
}

/* What an expression with no term is: an operator missing its left operand is an error; an empty group
 * (`(())`, `(*)`) or a ')' with no '(' is Xapian's parse error; at the top, nothing left after the
 * dropped punctuation (`(`, `'`, `-`) is a query that matches nothing. */
static struct maildex__qnode *empty_expression(struct parser *p, size_t open_pos, const char *open_what)
{
    struct token t = *peek(p);

    if (is_operator(t.kind))
        fail_missing_left(p);
    else if (open_pos != NO_POS)
        fail_retry(p, open_pos, "nothing inside %s", open_what);
    else if (t.kind == T_RPAREN)
        fail_retry(p, t.pos, "unmatched ')'");
    else
        return new_node(p, MAILDEX__Q_NONE, 0);
    return NULL;
}

/* A whole expression, at the top (open_pos NO_POS) or inside a group opened at open_pos. */
static struct maildex__qnode *parse_or(struct parser *p, size_t open_pos, const char *open_what)
{
    bool empty;
    struct maildex__qnode *n = parse_level(p, LEVEL_OR, NULL, &empty);

    if (p->sh->failed)
        return NULL;
    return empty ? empty_expression(p, open_pos, open_what) : n;
}

static struct maildex__qnode *parse_expression(struct parser *p)
{
    struct maildex__qnode *n = parse_or(p, NO_POS, NULL);

    if (n && peek(p)->kind == T_RPAREN) {
        fail_retry(p, peek(p)->pos, "unmatched ')'");
        return NULL;
    }
    if (n && p->open_quote) {
        fail_retry(p, p->len, "missing '\"' at the end of a prefixed phrase");
        return NULL;
    }
    return p->sh->failed ? NULL : n;
}

/* Forgets a failure, to parse again from cur. */
static void restart_at(struct parser *p, size_t cur, int depth)
{
    struct shared *sh = p->sh;

    talloc_free(sh->error);
    sh->error = NULL;
    sh->failed = sh->retry = false;
    sh->restart = NO_POS;
    sh->depth = depth;
    p->cur = cur;
    p->have_tok = false;
    p->open_quote = false;
}

/* A complete query text: exactly "" or "*" matches everything (notmuch's rule; " " matches nothing).
 * A failure Xapian forgets (note_restart) parses again from the term it noted; one it calls "parse
 * error" parses the whole text again in plain mode, as Xapian::QueryParser::parse_query retries with
 * no flags. */
static struct maildex__qnode *parse_text(struct parser *p)
{
    struct shared *sh = p->sh;
    int depth = sh->depth;
    struct maildex__qnode *n;

    if (p->len == 0 || (p->len == 1 && p->text[0] == '*'))
        return new_node(p, MAILDEX__Q_ALL, 0);
    sh->restart = NO_POS;
    n = parse_expression(p);
    while (!n && !sh->nomem && sh->restart != NO_POS) {
        size_t at = sh->restart;
        int groups = sh->restart_groups;

        restart_at(p, at, depth);
        n = parse_expression(p);
        /* the '(' before the restart is closed later or at the end: a ')' the reset grammar rejects */
        if (n && groups > 0) {
            fail_retry(p, p->len, "unmatched ')' after a restart");
            n = NULL;
        }
    }
    if (n || !sh->retry || sh->nomem)
        return n;
    restart_at(p, 0, depth);
    p->plain = true;
    return parse_expression(p);
}

/* Moves a finished tree out of the scratch context: each node under its parent, values and child arrays
 * are already under their node. Depth is bounded by MAILDEX__QUERY_MAX_DEPTH. */
static void adopt(void *parent, struct maildex__qnode *n)
{
    talloc_steal(parent, n);
    for (size_t i = 0; i < n->nchildren; i++)
        adopt(n, n->children[i]);
}

int maildex__query_parse(void *ctx, const char *text, const struct maildex__query_options *opts,
                         struct maildex__qnode **out, char **error)
{
    void *local = talloc_new(ctx);
    struct shared sh = {.ctx = local, .opts = opts};
    struct parser p = {.sh = &sh, .text = text ? text : "", .pos_fixed = NO_POS};
    struct maildex__qnode *n;
    int ret;

    *out = NULL;
    if (error)
        *error = NULL;
    if (!local)
        return MAILDEX__QUERY_NOMEM;
    p.len = strlen(p.text);
    n = parse_text(&p);
    if (sh.nomem) {
        ret = MAILDEX__QUERY_NOMEM;
        goto done;
    }
    if (!n) {
        ret = MAILDEX__QUERY_BAD;
        if (error)
            *error = talloc_steal(ctx, sh.error);
        goto done;
    }
    adopt(ctx, n);
    *out = n;
    ret = MAILDEX__QUERY_OK;
done:
    talloc_free(local);
    return ret;
}
