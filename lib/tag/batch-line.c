/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch's batch-tag lines, both ways: parsing a line of `tag --batch` or `restore` input
 * (notmuch's parse_tag_line, parse_boolean_term, parse_sup_line and restore's "#=" and "#@"
 * readers, warnings word for word) and writing the lines of a dump (hex_encode, make_boolean_term).
 * Pure string code: it must not touch a database, print, or decide what a line does. */
#include "maildex.h"

#include <ctype.h>
#include <glib.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* ---- hex encoding (util/hex-escape.c) ---------------------------------------------------------- */

static bool hex_plain(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("+-_@=.,", c) != NULL);
}

/* Appends s hex-encoded to out. */
static void hex_append(GString *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *) s; *p; p++)
        if (hex_plain(*p))
            g_string_append_c(out, (char) *p);
        else
            g_string_append_printf(out, "%%%02x", *p);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes s in place; false when a '%' is not followed by two hex digits. A decoded NUL ends the
 * string there, as in notmuch. */
static bool hex_decode(char *s)
{
    char *out = s;

    for (const char *in = s; *in;) {
        if (*in != '%') {
            *out++ = *in++;
            continue;
        }
        if (hex_digit(in[1]) < 0 || hex_digit(in[2]) < 0)
            return false;
        *out++ = (char) (hex_digit(in[1]) * 16 + hex_digit(in[2]));
        in += 3;
    }
    *out = '\0';
    return true;
}

/* ---- boolean terms (util/string-util.c) ------------------------------------------------------------ */

static bool unquoted_end(unsigned char c)
{
    return c <= ' ' || c == ')';
}

/* Appends "prefix:term" to out, the term quoted ("..." with '"' doubled) when it is empty or holds a
 * byte that would end or confuse an unquoted term. */
static void boolean_term_append(GString *out, const char *prefix, const char *term)
{
    bool quote = term[0] == '\0';

    for (const unsigned char *p = (const unsigned char *) term; *p && !quote; p++)
        quote = unquoted_end(*p) || *p == '"' || *p == '(' || *p > 127;
    g_string_append_printf(out, "%s:", prefix);
    if (!quote) {
        g_string_append(out, term);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = term; *p; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char) *s))
        s++;
    return s;
}

/* notmuch's parse_boolean_term: "prefix:term" or prefix:"quoted term", nothing after it. */
static bool boolean_term_parse(void *ctx, const char *s, char **prefix, char **term)
{
    const char *colon, *p;
    char *out;

    s = skip_space(s);
    colon = strchr(s, ':');
    if (colon == NULL || colon == s)
        return false;
    *prefix = talloc_strndup(ctx, s, (size_t) (colon - s));
    p = colon + 1;
    if (*p != '"') {
        const char *start = p;
        while (!unquoted_end((unsigned char) *p))
            p++;
        *term = talloc_strndup(ctx, start, (size_t) (p - start));
        return *skip_space(p) == '\0';
    }
    *term = out = talloc_array(ctx, char, strlen(p) + 1);
    for (p++; *p; *out++ = *p++) {
        if (*p == '"' && *++p != '"') {
            *out = '\0';
            return *skip_space(p) == '\0';
        }
    }
    return false; /* no closing quote */
}

/* ---- parsing ------------------------------------------------------------------------------------- */

struct parse {
    maildex_batch_line_t *out;
    char *error; /* talloc'd on out: the warning */
    const char *line;
};

static void fail(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parse *ps, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ps->error = talloc_vasprintf(ps->out, fmt, ap);
    va_end(ap);
    if (ps->error == NULL)
        ps->error = (char *) "";
}

/* The next token of *p delimited by the bytes of delim (strtok_len), or NULL; *len is its length. */
static char *token(char **p, const char *delim, size_t *len)
{
    char *tok = *p + strspn(*p, delim);

    *len = strcspn(tok, delim);
    *p = tok + *len;
    return *len ? tok : NULL;
}

static bool add_pair(struct parse *ps, char *key, char *value)
{
    maildex_pair_t *grown = talloc_realloc(ps->out, (maildex_pair_t *) ps->out->pairs, maildex_pair_t,
                                           ps->out->npairs + 1);

    if (grown == NULL)
        return false;
    grown[ps->out->npairs].key = key;
    grown[ps->out->npairs++].value = value;
    ps->out->pairs = grown;
    return true;
}

/* "#@ KEY VALUE" (after the "#@"): one config key, both hex-encoded; no value is the empty one. */
static bool parse_config(struct parse *ps, char *rest)
{
    size_t klen, vlen;
    char *key = token(&rest, " \t\n", &klen), *value;

    ps->out->kind = MAILDEX_BATCH_CONFIG;
    if (key == NULL) {
        fail(ps, "Warning: no config key [%s]", ps->line);
        return true;
    }
    key = talloc_strndup(ps->out, key, klen);
    value = token(&rest, " \t\n", &vlen);
    value = value ? talloc_strndup(ps->out, value, vlen) : talloc_strdup(ps->out, "");
    if (key == NULL || value == NULL)
        return false;
    if (!hex_decode(key) || !hex_decode(value))
        fail(ps, "Warning: hex decoding of config key or value failed [%s]", ps->line);
    return add_pair(ps, key, value);
}

