/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json-read.h: reading one JSON text (RFC 8259) into a tree, for `maildex server`'s request lines.
 * Written here rather than taken from json-glib because json-glib brings gobject and gio into every
 * maildex process, which the command line keeps out (they cost each command's start; T000 checks it),
 * and a request needs only this: values, strings with every escape, integers. Strict: no trailing
 * commas, comments or bare words; nesting deeper than JSON_MAX_DEPTH is refused, not recursed into. */
#ifndef MAILDEX_CLI_JSON_READ_H
#define MAILDEX_CLI_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_kind kind;
    bool boolean;
    bool is_integer;       /* a number written without fraction or exponent that fits int64_t */
    int64_t integer;
    double number;
    char *string;          /* UTF-8, NUL-terminated; may hold NULs (\u0000): string_len is its length */
    size_t string_len;
    size_t n;              /* elements of an array, members of an object */
    struct json **items;   /* the elements, or the members' values */
    char **keys;           /* an object's member names */
};

/* Parses text[0..len) as one JSON value (surrounding white space allowed). Returns the tree, a talloc
 * child of ctx, or NULL with *error (talloc'd on ctx) saying what is wrong and at which byte. */
struct json *json_parse(void *ctx, const char *text, size_t len, char **error);

/* The value of the object's member key (the last, if repeated), or NULL. */
const struct json *json_member(const struct json *object, const char *key);

#endif
