/* The S-expression back end of the structured printer, read by notmuch.el with Emacs `read` (format-version 5,
 * as notmuch 0.37's sprinter-sexp.c prints it).
 *
 * Maps are plists (:key value ...), lists are (a b), true is t, false and null are nil. Strings are escaped
 * byte by byte (\" \\ \n, other control bytes as three-digit octal) and never validated as UTF-8. A key that
 * Emacs could not read back as a keyword is a programming error: it is recorded in sp->error, never printed
 * and never fatal. This file must not pretty-print or reorder anything.
 */
#include "sprinter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <talloc.h>

struct sexp_frame {
    bool first;  /* nothing printed in this aggregate yet: no space before the next value */
    bool is_map;
};

struct sprinter_sexp {
    struct sprinter vtable;  /* first, so a struct sprinter * converts back */
    FILE *stream;
    struct sexp_frame *stack;  /* open aggregates, innermost at depth - 1; grown, never shrunk */
    size_t depth, cap;
    bool insert_separator;  /* separator() was called: the next space becomes "\n" */
};

static bool sexp_failed(struct sprinter_sexp *sps)
{
    return sps->vtable.error != NULL;
}

static void sexp_fail(struct sprinter_sexp *sps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sexp_fail(struct sprinter_sexp *sps, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    if (sexp_failed(sps))
        return;
    va_start(ap, fmt);
    msg = talloc_vasprintf(sps, fmt, ap);
    va_end(ap);
    sps->vtable.error = msg ? msg : "internal error: out of memory in the sexp printer";
}

/* Prints the space a value needs when it follows another in the same aggregate. Returns false (print
 * nothing) once the printer has failed. */
static bool sexp_begin_value(struct sprinter_sexp *sps)
{
    struct sexp_frame *top;

    if (sexp_failed(sps))
        return false;
    if (sps->depth == 0)
        return true;
    top = &sps->stack[sps->depth - 1];
    if (top->first) {
        top->first = false;
        return true;
    }
    fputc(sps->insert_separator ? '\n' : ' ', sps->stream);
    sps->insert_separator = false;
    return true;
}

static void sexp_begin_aggregate(struct sprinter *sp, bool is_map)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;

    if (!sexp_begin_value(sps))
        return;
    if (sps->depth == sps->cap) {
        size_t cap = sps->cap ? sps->cap * 2 : 16;
        struct sexp_frame *grown = talloc_realloc(sps, sps->stack, struct sexp_frame, cap);
        if (!grown) {
            sexp_fail(sps, "internal error: out of memory in the sexp printer");
            return;
        }
        sps->stack = grown;
        sps->cap = cap;
    }
    sps->stack[sps->depth++] = (struct sexp_frame){.first = true, .is_map = is_map};
    fputc('(', sps->stream);
}

static void sexp_begin_map(struct sprinter *sp)
{
    sexp_begin_aggregate(sp, true);
}

static void sexp_begin_list(struct sprinter *sp)
{
    sexp_begin_aggregate(sp, false);
}

static void sexp_end(struct sprinter *sp)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;

    if (sexp_failed(sps))
        return;
    if (sps->depth == 0) {
        sexp_fail(sps, "internal error: end() with no open map or list in the sexp printer");
        return;
    }
    sps->depth--;
    fputc(')', sps->stream);
    if (sps->depth == 0)
        fputc('\n', sps->stream);
}

/* The escape for byte c, or NULL if it is printed as itself. buf holds the \ooo form. */
static const char *sexp_escape(unsigned char c, char buf[5])
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    default: break;
    }
    if (c >= 0x20)
        return NULL;
    snprintf(buf, 5, "\\%03o", c);
    return buf;
}

static void sexp_string_len(struct sprinter *sp, const char *val, size_t len)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;
    size_t run = 0;  /* start of the pending run of bytes printed as themselves */
    char buf[5];

    if (!sexp_begin_value(sps))
        return;
    if (!val)
        len = 0;
    fputc('"', sps->stream);
    for (size_t i = 0; i < len; i++) {
        const char *esc = sexp_escape((unsigned char) val[i], buf);
        if (!esc)
            continue;
        fwrite(val + run, 1, i - run, sps->stream);
        fputs(esc, sps->stream);
        run = i + 1;
    }
    fwrite(val ? val + run : "", 1, len - run, sps->stream);
    fputc('"', sps->stream);
}

static void sexp_string(struct sprinter *sp, const char *val)
{
    sexp_string_len(sp, val, val ? strlen(val) : 0);
}

static void sexp_integer(struct sprinter *sp, int64_t val)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;

    if (sexp_begin_value(sps))
        fprintf(sps->stream, "%" PRId64, val);
}

static void sexp_boolean(struct sprinter *sp, bool val)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;

    if (sexp_begin_value(sps))
        fputs(val ? "t" : "nil", sps->stream);
}

static void sexp_null(struct sprinter *sp)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;

    if (sexp_begin_value(sps))
        fputs("nil", sps->stream);
}

/* Plain ASCII on purpose: isalnum() would follow the locale and let other bytes through. */
static bool sexp_keyword_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Checks key before anything is printed, so a bad key leaves no half-written keyword behind. */
static bool sexp_check_key(struct sprinter_sexp *sps, const char *key)
{
    if (!key) {
        sexp_fail(sps, "internal error: NULL plist key in the sexp printer");
        return false;
    }
    for (const unsigned char *p = (const unsigned char *) key; *p; p++) {
        if (sexp_keyword_char(*p))
            continue;
        /* The key is not echoed: it may hold control bytes; its valid prefix and the byte are enough. */
        sexp_fail(sps, "internal error: illegal byte 0x%02x in plist key after '%.*s' in the sexp printer", *p,
                  (int) (p - (const unsigned char *) key), key);
        return false;
    }
    return true;
}

static void sexp_map_key(struct sprinter *sp, const char *key)
{
    struct sprinter_sexp *sps = (struct sprinter_sexp *) sp;

    if (sexp_failed(sps))
        return;
    if (sps->depth == 0 || !sps->stack[sps->depth - 1].is_map) {
        sexp_fail(sps, "internal error: plist key outside a map in the sexp printer");
        return;
    }
    if (!sexp_check_key(sps, key) || !sexp_begin_value(sps))
        return;
    fputc(':', sps->stream);
    fputs(key, sps->stream);
}

static void sexp_separator(struct sprinter *sp)
{
    ((struct sprinter_sexp *) sp)->insert_separator = true;
}

static void sexp_set_prefix(struct sprinter *sp, const char *prefix)
{
    (void) sp, (void) prefix;
}

struct sprinter *sprinter_sexp_create(const void *ctx, FILE *stream)
{
    struct sprinter_sexp *sps = talloc_zero(ctx, struct sprinter_sexp);

    if (!sps)
        return NULL;
    sps->vtable = (struct sprinter){
        .begin_map = sexp_begin_map,
        .begin_list = sexp_begin_list,
        .end = sexp_end,
        .string = sexp_string,
        .string_len = sexp_string_len,
        .integer = sexp_integer,
        .boolean = sexp_boolean,
        .null = sexp_null,
        .map_key = sexp_map_key,
        .separator = sexp_separator,
        .set_prefix = sexp_set_prefix,
        .is_text_printer = false,
    };
    sps->stream = stream;
    return &sps->vtable;
}
