/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch 0.37's S-expression query syntax (notmuch-sexp-queries(7), lib/parse-sexp.cc) turned into the
 * tree of lib/query/ast.h that the infix parser makes, so that one planner, its work bounds and every field
 * handler serve both: `(tag inbox)` is the node of `tag:inbox`, `(thread (of ...))` that of
 * `thread:{...}`, `(infix "...")` and `(query NAME)` call the infix parser, and the infix `sexp:"..."`
 * comes here. It follows notmuch's rules: which fields combine their arguments with and or with or, which
 * take wildcards, regexes and `(of ...)`, that a basic word is stemmed and a quoted one a phrase, and
 * notmuch's words for every error; saved queries (`squery.NAME`) and their macros are sexp-macro.c's,
 * called from here. It must not build SQL or read the store, recurse beyond MAILDEX__QUERY_MAX_DEPTH (lists, infix
 * and saved queries counted together), or let saved queries expand without bound: a text reads in time
 * linear in its length, and all expansion of saved queries together stops at MAILDEX__SEXP_MAX_EXPANSION.
 *
 * Deliberate differences: a quoted word outside any field is text only (notmuch also matches it as a tag, a folder or
 * any other boolean term, an accident of Xapian's term prefixes, as for the infix `Inbox`); `(of ...)` or
 * `(matching ...)` outside a field is an error (notmuch crashes), and so is a saved query or macro that
 * calls itself (notmuch overflows its stack). */
#include "sexp.h"

#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* notmuch's table (parse-sexp.cc), with the field each prefix searches here. */
static const struct sprefix prefixes[] = {
    {"and", OP_AND, 0, MAILDEX__QF_FREE},
    {"attachment", OP_AND, F_FIELD | F_WILDCARD | F_EXPAND, MAILDEX__QF_ATTACHMENT},
    {"body", OP_AND, F_FIELD, MAILDEX__QF_BODY},
    {"date", OP_NONE, F_RANGE, MAILDEX__QF_DATE},
    {"from", OP_AND, F_FIELD | F_WILDCARD | F_REGEX | F_EXPAND, MAILDEX__QF_FROM},
    {"folder", OP_OR, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX | F_EXPAND | F_PATHNAME, MAILDEX__QF_FOLDER},
    {"id", OP_OR, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX, MAILDEX__QF_ID},
    {"infix", OP_NONE, F_SINGLE | F_ORPHAN, MAILDEX__QF_FREE},
    {"is", OP_AND, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX | F_EXPAND, MAILDEX__QF_TAG},
    {"lastmod", OP_NONE, F_RANGE, MAILDEX__QF_LASTMOD},
    {"matching", OP_AND, F_DO_EXPAND, MAILDEX__QF_FREE},
    {"mid", OP_OR, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX, MAILDEX__QF_ID},
    {"mimetype", OP_AND, F_FIELD | F_WILDCARD | F_EXPAND, MAILDEX__QF_MIMETYPE},
    {"not", OP_NOT, 0, MAILDEX__QF_FREE},
    {"of", OP_AND, F_DO_EXPAND, MAILDEX__QF_FREE},
    {"or", OP_OR, 0, MAILDEX__QF_FREE},
    {"path", OP_OR, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX | F_PATHNAME, MAILDEX__QF_PATH},
    {"property", OP_AND, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX | F_EXPAND, MAILDEX__QF_PROPERTY},
    {"query", OP_NONE, F_SINGLE | F_ORPHAN, MAILDEX__QF_FREE},
    {"regex", OP_NONE, F_SINGLE | F_DO_REGEX, MAILDEX__QF_FREE},
    {"rx", OP_NONE, F_SINGLE | F_DO_REGEX, MAILDEX__QF_FREE},
    {"starts-with", OP_WILDCARD, F_SINGLE, MAILDEX__QF_FREE},
    {"subject", OP_AND, F_FIELD | F_WILDCARD | F_REGEX | F_EXPAND, MAILDEX__QF_SUBJECT},
    {"tag", OP_AND, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX | F_EXPAND, MAILDEX__QF_TAG},
    {"thread", OP_OR, F_FIELD | F_BOOLEAN | F_WILDCARD | F_REGEX | F_EXPAND, MAILDEX__QF_THREAD},
    {"to", OP_AND, F_FIELD | F_WILDCARD | F_EXPAND, MAILDEX__QF_TO},
};

/* ---- errors --------------------------------------------------------------------------------------- */

void maildex__sexp_fail(struct sexp *c, const char *fmt, ...)
{
    struct maildex__qshared *sh = c->p->sh;
    va_list ap;

    if (sh->failed)
        return;
    sh->failed = true;
    va_start(ap, fmt);
    sh->error = talloc_vasprintf(sh->ctx, fmt, ap);
    va_end(ap);
    if (sh->error == NULL)
        sh->nomem = true;
}

static char *sdup(struct sexp *c, const char *s)
{
    char *d = talloc_strdup(c->p->sh->ctx, s);

    if (d == NULL)
        maildex__qparse_nomem(c->p);
    return d;
}

/* ---- nodes ---------------------------------------------------------------------------------------- */

static struct maildex__qnode *node(struct sexp *c, enum maildex__qkind kind, const struct maildex__sx *sx)
{
    return maildex__qparse_node(c->p, kind, sx->pos);
}

static struct maildex__qnode *term(struct sexp *c, enum maildex__qfield field, const char *value, unsigned flags,
                                   const struct maildex__sx *sx)
{
    return maildex__qterm_new(c->p, field, value, flags, sx->pos);
}

/* kind (AND or OR) of v's nodes; nothing is the kind's identity (every message, or none). */
static struct maildex__qnode *combine(struct sexp *c, enum maildex__qkind kind, struct maildex__qvec *v,
                                      const struct maildex__sx *sx)
{
    if (v->n == 0)
        return node(c, kind == MAILDEX__Q_AND ? MAILDEX__Q_ALL : MAILDEX__Q_NONE, sx);
    return maildex__qparse_combine(c->p, kind, v);
}

/* ---- terms ---------------------------------------------------------------------------------------- */

/* Xapian's word characters (notmuch's unicode_is_wordchar): letters, marks, numbers, '_'. */
static bool is_wordchar(gunichar ch)
{
    switch (g_unichar_type(ch)) {
    case G_UNICODE_UPPERCASE_LETTER:
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_OTHER_NUMBER:
    case G_UNICODE_CONNECT_PUNCTUATION:
        return true;
    default:
        return false;
    }
}

/* The words of s, lower case, joined by single spaces (Xapian's phrase splitting); *n their number. */
static char *phrase_words(struct sexp *c, const char *s, size_t *n)
{
    GString *out = g_string_new(NULL);
    char *words;
    bool in_word = false;

    *n = 0;
    while (*s) {
        gunichar ch = g_utf8_get_char_validated(s, -1);
        const char *next = ch == (gunichar) -1 || ch == (gunichar) -2 ? s + 1 : g_utf8_next_char(s);

        if (ch != (gunichar) -1 && ch != (gunichar) -2 && is_wordchar(ch)) {
            if (!in_word && (*n)++)
                g_string_append_c(out, ' ');
            g_string_append_unichar(out, g_unichar_tolower(ch));
            in_word = true;
        } else {
            in_word = false;
        }
        s = next;
    }
    words = sdup(c, out->str);
    g_string_free(out, TRUE);
    return words;
}

/* Is s one word (nothing but word characters)? */
static bool is_word(const char *s)
{
    for (; *s; s = g_utf8_next_char(s)) {
        gunichar ch = g_utf8_get_char_validated(s, -1);
        if (ch == (gunichar) -1 || ch == (gunichar) -2 || !is_wordchar(ch))
            return false;
    }
    return true;
}

/* An atom in a full-text field (or outside any field: free text): a basic word is stemmed, whatever its
 * case (from: and subject: too); anything else is the phrase of its words, unstemmed, and a phrase of no
 * words matches nothing. */
static struct maildex__qnode *text_term(struct sexp *c, enum maildex__qfield field, const struct maildex__sx *sx)
{
    size_t n;
    char *words = phrase_words(c, sx->value, &n);
    const bool stemmed = sx->quote == MAILDEX__SX_BASIC && n == 1 && is_word(sx->value);

    if (words == NULL)
        return NULL;
    if (stemmed)
        return term(c, field, words,
                    field == MAILDEX__QF_FROM || field == MAILDEX__QF_SUBJECT ? MAILDEX__QFLAG_STEM : 0, sx);
    if (n == 0)
        return node(c, MAILDEX__Q_NONE, sx);
    return term(c, field, words, MAILDEX__QFLAG_QUOTED | (n > 1 ? MAILDEX__QFLAG_PHRASE : 0), sx);
}

/* s in lower case (ASCII only when it is not UTF-8), on the parse's context. */
static char *lower_case(struct sexp *c, const char *s)
{
    char *g = g_utf8_validate(s, -1, NULL) ? g_utf8_strdown(s, -1) : g_ascii_strdown(s, -1);
    char *lower = sdup(c, g);

    g_free(g);
    return lower;
}

/* (starts-with match) or `*` in parent (NULL: outside any field), as notmuch's wildcard: lower case, on
 * whole terms (values of a boolean field, words of a full-text one). Outside a field it matches the
 * terms notmuch indexes without a prefix, which are the body's words only (the headers' words carry
 * their field's prefix): `(starts-with plan)` is a word of the body, `*` any word of it. */
static struct maildex__qnode *wildcard(struct sexp *c, const struct sprefix *parent, const char *match,
                                       const struct maildex__sx *sx)
{
    char *lower;

    if (parent && !(parent->flags & F_WILDCARD)) {
        maildex__sexp_fail(c, "'%s' does not support wildcard queries", parent->name);
        return NULL;
    }
    if ((lower = lower_case(c, match)) == NULL)
        return NULL;
    if (parent && (parent->flags & F_BOOLEAN))
        return term(c, parent->field, lower, MAILDEX__QFLAG_WILDCARD, sx);
    /* A word is word characters only, so no word starts with anything else. */
    if (!is_word(lower))
        return node(c, MAILDEX__Q_NONE, sx);
    return term(c, parent ? parent->field : MAILDEX__QF_BODY, lower, MAILDEX__QFLAG_WILDCARD, sx);
}

/* ---- atoms ---------------------------------------------------------------------------------------- */

static struct maildex__qnode *convert_atom(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                           const struct maildex__sx *sx)
{
    char *value;

    if (maildex__sexp_is_param(sx))
        return maildex__sexp_convert_param(c, parent, env, sx);
    if (sx->quote == MAILDEX__SX_BASIC && strcmp(sx->value, "*") == 0)
        return wildcard(c, parent, "", sx);
    if (!parent || !(parent->flags & F_BOOLEAN))
        return text_term(c, parent ? parent->field : MAILDEX__QF_FREE, sx);
    if ((value = sdup(c, sx->value)) == NULL)
        return NULL;
    if (parent->flags & F_PATHNAME) {
        size_t n = strlen(value);
        while (n > 0 && value[n - 1] == '/')
            value[--n] = '\0';
    }
    return term(c, parent->field, value, 0, sx);
}

/* ---- ranges: (date [from [to]]), (lastmod [from [to]]) ------------------------------------------------- */

/* A revision as std::stol reads it (leading space, a sign, digits, anything after them ignored). */
static bool read_revision(const char *s, long *out)
{
    char *end;

    if (*s == '\0') /* the caller's default */
        return true;
    errno = 0;
    *out = strtol(s, &end, 10);
    return end != s && errno != ERANGE;
}

static struct maildex__qnode *lastmod_range(struct sexp *c, const char *from, const char *to,
                                            const struct maildex__sx *sx)
{
    long lo = 0, hi = LONG_MAX;
    char *value;

    if (!read_revision(from, &lo)) {
        maildex__sexp_fail(c, "bad 'from' revision: '%s'", from);
        return NULL;
    }
    if (!read_revision(to, &hi)) {
        maildex__sexp_fail(c, "bad 'to' revision: '%s'", to);
        return NULL;
    }
    value = talloc_asprintf(c->p->sh->ctx, "%ld..%ld", lo, hi);
    if (value == NULL) {
        maildex__qparse_nomem(c->p);
        return NULL;
    }
    return term(c, MAILDEX__QF_LASTMOD, value, 0, sx);
}

/* One date is the date: term of one quoted date (its whole extent); two are a range, each side one date
 * (so a side holding `..` is not understood, as in notmuch). */
static struct maildex__qnode *date_range(struct sexp *c, const char *from, const char *to,
                                         const struct maildex__sx *sx)
{
    char *value;

    if (strcmp(from, to) == 0 && *from)
        return term(c, MAILDEX__QF_DATE, from, MAILDEX__QFLAG_QUOTED, sx);
    if (strstr(from, "..") || strstr(to, "..")) {
        maildex__sexp_fail(c, "Didn't understand date specification '%s'", strstr(from, "..") ? from : to);
        return NULL;
    }
    value = talloc_asprintf(c->p->sh->ctx, "%s..%s", from, to);
    if (value == NULL) {
        maildex__qparse_nomem(c->p);
        return NULL;
    }
    return term(c, MAILDEX__QF_DATE, value, 0, sx);
}

/* notmuch reads a range's atoms as written (a `,param` is not expanded); "" and * leave a side open, and
 * no argument at all is every message. */
static struct maildex__qnode *range(struct sexp *c, const struct sprefix *prefix, const struct maildex__sx *args,
                                    const struct maildex__sx *sx)
{
    const char *from, *to;

    if (args == NULL)
        return node(c, MAILDEX__Q_ALL, sx);
    if (args->kind == MAILDEX__SX_LIST) {
        maildex__sexp_fail(c, "expected atom as first argument of '%s'", prefix->name);
        return NULL;
    }
    from = strcmp(args->value, "*") == 0 ? "" : args->value;
    to = from;
    if (args->next) {
        if (args->next->kind == MAILDEX__SX_LIST) {
            maildex__sexp_fail(c, "expected atom as second argument of '%s'", prefix->name);
            return NULL;
        }
        if (args->next->next) {
            maildex__sexp_fail(c, "'%s' expects maximum of two arguments", prefix->name);
            return NULL;
        }
        to = strcmp(args->next->value, "*") == 0 ? "" : args->next->value;
    }
    return prefix->field == MAILDEX__QF_DATE ? date_range(c, from, to, sx) : lastmod_range(c, from, to, sx);
}

/* ---- modifiers: regex, of/matching, infix, query ------------------------------------------------------ */

static struct maildex__qnode *regex(struct sexp *c, const struct sprefix *prefix, const struct sprefix *parent,
                                    const struct binding *env, const struct maildex__sx *arg,
                                    const struct maildex__sx *sx)
{
    const char *pattern;

    if (parent == NULL) {
        maildex__sexp_fail(c, "illegal '%s' outside field", prefix->name);
        return NULL;
    }
    if (!(parent->flags & F_REGEX)) {
        maildex__sexp_fail(c, "'%s' not supported in field '%s'", prefix->name, parent->name);
        return NULL;
    }
    if ((pattern = maildex__sexp_atom_of(c, prefix, env, arg)) == NULL)
        return NULL;
    return term(c, parent->field, pattern, MAILDEX__QFLAG_REGEX, sx);
}

static struct maildex__qnode *combine_args(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                           enum sop op, const struct maildex__sx *args,
                                           const struct maildex__sx *sx);

/* (of q...) or (matching q...) in parent: the messages sharing parent's values with those matching all
 * of q, which notmuch reads outside any field and without the macro's parameters. */
static struct maildex__qnode *expand(struct sexp *c, const struct sprefix *prefix, const struct sprefix *parent,
                                     const struct maildex__sx *args, const struct maildex__sx *sx)
{
    struct maildex__qnode *sub, *n;

    if (parent == NULL) {
        maildex__sexp_fail(c, "illegal '%s' outside field", prefix->name);
        return NULL;
    }
    if (!(parent->flags & F_EXPAND)) {
        maildex__sexp_fail(c, "'%s' unsupported inside '%s'", prefix->name, parent->name);
        return NULL;
    }
    if ((sub = combine_args(c, NULL, NULL, OP_AND, args, sx)) == NULL)
        return NULL;
    if (parent->field == MAILDEX__QF_THREAD)
        return maildex__qparse_parent(c->p, MAILDEX__Q_THREAD, sx->pos, sub);
    if ((n = maildex__qparse_parent(c->p, MAILDEX__Q_SAME, sx->pos, sub)) != NULL)
        n->field = parent->field;
    return n;
}

/* (infix "text"): text in notmuch's infix syntax; any failure there is notmuch's one message. */
static struct maildex__qnode *infix(struct sexp *c, const char *text, const struct maildex__sx *sx)
{
    struct maildex__qshared *sh = c->p->sh;
    struct maildex__qnode *n = maildex__qexpand_infix(c->p, text, sx->pos);

    if (n || sh->nomem)
        return n;
    talloc_free(sh->error);
    sh->error = NULL;
    sh->failed = sh->retry = false;
    sh->restart = MAILDEX__NO_POS;
    maildex__sexp_fail(c, "Syntax error in infix query: %s", text);
    return NULL;
}

/* (query NAME): the infix query query.NAME, as the infix query:NAME reads it. */
static struct maildex__qnode *named(struct sexp *c, const char *name, const struct maildex__sx *sx)
{
    struct maildex__qtoken t = {.kind = MAILDEX__QT_PREFIXED, .pos = sx->pos, .end = sx->pos};

    if ((t.value = sdup(c, name)) == NULL)
        return NULL;
    return maildex__qexpand_named(c->p, &t);
}

/* ---- lists ---------------------------------------------------------------------------------------- */

/* op over the conversions of args: and (every message when empty), or (none), not (every message less
 * each of them). */
static struct maildex__qnode *combine_args(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                           enum sop op, const struct maildex__sx *args,
                                           const struct maildex__sx *sx)
{
    struct maildex__qvec v = {0};

    for (; args; args = args->next) {
        struct maildex__qnode *n = maildex__sexp_convert(c, parent, env, args);

        if (n && op == OP_NOT)
            n = maildex__qparse_parent(c->p, MAILDEX__Q_NOT, args->pos, n);
        if (n == NULL || !maildex__qparse_push(c->p, &v, n))
            return NULL;
    }
    return combine(c, op == OP_OR ? MAILDEX__Q_OR : MAILDEX__Q_AND, &v, sx);
}

/* notmuch's prefixes, then the user-defined fields (index.header.PREFIX: words, with starts-with and
 * `*`, as notmuch declares them). */
static const struct sprefix *find_prefix(struct sexp *c, const char *name)
{
    const char *const *user = c->p->sh->opts ? c->p->sh->opts->user_fields : NULL;
    struct sprefix *pf;

    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strcmp(prefixes[i].name, name) == 0)
            return &prefixes[i];
    for (; user && *user; user++)
        if (strcmp(*user, name) == 0) {
            if ((pf = talloc(c->p->sh->ctx, struct sprefix)) == NULL) {
                maildex__qparse_nomem(c->p);
                return NULL;
            }
            *pf = (struct sprefix){*user, OP_AND, F_FIELD | F_WILDCARD, MAILDEX__QF_USER};
            return pf;
        }
    return NULL;
}

