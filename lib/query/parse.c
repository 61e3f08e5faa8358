/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Parser for notmuch 0.37's query language (compat reference §1.3, §3), producing the tree in lib/query/ast.h.
 *
 * It follows Xapian's QueryParser as notmuch configures it: default operator AND, precedence
 * OR < XOR < AND/NOT, `-`/`+` love/hate, quoted phrases, and the grouping rule notmuch users rely on: in a
 * run of terms with no explicit operator, terms whose prefix is boolean or has a field processor are ORed
 * per prefix name and the groups ANDed (`tag:a from:b tag:c` = `(tag:a OR tag:c) AND from:b`). It must not
 * interpret values (dates, regexes, words) beyond splitting them off the query text, touch the store, or
 * recurse without bound: every nesting (parentheses, prefix groups, thread:{}, query:) counts
 * towards MAILDEX__QUERY_MAX_DEPTH, and long flat queries are handled with loops. This file holds the
 * grammar, the parse's errors and its nodes; the parts it calls are listed in parser.h.
 *
 * Malformed queries are read as Xapian 1.4 reads them (doc/query-syntax.md, "Malformed queries"): an
 * unclosed '(' or '"' is closed at the end, and a '(' or '"' that opens nothing is dropped (lex.c).
 * Where Xapian forgets a failure and restarts, or parses the text again in plain mode, is decided in
 * recover.c; maildex__qparse_text does the parsing again.
 *
 * Deliberate differences from notmuch: `prefix:(...)` groups apply the prefix to every word inside and
 * work for boolean prefixes too (Xapian gives only the first word the prefix, and reads `tag:(a` as the
 * tag "(a"), an unquoted `thread:{...}` may contain spaces, an unquoted `tag:/re(g)ex/` runs to the
 * closing slash, a prefixed probabilistic value with `..` (`subject:wait...`) is words, not a range
 * error, a from:/subject: value is not parsed again as a query (but for `"(...)"`), an operator is one
 * with a `+` or `#` stuck to it, and nesting deeper than MAILDEX__QUERY_MAX_DEPTH is an error. */
#include "parser.h"

#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>

/* ---- errors and allocation ---------------------------------------------------------------------- */

void maildex__qparse_nomem(struct maildex__qparser *p)
{
    p->sh->failed = true;
    p->sh->nomem = true;
}

/* Records the first error as "<what> at position <abs_pos>: <message>". */
__attribute__((format(printf, 4, 0))) static void vfail(struct maildex__qparser *p, const char *what,
                                                        size_t abs_pos, const char *fmt, va_list ap)
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

void maildex__qparse_fail(struct maildex__qparser *p, size_t pos, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail(p, "syntax error", p->base + pos, fmt, ap);
    va_end(ap);
}

void maildex__qparse_fail_retry(struct maildex__qparser *p, size_t pos, const char *fmt, ...)
{
    va_list ap;

    if (p->sh->failed)
        return;
    p->sh->retry = true;
    va_start(ap, fmt);
    vfail(p, "syntax error", p->base + pos, fmt, ap);
    va_end(ap);
}

void maildex__qparse_fail_query(struct maildex__qparser *p, size_t abs_pos, const char *what, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail(p, what, abs_pos, fmt, ap);
    va_end(ap);
}

bool maildex__qparse_enter(struct maildex__qparser *p, size_t pos)
{
    if (++p->sh->depth > MAILDEX__QUERY_MAX_DEPTH) {
        maildex__qparse_fail(p, pos, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
        return false;
    }
    return true;
}

void maildex__qparse_leave(struct maildex__qparser *p)
{
    p->sh->depth--;
}

size_t maildex__qparse_node_pos(const struct maildex__qparser *p, size_t pos)
{
    return p->pos_fixed != MAILDEX__NO_POS ? p->pos_fixed : p->base + pos;
}

struct maildex__qnode *maildex__qparse_node(struct maildex__qparser *p, enum maildex__qkind kind, size_t pos)
{
    struct maildex__qnode *n = talloc_zero(p->sh->ctx, struct maildex__qnode);

    if (!n) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    n->kind = kind;
    n->pos = maildex__qparse_node_pos(p, pos);
    return n;
}

bool maildex__qparse_push(struct maildex__qparser *p, struct maildex__qvec *v, struct maildex__qnode *n)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        struct maildex__qnode **nv = talloc_realloc(p->sh->ctx, v->v, struct maildex__qnode *, cap);

        if (!nv) {
            maildex__qparse_nomem(p);
            return false;
        }
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = n;
    return true;
}

