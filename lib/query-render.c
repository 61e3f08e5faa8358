/* The S-expression rendering of a query tree (lib/query.h), maildex__qnode_to_string, which the parser's
 * unit tests compare and its fuzzer runs on every tree. It is for tests and debugging only: it must not
 * be used for SQL or for anything a user sees (the planner reads the tree itself), nor depend on the
 * parser's internals. */
#include "query.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

struct buf {
    char *s;
    size_t len, cap;
    bool nomem;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->nomem)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *ns;

        while (cap < b->len + n + 1)
            cap *= 2;
        ns = talloc_realloc(NULL, b->s, char, cap);
        if (!ns) {
            b->nomem = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void put_string(struct buf *b, const char *s)
{
    put(b, "\"", 1);
    for (; *s; s++) {
        char esc[8];

        if (*s == '"' || *s == '\\') {
            esc[0] = '\\', esc[1] = *s;
            put(b, esc, 2);
        } else if ((unsigned char) *s < 0x20) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned) (unsigned char) *s);
            puts_(b, esc);
        } else {
            put(b, s, 1);
        }
    }
    put(b, "\"", 1);
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

static void render(struct buf *b, const struct maildex__qnode *n)
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
        [MAILDEX__Q_TERM] = "(",   [MAILDEX__Q_THREAD] = "(thread-of",
    };

    puts_(b, (unsigned) n->kind < sizeof kinds / sizeof kinds[0] ? kinds[n->kind] : "(?");
    if (n->kind == MAILDEX__Q_TERM) {
        puts_(b, field_name(n->field));
        put(b, " ", 1);
        put_string(b, n->value ? n->value : "");
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (n->flags & flags[i].flag)
                puts_(b, flags[i].name);
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        put(b, " ", 1);
        render(b, n->children[i]);
    }
    put(b, ")", 1);
}

char *maildex__qnode_to_string(void *ctx, const struct maildex__qnode *n)
{
    struct buf b = {0};
    char *s = NULL;

    if (n)
        render(&b, n);
    else
        puts_(&b, "nil");
    if (!b.nomem)
        s = talloc_strndup(ctx, b.s, b.len);
    talloc_free(b.s);
    return s;
}
