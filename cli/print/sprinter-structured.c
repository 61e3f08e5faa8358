/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The JSON and S-expression back ends of the structured printer (format-version 5, as notmuch 0.37's
 * sprinter-json.c and sprinter-sexp.c print them): one state machine, two format tables.
 *
 * The state machine knows the open aggregates, when a value needs a separator before it, the separator()
 * rule and the one "\n" after the outermost close. Everything else is in a format's table: brackets,
 * separators, the spellings of true/false/null, how a key is written, and the escape of every byte
 * (compat §2.1: byte by byte, never validated as UTF-8, since notmuch passes raw file-name bytes
 * through). This file must not pretty-print, sort or reorder anything: callers decide the order.
 */
#include "sprinter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <talloc.h>

struct sprinter_structured;

struct structured_format {
    const char *name;     /* in messages: "the JSON printer" */
    const char *key_noun; /* in messages: "map key", "plist key" */
    char open_map, close_map, open_list, close_list;
    const char *between;         /* before a value that follows another in the same aggregate */
    const char *between_results; /* the same, once separator() was called */
    const char *true_word, *false_word, *null_word;
    /* A key is written as key_prefix, the key (quoted and escaped as a string, or raw), key_suffix. When
     * key_joins_value, key and value make one entry (JSON's "k": v); otherwise the key is an element of
     * its own and the value follows it as any element follows another (a plist's :k v). */
    const char *key_prefix, *key_suffix;
    bool quote_keys, key_joins_value;
    /* What is wrong with key in this format (a message on ctx), or NULL; NULL for a format that takes
     * any key. */
    char *(*key_error)(void *ctx, const char *key);
    /* The escape of each byte inside a string, or NULL where the byte is printed as itself. */
    const char *escapes[256];
};

struct structured_frame {
    bool first; /* nothing printed in this aggregate yet: no separator before the next value */
    bool is_map;
};

struct sprinter_structured {
    struct sprinter vtable; /* first, so a struct sprinter * converts back */
    const struct structured_format *format;
    FILE *stream;
    struct structured_frame *stack; /* open aggregates, innermost at depth - 1; grown, never shrunk */
    size_t depth, cap;
    bool insert_separator; /* separator() was called: the next separator is between_results */
};

static bool structured_failed(struct sprinter_structured *sps)
{
    return sps->vtable.error != NULL;
}