struct maildex__qnode *maildex__qparse_parent(struct maildex__qparser *p, enum maildex__qkind kind, size_t pos,
                                              struct maildex__qnode *child)
{
    struct maildex__qnode *n = maildex__qparse_node(p, kind, pos);

    if (!n)
        return NULL;
    n->children = talloc_array(n, struct maildex__qnode *, 1);
    if (!n->children) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    n->children[0] = child;
    n->nchildren = 1;
    return n;
}

static struct maildex__qnode *wrap_not(struct maildex__qparser *p, struct maildex__qnode *child)
{
    struct maildex__qnode *n = maildex__qparse_parent(p, MAILDEX__Q_NOT, 0, child);

    if (n)
        n->pos = child->pos;
    return n;
}

struct maildex__qnode *maildex__qparse_combine(struct maildex__qparser *p, enum maildex__qkind kind,
                                               struct maildex__qvec *v)
{
    struct maildex__qvec out = {0};
    struct maildex__qnode *n;
    size_t nall = 0;

    if (v->n == 1)
        return v->v[0];
    for (size_t i = 0; i < v->n; i++)
        nall += v->v[i]->kind == MAILDEX__Q_ALL;
    if (kind == MAILDEX__Q_OR && nall)
        return maildex__qparse_node(p, MAILDEX__Q_ALL, 0);
    for (size_t i = 0; i < v->n; i++) {
        struct maildex__qnode *c = v->v[i];

        if (kind == MAILDEX__Q_AND && c->kind == MAILDEX__Q_ALL && nall < v->n)
            continue;
        if (c->kind == kind) {
            for (size_t j = 0; j < c->nchildren; j++)
                if (!maildex__qparse_push(p, &out, c->children[j]))
                    return NULL;
        } else if (!maildex__qparse_push(p, &out, c)) {
            return NULL;
        }
    }
    if (out.n == 1)
        return out.v[0];
    n = maildex__qparse_node(p, kind, 0);
    if (!n)
        return NULL;
    n->pos = out.v[0]->pos;
    n->children = talloc_steal(n, out.v);
    n->nchildren = out.n;
    return n;
}

/* ---- grammar ------------------------------------------------------------------------------------ */

static struct maildex__qnode *parse_or(struct maildex__qparser *p, size_t open_pos, const char *open_what);

/* ( ... ) or prefix:( ... ); the opening token has been consumed. A group still open at the end of the
 * text is closed there, as Xapian closes it. */
static struct maildex__qnode *parse_group(struct maildex__qparser *p, const struct maildex__qtoken *open)
{
    const struct maildex__qprefix *saved = p->group;
    char what[32];
    struct maildex__qnode *n = NULL;

    if (open->kind == MAILDEX__QT_GROUP)
        snprintf(what, sizeof what, "'%s:('", open->prefix->name);
    else
        snprintf(what, sizeof what, "'('");
    if (!maildex__qparse_enter(p, open->pos))
        return NULL;
    if (open->kind == MAILDEX__QT_GROUP)
        p->group = open->prefix;
    p->open_groups++;
    n = parse_or(p, open->pos, what);
    p->open_groups--;
    p->group = saved;
    maildex__qparse_leave(p);
    if (n && maildex__qlex_peek(p)->kind == MAILDEX__QT_RPAREN)
        maildex__qlex_advance(p);
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

static bool items_push(struct maildex__qparser *p, struct items *it, struct maildex__qnode *node, const char *key,
                       char sign)
{
    if (it->n == it->cap) {
        size_t cap = it->cap ? it->cap * 2 : 8;
        struct item *nv = talloc_realloc(p->sh->ctx, it->v, struct item, cap);

        if (!nv) {
            maildex__qparse_nomem(p);
            return false;
        }
        it->v = nv;
        it->cap = cap;
    }
    it->v[it->n++] = (struct item){node, key, sign};
    return true;
}

/* Xapian groups ranges by value slot, apart from the date: field processor's terms: `date:2023
 * date:2021` and `date:2020..2021 1600000000..1700000000` are ORed, `date:2023 date:2020..2021` ANDed. */
#define DATE_RANGE_KEY "date.."

/* The node one item token stands for; NULL with no failure if it yields nothing. */
static struct maildex__qnode *item_node(struct maildex__qparser *p, struct maildex__qtoken *t, const char **key)
{
    struct maildex__qnode *n;

