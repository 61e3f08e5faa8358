/* Parser for notmuch 0.37's query language (compat reference §1.3, §3), producing the tree in lib/query.h.
 *
 * It follows Xapian's QueryParser as notmuch configures it: default operator AND, precedence
 * OR < XOR < AND/NOT, `-`/`+` love/hate, quoted phrases, and the grouping rule notmuch users rely on: in a
 * run of terms with no explicit operator, terms whose prefix is boolean or has a field processor are ORed
 * per prefix name and the groups ANDed (`tag:a from:b tag:c` = `(tag:a OR tag:c) AND from:b`). It must not
 * interpret values (dates, regexes, words) beyond splitting them off the query text, touch the store, or
 * recurse without bound: every nesting (parentheses, `not`, prefix groups, thread:{}, query:) counts
 * towards MAILDEX__QUERY_MAX_DEPTH, and long flat queries are handled with loops.
 *
 * Values are only split off, with three exceptions that are Xapian syntax rather than meaning: an
 * unprefixed word holding `..` is notmuch's legacy range of seconds (anything but numbers there is an
 * error, "unknown range operation", as in notmuch); a quoted date: value whose text up to the first
 * space holds `..` is lexed as Xapian's range lexer sees it, quotes and all (`date:"2021"..2022`); and a
 * quoted from:/subject: value in parentheses is a query of its own with that default prefix
 * (`subject:"(review or plan)"`), as notmuch's field processors read it.
 *
 * Deliberate differences from notmuch: unbalanced parentheses and unterminated quotes are always errors
 * (Xapian sometimes retries without operators), `*` is "all" anywhere (not only as the whole query),
 * `prefix:(...)` groups apply the prefix to every word inside and work for boolean prefixes too (Xapian
 * gives only the first word the prefix, and reads `tag:(a` as the tag "(a"), an unquoted `thread:{...}`
 * may contain spaces, an unquoted `tag:/re(g)ex/` runs to the closing slash, and a prefixed
 * probabilistic value with `..` (`subject:wait...`) is words, not a range error. */
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

enum tok_kind { T_EOF, T_LPAREN, T_RPAREN, T_AND, T_OR, T_XOR, T_NOT, T_STAR, T_WORD, T_PHRASE, T_PREFIXED, T_GROUP };

struct token {
    enum tok_kind kind;
    size_t pos, end;            /* byte range in the parser's text */
    char sign;                  /* '+', '-' or 0 */
    const struct prefix *prefix; /* T_PREFIXED, T_GROUP */
    char *value;                /* T_WORD, T_PHRASE, T_PREFIXED (talloc'd) */
    size_t value_pos;           /* where the value starts in the text */
    size_t brace_len;           /* unquoted thread:{...}: value is NULL, the braces are text[value_pos, +len) */
    bool quoted;
};

/* State shared by a parse and the nested parses of its thread:{} and query: terms. */
struct shared {
    void *ctx; /* everything is allocated here; the result is moved out at the end */
    const struct maildex__query_options *opts;
    bool failed, nomem;
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

static struct maildex__qnode *wrap_not(struct parser *p, struct maildex__qnode *child)
{
    struct maildex__qnode *n = new_node(p, MAILDEX__Q_NOT, 0);