/* Names the user-defined field of every term under n that has none: the terms of (PREFIX ...), which
 * holds no other field's (fields do not nest). */
static bool name_user_terms(struct maildex__qnode *n, const char *name)
{
    if (n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_USER && n->user_field == NULL &&
        (n->user_field = talloc_strdup(n, name)) == NULL)
        return false;
    for (size_t i = 0; i < n->nchildren; i++)
        if (!name_user_terms(n->children[i], name))
            return false;
    return true;
}

/* (name args...) with name one of notmuch's prefixes, in parent. */
static struct maildex__qnode *convert_prefixed(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                               const struct sprefix *pf, const struct maildex__sx *sx)
{
    const struct maildex__sx *args = sx->list->next;

    if (pf->flags & (F_FIELD | F_RANGE)) {
        if (parent) {
            maildex__sexp_fail(c, "nested field: '%s' inside '%s'", pf->name, parent->name);
            return NULL;
        }
        parent = pf;
    }
    if (parent && (pf->flags & F_ORPHAN)) {
        maildex__sexp_fail(c, "'%s' not supported inside '%s'", pf->name, parent->name);
        return NULL;
    }
    if ((pf->flags & F_SINGLE) && (args == NULL || args->next || args->kind != MAILDEX__SX_ATOM)) {
        maildex__sexp_fail(c, "'%s' expects single atom as argument", pf->name);
        return NULL;
    }
    if (pf->flags & F_RANGE)
        return range(c, pf, args, sx);
    if (strcmp(pf->name, "infix") == 0)
        return infix(c, args->value, sx);
    if (strcmp(pf->name, "query") == 0)
        return named(c, args->value, sx);
    if (pf->op == OP_WILDCARD) {
        const char *match = maildex__sexp_atom_of(c, pf, env, args);
        return match ? wildcard(c, parent, match, sx) : NULL;
    }
    if (pf->flags & F_DO_REGEX)
        return regex(c, pf, parent, env, args, sx);
    if (pf->flags & F_DO_EXPAND)
        return expand(c, pf, parent, args, sx);
    if (pf->field == MAILDEX__QF_USER) {
        struct maildex__qnode *n = combine_args(c, parent, env, pf->op, args, sx);
        if (n && !name_user_terms(n, pf->name)) {
            maildex__qparse_nomem(c->p);
            return NULL;
        }
        return n;
    }
    return combine_args(c, parent, env, pf->op, args, sx);
}

