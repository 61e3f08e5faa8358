/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The text and text0 back ends of the structured printer, as notmuch 0.37's sprinter-text.c prints them: the
 * default output of search --output=threads|messages|files|tags and of address.
 *
 * Only scalars print. A string is written raw (no escaping, NULs included) after "prefix:" when a prefix is
 * set; integers and booleans print bare; maps, lists, keys and null print nothing. Lines come only from the
 * caller's separator() calls: "\n" for text, a NUL for text0. search --output=summary is formatted by the
 * search command itself, not here. This file must not add structure or escaping of its own.
 */
#include "sprinter.h"

#include <inttypes.h>
#include <string.h>
#include <talloc.h>

struct sprinter_text {
    struct sprinter vtable;  /* first, so a struct sprinter * converts back */
    FILE *stream;
    char *prefix;  /* our copy of the set_prefix argument, or NULL */
};

static void text_string_len(struct sprinter *sp, const char *val, size_t len)
{
    struct sprinter_text *spt = (struct sprinter_text *) sp;

    if (sp->error)
        return;
    if (spt->prefix)
        fprintf(spt->stream, "%s:", spt->prefix);
    if (val)
        fwrite(val, 1, len, spt->stream);
}

static void text_string(struct sprinter *sp, const char *val)
{
    text_string_len(sp, val, val ? strlen(val) : 0);
}

static void text_integer(struct sprinter *sp, int64_t val)
{
    struct sprinter_text *spt = (struct sprinter_text *) sp;

    if (!sp->error)
        fprintf(spt->stream, "%" PRId64, val);
}

static void text_boolean(struct sprinter *sp, bool val)
{
    struct sprinter_text *spt = (struct sprinter_text *) sp;

    if (!sp->error)
        fputs(val ? "true" : "false", spt->stream);
}

static void text_separator(struct sprinter *sp)
{
    struct sprinter_text *spt = (struct sprinter_text *) sp;

    if (!sp->error)
        fputc('\n', spt->stream);
}

static void text0_separator(struct sprinter *sp)
{
    struct sprinter_text *spt = (struct sprinter_text *) sp;

    if (!sp->error)
        fputc('\0', spt->stream);
}

/* Copied because callers may pass a string that dies before the printer does. */
static void text_set_prefix(struct sprinter *sp, const char *prefix)
{
    struct sprinter_text *spt = (struct sprinter_text *) sp;
    char *copy = NULL;

    if (sp->error)
        return;
    if (prefix) {
        copy = talloc_strdup(spt, prefix);
        if (!copy) {
            sp->error = "internal error: out of memory in the text printer";
            return;
        }
    }
    talloc_free(spt->prefix);
    spt->prefix = copy;
}

/* Structure is invisible in text. */
static void text_nothing(struct sprinter *sp)
{
    (void) sp;
}

static void text_map_key(struct sprinter *sp, const char *key)
{
    (void) sp, (void) key;
}

struct sprinter *sprinter_text_create(const void *ctx, FILE *stream)
{
    struct sprinter_text *spt = talloc_zero(ctx, struct sprinter_text);

    if (!spt)
        return NULL;
    spt->vtable = (struct sprinter){
        .begin_map = text_nothing,
        .begin_list = text_nothing,
        .end = text_nothing,
        .string = text_string,
        .string_len = text_string_len,
        .integer = text_integer,
        .boolean = text_boolean,
        .null = text_nothing,
        .map_key = text_map_key,
        .separator = text_separator,
        .set_prefix = text_set_prefix,
        .is_text_printer = true,
    };
    spt->stream = stream;
    return &spt->vtable;
}

struct sprinter *sprinter_text0_create(const void *ctx, FILE *stream)
{
    struct sprinter *sp = sprinter_text_create(ctx, stream);

    if (sp)
        sp->separator = text0_separator;
    return sp;
}

const struct keyword sprinter_format_keywords[] = {{"text", SPRINTER_TEXT}, {"text0", SPRINTER_TEXT0},
                                                   {"json", SPRINTER_JSON}, {"sexp", SPRINTER_SEXP}, {NULL, 0}};

/* Here rather than with the structured back ends: text is what anything unknown falls back to. */
struct sprinter *sprinter_create(const void *ctx, FILE *stream, enum sprinter_format format)
{
    switch (format) {
    case SPRINTER_JSON: return sprinter_json_create(ctx, stream);
    case SPRINTER_SEXP: return sprinter_sexp_create(ctx, stream);
    case SPRINTER_TEXT0: return sprinter_text0_create(ctx, stream);
    case SPRINTER_TEXT: break;
    }
    return sprinter_text_create(ctx, stream);
}