    if (!n)
        return NULL;
    n->pos = child->pos;
    n->children = talloc_array(n, struct maildex__qnode *, 1);
    if (!n->children) {
        nomem(p);
        return NULL;
    }
    n->children[0] = child;
    n->nchildren = 1;
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

/* A "..." value starting at p->cur (on the quote); "" inside stands for one quote. */
static bool lex_quoted(struct parser *p, struct token *t, const char *what)
{
    size_t open = p->cur, i = open + 1, n = 0;
    char *buf;

    for (;; i++, n++) { /* measure first, so the copy is exactly as long as the value */
        if (i >= p->len) {
            fail(p, open, "unterminated quoted %s (missing '\"')", what);
            return false;
        }
        if (p->text[i] == '"' && !(i + 1 < p->len && p->text[i + 1] == '"'))
            break;
        if (p->text[i] == '"')
            i++;
    }
    buf = talloc_array(p->sh->ctx, char, n + 1);
    if (!buf) {
        nomem(p);
        return false;
    }
    for (size_t j = open + 1, k = 0; k < n; j++, k++) {
        buf[k] = p->text[j];
        if (p->text[j] == '"')
            j++;
    }
    buf[n] = '\0';
    t->value = buf;
    t->value_pos = open + 1;
    t->quoted = true;
    p->cur = i + 1;
    return true;
}

/* thread:{...}: up to the matching brace, skipping quoted strings, so the subquery may hold spaces. */
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
    if (i >= p->len) {
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
    if (!pf || next == '\0' || is_space(next) || next == ')')
        return true; /* `tag:` with no value is just the word "tag" */
    if (pf->kind == PK_SEXP) {
        fail_query(p, p->base + t->pos, "unsupported prefix", "sexp: queries are not supported");
        return false;
    }
    t->prefix = pf;
    p->cur = i + 1;
    if (next == '(' && pf->paren) {
        t->kind = T_GROUP;
        p->cur++;
        return true;
    }
    t->kind = T_PREFIXED;
    if (next == '"' && pf->field == MAILDEX__QF_DATE && quoted_run_is_range(p))
        return lex_plain_value(p, t);
    if (next == '"')
        return lex_quoted(p, t, "value");
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

/* A bare word: up to whitespace, a parenthesis or a quote. */
static bool lex_word(struct parser *p, struct token *t)
{
    size_t start = p->cur, i = start;

    while (i < p->len && !is_space(p->text[i]) && p->text[i] != '(' && p->text[i] != ')' && p->text[i] != '"')
        i++;
    p->cur = i;
    if (!t->sign && operator_kind(p->text + start, i - start) != T_WORD) {
        t->kind = operator_kind(p->text + start, i - start);
        return true;
    }
    if (i - start == 1 && p->text[start] == '*') {
        t->kind = T_STAR;
        return true;
    }
    t->kind = T_WORD;
    t->value = dup_range(p, start, i);
    t->value_pos = start;
    return t->value != NULL;
}

/* `+`/`-` is love/hate only at the start of a word (after whitespace, '(' or the start) and when
 * something follows; otherwise it is skipped (a lone `-`) or part of the word (`a-b`). */
static void lex_sign(struct parser *p, struct token *t)
{
    for (;;) {
        char c = p->text[p->cur], prev = p->cur ? p->text[p->cur - 1] : ' ', next;

        if ((c != '+' && c != '-') || !(is_space(prev) || prev == '('))
            return;
        next = p->cur + 1 < p->len ? p->text[p->cur + 1] : '\0';
        if (next == '\0' || is_space(next) || next == ')') {
            p->cur++;
            while (p->cur < p->len && is_space(p->text[p->cur]))
                p->cur++;
            t->pos = p->cur;
            if (p->cur >= p->len)
                return;
            continue;
        }
        t->sign = c;
        p->cur++;
        return;
    }
}

static bool lex(struct parser *p, struct token *t)
{
    memset(t, 0, sizeof *t);
    while (p->cur < p->len && is_space(p->text[p->cur]))
        p->cur++;
    t->pos = p->cur;
    if (p->cur < p->len)
        lex_sign(p, t);
    if (p->cur >= p->len) {
        t->kind = T_EOF;
        t->sign = 0;
        t->pos = t->end = p->len;
        return true;
    }
    switch (p->text[p->cur]) {
    case '(':
        t->kind = T_LPAREN;
        p->cur++;
        break;
    case ')':
        t->kind = T_RPAREN;
        p->cur++;
        break;
    case '"':
        t->kind = T_PHRASE;
        if (!lex_quoted(p, t, "phrase"))
            return false;
        break;
    default:
        if (!lex_prefixed(p, t))
            return false;
        if (!t->prefix && !lex_word(p, t))
            return false;
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

static bool is_operator(enum tok_kind k)
{
    return k == T_AND || k == T_OR || k == T_XOR || k == T_NOT;
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
    struct maildex__qnode *node, *sub;
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
    node = sub ? new_node(p, MAILDEX__Q_THREAD, t->pos) : NULL;
    if (!node)
        return NULL;
    node->children = talloc_array(node, struct maildex__qnode *, 1);
    if (!node->children) {
        nomem(p);
        return NULL;
    }
    node->children[0] = sub;
    node->nchildren = 1;
    return node;
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

/* A value for a probabilistic prefix: phrase, wildcard and case flags; the words themselves are left to
 * the planner. Returns NULL without failing for an empty `to:""`, which matches nothing in notmuch. */
static struct maildex__qnode *prob_term(struct parser *p, const struct token *t, char *value, unsigned flags)
{
    bool wildcard_ok = !t->quoted || (t->prefix->processor && strchr(value, ' ') == NULL);

    if (flags & MAILDEX__QFLAG_REGEX)
        return new_term(p, t->prefix->field, value, flags, t->pos);
    if (t->quoted && !t->prefix->processor && !has_word_byte(value))
        return NULL;
    if (wildcard_ok && strip_stars(value))
        flags |= MAILDEX__QFLAG_WILDCARD;
    if (has_inner_break(value))
        flags |= MAILDEX__QFLAG_PHRASE;
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

/* One side of a legacy range: digits with an optional fraction (Xapian reads the sides as numbers). */
static bool read_number(const char *s, size_t n, double *out)
{
    size_t i = 0, digits = 0;
    char buf[64];

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

/* One run of word bytes and joiners from a free-text word, joiners trimmed off its ends. */
static bool free_segment(struct parser *p, struct vec *out, const char *s, size_t n, bool wildcard, size_t pos)
{
    unsigned flags = 0;
    char *value;

    while (n > 0 && is_joiner(s[0]))
        s++, n--;
    while (n > 0 && is_joiner(s[n - 1]))
        n--;
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
    if (starts_upper(value))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return vec_push(p, out, new_term(p, MAILDEX__QF_FREE, value, flags, pos));
}

/* A bare word: a-b-c, a.b.c, alice@example.org stay one phrase term; other punctuation separates words
 * (`hello,world` is two terms) and a word of punctuation only (a stray `'`) yields nothing. */
static struct maildex__qnode *free_word(struct parser *p, const struct token *t)
{
    struct maildex__qnode *range = legacy_range(p, t);
    struct vec out = {0};
    char *s = t->value;
    bool wildcard;
    size_t i = 0, n;

    if (range || p->sh->failed)
        return range;
    wildcard = strip_stars(s);
    n = strlen(s);
    while (i < n) {
        size_t start = i;

        while (i < n && (is_word_byte(s[i]) || is_joiner(s[i])))
            i++;
        if (i > start && !free_segment(p, &out, s + start, i - start, wildcard && i == n, t->pos))
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
    if (!has_word_byte(s))
        return NULL;
    if (has_inner_break(s))
        flags |= MAILDEX__QFLAG_PHRASE;
    if (starts_upper(s))
        flags |= MAILDEX__QFLAG_CAPITALISED;
    return new_term(p, MAILDEX__QF_FREE, s, flags, t->pos);
}

/* ---- grammar ------------------------------------------------------------------------------------ */

static struct maildex__qnode *parse_or(struct parser *p, size_t open_pos, const char *open_what);

/* ( ... ) or prefix:( ... ); the opening token has been consumed. */
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
    n = parse_or(p, open->pos, what);
    p->group = saved;
    leave(p);
    if (!n)
        return NULL;
    if (peek(p)->kind != T_RPAREN) {
        fail(p, open->pos, "unmatched %s", what);
        return NULL;
    }
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

/* The node one item token stands for; NULL with no failure if it yields nothing. */
static struct maildex__qnode *item_node(struct parser *p, struct token *t, const char **key)
{
    *key = NULL;
    switch (t->kind) {
    case T_LPAREN:
    case T_GROUP:
        return parse_group(p, t);
    case T_STAR:
        return new_node(p, MAILDEX__Q_ALL, t->pos);
    case T_PREFIXED:
        if (t->prefix->grouped)
            *key = t->prefix->name;
        return prefixed_term(p, t);
    case T_WORD:
    case T_PHRASE:
        if (p->group) {
            struct maildex__qnode *n;

            t->prefix = p->group;
            n = prefixed_term(p, t);
            if (n && p->stem && n->kind == MAILDEX__Q_TERM && t->prefix->processor &&
                !(n->flags & (MAILDEX__QFLAG_PHRASE | MAILDEX__QFLAG_WILDCARD | MAILDEX__QFLAG_REGEX |
                              MAILDEX__QFLAG_QUOTED | MAILDEX__QFLAG_CAPITALISED)))
                n->flags |= MAILDEX__QFLAG_STEM;
            return n;
        }
        return t->kind == T_WORD ? free_word(p, t) : free_phrase(p, t);
    default:
        return NULL;
    }
}

/* Combines a run of items: hated items become NOT, grouped prefixes are ORed per name at the place of
 * their first term, and everything is ANDed. A run of hated items only is taken as plain terms at the
 * start of an expression (as notmuch does: "-<term> does not work at the start of an expression"), and
 * as NOTs after an explicit `and`. */
static struct maildex__qnode *combine_items(struct parser *p, struct items *it, bool after_and)
{
    enum { NKEYS = sizeof prefixes / sizeof prefixes[0] };
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
    for (size_t i = 0; i < it->n; i++) {
        struct item *x = &it->v[i];
        size_t g = 0;

        if (x->sign == '-' && (positive || after_and)) {
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

/* A run of items with no operator between them. *empty is set when not even one token was taken (the
 * caller knows what was expected); a run whose items all yield nothing (`'`) is NONE. */
static struct maildex__qnode *parse_seq(struct parser *p, bool after_and, bool *empty)
{
    struct items it = {0};
    size_t count = 0, first = 0;

    *empty = true;
    for (;;) {
        struct token t = *peek(p);
        struct maildex__qnode *n;
        const char *key;

        if (p->sh->failed)
            return NULL;
        if (t.kind == T_EOF || t.kind == T_RPAREN || is_operator(t.kind))
            break;
        advance(p);
        if (count++ == 0)
            first = t.pos;
        n = item_node(p, &t, &key);
        if (p->sh->failed)
            return NULL;
        if (n && !items_push(p, &it, n, key, t.sign))
            return NULL;
    }
    if (count == 0)
        return NULL;
    *empty = false;
    if (it.n == 0)
        return new_node(p, MAILDEX__Q_NONE, first);
    return combine_items(p, &it, after_and);
}

static void fail_after(struct parser *p, const struct token *op)
{
    fail(p, peek(p)->pos, "expected a term after '%.*s'", (int) (op->end - op->pos), p->text + op->pos);
}

/* [not]... run */
static struct maildex__qnode *parse_unary(struct parser *p, bool after_and, bool *empty)
{
    struct token t = *peek(p);
    struct maildex__qnode *child;
    bool e;

    if (p->sh->failed)
        return NULL;
    if (t.kind != T_NOT)
        return parse_seq(p, after_and, empty);
    advance(p);
    *empty = false;
    if (!enter(p, t.pos))
        return NULL;
    child = parse_unary(p, true, &e);
    leave(p);
    if (p->sh->failed)
        return NULL;
    if (e) {
        fail_after(p, &t);
        return NULL;
    }
    return wrap_not(p, child);
}

/* unary ((and [not] | not) unary)* */
static struct maildex__qnode *parse_and(struct parser *p, bool *empty)
{
    struct vec v = {0};
    struct maildex__qnode *x = parse_unary(p, false, empty);

    if (!x || !vec_push(p, &v, x))
        return NULL;
    for (;;) {
        struct token t = *peek(p);
        bool e;

        if (p->sh->failed)
            return NULL;
        if (t.kind != T_AND && t.kind != T_NOT)
            break;
        advance(p);
        x = parse_unary(p, true, &e);
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
    return combine(p, MAILDEX__Q_AND, &v);
}

static struct maildex__qnode *parse_xor(struct parser *p, bool *empty)
{
    struct vec v = {0};
    struct maildex__qnode *x = parse_and(p, empty);

    if (!x || !vec_push(p, &v, x))
        return NULL;
    for (;;) {
        struct token t = *peek(p);
        bool e;

        if (p->sh->failed)
            return NULL;
        if (t.kind != T_XOR)
            break;
        advance(p);
        x = parse_and(p, &e);
        if (p->sh->failed)
            return NULL;
        if (e) {
            fail_after(p, &t);
            return NULL;
        }
        if (!vec_push(p, &v, x))
            return NULL;
    }
    return combine(p, MAILDEX__Q_XOR, &v);
}

/* A whole expression, at the top (open_pos NO_POS) or inside a group opened at open_pos. */
static struct maildex__qnode *parse_or(struct parser *p, size_t open_pos, const char *open_what)
{
    struct vec v = {0};
    bool empty;
    struct maildex__qnode *x = parse_xor(p, &empty);

    if (p->sh->failed)
        return NULL;
    if (empty) {
        struct token t = *peek(p);

        if (is_operator(t.kind))
            fail(p, t.pos, "expected a term before '%.*s'", (int) (t.end - t.pos), p->text + t.pos);
        else if (open_pos != NO_POS && t.kind == T_EOF)
            fail(p, open_pos, "unmatched %s", open_what);
        else if (open_pos != NO_POS)
            fail(p, t.pos, "expected a term after %s", open_what);
        else if (t.kind == T_RPAREN)
            fail(p, t.pos, "unmatched ')'");
        else
            return new_node(p, MAILDEX__Q_NONE, 0); /* only ignored signs, e.g. `-` */
        return NULL;
    }
    if (!vec_push(p, &v, x))
        return NULL;
    for (;;) {
        struct token t = *peek(p);
        bool e;

        if (p->sh->failed)
            return NULL;
        if (t.kind != T_OR)
            break;
        advance(p);
        x = parse_xor(p, &e);
        if (p->sh->failed)
            return NULL;
        if (e) {
            fail_after(p, &t);
            return NULL;
        }
        if (!vec_push(p, &v, x))
            return NULL;
    }
    return combine(p, MAILDEX__Q_OR, &v);
}

/* A complete query text: "" and "*" (surrounding whitespace aside) match everything. */
static struct maildex__qnode *parse_text(struct parser *p)
{
    size_t a = 0, b = p->len;
    struct maildex__qnode *n;

    while (a < b && is_space(p->text[a]))
        a++;
    while (b > a && is_space(p->text[b - 1]))
        b--;
    if (a == b || (b - a == 1 && p->text[a] == '*'))
        return new_node(p, MAILDEX__Q_ALL, a);
    n = parse_or(p, NO_POS, NULL);
    if (!n)
        return NULL;
    if (peek(p)->kind == T_RPAREN) {
        fail(p, peek(p)->pos, "unmatched ')'");
        return NULL;
    }
    return p->sh->failed ? NULL : n;
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

/* ---- rendering ---------------------------------------------------------------------------------- */

struct buf {
    char *s;
    size_t len, cap;
    bool nomem;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->nomem)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *ns;

        while (cap < b->len + n + 1)
            cap *= 2;
        ns = talloc_realloc(NULL, b->s, char, cap);
        if (!ns) {
            b->nomem = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void put_string(struct buf *b, const char *s)
{
    put(b, "\"", 1);
    for (; *s; s++) {
        char esc[8];

        if (*s == '"' || *s == '\\') {
            esc[0] = '\\', esc[1] = *s;
            put(b, esc, 2);
        } else if ((unsigned char) *s < 0x20) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned) (unsigned char) *s);
            puts_(b, esc);
        } else {
            put(b, s, 1);
        }
    }
    put(b, "\"", 1);
}

static const char *field_name(enum maildex__qfield f)
{
    static const char *const names[] = {
        [MAILDEX__QF_FREE] = "text",       [MAILDEX__QF_BODY] = "body",         [MAILDEX__QF_FROM] = "from",
        [MAILDEX__QF_TO] = "to",           [MAILDEX__QF_SUBJECT] = "subject",   [MAILDEX__QF_ATTACHMENT] = "attachment",
        [MAILDEX__QF_MIMETYPE] = "mimetype", [MAILDEX__QF_TAG] = "tag",         [MAILDEX__QF_ID] = "id",
        [MAILDEX__QF_THREAD] = "thread",   [MAILDEX__QF_FOLDER] = "folder",     [MAILDEX__QF_PATH] = "path",
        [MAILDEX__QF_PROPERTY] = "property", [MAILDEX__QF_DATE] = "date",       [MAILDEX__QF_LASTMOD] = "lastmod",
    };

    return (unsigned) f < sizeof names / sizeof names[0] && names[f] ? names[f] : "?";
}

static void render(struct buf *b, const struct maildex__qnode *n)
{
    static const struct {
        unsigned flag;
        const char *name;
    } flags[] = {{MAILDEX__QFLAG_PHRASE, " phrase"}, {MAILDEX__QFLAG_WILDCARD, " wildcard"},
                 {MAILDEX__QFLAG_REGEX, " regex"},   {MAILDEX__QFLAG_QUOTED, " quoted"},
                 {MAILDEX__QFLAG_CAPITALISED, " cap"}, {MAILDEX__QFLAG_STEM, " stem"}};
    static const char *const kinds[] = {
        [MAILDEX__Q_ALL] = "(all", [MAILDEX__Q_NONE] = "(none", [MAILDEX__Q_AND] = "(and",
        [MAILDEX__Q_OR] = "(or",   [MAILDEX__Q_XOR] = "(xor",   [MAILDEX__Q_NOT] = "(not",
        [MAILDEX__Q_TERM] = "(",   [MAILDEX__Q_THREAD] = "(thread-of",
    };

    puts_(b, (unsigned) n->kind < sizeof kinds / sizeof kinds[0] ? kinds[n->kind] : "(?");
    if (n->kind == MAILDEX__Q_TERM) {
        puts_(b, field_name(n->field));
        put(b, " ", 1);
        put_string(b, n->value ? n->value : "");
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (n->flags & flags[i].flag)
                puts_(b, flags[i].name);
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        put(b, " ", 1);
        render(b, n->children[i]);
    }
    put(b, ")", 1);
}

char *maildex__qnode_to_string(void *ctx, const struct maildex__qnode *n)
{
    struct buf b = {0};
    char *s = NULL;

    if (n)
        render(&b, n);
    else
        puts_(&b, "nil");
    if (!b.nomem)
        s = talloc_strndup(ctx, b.s, b.len);
    talloc_free(b.s);
    return s;
}