    *key = NULL;
    switch (t->kind) {
    case MAILDEX__QT_LPAREN:
    case MAILDEX__QT_GROUP:
        return parse_group(p, t);
    case MAILDEX__QT_PREFIXED:
        if (t->prefix->grouped)
            *key = t->prefix->name;
        if (t->prefix->field == MAILDEX__QF_DATE && !t->quoted && strstr(t->value, ".."))
            *key = DATE_RANGE_KEY;
        return maildex__qterm_prefixed(p, t);
    case MAILDEX__QT_WORD:
        if (p->group)
            return maildex__qterm_group(p, t);
        n = maildex__qterm_free_word(p, t);
        if (n && n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_DATE)
            *key = DATE_RANGE_KEY;
        return n;
    case MAILDEX__QT_PHRASE:
        return p->group ? maildex__qterm_group(p, t) : maildex__qterm_free_phrase(p, t);
    default:
        return NULL;
    }
}

/* Combines a run of items: hated items become NOT, grouped prefixes are ORed per name at the place of
 * their first term, and everything is ANDed. A run of hated items only is Xapian's "Can't just hate!",
 * a parse error found at the token after the run (which is why a lone `-tag:inbox` finds tag:inbox:
 * the plain reading drops the sign). */
static struct maildex__qnode *combine_items(struct maildex__qparser *p, struct items *it, size_t pos)
{
    enum { NKEYS = MAILDEX__QUERY_NPREFIXES + 1 };
    struct {
        const char *key;
        size_t slot;
        struct maildex__qvec terms;
    } groups[NKEYS];
    size_t ngroups = 0;
    struct maildex__qvec out = {0};
    bool positive = false;

