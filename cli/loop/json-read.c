/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A strict JSON reader (RFC 8259) into a talloc tree: recursive descent, bounded depth, strings
 * unescaped into UTF-8 with GLib (surrogate pairs joined, lone surrogates refused), the text required
 * to be UTF-8 as the RFC says (so a raw NUL byte is refused; \u0000 is kept in a string). */
#include "json-read.h"

#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

struct reader {
    void *ctx;
    const char *p, *start, *end;
    char *error;
};

static struct json *value(struct reader *r, int depth);

static void *fail(struct reader *r, const char *what)
{
    if (r->error == NULL)
        r->error = talloc_asprintf(r->ctx, "%s at byte %td", what, r->p - r->start);
    return NULL;
}

static void skip_space(struct reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static bool literal(struct reader *r, const char *word)
{
    size_t n = strlen(word);

    if ((size_t) (r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return false;
    r->p += n;
    return true;
}

static int hex4(const char *s)
{
    int v = 0;

    for (int i = 0; i < 4; i++) {
        int d = g_ascii_xdigit_value(s[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string after its opening quote; r->p ends after the closing one. */
static char *string(struct reader *r, size_t *len)
{
    GString *s = g_string_new(NULL);
    char *out;

    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char) *r->p;
        if (c < 0x20) {
            g_string_free(s, TRUE);
            return fail(r, "a control character in a string");
        }
        if (c != '\\') {
            g_string_append_c(s, (char) c);
            r->p++;
            continue;
        }
        if (r->end - r->p < 2) {
            g_string_free(s, TRUE);
            return fail(r, "an unfinished escape");
        }
        r->p++;
        switch (*r->p++) {
        case '"': g_string_append_c(s, '"'); break;
        case '\\': g_string_append_c(s, '\\'); break;
        case '/': g_string_append_c(s, '/'); break;
        case 'b': g_string_append_c(s, '\b'); break;
        case 'f': g_string_append_c(s, '\f'); break;
        case 'n': g_string_append_c(s, '\n'); break;
        case 'r': g_string_append_c(s, '\r'); break;
        case 't': g_string_append_c(s, '\t'); break;
        case 'u': {
            int u = r->end - r->p >= 4 ? hex4(r->p) : -1, low;
            char utf8[6];
            if (u < 0) {
                g_string_free(s, TRUE);
                return fail(r, "a \\u escape without four hex digits");
            }
            r->p += 4;
            if (u >= 0xDC00 && u <= 0xDFFF) {
                g_string_free(s, TRUE);
                return fail(r, "a lone low surrogate");
            }
            if (u >= 0xD800 && u <= 0xDBFF) {
                if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' || (low = hex4(r->p + 2)) < 0xDC00 ||
                    low > 0xDFFF) {
                    g_string_free(s, TRUE);
                    return fail(r, "a high surrogate without its low one");
                }
                r->p += 6;
                u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
            }
            g_string_append_len(s, utf8, g_unichar_to_utf8((gunichar) u, utf8));
            break;
        }
        default:
            g_string_free(s, TRUE);
            r->p--;
            return fail(r, "an unknown escape");
        }
    }
    if (r->p >= r->end) {
        g_string_free(s, TRUE);
        return fail(r, "an unfinished string");
    }
    r->p++;
    *len = s->len;
    out = talloc_memdup(r->ctx, s->str, s->len + 1);
    g_string_free(s, TRUE);
    return out ? out : fail(r, "out of memory");
}

static size_t digits(const char *p, const char *end)
{
    const char *q = p;

    while (q < end && g_ascii_isdigit(*q))
        q++;
    return (size_t) (q - p);
}

static struct json *number(struct reader *r, struct json *j)
{
    const char *p = r->p;
    bool integer = true;
    char *text;
    size_t n;

    if (p < r->end && *p == '-')
        p++;
    n = digits(p, r->end);
    if (n == 0 || (n > 1 && *p == '0'))
        return fail(r, "a malformed number");
    p += n;
    if (p < r->end && *p == '.') {
        integer = false;
        if ((n = digits(++p, r->end)) == 0)
            return fail(r, "a malformed number");
        p += n;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        integer = false;
        p++;
        if (p < r->end && (*p == '+' || *p == '-'))
            p++;
        if ((n = digits(p, r->end)) == 0)
            return fail(r, "a malformed number");
        p += n;
    }
    text = talloc_strndup(r->ctx, r->p, (size_t) (p - r->p));
    if (text == NULL)
        return fail(r, "out of memory");
    j->kind = JSON_NUMBER;
    j->number = g_ascii_strtod(text, NULL);
    if (integer) {
        errno = 0;
        j->integer = g_ascii_strtoll(text, NULL, 10);
        j->is_integer = errno == 0;
    }
    talloc_free(text);
    r->p = p;
    return j;
}

/* An array or object after its opening bracket. */
static struct json *container(struct reader *r, struct json *j, bool object, int depth)
{
    const char close = object ? '}' : ']';

    j->kind = object ? JSON_OBJECT : JSON_ARRAY;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return j;
    }
    for (;;) {
        char *key = NULL;
        size_t key_len;
        struct json *v;

        skip_space(r);
        if (object) {
            if (r->p >= r->end || *r->p != '"')
                return fail(r, "expected a member name");
            r->p++;
            if ((key = string(r, &key_len)) == NULL)
                return NULL;
            skip_space(r);
            if (r->p >= r->end || *r->p != ':')
                return fail(r, "expected ':'");
            r->p++;
        }
        if ((v = value(r, depth + 1)) == NULL)
            return NULL;
        j->items = talloc_realloc(j, j->items, struct json *, j->n + 1);
        if (object)
            j->keys = talloc_realloc(j, j->keys, char *, j->n + 1);
        if (j->items == NULL || (object && j->keys == NULL))
            return fail(r, "out of memory");
        j->items[j->n] = talloc_steal(j, v);
        if (object)
            j->keys[j->n] = talloc_steal(j, key);
        j->n++;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return j;
        }
        return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static struct json *value(struct reader *r, int depth)
{
    struct json *j;

    if (depth > JSON_MAX_DEPTH)
        return fail(r, "nesting too deep");
    skip_space(r);
    if (r->p >= r->end)
        return fail(r, "expected a value");
    if ((j = talloc_zero(r->ctx, struct json)) == NULL)
        return fail(r, "out of memory");
    switch (*r->p) {
    case '{':
    case '[': {
        bool object = *r->p++ == '{';
        return container(r, j, object, depth);
    }
    case '"':
        r->p++;
        j->kind = JSON_STRING;
        if ((j->string = string(r, &j->string_len)) == NULL)
            return NULL;
        talloc_steal(j, j->string);
        return j;
    case 't':
    case 'f':
        j->kind = JSON_BOOL;
        j->boolean = *r->p == 't';
        return literal(r, j->boolean ? "true" : "false") ? j : fail(r, "expected a value");
    case 'n':
        j->kind = JSON_NULL;
        return literal(r, "null") ? j : fail(r, "expected a value");
    default:
        if (*r->p == '-' || g_ascii_isdigit(*r->p))
            return number(r, j);
        return fail(r, "expected a value");
    }
}

struct json *json_parse(void *ctx, const char *text, size_t len, char **error)
{
    void *tmp = talloc_new(ctx);
    struct reader r = {tmp, text, text, text + len, NULL};
    const char *bad = NULL;
    struct json *j = NULL;

    /* The whole text is checked once: escapes can only make valid UTF-8. */
    if (tmp && !g_utf8_validate_len(text, len, &bad)) {
        r.p = bad;
        fail(&r, "text that is not UTF-8");
    } else if (tmp) {
        j = value(&r, 0);
    }

    if (j) {
        skip_space(&r);
        if (r.p != r.end)
            j = fail(&r, "text after the value");
    }
    if (j == NULL) {
        *error = talloc_steal(ctx, r.error ? r.error : talloc_strdup(ctx, "out of memory"));
        talloc_free(tmp);
        return NULL;
    }
    talloc_steal(ctx, j);
    talloc_free(tmp); /* what a failed branch left; the tree hangs off j */
    return j;
}

const struct json *json_member(const struct json *object, const char *key)
{
    const struct json *found = NULL;

    if (object == NULL || object->kind != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->n; i++)
        if (strcmp(object->keys[i], key) == 0)
            found = object->items[i];
    return found;
}
