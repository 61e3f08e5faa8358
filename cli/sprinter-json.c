/* The JSON back end of the structured printer (format-version 5, as notmuch 0.37's sprinter-json.c prints it).
 *
 * Strings are escaped byte by byte and never validated as UTF-8: notmuch passes raw file-name bytes through,
 * and so must we. This file must not reformat anything (no pretty-printing, no sorting): callers decide the
 * order, the only whitespace is ", " / ": " and the newline rules described in sprinter.h.
 */
#include "sprinter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <talloc.h>

struct json_frame {
    bool first;  /* nothing printed in this aggregate yet: no comma before the next value */
    bool is_map;
};

struct sprinter_json {
    struct sprinter vtable;  /* first, so a struct sprinter * converts back */
    FILE *stream;
    struct json_frame *stack;  /* open aggregates, innermost at depth - 1; grown, never shrunk */
    size_t depth, cap;
    bool insert_separator;  /* separator() was called: the next comma gets "\n" instead of " " */
};

static bool json_failed(struct sprinter_json *spj)
{
    return spj->vtable.error != NULL;
}

static void json_fail(struct sprinter_json *spj, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void json_fail(struct sprinter_json *spj, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    if (json_failed(spj))
        return;
    va_start(ap, fmt);
    msg = talloc_vasprintf(spj, fmt, ap);
    va_end(ap);
    spj->vtable.error = msg ? msg : "internal error: out of memory in the JSON printer";
}

/* Prints the comma a value needs when it follows another in the same aggregate. Returns false (print
 * nothing) once the printer has failed. */
static bool json_begin_value(struct sprinter_json *spj)
{
    struct json_frame *top;

    if (json_failed(spj))
        return false;
    if (spj->depth == 0)
        return true;
    top = &spj->stack[spj->depth - 1];
    if (top->first) {
        top->first = false;
        return true;
    }
    fputs(spj->insert_separator ? ",\n" : ", ", spj->stream);
    spj->insert_separator = false;
    return true;
}

static void json_begin_aggregate(struct sprinter *sp, char open, bool is_map)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;

    if (!json_begin_value(spj))
        return;
    if (spj->depth == spj->cap) {
        size_t cap = spj->cap ? spj->cap * 2 : 16;
        struct json_frame *grown = talloc_realloc(spj, spj->stack, struct json_frame, cap);
        if (!grown) {
            json_fail(spj, "internal error: out of memory in the JSON printer");
            return;
        }
        spj->stack = grown;
        spj->cap = cap;
    }
    spj->stack[spj->depth++] = (struct json_frame){.first = true, .is_map = is_map};
    fputc(open, spj->stream);
}

static void json_begin_map(struct sprinter *sp)
{
    json_begin_aggregate(sp, '{', true);
}

static void json_begin_list(struct sprinter *sp)
{
    json_begin_aggregate(sp, '[', false);
}

static void json_end(struct sprinter *sp)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;

    if (json_failed(spj))
        return;
    if (spj->depth == 0) {
        json_fail(spj, "internal error: end() with no open map or list in the JSON printer");
        return;
    }
    spj->depth--;
    fputc(spj->stack[spj->depth].is_map ? '}' : ']', spj->stream);
    if (spj->depth == 0)
        fputc('\n', spj->stream);
}

/* The escape for byte c, or NULL if it is printed as itself. buf holds the \u00XX form. */
static const char *json_escape(unsigned char c, char buf[7])
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\t': return "\\t";
    default: break;
    }
    if (c >= 0x20)
        return NULL;
    snprintf(buf, 7, "\\u%04x", c);
    return buf;
}

static void json_string_len(struct sprinter *sp, const char *val, size_t len)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;
    size_t run = 0;  /* start of the pending run of bytes printed as themselves */
    char buf[7];

    if (!json_begin_value(spj))
        return;
    if (!val)
        len = 0;
    fputc('"', spj->stream);
    for (size_t i = 0; i < len; i++) {
        const char *esc = json_escape((unsigned char) val[i], buf);
        if (!esc)
            continue;
        fwrite(val + run, 1, i - run, spj->stream);
        fputs(esc, spj->stream);
        run = i + 1;
    }
    fwrite(val ? val + run : "", 1, len - run, spj->stream);
    fputc('"', spj->stream);
}

static void json_string(struct sprinter *sp, const char *val)
{
    json_string_len(sp, val, val ? strlen(val) : 0);
}

static void json_integer(struct sprinter *sp, int64_t val)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;

    if (json_begin_value(spj))
        fprintf(spj->stream, "%" PRId64, val);
}

static void json_boolean(struct sprinter *sp, bool val)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;

    if (json_begin_value(spj))
        fputs(val ? "true" : "false", spj->stream);
}

static void json_null(struct sprinter *sp)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;

    if (json_begin_value(spj))
        fputs("null", spj->stream);
}

static void json_map_key(struct sprinter *sp, const char *key)
{
    struct sprinter_json *spj = (struct sprinter_json *) sp;

    if (json_failed(spj))
        return;
    if (spj->depth == 0 || !spj->stack[spj->depth - 1].is_map) {
        json_fail(spj, "internal error: map key outside a map in the JSON printer");
        return;
    }
    json_string(sp, key);
    fputs(": ", spj->stream);
    /* The value belongs to this key: no comma between them. */
    spj->stack[spj->depth - 1].first = true;
}

static void json_separator(struct sprinter *sp)
{
    ((struct sprinter_json *) sp)->insert_separator = true;
}

static void json_set_prefix(struct sprinter *sp, const char *prefix)
{
    (void) sp, (void) prefix;
}

struct sprinter *sprinter_json_create(const void *ctx, FILE *stream)
{
    struct sprinter_json *spj = talloc_zero(ctx, struct sprinter_json);

    if (!spj)
        return NULL;
    spj->vtable = (struct sprinter){
        .begin_map = json_begin_map,
        .begin_list = json_begin_list,
        .end = json_end,
        .string = json_string,
        .string_len = json_string_len,
        .integer = json_integer,
        .boolean = json_boolean,
        .null = json_null,
        .map_key = json_map_key,
        .separator = json_separator,
        .set_prefix = json_set_prefix,
        .is_text_printer = false,
    };
    spj->stream = stream;
    return &spj->vtable;
}
