/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The S-expression reader (sexp-read.h): text -> lists and atoms, as sfsexp 1.3 (the library notmuch
 * 0.37 reads sexp queries with) reads them, so that a query means the same in both: a basic atom runs
 * until a character sfsexp does not allow in one (whitespace, control characters, quotes, parentheses),
 * `\` makes the next `"`, `'`, `(`, `)` or `\` part of it, "..." is a string with the same escapes, `'`
 * quotes the atom, string or whole list after it, and reading stops at the end of the first expression.
 * It must not recurse (a list is opened on an explicit stack, so nesting costs memory, never C stack),
 * look at a character twice, or give atoms any meaning. */
#include "sexp-read.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

struct reader {
    void *ctx;
    const char *text;
    size_t len, i;
    GString *buf;                 /* the atom being read */
    struct maildex__sx **open;    /* the lists not yet closed, innermost last */
    struct maildex__sx ***tails;  /* where each open list's next element goes */
    size_t depth, cap;
    enum maildex__sx_status st;
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A character sfsexp keeps in a basic atom after its first: printable ASCII but space, '"', '\'', '('
 * and ')', and every byte of a UTF-8 sequence. */
static bool is_atom_char(char c)
{
    unsigned char u = (unsigned char) c;

    return (u >= '*' && u <= '~') || u > 127 || u == '!' || (u >= '#' && u <= '&');
}

/* What a backslash makes literal, in atoms and strings alike (any other `\x` keeps the backslash). */
static bool is_escapable(char c)
{
    return c == '"' || c == '\'' || c == '(' || c == ')' || c == '\\';
}

static struct maildex__sx *new_node(struct reader *r, enum maildex__sx_kind kind, size_t pos)
{
    struct maildex__sx *n = talloc_zero(r->ctx, struct maildex__sx);

    if (n == NULL) {
        r->st = MAILDEX__SX_NOMEM;
        return NULL;
    }
    n->kind = kind;
    n->pos = pos;
    return n;
}

/* The atom in r->buf as a node. */
static struct maildex__sx *new_atom(struct reader *r, enum maildex__sx_quote quote, size_t pos)
{
    struct maildex__sx *n = new_node(r, MAILDEX__SX_ATOM, pos);

    if (n == NULL)
        return NULL;
    n->quote = quote;
    n->value = talloc_strndup(n, r->buf->str, r->buf->len);
    if (n->value == NULL) {
        r->st = MAILDEX__SX_NOMEM;
        return NULL;
    }
    return n;
}

/* A basic (or, after a `'`, quoted) atom from r->i. At the end of the text it is complete only at the top,
 * where sfsexp pretends a newline follows. */
static struct maildex__sx *read_atom(struct reader *r, enum maildex__sx_quote quote)
{
    size_t pos = r->i;
    bool esc = false, first = true;

    g_string_truncate(r->buf, 0);
    for (; r->i < r->len; r->i++, first = false) {
        char c = r->text[r->i];

        if (esc && is_escapable(c)) {
            r->buf->str[r->buf->len - 1] = c;
            esc = false;
            continue;
        }
        /* the first character is anything state 1 does not take for something else (quote == BASIC) */
        if (!(first && quote == MAILDEX__SX_BASIC) && !is_atom_char(c))
            break;
        g_string_append_c(r->buf, c);
        esc = c == '\\';
    }
    if (r->i >= r->len && r->depth > 0) {
        r->st = MAILDEX__SX_BAD;
        return NULL;
    }
    if (r->i < r->len && is_space(r->text[r->i]))
        r->i++;
    return new_atom(r, quote, pos);
}

/* "..." from the opening quote at r->i; after a `'`, the value keeps its quotes (sfsexp's SQUOTE). */
static struct maildex__sx *read_string(struct reader *r, enum maildex__sx_quote quote)
{
    size_t pos = r->i;
    bool esc = false;

    g_string_truncate(r->buf, 0);
    if (quote == MAILDEX__SX_SQUOTE)
        g_string_append_c(r->buf, '"');
    for (r->i++; r->i < r->len; r->i++) {
        char c = r->text[r->i];

        if (esc && is_escapable(c)) {
            r->buf->str[r->buf->len - 1] = c;
            esc = false;
        } else if (c == '"') {
            break;
        } else {
            g_string_append_c(r->buf, c);
            esc = c == '\\';
        }
    }
    if (r->i >= r->len) {
        r->st = MAILDEX__SX_BAD;
        return NULL;
    }
    r->i++;
    if (quote == MAILDEX__SX_SQUOTE)
        g_string_append_c(r->buf, '"');
    return new_atom(r, quote, pos);
}

/* '( ... ): the text of the list up to its matching ')', parentheses inside strings not counted, taken
 * as one quoted atom. As in sfsexp, a backslash makes the next character literal, and the character after
 * an escaped backslash is escaped too (sfsexp's state 8 looks only at the character before). */
static struct maildex__sx *read_quoted_list(struct reader *r)
{
    size_t pos = r->i, depth = 0;
    bool esc = false, in_string = false;

