/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The table of the planner's handlers (handlers.h): for each field, the handler of a plain value, of
 * a regex, of a prefix (`*`, (starts-with ...)), of (field *) where that means any word, of an OR of
 * its plain terms and of (field (of ...)). The parsers never mark a value both a regex and a prefix.
 * It picks a handler and calls none; the only handler defined here is the one of a value no field
 * handles, which matches nothing. What a handler does is its own file's (fields.h). */
#include "handlers.h"
#include "fields.h"

struct field_handlers {
    const struct maildex__field_ops *value, *regex, *prefix, *any_word, *or_terms, *same;
};

/* A form of value that its field has no handler for (a regex on body:) matches nothing. */
static const char *nothing(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    (void) p, (void) n, (void) a;
    return "0";
}

static const struct maildex__field_ops unknown = {.probe = nothing, .cheap_estimate = true};

/* A full-text field: words and prefixes through FTS5, `(field *)` any word of it, (field (of ...)) the
 * OR of the words its messages hold there. */
#define FTS(regex_ops)                                                                                  \
    {.value = &maildex__fts_term_ops, .regex = (regex_ops), .prefix = &maildex__fts_term_ops,           \
     .any_word = &maildex__fts_any_word_ops, .same = &maildex__fts_same_ops}

/* A field whose handler reads every form of its values itself (a regex, a prefix, an OR of them). */
#define ONE(ops, or_ops, same_ops)                                                                      \
    {.value = &(ops), .regex = &(ops), .prefix = &(ops), .or_terms = (or_ops), .same = (same_ops)}

static const struct field_handlers fields[] = {
    [MAILDEX__QF_BODY] = FTS(NULL),
    [MAILDEX__QF_FROM] = FTS(&maildex__from_regex_ops),
    [MAILDEX__QF_TO] = FTS(NULL),
    [MAILDEX__QF_SUBJECT] = FTS(&maildex__subject_regex_ops),
    [MAILDEX__QF_ATTACHMENT] = FTS(NULL),
    [MAILDEX__QF_MIMETYPE] = FTS(NULL),
    /* free text and a user-defined field: `*` is a prefix there too (FTS5 can say the user field's) */
    [MAILDEX__QF_FREE] = {.value = &maildex__fts_term_ops, .prefix = &maildex__fts_term_ops,
                          .same = &maildex__fts_same_ops},
    [MAILDEX__QF_USER] = {.value = &maildex__fts_term_ops, .prefix = &maildex__fts_term_ops,
                          .same = &maildex__fts_same_ops},
    [MAILDEX__QF_TAG] = ONE(maildex__tag_ops, &maildex__tag_ops, &maildex__tag_same_ops),
    [MAILDEX__QF_FOLDER] = ONE(maildex__folder_ops, &maildex__folder_ops, &maildex__folder_same_ops),
    [MAILDEX__QF_PATH] = ONE(maildex__path_ops, &maildex__path_ops, &maildex__path_same_ops),
    [MAILDEX__QF_DATE] = ONE(maildex__date_ops, NULL, NULL),
    [MAILDEX__QF_LASTMOD] = ONE(maildex__lastmod_ops, NULL, NULL),
    /* id:'s handler reads a regex itself, not a prefix */
    [MAILDEX__QF_ID] = {.value = &maildex__id_ops, .regex = &maildex__id_ops, .prefix = &maildex__id_prefix_ops,
                        .or_terms = &maildex__id_or_ops},
    [MAILDEX__QF_THREAD] = {.value = &maildex__thread_ops, .regex = &maildex__thread_pattern_ops,
                            .prefix = &maildex__thread_pattern_ops, .or_terms = &maildex__thread_or_ops},
    [MAILDEX__QF_PROPERTY] = {.value = &maildex__property_ops, .regex = &maildex__property_keys_ops,
                              .prefix = &maildex__property_keys_ops, .same = &maildex__property_keys_ops},
};

static const struct field_handlers *of_field(enum maildex__qfield field)
{
    return (size_t) field < G_N_ELEMENTS(fields) ? &fields[field] : NULL;
}

static const struct maildex__field_ops *or_unknown(const struct maildex__field_ops *h)
{
    return h ? h : &unknown;
}

static const struct maildex__field_ops *term_handler(const struct maildex__qnode *n)
{
    const struct field_handlers *f = of_field(n->field);

    if (f == NULL)
        return &unknown;
    if (n->flags & MAILDEX__QFLAG_REGEX)
        return or_unknown(f->regex);
    if ((n->flags & MAILDEX__QFLAG_WILDCARD) && *n->value == '\0' && f->any_word)
        return f->any_word; /* (to *): FTS5 has no empty prefix */
    if (n->flags & MAILDEX__QFLAG_WILDCARD)
        return or_unknown(f->prefix);
    return or_unknown(f->value);
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
        return f ? or_unknown(f->same) : &unknown;
    default:
        return NULL;
    }
}