/* "#= ID KEY=VALUE ..." (after the "#="): a message's properties, all hex-encoded. */
static bool parse_properties(struct parse *ps, char *rest)
{
    size_t len;
    char *id = token(&rest, " \t\n", &len), *tok;

    ps->out->kind = MAILDEX_BATCH_PROPERTIES;
    if (id == NULL) {
        fail(ps, "Warning: no message id [%s]", ps->line);
        return true;
    }
    if ((id = talloc_strndup(ps->out, id, len)) == NULL)
        return false;
    if (!hex_decode(id)) {
        fail(ps, "Warning: hex decoding of message id %s failed [%s]", id, ps->line);
        return true;
    }
    ps->out->message_id = id;
    while ((tok = token(&rest, " \t\n", &len)) != NULL) {
        char *eq = memchr(tok, '=', len), *key, *value;
        if (eq == NULL) {
            fail(ps, "Warning: property %.*s has no '=' [%s]", (int) len, tok, ps->line);
            return true;
        }
        key = talloc_strndup(ps->out, tok, (size_t) (eq - tok));
        value = talloc_strndup(ps->out, eq + 1, len - (size_t) (eq - tok) - 1);
        if (key == NULL || value == NULL)
            return false;
        if (!hex_decode(key) || !hex_decode(value)) {
            fail(ps, "Warning: hex decoding of property %.*s failed [%s]", (int) len, tok, ps->line);
            return true;
        }
        if (!add_pair(ps, key, value))
            return false;
    }
    return true;
}

static bool add_op(struct parse *ps, const char *tag, bool add)
{
    maildex_tag_op_t *grown = talloc_realloc(ps->out, (maildex_tag_op_t *) ps->out->ops, maildex_tag_op_t,
                                             ps->out->nops + 1);

    if (grown == NULL)
        return false;
    grown[ps->out->nops].tag = tag;
    grown[ps->out->nops++].add = add;
    ps->out->ops = grown;
    return true;
}

/* The query of a restore line must be one id: term: the Message-ID is its term. */
static void restore_query(struct parse *ps)
{
    char *prefix = NULL, *term = NULL;

    if (!boolean_term_parse(ps->out, ps->out->query, &prefix, &term))
        fail(ps, "Warning: cannot parse query: %s (skipping)", ps->out->query);
    else if (strcmp(prefix, "id") != 0)
        fail(ps, "Warning: not an id query: %s (skipping)", ps->out->query);
    else
        ps->out->message_id = term;
}

/* notmuch's parse_tag_line: "+tag -tag ... [--] query", space-separated, the tags checked (unless
 * restoring) before they are decoded. */
static bool parse_tags(struct parse *ps, char *p, unsigned flags)
{
    char *tok;
    size_t len;

    ps->out->kind = MAILDEX_BATCH_TAGS;
    while ((tok = token(&p, " ", &len)) != NULL) {
        const char *why = NULL;
        char *tag;
        if (len == 2 && strncmp(tok, "--", 2) == 0) {
            if ((tok = token(&p, " ", &len)) == NULL) {
                fail(ps, "Warning: no query string after -- [%s]", ps->line);
                return true;
            }
            break;
        }
        if (*tok != '+' && *tok != '-')
            break;
        if (tok[len] == '\0') {
            fail(ps, "Warning: no query string [%s]", ps->line);
            return true;
        }
        if ((tag = talloc_strndup(ps->out, tok + 1, len - 1)) == NULL)
            return false;
        if (!(flags & MAILDEX_BATCH_RESTORE) &&
            maildex_tag_check(tag, *tok == '+', &why) != MAILDEX_STATUS_OK) {
            fail(ps, "Warning: %s [%s]", why, ps->line);
            return true;
        }
        if (!hex_decode(tag)) {
            fail(ps, "Warning: hex decoding of tag %s failed [%s]", tag, ps->line);
            return true;
        }
        if (!add_op(ps, tag, *tok == '+'))
            return false;
    }
    if (tok == NULL) {
        fail(ps, "Warning: missing query string [%s]", ps->line);
        return true;
    }
    ps->out->query = tok;
    if (flags & MAILDEX_BATCH_RESTORE)
        restore_query(ps);
    return true;
}