    g_string_truncate(r->buf, 0);
    for (; r->i < r->len; r->i++) {
        char c = r->text[r->i];
        bool closed = false;

        if (in_string) {
            in_string = !(c == '"' && !esc);
        } else if (!esc) {
            if (c == '(')
                depth++;
            else if (c == ')')
                closed = --depth == 0;
            else if (c == '"')
                in_string = true;
        }
        g_string_append_c(r->buf, c);
        esc = c == '\\';
        if (closed) {
            r->i++;
            return new_atom(r, MAILDEX__SX_SQUOTE, pos);
        }
    }
    r->st = MAILDEX__SX_BAD;
    return NULL;
}

/* Adds n to the innermost open list; at the top, n is the result. */
static bool place(struct reader *r, struct maildex__sx *n, struct maildex__sx **out)
{
    if (n == NULL)
        return false;
    if (r->depth == 0) {
        *out = n;
        return false;
    }
    *r->tails[r->depth - 1] = n;
    r->tails[r->depth - 1] = &n->next;
    return true;
}

static bool open_list(struct reader *r, struct maildex__sx *n)
{
    if (r->depth == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct maildex__sx **open = talloc_realloc(r->ctx, r->open, struct maildex__sx *, cap);
        struct maildex__sx ***tails = open ? talloc_realloc(r->ctx, r->tails, struct maildex__sx **, cap) : NULL;

        if (open)
            r->open = open;
        if (tails == NULL) {
            r->st = MAILDEX__SX_NOMEM;
            return false;
        }
        r->tails = tails;
        r->cap = cap;
    }
    r->open[r->depth] = n;
    r->tails[r->depth] = &n->list;
    r->depth++;
    return true;
}

/* One step of the reader at r->i (not whitespace): false when the expression is complete (*out set) or
 * reading failed (r->st set). */
static bool step(struct reader *r, struct maildex__sx **out)
{
    char c = r->text[r->i];
    struct maildex__sx *n;

    switch (c) {
    case ';':
        while (r->i < r->len && r->text[r->i] != '\n')
            r->i++;
        return true;
    case '(':
        n = new_node(r, MAILDEX__SX_LIST, r->i++);
        if (n == NULL)
            return false;
        if (r->depth > 0)
            place(r, n, out);
        return open_list(r, n);
    case ')':
        if (r->depth == 0) {
            r->st = MAILDEX__SX_BAD;
            return false;
        }
        r->i++;
        n = r->open[--r->depth];
        if (r->depth > 0)
            return true;
        *out = n;
        return false;
    case '"':
        return place(r, read_string(r, MAILDEX__SX_DQUOTE), out);
    case '\'':
        r->i++;
        if (r->i < r->len && r->text[r->i] == '"')
            return place(r, read_string(r, MAILDEX__SX_SQUOTE), out);
        if (r->i < r->len && r->text[r->i] == '(')
            return place(r, read_quoted_list(r), out);
        return place(r, read_atom(r, MAILDEX__SX_SQUOTE), out);
    default:
        return place(r, read_atom(r, MAILDEX__SX_BASIC), out);
    }
}

enum maildex__sx_status maildex__sx_read(void *ctx, const char *text, size_t len, struct maildex__sx **out)
{
    void *local = talloc_new(ctx);
    struct reader r = {.ctx = local, .text = text, .len = len, .st = MAILDEX__SX_OK};
    struct maildex__sx *result = NULL;

    *out = NULL;
    if (local == NULL)
        return MAILDEX__SX_NOMEM;
    r.buf = g_string_new(NULL);
    for (;;) {
        while (r.i < r.len && is_space(text[r.i]))
            r.i++;
        if (r.i >= r.len) {
            r.st = MAILDEX__SX_BAD; /* nothing, or an unclosed list */
            break;
        }
        if (!step(&r, &result))
            break;
    }
    g_string_free(r.buf, TRUE);
    if (result && r.st == MAILDEX__SX_OK) {
        talloc_free(r.open);
        talloc_free(r.tails);
        /* Every node is a child of local: the result moves to ctx and takes local with it, so that
         * freeing the result frees the tree. */
        talloc_steal(ctx, result);
        talloc_steal(result, local);
        *out = result;
        return MAILDEX__SX_OK;
    }
    talloc_free(local);
    return r.st == MAILDEX__SX_OK ? MAILDEX__SX_BAD : r.st;
}

size_t maildex__sx_count(const struct maildex__sx *sx)
{
    size_t n = 0;

    for (; sx; sx = sx->next)
        n++;
    return n;
}
