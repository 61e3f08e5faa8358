/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sexp-read.h: the S-expression reader of notmuch's sexp query syntax (notmuch-sexp-queries(7)), which
 * notmuch 0.37 reads with the sfsexp library: text -> a talloc tree of lists and atoms. It reads as
 * sfsexp reads (which atoms are quoted, which escapes count, that only the first expression of the text
 * counts), gives atoms no meaning and knows no query; lib/query/sexp.c turns the tree into a query.
 * Private to lib/. */
#ifndef MAILDEX_SEXP_READ_H
#define MAILDEX_SEXP_READ_H

#include <stdbool.h>
#include <stddef.h>

enum maildex__sx_kind {
    MAILDEX__SX_LIST,
    MAILDEX__SX_ATOM,
};

/* How an atom was written: notmuch stems and treats as a term only a basic (unquoted) value. */
enum maildex__sx_quote {
    MAILDEX__SX_BASIC,  /* foo, a\"b */
    MAILDEX__SX_DQUOTE, /* "foo bar" */
    MAILDEX__SX_SQUOTE, /* 'foo, '"foo" (value keeps the quotes), '(a b) (value is the text "(a b)") */
};

struct maildex__sx {
    enum maildex__sx_kind kind;
    enum maildex__sx_quote quote; /* ATOM only */
    char *value;                  /* ATOM only: NUL-terminated, escapes resolved; never NULL */
    struct maildex__sx *list;     /* LIST only: the first element, NULL for () */
    struct maildex__sx *next;     /* the next element of the enclosing list */
    size_t pos;                   /* byte offset in the text read */
};

enum maildex__sx_status {
    MAILDEX__SX_OK = 0,
    MAILDEX__SX_BAD = 1,   /* no complete expression: empty, unbalanced, an unterminated string */
    MAILDEX__SX_NOMEM = 2,
};

/* Reads the first expression of text[0, len) into a tree allocated on ctx; whatever follows it is
 * ignored, as sfsexp's parse_sexp ignores it. Whitespace is space, tab, CR and LF; `;` starts a comment
 * that runs to the end of the line. Time and memory are linear in len, and nesting is not limited here
 * (the reader keeps no recursion: deep nesting is the converter's to refuse). Returns MAILDEX__SX_OK and
 * sets *out, or another status with *out NULL. */
enum maildex__sx_status maildex__sx_read(void *ctx, const char *text, size_t len, struct maildex__sx **out);

/* The number of elements of a list from sx on (sx itself and its next siblings). */
size_t maildex__sx_count(const struct maildex__sx *sx);

#endif