/* notmuch's parse_sup_line: "ID (TAG TAG ...)", matched as ^([^ ]+) \(([^)]*)\)$. */
static bool parse_sup(struct parse *ps, char *p)
{
    char *space = strchr(p, ' '), *tags, *tok;
    size_t len = strlen(p);

    ps->out->kind = MAILDEX_BATCH_TAGS;
    if (space == NULL || space == p || space[1] != '(' || len < 1 || p[len - 1] != ')' ||
        memchr(space + 2, ')', (size_t) (p + len - 1 - (space + 2))) != NULL) {
        fail(ps, "Warning: Ignoring invalid sup format line: %s", ps->line);
        return true;
    }
    *space = '\0';
    p[len - 1] = '\0';
    ps->out->message_id = ps->out->query = p;
    tags = space + 2;
    while ((tok = token(&tags, " ", &len)) != NULL) {
        char *tag = talloc_strndup(ps->out, tok, len);
        if (tag == NULL || !add_op(ps, tag, true))
            return false;
    }
    return true;
}

maildex_status_t maildex_batch_line_parse(const char *line, unsigned flags, maildex_batch_line_t **out,
                                          char **error)
{
    maildex_batch_line_t *b = talloc_zero(NULL, maildex_batch_line_t);
    struct parse ps = {.out = b};
    char *p;
    bool ok;

    *out = NULL;
    if (error)
        *error = NULL;
    if (b == NULL || (p = talloc_strdup(b, line)) == NULL) {
        talloc_free(b);
        return MAILDEX_STATUS_NO_MEMORY;
    }
    p[strcspn(p, "\n")] = '\0';
    ps.line = talloc_strdup(b, p);
    if (flags & MAILDEX_BATCH_RESTORE && strncmp(p, "#@", 2) == 0)
        ok = parse_config(&ps, p + 2);
    else if (flags & MAILDEX_BATCH_RESTORE && strncmp(p, "#=", 2) == 0)
        ok = parse_properties(&ps, p + 2);
    else if (*(p += strspn(p, " \t")) == '\0' || *p == '#')
        ok = true; /* blank, empty or a comment: nothing */
    else if (flags & MAILDEX_BATCH_SUP)
        ok = parse_sup(&ps, p);
    else
        ok = parse_tags(&ps, p, flags);
    if (!ok || ps.line == NULL) {
        talloc_free(b);
        return MAILDEX_STATUS_NO_MEMORY;
    }
    if (ps.error) {
        if (error && (*error = strdup(ps.error)) == NULL) {
            talloc_free(b);
            return MAILDEX_STATUS_NO_MEMORY;
        }
        talloc_free(b);
        return MAILDEX_STATUS_INVALID_ARGUMENT;
    }
    if (b->kind == 0)
        talloc_free(b);
    else
        *out = b;
    return MAILDEX_STATUS_OK;
}

void maildex_batch_line_free(maildex_batch_line_t *line)
{
    talloc_free(line);
}

/* ---- writing ------------------------------------------------------------------------------------- */

/* Hands a GString out as malloc'd memory (GLib aborts when memory runs out; strdup does not). */
static maildex_status_t hand_out(GString *s, char **out)
{
    *out = strdup(s->str);
    g_string_free(s, TRUE);
    return *out ? MAILDEX_STATUS_OK : MAILDEX_STATUS_NO_MEMORY;
}

maildex_status_t maildex_batch_format_tags(const char *message_id, const char *const *tags, bool sup,
                                           char **out)
{
    GString *s;

    *out = NULL;
    if (strchr(message_id, '\n'))
        return MAILDEX_STATUS_INVALID_ARGUMENT;
    s = g_string_new(sup ? message_id : "");
    if (sup)
        g_string_append(s, " (");
    for (size_t i = 0; tags[i]; i++) {
        if (i)
            g_string_append_c(s, ' ');
        if (sup) {
            g_string_append(s, tags[i]);
        } else {
            g_string_append_c(s, '+');
            hex_append(s, tags[i]);
        }
    }
    if (sup) {
        g_string_append_c(s, ')');
    } else {
        g_string_append(s, " -- ");
        boolean_term_append(s, "id", message_id);
    }
    return hand_out(s, out);
}

maildex_status_t maildex_batch_format_properties(const char *message_id, const maildex_pair_t *pairs,
                                                 size_t n, char **out)
{
    GString *s;

    *out = NULL;
    if (strchr(message_id, '\n'))
        return MAILDEX_STATUS_INVALID_ARGUMENT;
    if (n == 0)
        return MAILDEX_STATUS_OK;
    s = g_string_new("#= ");
    hex_append(s, message_id);
    for (size_t i = 0; i < n; i++) {
        g_string_append_c(s, ' ');
        hex_append(s, pairs[i].key);
        g_string_append_c(s, '=');
        hex_append(s, pairs[i].value);
    }
    return hand_out(s, out);
}

maildex_status_t maildex_batch_format_config(const char *key, const char *value, char **out)
{
    GString *s = g_string_new("#@ ");

    hex_append(s, key);
    g_string_append_c(s, ' ');
    hex_append(s, value);
    return hand_out(s, out);
}