static struct maildex__qnode *convert_list(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                           const struct maildex__sx *sx)
{
    const struct maildex__sx *head = sx->list, *saved;
    const struct sprefix *pf;

    if (head == NULL)
        return node(c, MAILDEX__Q_ALL, sx);
    if (head->kind == MAILDEX__SX_LIST) {
        maildex__sexp_fail(c, "unexpected list in field/operation position");
        return NULL;
    }
    if ((saved = maildex__sexp_saved_query(c, head->value)) != NULL)
        return maildex__sexp_expand_saved(c, parent, env, saved, sx);
    if (c->p->sh->failed)
        return NULL;
    if (strcmp(head->value, "macro") == 0) {
        maildex__sexp_fail(c, "macro definition not permitted here");
        return NULL;
    }
    if ((pf = find_prefix(c, head->value)) == NULL) {
        if (c->p->sh->nomem)
            return NULL;
        maildex__sexp_fail(c, "unknown prefix '%s'", head->value);
        return NULL;
    }
    return convert_prefixed(c, parent, env, pf, sx);
}

/* The depth of lists counts the infix and named queries inside. */
struct maildex__qnode *maildex__sexp_convert(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                             const struct maildex__sx *sx)
{
    struct maildex__qshared *sh = c->p->sh;
    struct maildex__qnode *n;

