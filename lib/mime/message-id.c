/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Message-IDs, References and In-Reply-To (see message-id.h): notmuch 0.37's lib/mime/message-id.c and the
 * reference handling of lib/add-message.cc, quirks included, because thread ids and `id:` searches
 * must match notmuch's exactly. Unlike notmuch's, every function here is linear in its input (notmuch
 * removes blanks with memmove, quadratic on a long run of them). No gmime, no state. */
#include "message-id.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

/* isspace() in the C locale, which is what notmuch's calls amount to on mail. */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Skips whitespace and (nested, backslash-escaped) RFC 822 comments. */
static const char *skip_space_and_comments(const char *s)
{
    while (*s && (is_blank(*s) || *s == '(')) {
        while (*s && is_blank(*s))
            s++;
        if (*s == '(') {
            int nesting = 1;
            s++;
            while (*s && nesting) {
                if (*s == '(')
                    nesting++;
                else if (*s == ')')
                    nesting--;
                else if (*s == '\\' && s[1])
                    s++;
                s++;
            }
        }
    }
    return s;
}

char *maildex__message_id_parse(void *ctx, const char *s, const char **next)
{
    const char *end;
    char *result;
    size_t n = 0;

    s = skip_space_and_comments(s);
    while (*s && *s != '<')
        s++;
    if (*s != '<') {
        *next = s;
        return NULL;
    }
    s = skip_space_and_comments(s + 1);
    for (end = s; *end && *end != '>'; end++)
        ;
    *next = *end ? end + 1 : end;
    if (end > s && *end == '>')
        end--;
    if (end <= s)
        return NULL;
    result = talloc_size(ctx, (size_t) (end - s) + 2);
    if (result == NULL)
        return NULL;
    /* notmuch removes a blank with memmove and then steps past the byte that moved into its place,
     * so of a run of k blanks k/2 survive ("<a  b>" is "a b"). Ids must match notmuch's exactly. */
    for (const char *p = s; p <= end && *p; p++) {
        if (*p != ' ' && *p != '\t') {
            result[n++] = *p;
        } else if (p + 1 <= end && p[1]) {
            result[n++] = *++p;
        }
    }
    result[n] = '\0';
    return result;
}

char *maildex__message_id_parse_strict(void *ctx, const char *s)
{
    const char *end;

    while (is_blank(*s))
        s++;
    if (*s != '<')
        return NULL;
    s++;
    for (end = s; *end && *end != '>'; end++)
        if (is_blank(*end))
            return NULL;
    if (*end != '>')
        return NULL;
    for (const char *rest = end + 1; *rest; rest++)
        if (!is_blank(*rest))
            return NULL;
    return talloc_strndup(ctx, s, (size_t) (end - s));
}

/* ---- references and parent (lib/add-message.cc) --------------------------------------------- */

struct refs {
    void *ctx;
    GHashTable *seen; /* the ids in list; the strings belong to ctx */
    char **list;      /* NULL-terminated */
    size_t count, cap;
    bool failed;      /* sticky: out of memory */
};

static void refs_add(struct refs *r, char *id)
{
    if (r->failed || g_hash_table_contains(r->seen, id))
        return;
    if (r->count + 2 > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        char **grown = talloc_realloc(r->ctx, r->list, char *, cap);
        if (grown == NULL) {
            r->failed = true;
            return;
        }
        r->list = grown;
        r->cap = cap;
    }
    g_hash_table_add(r->seen, id);
    r->list[r->count++] = id;
    r->list[r->count] = NULL;
}

/* notmuch's parse_references: adds every id of `value` but self; returns the last one found, even
 * when it was already in the list. */
static char *parse_references(struct refs *r, const char *self, const char *value)
{
    char *last = NULL;

    if (value == NULL)
        return NULL;
    while (*value) {
        char *id = maildex__message_id_parse(r->ctx, value, &value);
        if (id && strcmp(id, self) != 0) {
            refs_add(r, id);
            last = id;
        }
    }
    return last;
}

bool maildex__references_parse(void *ctx, const char *self, const char *references,
                               const char *in_reply_to, char ***ids, char **parent)
{
    struct refs r = {.ctx = ctx, .cap = 1};
    char *strict = NULL, *last_ref, *last_irt;

    *ids = NULL;
    *parent = NULL;
    r.seen = g_hash_table_new(g_str_hash, g_str_equal);
    r.list = talloc_zero_array(ctx, char *, 1);
    if (r.list == NULL)
        r.failed = true;
    last_ref = parse_references(&r, self, references);
    if (in_reply_to)
        strict = maildex__message_id_parse_strict(ctx, in_reply_to);
    /* notmuch would make the message its own parent here; a thread cannot hold that. */
    if (strict && strcmp(strict, self) == 0)
        strict = NULL;
    last_irt = parse_references(&r, self, in_reply_to);
    g_hash_table_unref(r.seen);
    if (r.failed) {
        talloc_free(r.list);
        return false;
    }
    *ids = r.list;
    *parent = strict ? strict : last_ref ? last_ref : last_irt;
    return true;
}