    for (size_t i = 0; i < it->n; i++)
        positive |= it->v[i].sign != '-';
    if (!positive) {
        if (maildex__qis_operator(maildex__qlex_peek(p)->kind))
            maildex__qrecover_note_restart(p, maildex__qlex_peek(p)->end);
        maildex__qparse_fail_retry(p, pos, "nothing to exclude from (a query of '-' terms only)");
        return NULL;
    }
    for (size_t i = 0; i < it->n; i++) {
        struct item *x = &it->v[i];
        size_t g = 0;

        if (x->sign == '-') {
            struct maildex__qnode *n = wrap_not(p, x->node);

            if (!n || !maildex__qparse_push(p, &out, n))
                return NULL;
            continue;
        }
        if (!x->key) {
            if (!maildex__qparse_push(p, &out, x->node))
                return NULL;
            continue;
        }
        while (g < ngroups && strcmp(groups[g].key, x->key) != 0)
            g++;
        if (g == ngroups) {
            if (ngroups == NKEYS || !maildex__qparse_push(p, &out, x->node))
                return NULL; /* more keys than prefixes cannot happen */
            groups[g].key = x->key;
            groups[g].slot = out.n - 1;
            memset(&groups[g].terms, 0, sizeof groups[g].terms);
            ngroups++;
        }
        if (!maildex__qparse_push(p, &groups[g].terms, x->node))
            return NULL;
    }
    for (size_t g = 0; g < ngroups; g++) {
        struct maildex__qnode *n = maildex__qparse_combine(p, MAILDEX__Q_OR, &groups[g].terms);

        if (!n)
            return NULL;
        out.v[groups[g].slot] = n;
    }
    return maildex__qparse_combine(p, MAILDEX__Q_AND, &out);
}

/* Is text[from, to) whitespace only? A sign right after an operator is Xapian's HATE_AFTER_AND only when
 * nothing else came between them. */
static bool only_space(const struct maildex__qparser *p, size_t from, size_t to)
{
    while (from < to && maildex__qis_space(p->text[from]))
        from++;
    return from >= to;
}

/* A free word of letters and digits only: what Xapian may gather into a group of terms. */
static bool plain_word(const struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    if (t->kind != MAILDEX__QT_WORD || p->group)
        return false;
    for (const char *s = t->value; *s; s++)
        if (!maildex__qis_word_byte(*s))
            return false;
    return true;
}

/* A sign that punctuation Xapian drops separates from its word (`-'foo bar`) applies to the group of
 * plain words the word starts, as Xapian's lexer only forms groups in a new step: -(foo bar). first
 * is the node of t, the signed word (a detached plain_word). */
static struct maildex__qnode *detached_group(struct maildex__qparser *p, struct maildex__qnode *first,
                                             const struct maildex__qtoken *t)
{
    struct maildex__qvec v = {0};
    size_t end = t->end;

    if (!maildex__qparse_push(p, &v, first))
        return NULL;
    for (;;) {
        struct maildex__qtoken w = *maildex__qlex_peek(p);
        struct maildex__qnode *n;

        if (p->sh->failed || w.sign || !plain_word(p, &w) || !only_space(p, end, w.pos))
            break;
        maildex__qlex_advance(p);
        n = maildex__qterm_free_word(p, &w);
        if (!n || !maildex__qparse_push(p, &v, n))
            return NULL;
        end = w.end;
    }
    return maildex__qparse_combine(p, MAILDEX__Q_AND, &v);
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
static struct maildex__qnode *parse_seq(struct maildex__qparser *p, const struct maildex__qtoken *after, bool *empty)
{
    struct items it = {0};
    struct maildex__qnode *n;
    bool excluding =
        after && maildex__qlex_peek(p)->sign == '-' && only_space(p, after->end, maildex__qlex_peek(p)->pos);
    size_t first = maildex__qlex_peek(p)->pos;

    *empty = true;
    if (excluding && after->kind != MAILDEX__QT_AND) {
        maildex__qrecover_note_restart(p, maildex__qlex_peek(p)->pos);
        maildex__qparse_fail(p, maildex__qlex_peek(p)->pos, "'-' cannot follow '%.*s' (use 'and -' or 'and not')",
                             (int) (after->end - after->pos), p->text + after->pos);
        return NULL;
    }
    for (bool head = true;; head = false) {
        struct maildex__qtoken t = *maildex__qlex_peek(p);
        const char *key;
        bool group;

        if (p->sh->failed)
            return NULL;
        if (t.kind == MAILDEX__QT_EOF || t.kind == MAILDEX__QT_RPAREN || maildex__qis_operator(t.kind))
            break;
        maildex__qlex_advance(p);
        if (t.kind == MAILDEX__QT_SIGN) {
            maildex__qrecover_fail_sign(p, &t, after, head && excluding);
            return NULL;
        }
        if (head && excluding)
            t.sign = 0; /* the `-` of `and -` excludes the whole run */
        group = t.sign && t.detached && plain_word(p, &t);
        n = item_node(p, &t, &key);
        if (n && group)
            n = detached_group(p, n, &t);
        if (!p->sh->failed && t.sign && !signable(n, key))
            maildex__qrecover_fail_sign(p, &t, after, false);
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
static struct maildex__qnode *parse_unary(struct maildex__qparser *p, const struct maildex__qtoken *after, bool *empty)
{
    struct maildex__qtoken t = *maildex__qlex_peek(p);
    struct maildex__qnode *child;
    bool e;

    if (p->sh->failed)
        return NULL;
    if (t.kind != MAILDEX__QT_NOT)
        return parse_seq(p, after, empty);
    if (after && after->kind == MAILDEX__QT_NOT) {
        maildex__qrecover_fail_after(p, after);
        return NULL;
    }
    maildex__qlex_advance(p);
    *empty = false;
    child = parse_seq(p, &t, &e);
    if (p->sh->failed)
        return NULL;
    if (e) {
        maildex__qrecover_fail_after(p, &t);
        return NULL;
    }
    return wrap_not(p, child);
}

struct maildex__qnode *maildex__qparse_level(struct maildex__qparser *p, enum maildex__qlevel level,
                                             const struct maildex__qtoken *after, bool *empty)
{
    static const enum maildex__qkind kinds[] = {[MAILDEX__QLEVEL_OR] = MAILDEX__Q_OR,
                                                [MAILDEX__QLEVEL_XOR] = MAILDEX__Q_XOR,
                                                [MAILDEX__QLEVEL_AND] = MAILDEX__Q_AND};
    struct maildex__qvec v = {0};
    struct maildex__qnode *x;

    if (level == MAILDEX__QLEVEL_UNARY)
        return parse_unary(p, after, empty);
    x = maildex__qparse_level(p, level + 1, after, empty);
    if (!x || !maildex__qparse_push(p, &v, x))
        return NULL;
    for (;;) {
        struct maildex__qtoken t = *maildex__qlex_peek(p);
        bool e;

        if (p->sh->failed)
            return NULL;
        if (!maildex__qis_operator(t.kind) || maildex__qprecedence(t.kind) != level)
            break;
        maildex__qlex_advance(p);
        x = maildex__qparse_level(p, level + 1, &t, &e);
        if (p->sh->failed)
            return NULL;
        if (e) {
            maildex__qrecover_fail_after(p, &t);
            return NULL;
        }
        if (t.kind == MAILDEX__QT_NOT)
            x = wrap_not(p, x);
        if (!x || !maildex__qparse_push(p, &v, x))
            return NULL;
    }
    return maildex__qparse_combine(p, kinds[level], &v);
}

/* A whole expression, at the top (open_pos MAILDEX__NO_POS) or inside a group opened at open_pos. */
static struct maildex__qnode *parse_or(struct maildex__qparser *p, size_t open_pos, const char *open_what)
{
    bool empty;
    struct maildex__qnode *n = maildex__qparse_level(p, MAILDEX__QLEVEL_OR, NULL, &empty);

    if (p->sh->failed)
        return NULL;
    return empty ? maildex__qrecover_empty(p, open_pos, open_what) : n;
}

static struct maildex__qnode *parse_expression(struct maildex__qparser *p)
{
    struct maildex__qnode *n = parse_or(p, MAILDEX__NO_POS, NULL);

    if (n && maildex__qlex_peek(p)->kind == MAILDEX__QT_RPAREN) {
        maildex__qparse_fail_retry(p, maildex__qlex_peek(p)->pos, "unmatched ')'");
        return NULL;
    }
    if (n && p->open_quote) {
        maildex__qparse_fail_retry(p, p->len, "missing '\"' at the end of a prefixed phrase");
        return NULL;
    }
    return p->sh->failed ? NULL : n;
}

/* Forgets a failure, to parse again from cur. */
static void restart_at(struct maildex__qparser *p, size_t cur, int depth)
{
    struct maildex__qshared *sh = p->sh;

    talloc_free(sh->error);
    sh->error = NULL;
    sh->failed = sh->retry = false;
    sh->restart = MAILDEX__NO_POS;
    sh->depth = depth;
    p->cur = cur;
    p->have_tok = false;
    p->open_quote = false;
}

/* A complete query text: exactly "" or "*" matches everything (notmuch's rule; " " matches nothing). A
 * failure Xapian forgets (maildex__qrecover_note_restart) parses again from the term it noted; one it calls
 * "parse error" parses the whole text again in plain mode, as Xapian::QueryParser::parse_query retries with
 * no flags. */
struct maildex__qnode *maildex__qparse_text(struct maildex__qparser *p)
{
    struct maildex__qshared *sh = p->sh;
    int depth = sh->depth;
    struct maildex__qnode *n;

    if (p->len == 0 || (p->len == 1 && p->text[0] == '*'))
        return maildex__qparse_node(p, MAILDEX__Q_ALL, 0);
    sh->restart = MAILDEX__NO_POS;
    n = parse_expression(p);
    while (!n && !sh->nomem && sh->restart != MAILDEX__NO_POS) {
        size_t at = sh->restart;
        int groups = sh->restart_groups;

        restart_at(p, at, depth);
        n = parse_expression(p);
        /* the '(' before the restart is closed later or at the end: a ')' the reset grammar rejects */
        if (n && groups > 0) {
            maildex__qparse_fail_retry(p, p->len, "unmatched ')' after a restart");
            n = NULL;
        }
    }
    if (n || !sh->retry || sh->nomem)
        return n;
    restart_at(p, 0, depth);
    p->plain = true;
    return parse_expression(p);
}

/* Values and child arrays are already under their node. Depth is bounded by MAILDEX__QUERY_MAX_DEPTH. */
void maildex__qparse_adopt(void *parent, struct maildex__qnode *n)
{
    talloc_steal(parent, n);
    for (size_t i = 0; i < n->nchildren; i++)
        maildex__qparse_adopt(n, n->children[i]);
}

int maildex__qparse_run(void *ctx, const char *text, const struct maildex__query_options *opts,
                        size_t restart, struct maildex__qnode *(*parse)(struct maildex__qparser *),
                        struct maildex__qnode **out, char **error)
{
    void *local = talloc_new(ctx);
    struct maildex__qshared sh = {.ctx = local, .opts = opts, .restart = restart};
    struct maildex__qparser p = {.sh = &sh, .text = text ? text : "", .pos_fixed = MAILDEX__NO_POS};
    struct maildex__qnode *n;
    int ret;

    *out = NULL;
    if (error)
        *error = NULL;
    if (!local)
        return MAILDEX__QUERY_NOMEM;
    p.len = strlen(p.text);
    n = parse(&p);
    if (sh.nomem) {
        ret = MAILDEX__QUERY_NOMEM;
    } else if (!n) {
        ret = MAILDEX__QUERY_BAD;
        if (error)
            *error = talloc_steal(ctx, sh.error);
    } else {
        maildex__qparse_adopt(ctx, n);
        *out = n;
        ret = MAILDEX__QUERY_OK;
    }
    talloc_free(local);
    return ret;
}

int maildex__query_parse(void *ctx, const char *text, const struct maildex__query_options *opts,
                         struct maildex__qnode **out, char **error)
{
    return maildex__qparse_run(ctx, text, opts, 0, maildex__qparse_text, out, error);
}
