/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The S-expression rendering of a query tree (lib/query/ast.h), maildex__qnode_to_string, which the parser's
 * unit tests compare and its fuzzer runs on every tree. It is for tests and debugging only: it must not
 * be used for SQL or for anything a user sees (the planner reads the tree itself), nor depend on the
 * parser's internals. Like GLib's containers elsewhere in lib/, its GString aborts when out of memory. */
#include "ast.h"

#include <glib.h>
#include <talloc.h>

static void put_string(GString *b, const char *s)
{
    g_string_append_c(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            g_string_append_c(b, '\\');
        if ((unsigned char) *s < 0x20)
            g_string_append_printf(b, "\\x%02x", (unsigned) (unsigned char) *s);
        else
            g_string_append_c(b, *s);
    }
    g_string_append_c(b, '"');
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

static void render(GString *b, const struct maildex__qnode *n)
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
        [MAILDEX__Q_TERM] = "(",   [MAILDEX__Q_THREAD] = "(thread-of", [MAILDEX__Q_SAME] = "(same-",
    };

    g_string_append(b, (unsigned) n->kind < sizeof kinds / sizeof kinds[0] ? kinds[n->kind] : "(?");
    if (n->kind == MAILDEX__Q_SAME)
        g_string_append(b, field_name(n->field));
    if (n->kind == MAILDEX__Q_TERM) {
        g_string_append(b, n->field == MAILDEX__QF_USER && n->user_field ? n->user_field : field_name(n->field));
        g_string_append_c(b, ' ');
        put_string(b, n->value ? n->value : "");
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (n->flags & flags[i].flag)
                g_string_append(b, flags[i].name);
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        g_string_append_c(b, ' ');
        render(b, n->children[i]);
    }
    g_string_append_c(b, ')');
}

char *maildex__qnode_to_string(void *ctx, const struct maildex__qnode *n)
{
    GString *b = g_string_new(NULL);
    char *s;

    if (n)
        render(b, n);
    else
        g_string_append(b, "nil");
    s = talloc_strndup(ctx, b->str, b->len);
    g_string_free(b, TRUE);
    return s;
}
