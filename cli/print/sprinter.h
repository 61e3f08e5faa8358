/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The structured output printer ("sprinter") every command prints through, after notmuch's struct sprinter.
 *
 * A command describes its output as maps, lists and scalars; the back end (JSON, S-expression, text, text0)
 * decides the bytes. All escaping lives in the back ends and nowhere else, and their output must match
 * notmuch 0.37 byte for byte (../shared/notmuch-compat.md §2.1). A printer never exits, never aborts and never
 * writes to stderr: misuse (a bad plist key, end() with nothing open, map_key outside a map) records a message
 * in sp->error, after which the printer writes nothing more; the caller reports it and exits non-zero.
 * Write errors on the stream are the caller's to check (ferror/fclose), not the printer's.
 *
 * Usage (prints {"a": [1, true]} and a newline):
 *     struct sprinter *sp = sprinter_json_create(ctx, stdout);
 *     sp->begin_map(sp);
 *     sp->map_key(sp, "a");
 *     sp->begin_list(sp);
 *     sp->integer(sp, 1);
 *     sp->boolean(sp, true);
 *     sp->end(sp);
 *     sp->end(sp);
 *     if (sp->error) ... report "maildex: %s", sp->error, exit 1 ...
 *     talloc_free(sp);
 */
#ifndef MAILDEX_CLI_SPRINTER_H
#define MAILDEX_CLI_SPRINTER_H

#include "base/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sprinter {
    /* Open a map. Follow with alternating map_key and one value (scalar or aggregate), then end. */
    void (*begin_map)(struct sprinter *sp);
    /* Open a list. */
    void (*begin_list)(struct sprinter *sp);
    /* Close the innermost open map or list. When that leaves nothing open, JSON and sexp print one "\n":
     * this is the only place the trailing newline comes from. */
    void (*end)(struct sprinter *sp);

    /* Scalars. string accepts NULL and prints it as "". string_len prints exactly len bytes, NULs included,
     * escaped byte by byte with no UTF-8 validation (a NULL val prints ""). */
    void (*string)(struct sprinter *sp, const char *val);
    void (*string_len)(struct sprinter *sp, const char *val, size_t len);
    void (*integer)(struct sprinter *sp, int64_t val);
    void (*boolean)(struct sprinter *sp, bool val);
    void (*null)(struct sprinter *sp);

    /* The key of the next map entry. JSON prints "key": ; sexp prints :key and accepts only
     * [A-Za-z0-9_-]+ (anything else, or NULL, is an internal error recorded in sp->error). */
    void (*map_key)(struct sprinter *sp, const char *key);

    /* Text and text0: print the item terminator now ("\n", or "\0" for text0).
     * JSON and sexp: the next value that follows another in the same aggregate is preceded by ",\n"
     * (JSON) or "\n" (sexp) instead of ", " or " ". search and address call it after each top-level result. */
    void (*separator)(struct sprinter *sp);

    /* Text and text0 only: print "prefix:" before every later string ("thread" gives "thread:0000…",
     * "id" gives "id:msg@host"); NULL turns it off. The printer keeps its own copy. Others ignore it. */
    void (*set_prefix)(struct sprinter *sp, const char *prefix);

    /* True for text and text0, whose output is not a structure (callers special-case a few outputs). */
    bool is_text_printer;

    /* NULL while all is well; otherwise a message ("internal error: …"), owned by the printer, describing
     * the first misuse. Once set, every call is a no-op. */
    const char *error;
} sprinter_t;

/* Each constructor returns a printer allocated on ctx that writes to stream (not owned, not closed),
 * or NULL if out of memory. Free it with talloc_free. */

/* JSON: {"k": v}, [a, b], true/false/null, strings per compat §2.1. */
struct sprinter *sprinter_json_create(const void *ctx, FILE *stream);

/* S-expressions for Emacs: plists (:k v), lists (a b), t/nil/nil, strings per compat §2.1. */
struct sprinter *sprinter_sexp_create(const void *ctx, FILE *stream);

/* notmuch's plain text: strings raw with the current prefix, integers in decimal, booleans as
 * true/false, null/maps/lists/keys print nothing, separator prints "\n". */
struct sprinter *sprinter_text_create(const void *ctx, FILE *stream);

/* As text, but separator prints a NUL byte (for xargs -0). */
struct sprinter *sprinter_text0_create(const void *ctx, FILE *stream);

/* The formats --format=text|text0|json|sexp names (search, address), the keywords of that option
 * (values: enum sprinter_format), and the printer of each. */
enum sprinter_format { SPRINTER_TEXT, SPRINTER_TEXT0, SPRINTER_JSON, SPRINTER_SEXP };
extern const struct keyword sprinter_format_keywords[];
struct sprinter *sprinter_create(const void *ctx, FILE *stream, enum sprinter_format format);

#endif
