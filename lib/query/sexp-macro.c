/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The S-expression syntax's saved queries and macros (sexp.h): `(NAME args...)` reads squery.NAME
 * once per query, and a `(macro (params) body)` binds its parameters to the call's arguments
 * lexically (a macro body sees its own parameters only; `,name` reads an argument where the call
 * was). It follows notmuch's rules and words for every error. It must not convert any form itself
 * (that is sexp.c's maildex__sexp_convert, which bounds depth and expansion), build SQL or read the
 * store. */
#include "sexp.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

/* A macro parameter bound to its argument, which is read in the scope of the call (lexical scope:
 * a macro body sees its own parameters only). */
struct binding {
    const char *name;
    const struct maildex__sx *sx;
    const struct binding *env; /* where sx is read */
    size_t pos;                /* where sx's nodes say they come from */
    const struct binding *next;
};

/* Saved queries read once per query, by name (a missing one too). */
struct saved_cache {
    GHashTable *by_name; /* name -> struct maildex__sx *, or the table itself for "none" */
};

/* ---- parameters ------------------------------------------------------------------------------------- */

bool maildex__sexp_is_param(const struct maildex__sx *sx)
{
    return sx->kind == MAILDEX__SX_ATOM && sx->quote == MAILDEX__SX_BASIC && sx->value[0] == ',';
}

static const struct binding *resolve(struct sexp *c, const struct binding *env, const char *name)
{
    for (; env; env = env->next)
        if (strcmp(env->name, name) == 0)
            return env;
    maildex__sexp_fail(c, "undefined parameter '%s'", name);
    return NULL;
}

const char *maildex__sexp_atom_of(struct sexp *c, const struct sprefix *prefix, const struct binding *env,
                                  const struct maildex__sx *sx)
{
    while (maildex__sexp_is_param(sx)) {
        const struct binding *b = resolve(c, env, sx->value + 1);
        if (b == NULL)
            return NULL;
        sx = b->sx;
        env = b->env;
    }
    if (sx->kind != MAILDEX__SX_ATOM) {
        maildex__sexp_fail(c, "'%s' expects single atom as argument", prefix->name);
        return NULL;
    }
    return sx->value;
}

struct maildex__qnode *maildex__sexp_convert_param(struct sexp *c, const struct sprefix *parent,
                                                   const struct binding *env, const struct maildex__sx *sx)
{
    const struct binding *b = resolve(c, env, sx->value + 1);
    size_t saved_pos = c->p->pos_fixed;
    struct maildex__qnode *n;

    if (b == NULL)
        return NULL;
    c->p->pos_fixed = b->pos;
    n = maildex__sexp_convert(c, parent, b->env, b->sx);
    c->p->pos_fixed = saved_pos;
    return n;
}

/* ---- saved queries and macros --------------------------------------------------------------------- */

static int free_cache(struct saved_cache *cache)
{
    g_hash_table_destroy(cache->by_name);
    return 0;
}

const struct maildex__sx *maildex__sexp_saved_query(struct sexp *c, const char *name)
{
    struct maildex__qshared *sh = c->p->sh;
    const char *text = NULL;
    struct maildex__sx *sx = NULL;
    gpointer found;

    if (c->saved == NULL) {
        if ((c->saved = talloc_zero(sh->ctx, struct saved_cache)) == NULL) {
            maildex__qparse_nomem(c->p);
            return NULL;
        }
        c->saved->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        talloc_set_destructor(c->saved, free_cache);
    }
    if (g_hash_table_lookup_extended(c->saved->by_name, name, NULL, &found))
        return found == c->saved->by_name ? NULL : found;
    if (sh->opts && sh->opts->squery)
        text = sh->opts->squery(sh->opts->lookup_data, name);
    if (text && *text) {
        enum maildex__sx_status st = maildex__sx_read(sh->ctx, text, strlen(text), &sx);
        if (st == MAILDEX__SX_NOMEM) {
            maildex__qparse_nomem(c->p);
            return NULL;
        }
        if (st != MAILDEX__SX_OK) {
            maildex__sexp_fail(c, "invalid saved s-expression query: '%s'", text);
            return NULL;
        }
    }
    g_hash_table_insert(c->saved->by_name, g_strdup(name), sx ? (gpointer) sx : (gpointer) c->saved->by_name);
    return sx;
}

/* Binds params to args in a scope of their own; NULL with c failed as notmuch fails. */
static bool bind_params(struct sexp *c, const struct binding *env, const struct maildex__sx *param,
                        const struct maildex__sx *arg, size_t pos, const struct binding **scope)
{
    for (; param && arg; param = param->next, arg = arg->next) {
        struct binding *b;
        if (param->kind != MAILDEX__SX_ATOM || param->quote != MAILDEX__SX_BASIC) {
            maildex__sexp_fail(c, "macro parameters must be unquoted atoms");
            return false;
        }
        if ((b = talloc(c->p->sh->ctx, struct binding)) == NULL) {
            maildex__qparse_nomem(c->p);
            return false;
        }
        *b = (struct binding){param->value, arg, env, pos, *scope};
        *scope = b;
    }
    if (param)
        maildex__sexp_fail(c, "too few arguments to macro");
    else if (arg)
        maildex__sexp_fail(c, "too many arguments to macro");
    return !param && !arg;
}

/* (macro (params) body), called with args from env, whose nodes come from pos (the caller's fixed
 * position, or MAILDEX__NO_POS). */
static struct maildex__qnode *apply_macro(struct sexp *c, const struct sprefix *parent, const struct binding *env,
                                          const struct maildex__sx *macro, const struct maildex__sx *args,
                                          size_t pos)
{
    const struct maildex__sx *params = macro->list->next;
    const struct binding *scope = NULL;

    if (params == NULL || params->kind != MAILDEX__SX_LIST) {
        maildex__sexp_fail(c, "missing (possibly empty) list of arguments to macro");
        return NULL;
    }
    if (params->next == NULL) {
        maildex__sexp_fail(c, "missing body of macro");
        return NULL;
    }
    if (!bind_params(c, env, params->list, args, pos, &scope))
        return NULL;
    return maildex__sexp_convert(c, parent, scope, params->next);
}

static bool is_macro(const struct maildex__sx *sx)
{
    return sx->kind == MAILDEX__SX_LIST && sx->list && sx->list->kind == MAILDEX__SX_ATOM &&
           strcmp(sx->list->value, "macro") == 0;
}

struct maildex__qnode *maildex__sexp_expand_saved(struct sexp *c, const struct sprefix *parent,
                                                  const struct binding *env, const struct maildex__sx *saved,
                                                  const struct maildex__sx *call)
{
    size_t saved_pos = c->p->pos_fixed;
    struct maildex__qnode *n;

    c->in_saved++;
    c->p->pos_fixed = maildex__qparse_node_pos(c->p, call->pos);
    if (is_macro(saved))
        n = apply_macro(c, parent, env, saved, call->list->next, saved_pos);
    else
        n = maildex__sexp_convert(c, parent, env, saved);
    c->p->pos_fixed = saved_pos;
    c->in_saved--;
    return n;
}
