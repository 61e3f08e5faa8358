/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sexp.h: what the S-expression parser's two files share, and nobody else sees: sexp.c reads the
 * forms (prefixes, atoms, ranges, modifiers, lists) and sexp-macro.c expands saved queries
 * (squery.NAME) and their macros' parameters. Both build the nodes of parser.h; neither knows SQL or
 * the store. */
#ifndef MAILDEX_QUERY_SEXP_H
#define MAILDEX_QUERY_SEXP_H

#include "parser.h"
#include "sexp-read.h"

/* What a prefix is and takes. */
enum {
    F_FIELD = 1 << 0,     /* a field: its atoms are its terms */
    F_BOOLEAN = 1 << 1,   /* its atoms are exact values */
    F_SINGLE = 1 << 2,    /* takes exactly one atom */
    F_WILDCARD = 1 << 3,  /* takes (starts-with ...) and * */
    F_REGEX = 1 << 4,     /* takes (regex ...) */
    F_DO_REGEX = 1 << 5,  /* is regex or rx */
    F_EXPAND = 1 << 6,    /* takes (of ...) */
    F_DO_EXPAND = 1 << 7, /* is of or matching */
    F_ORPHAN = 1 << 8,    /* not inside a field */
    F_RANGE = 1 << 9,     /* date, lastmod */
    F_PATHNAME = 1 << 10, /* trailing slashes dropped from its atoms */
};

enum sop { OP_NONE, OP_AND, OP_OR, OP_NOT, OP_WILDCARD };

/* One of notmuch's prefixes (sexp.c's table), or a user-defined field. */
struct sprefix {
    const char *name;
    enum sop op;
    unsigned flags;
    enum maildex__qfield field;
};

/* A macro's parameter bound to its argument (sexp-macro.c); NULL is the empty scope. */
struct binding;
/* The saved queries read so far (sexp-macro.c). */
struct saved_cache;

/* One parse: the parser's nodes and shared state, and the saved queries it has read. */
struct sexp {
    struct maildex__qparser *p; /* nodes, positions, the shared state */
    struct saved_cache *saved;
    int in_saved; /* saved queries being expanded */
};

/* Records notmuch's message for a bad query (the first one wins); as in notmuch, it has no position. */
void maildex__sexp_fail(struct sexp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sx (an atom or a list) as a node, in the field parent (NULL outside any field), with the macro
 * parameters of env; NULL (c failed) on a bad query. Every conversion passes here: the depth of lists
 * and the expansion of saved queries are bounded. */
struct maildex__qnode *maildex__sexp_convert(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                             const struct maildex__sx *sx);

/* ---- sexp-macro.c ------------------------------------------------------------------------------- */

/* Whether sx is `,name`: a basic atom naming a parameter. */
bool maildex__sexp_is_param(const struct maildex__sx *sx);

/* The atom a modifier's argument is, its parameters resolved; NULL (failed) for a list. */
const char *maildex__sexp_atom_of(struct sexp *c, const struct sprefix *prefix, const struct binding *env,
                                  const struct maildex__sx *sx);

/* A parameter's argument (sx is `,name`), read where the macro was called. */
struct maildex__qnode *maildex__sexp_convert_param(struct sexp *c, const struct sprefix *parent,
                                                   const struct binding *env, const struct maildex__sx *sx);

/* The saved query squery.NAME read, or NULL when there is none (or it failed to read: c failed). */
const struct maildex__sx *maildex__sexp_saved_query(struct sexp *c, const char *name);

/* (NAME args...) for a saved query NAME: a macro applied to args, or the query itself (args ignored, and
 * the caller's parameters visible, as in notmuch). Its nodes take the position of the call. */
struct maildex__qnode *maildex__sexp_expand_saved(struct sexp *c, const struct sprefix *parent,
                                                  const struct binding *env, const struct maildex__sx *saved,
                                                  const struct maildex__sx *call);

#endif