    if (sh->failed)
        return NULL;
    if (c->in_saved && ++sh->expansion > MAILDEX__SEXP_MAX_EXPANSION) {
        maildex__sexp_fail(c, "saved queries expand to more than %d elements", MAILDEX__SEXP_MAX_EXPANSION);
        return NULL;
    }
    if (sx->kind == MAILDEX__SX_ATOM)
        return convert_atom(c, parent, env, sx);
    if (sh->depth >= MAILDEX__QUERY_MAX_DEPTH) {
        maildex__sexp_fail(c, "query nested too deeply (more than %d levels)", MAILDEX__QUERY_MAX_DEPTH);
        return NULL;
    }
    sh->depth++;
    n = convert_list(c, parent, env, sx);
    sh->depth--;
    return n;
}

/* ---- entry points --------------------------------------------------------------------------------- */

/* The query of text[0, len), read into sh's context; nodes as p says (positions, shared state). */
static struct maildex__qnode *parse(struct maildex__qparser *p, const char *text, size_t len)
{
    struct sexp c = {.p = p};
    struct maildex__sx *sx;
    enum maildex__sx_status st = maildex__sx_read(p->sh->ctx, text, len, &sx);

    if (st == MAILDEX__SX_NOMEM) {
        maildex__qparse_nomem(p);
        return NULL;
    }
    if (st != MAILDEX__SX_OK) {
        maildex__sexp_fail(&c, "invalid s-expression: '%.*s'", (int) MIN(len, (size_t) INT_MAX), text);
        return NULL;
    }
    return maildex__sexp_convert(&c, NULL, NULL, sx);
}

