/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The table of the planner's handlers (handlers.h): for each field, the handler of a plain value, of
 * a regex, of a prefix (`*`, (starts-with ...)), of (field *) where that means any word, of an OR of
 * its plain terms and of (field (of ...)). The parsers never mark a value both a regex and a prefix.
 * It picks a handler and calls none (but the one for a field it does not know, which matches nothing):
 * what a handler does is its own file's (fields.h). */
#include "handlers.h"
#include "fields.h"

struct field_handlers {
    const struct maildex__field_ops *value, *regex, *prefix, *any_word, *or_terms, *same;
};

/* A field without a handler for a form of value (a regex on body:) matches nothing. */
static const char *nothing(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    (void) p, (void) n, (void) a;
    return "0";
}

static const struct maildex__field_ops unknown = {.probe = nothing, .cheap_estimate = true};

#define FTS(regex)                                                                                      \
    {&maildex__fts_term_ops, regex, &maildex__fts_term_ops, &maildex__fts_any_word_ops, NULL,          \
     &maildex__fts_same_ops}

static const struct field_handlers fields[] = {
    /* free text and a user-defined field have words of every kind, so `*` is a prefix there */
    [MAILDEX__QF_FREE] = {&maildex__fts_term_ops, NULL, &maildex__fts_term_ops, NULL, NULL, &maildex__fts_same_ops},
    [MAILDEX__QF_USER] = {&maildex__fts_term_ops, NULL, &maildex__fts_term_ops, NULL, NULL, &maildex__fts_same_ops},
    [MAILDEX__QF_BODY] = FTS(NULL),
    [MAILDEX__QF_FROM] = FTS(&maildex__from_regex_ops),
    [MAILDEX__QF_TO] = FTS(NULL),
    [MAILDEX__QF_SUBJECT] = FTS(&maildex__subject_regex_ops),
    [MAILDEX__QF_ATTACHMENT] = FTS(NULL),
    [MAILDEX__QF_MIMETYPE] = FTS(NULL),
    /* their handlers read a regex, a prefix, an OR of their terms and (of ...) themselves */
    [MAILDEX__QF_TAG] = {&maildex__tag_ops, &maildex__tag_ops, &maildex__tag_ops, NULL, &maildex__tag_ops,
                         &maildex__tag_same_ops},
    [MAILDEX__QF_FOLDER] = {&maildex__folder_ops, &maildex__folder_ops, &maildex__folder_ops, NULL,
                            &maildex__folder_ops, &maildex__folder_same_ops},
    [MAILDEX__QF_PATH] = {&maildex__path_ops, &maildex__path_ops, &maildex__path_ops, NULL, &maildex__path_ops,
                          &maildex__path_same_ops},
    [MAILDEX__QF_ID] = {&maildex__id_ops, &maildex__id_ops, &maildex__id_prefix_ops, NULL, &maildex__id_or_ops,
                        NULL},
    [MAILDEX__QF_THREAD] = {&maildex__thread_ops, &maildex__thread_pattern_ops, &maildex__thread_pattern_ops,
                            NULL, &maildex__thread_or_ops, NULL},
    [MAILDEX__QF_PROPERTY] = {&maildex__property_ops, &maildex__property_keys_ops, &maildex__property_keys_ops,
                              NULL, NULL, &maildex__property_keys_ops},
    [MAILDEX__QF_DATE] = {&maildex__date_ops, &maildex__date_ops, &maildex__date_ops, NULL, NULL, NULL},
    [MAILDEX__QF_LASTMOD] = {&maildex__lastmod_ops, &maildex__lastmod_ops, &maildex__lastmod_ops, NULL, NULL,
                             NULL},
};

static const struct field_handlers *of_field(enum maildex__qfield field)
{
    return (size_t) field < G_N_ELEMENTS(fields) ? &fields[field] : NULL;
}

static const struct maildex__field_ops *or_null(const struct maildex__field_ops *h)
{
    return h ? h : &unknown;
}

static const struct maildex__field_ops *term_handler(const struct maildex__qnode *n)
{
    const struct field_handlers *f = of_field(n->field);

    if (f == NULL)
        return &unknown;
    if (n->flags & MAILDEX__QFLAG_REGEX)
        return or_null(f->regex);
    if ((n->flags & MAILDEX__QFLAG_WILDCARD) && *n->value == '\0' && f->any_word)
        return f->any_word; /* (to *): FTS5 has no empty prefix */
    if (n->flags & MAILDEX__QFLAG_WILDCARD)
        return or_null(f->prefix);
    return or_null(f->value);
}

/* An OR whose terms are all plain values of one field. */
static const struct maildex__field_ops *or_handler(const struct maildex__qnode *n)
{
    const struct field_handlers *f;

    if (n->nchildren == 0 || n->children[0]->kind != MAILDEX__Q_TERM)
        return NULL;
    for (size_t i = 0; i < n->nchildren; i++) {
        const struct maildex__qnode *c = n->children[i];
        if (c->kind != MAILDEX__Q_TERM || c->field != n->children[0]->field ||
            (c->flags & (MAILDEX__QFLAG_REGEX | MAILDEX__QFLAG_WILDCARD)))
            return NULL;
    }
    f = of_field(n->children[0]->field);
    return f ? f->or_terms : NULL;
}

const struct maildex__field_ops *maildex__handler(const struct maildex__qnode *n)
{
    const struct field_handlers *f;

    switch (n->kind) {
    case MAILDEX__Q_TERM:
        return term_handler(n);
    case MAILDEX__Q_OR:
        return maildex__fts_able(n) ? &maildex__fts_whole_ops : or_handler(n);
    case MAILDEX__Q_AND:
    case MAILDEX__Q_XOR:
        return maildex__fts_able(n) ? &maildex__fts_whole_ops : NULL;
    case MAILDEX__Q_SAME:
        f = of_field(n->field);
        return f ? or_null(f->same) : &unknown;
    default:
        return NULL;
    }
}
