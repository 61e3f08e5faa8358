/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Nested parses: thread:{...} subqueries, query:NAME expansion (the named query's text from the
 * caller's lookup, with cycles found and reported as a chain), the quoted from:/subject:"(...)"
 * values that notmuch's field processors read as queries, and a sexp query's (infix "..."). Each is a parse of its own text sharing the
 * outer parse's state, one level deeper: it must not recurse beyond MAILDEX__QUERY_MAX_DEPTH, nor copy a
 * thread:{} subquery out of the text it is parsed in. */
#include "parser.h"

#include <string.h>
#include <talloc.h>

/* Parses sub, a text of its own nested at pos in p's text, one level deeper. */
static struct maildex__qnode *parse_sub(struct maildex__qparser *p, struct maildex__qparser *sub, size_t pos)
{
    struct maildex__qnode *n;

    if (!maildex__qparse_enter(p, pos))
        return NULL;
    n = maildex__qparse_text(sub);
    maildex__qparse_leave(p);
    return n;
}

/* Parses text[0, len) (not necessarily NUL-terminated) as a query of its own. */
static struct maildex__qnode *parse_subtext(struct maildex__qparser *p, const char *text, size_t len, size_t base,
                                            size_t pos_fixed, size_t pos)
{
    struct maildex__qparser sub = {.sh = p->sh, .text = text, .len = len, .base = base, .pos_fixed = pos_fixed};

    return parse_sub(p, &sub, pos);
}

struct maildex__qnode *maildex__qexpand_thread(struct maildex__qparser *p, const struct maildex__qtoken *t)
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
        return maildex__qterm_new(p, MAILDEX__QF_THREAD, t->value, t->quoted ? MAILDEX__QFLAG_QUOTED : 0, t->pos);
    }
    if (n < 2 || inner[n - 1] != '}') {
        maildex__qparse_fail(p, t->pos, "missing '}' in thread subquery");
        return NULL;
    }
    /* Positions inside a quoted subquery are only approximate when it holds "" escapes. */
    sub = parse_subtext(p, inner + 1, n - 2, p->base + t->value_pos + 1, p->pos_fixed, t->pos);
    return sub ? maildex__qparse_parent(p, MAILDEX__Q_THREAD, t->pos, sub) : NULL;
}

static void fail_cycle(struct maildex__qparser *p, size_t pos, const char *name)
{
    struct maildex__qshared *sh = p->sh;
    char *chain = talloc_strdup(sh->ctx, "");

    for (int i = 0; chain && i < sh->nexpanding; i++)
        chain = talloc_asprintf_append(chain, "query:%s -> ", sh->expanding[i]);
    chain = chain ? talloc_asprintf_append(chain, "query:%s", name) : NULL;
    if (!chain) {
        maildex__qparse_nomem(p);
        return;
    }
    /* Reported at the query: term of the outermost query, where the user can see it. */
    maildex__qparse_fail_query(p, maildex__qparse_node_pos(p, pos), "named query cycle", "%s", chain);
}

struct maildex__qnode *maildex__qexpand_named(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    struct maildex__qshared *sh = p->sh;
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
    /* notmuch reads an undefined name as an empty text, and an empty text (unlike the empty query as a
     * whole) as Xapian's empty query, which matches nothing (query-fp.cc). */
    if (!stored || stored[strspn(stored, " \t\n\r\f\v")] == '\0')
        return maildex__qparse_node(p, MAILDEX__Q_NONE, t->pos);
    copy = talloc_strdup(sh->ctx, stored);
    if (!copy) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    if (sh->nexpanding >= MAILDEX__QUERY_MAX_DEPTH) {
        maildex__qparse_fail(p, t->pos, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
        return NULL;
    }
    sh->expanding[sh->nexpanding++] = t->value;
    n = parse_subtext(p, copy, strlen(copy), 0, maildex__qparse_node_pos(p, t->pos), t->pos);
    sh->nexpanding--;
    /* Errors inside refer to positions in the stored text: say which one. Cycles already name it. */
    if (!n && sh->error && !sh->nomem && strncmp(sh->error, "named query cycle", 17) != 0) {
        char *wrapped = talloc_asprintf(sh->ctx, "in query:%s: %s", t->value, sh->error);

        if (wrapped)
            sh->error = wrapped;
    }
    return n;
}

struct maildex__qnode *maildex__qexpand_paren(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    /* Positions inside are only approximate when the value held "" escapes. */
    struct maildex__qparser sub = {.sh = p->sh, .text = t->value, .len = strlen(t->value),
                                   .base = p->base + t->value_pos, .pos_fixed = p->pos_fixed, .group = t->prefix,
                                   .stem = true};

    return parse_sub(p, &sub, t->pos);
}


struct maildex__qnode *maildex__qexpand_infix(struct maildex__qparser *p, const char *text, size_t pos)
{
    return parse_subtext(p, text, strlen(text), 0, maildex__qparse_node_pos(p, pos), pos);
}