struct maildex__qnode *maildex__qexpand_sexp(struct maildex__qparser *p, const struct maildex__qtoken *t)
{
    struct maildex__qparser sub = {.sh = p->sh, .text = t->value, .len = strlen(t->value),
                                   .base = p->base + t->value_pos, .pos_fixed = p->pos_fixed};
    struct maildex__qshared *sh = p->sh;
    struct maildex__qnode *n;

    if (!maildex__qparse_enter(p, t->pos))
        return NULL;
    n = parse(&sub, t->value, sub.len);
    maildex__qparse_leave(p);
    /* the message is notmuch's, with no position: say where, in maildex's words */
    if (n == NULL && sh->error && !sh->nomem) {
        char *wrapped = talloc_asprintf(sh->ctx, "syntax error at position %zu: in sexp:\"%s\": %s",
                                        maildex__qparse_node_pos(p, t->pos), t->value, sh->error);
        if (wrapped)
            sh->error = wrapped;
    }
    return n;
}

static struct maildex__qnode *parse_whole(struct maildex__qparser *p)
{
    return parse(p, p->text, p->len);
}

int maildex__query_parse_sexp(void *ctx, const char *text, const struct maildex__query_options *opts,
                              struct maildex__qnode **out, char **error)
{
    return maildex__qparse_run(ctx, text, opts, MAILDEX__NO_POS, parse_whole, out, error);
}