static void structured_fail(struct sprinter_structured *sps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void structured_fail(struct sprinter_structured *sps, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    if (structured_failed(sps))
        return;
    va_start(ap, fmt);
    msg = talloc_vasprintf(sps, fmt, ap);
    va_end(ap);
    sps->vtable.error = msg ? msg : "internal error: out of memory in a structured printer";
}

/* Prints the separator a value needs when it follows another in the same aggregate. Returns false (print
 * nothing) once the printer has failed. */
static bool structured_begin_value(struct sprinter_structured *sps)
{
    struct structured_frame *top;

    if (structured_failed(sps))
        return false;
    if (sps->depth == 0)
        return true;
    top = &sps->stack[sps->depth - 1];
    if (top->first) {
        top->first = false;
        return true;
    }
    fputs(sps->insert_separator ? sps->format->between_results : sps->format->between, sps->stream);
    sps->insert_separator = false;
    return true;
}

static void structured_begin_aggregate(struct sprinter *sp, bool is_map)
{
    struct sprinter_structured *sps = (struct sprinter_structured *) sp;

    if (!structured_begin_value(sps))
        return;
    if (sps->depth == sps->cap) {
        size_t cap = sps->cap ? sps->cap * 2 : 16;
        struct structured_frame *grown = talloc_realloc(sps, sps->stack, struct structured_frame, cap);
        if (!grown) {
            structured_fail(sps, "internal error: out of memory in the %s printer", sps->format->name);
            return;
        }
        sps->stack = grown;
        sps->cap = cap;
    }
    sps->stack[sps->depth++] = (struct structured_frame){.first = true, .is_map = is_map};
    fputc(is_map ? sps->format->open_map : sps->format->open_list, sps->stream);
}

static void structured_begin_map(struct sprinter *sp)
{
    structured_begin_aggregate(sp, true);
}

static void structured_begin_list(struct sprinter *sp)
{
    structured_begin_aggregate(sp, false);
}

static void structured_end(struct sprinter *sp)
{
    struct sprinter_structured *sps = (struct sprinter_structured *) sp;
    const struct structured_format *f = sps->format;

    if (structured_failed(sps))
        return;
    if (sps->depth == 0) {
        structured_fail(sps, "internal error: end() with no open map or list in the %s printer", f->name);
        return;
    }
    sps->depth--;
    fputc(sps->stack[sps->depth].is_map ? f->close_map : f->close_list, sps->stream);
    if (sps->depth == 0)
        fputc('\n', sps->stream);
}

/* Writes len bytes of val (NULL: none) between double quotes, each escaped by the format's table. */
static void structured_quote(struct sprinter_structured *sps, const char *val, size_t len)
{
    size_t run = 0; /* start of the pending run of bytes printed as themselves */

    if (!val)
        len = 0;
    fputc('"', sps->stream);
    for (size_t i = 0; i < len; i++) {
        const char *esc = sps->format->escapes[(unsigned char) val[i]];
        if (!esc)
            continue;
        fwrite(val + run, 1, i - run, sps->stream);
        fputs(esc, sps->stream);
        run = i + 1;
    }
    fwrite(val ? val + run : "", 1, len - run, sps->stream);
    fputc('"', sps->stream);
}

static void structured_string_len(struct sprinter *sp, const char *val, size_t len)
{
    struct sprinter_structured *sps = (struct sprinter_structured *) sp;

    if (structured_begin_value(sps))
        structured_quote(sps, val, len);
}

static void structured_string(struct sprinter *sp, const char *val)
{
    structured_string_len(sp, val, val ? strlen(val) : 0);
}

static void structured_integer(struct sprinter *sp, int64_t val)
{
    struct sprinter_structured *sps = (struct sprinter_structured *) sp;

    if (structured_begin_value(sps))
        fprintf(sps->stream, "%" PRId64, val);
}

static void structured_word(struct sprinter *sp, const char *word)
{
    struct sprinter_structured *sps = (struct sprinter_structured *) sp;

    if (structured_begin_value(sps))
        fputs(word, sps->stream);
}

static void structured_boolean(struct sprinter *sp, bool val)
{
    const struct structured_format *f = ((struct sprinter_structured *) sp)->format;

    structured_word(sp, val ? f->true_word : f->false_word);
}

static void structured_null(struct sprinter *sp)
{
    structured_word(sp, ((struct sprinter_structured *) sp)->format->null_word);
}

/* Checks key before anything is printed, so a bad key leaves no half-written key behind. */
static void structured_map_key(struct sprinter *sp, const char *key)
{
    struct sprinter_structured *sps = (struct sprinter_structured *) sp;
    const struct structured_format *f = sps->format;
    char *why;

    if (structured_failed(sps))
        return;
    if (sps->depth == 0 || !sps->stack[sps->depth - 1].is_map) {
        structured_fail(sps, "internal error: %s outside a map in the %s printer", f->key_noun, f->name);
        return;
    }
    if (f->key_error && (why = f->key_error(sps, key)) != NULL) {
        structured_fail(sps, "internal error: %s in the %s printer", why, f->name);
        return;
    }
    if (!structured_begin_value(sps))
        return;
    fputs(f->key_prefix, sps->stream);
    if (f->quote_keys)
        structured_quote(sps, key, key ? strlen(key) : 0);
    else
        fputs(key, sps->stream);
    fputs(f->key_suffix, sps->stream);
    if (f->key_joins_value)
        sps->stack[sps->depth - 1].first = true;
}

static void structured_separator(struct sprinter *sp)
{
    ((struct sprinter_structured *) sp)->insert_separator = true;
}

static void structured_set_prefix(struct sprinter *sp, const char *prefix)
{
    (void) sp, (void) prefix;
}

static struct sprinter *structured_create(const void *ctx, FILE *stream,
                                          const struct structured_format *format)
{
    struct sprinter_structured *sps = talloc_zero(ctx, struct sprinter_structured);

    if (!sps)
        return NULL;
    sps->vtable = (struct sprinter){
        .begin_map = structured_begin_map,
        .begin_list = structured_begin_list,
        .end = structured_end,
        .string = structured_string,
        .string_len = structured_string_len,
        .integer = structured_integer,
        .boolean = structured_boolean,
        .null = structured_null,
        .map_key = structured_map_key,
        .separator = structured_separator,
        .set_prefix = structured_set_prefix,
        .is_text_printer = false,
    };
    sps->format = format;
    sps->stream = stream;
    return &sps->vtable;
}

/* ---- JSON: {"k": v}, [a, b], true/false/null ------------------------------------------------------- */

#define JSON_U(hex) "\\u00" #hex

static const struct structured_format json_format = {
    .name = "JSON",
    .key_noun = "map key",
    .open_map = '{', .close_map = '}', .open_list = '[', .close_list = ']',
    .between = ", ",
    .between_results = ",\n",
    .true_word = "true", .false_word = "false", .null_word = "null",
    .key_prefix = "", .key_suffix = ": ",
    .quote_keys = true, .key_joins_value = true,
    .key_error = NULL,
    /* \b \t \n \f named, other bytes below 0x20 as \u00XX, '"' and '\' escaped, all others raw. */
    .escapes = {
        JSON_U(00), JSON_U(01), JSON_U(02), JSON_U(03), JSON_U(04), JSON_U(05), JSON_U(06), JSON_U(07),
        "\\b",      "\\t",      "\\n",      JSON_U(0b), "\\f",      JSON_U(0d), JSON_U(0e), JSON_U(0f),
        JSON_U(10), JSON_U(11), JSON_U(12), JSON_U(13), JSON_U(14), JSON_U(15), JSON_U(16), JSON_U(17),
        JSON_U(18), JSON_U(19), JSON_U(1a), JSON_U(1b), JSON_U(1c), JSON_U(1d), JSON_U(1e), JSON_U(1f),
        ['"'] = "\\\"", ['\\'] = "\\\\",
    },
};

#undef JSON_U

struct sprinter *sprinter_json_create(const void *ctx, FILE *stream)
{
    return structured_create(ctx, stream, &json_format);
}

/* ---- S-expressions for Emacs `read`: plists (:k v), lists (a b), t/nil/nil -------------------------- */

/* Plain ASCII on purpose: isalnum() would follow the locale and let other bytes through. */
static bool sexp_keyword_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* A key Emacs could not read back as a keyword is a programming error, never printed. */
static char *sexp_key_error(void *ctx, const char *key)
{
    if (!key)
        return talloc_strdup(ctx, "NULL plist key");
    for (const unsigned char *p = (const unsigned char *) key; *p; p++) {
        if (sexp_keyword_char(*p))
            continue;
        /* The key is not echoed: it may hold control bytes; its valid prefix and the byte are enough. */
        return talloc_asprintf(ctx, "illegal byte 0x%02x in plist key after '%.*s'", *p,
                               (int) (p - (const unsigned char *) key), key);
    }
    return NULL;
}

#define SEXP_O(oct) "\\0" #oct

static const struct structured_format sexp_format = {
    .name = "sexp",
    .key_noun = "plist key",
    .open_map = '(', .close_map = ')', .open_list = '(', .close_list = ')',
    .between = " ",
    .between_results = "\n",
    .true_word = "t", .false_word = "nil", .null_word = "nil",
    .key_prefix = ":", .key_suffix = "",
    .quote_keys = false, .key_joins_value = false,
    .key_error = sexp_key_error,
    /* \n named, other bytes below 0x20 as three-digit octal, '"' and '\' escaped, all others raw. */
    .escapes = {
        SEXP_O(00), SEXP_O(01), SEXP_O(02), SEXP_O(03), SEXP_O(04), SEXP_O(05), SEXP_O(06), SEXP_O(07),
        SEXP_O(10), SEXP_O(11), "\\n",      SEXP_O(13), SEXP_O(14), SEXP_O(15), SEXP_O(16), SEXP_O(17),
        SEXP_O(20), SEXP_O(21), SEXP_O(22), SEXP_O(23), SEXP_O(24), SEXP_O(25), SEXP_O(26), SEXP_O(27),
        SEXP_O(30), SEXP_O(31), SEXP_O(32), SEXP_O(33), SEXP_O(34), SEXP_O(35), SEXP_O(36), SEXP_O(37),
        ['"'] = "\\\"", ['\\'] = "\\\\",
    },
};

#undef SEXP_O

struct sprinter *sprinter_sexp_create(const void *ctx, FILE *stream)
{
    return structured_create(ctx, stream, &sexp_format);
}
