/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.h: declarative command-line options, notmuch's style. A command lists its options in a table;
 * options_parse() accepts `--name=value`, `--name:value`, `--name value` (a keyword only when value is
 * one of its keywords), `--name` (booleans, or the first keyword), `--no-name` (booleans), and stops
 * at the first non-option or at `--`. It prints nothing itself: errors come back as a message the
 * caller prints, so every command reports them the same way. */
#ifndef MAILDEX_CLI_OPTIONS_H
#define MAILDEX_CLI_OPTIONS_H

#include <stdbool.h>

struct keyword {
    const char *name;
    int value;
};

enum option_type {
    OPT_END = 0,
    OPT_BOOL,     /* bool *; --x, --no-x, --x=true|false */
    OPT_KEYWORD,  /* int *; --x=NAME from .keywords */
    OPT_FLAGS,    /* int *; repeatable --x=NAME, values ORed */
    OPT_INT,      /* int *; --x=N, any int (search --offset counts from the end when negative) */
    OPT_COUNT,    /* int *; --x=N with 0 <= N <= INT_MAX: a limit, a part, a copy or a delay */
    OPT_STRING,   /* const char **; --x=TEXT */
    OPT_STRINGS,  /* char ***: repeatable --x=TEXT, a NULL-terminated talloc array */
    OPT_INHERIT,  /* .sub points at another table (shared options) */
};

struct option {
    enum option_type type;
    const char *name;
    void *out;
    const struct keyword *keywords;
    const struct option *sub;
    bool *present; /* optional: set when the option was given */
};

/* Appends a talloc copy of value to *list, the NULL-terminated talloc array OPT_STRINGS fills (a NULL
 * *list is empty; a new one is allocated on ctx). Returns false when out of memory, *list unchanged. */
bool options_strv_append(void *ctx, char ***list, const char *value);

/* What options_parse returns for an option opts does not have: *error is then notmuch's own line
 * ("Unrecognized option: --foo"), which scripts match and which notmuch prints without its name. */
#define OPTIONS_UNRECOGNIZED (-2)

/* Parses argv[start..] against opts. Returns the index of the first non-option argument, or a negative
 * number (-1, or OPTIONS_UNRECOGNIZED) with *error set to a talloc'd message on ctx. */
int options_parse(void *ctx, int argc, char **argv, int start, const struct option *opts,
                  char **error);

#endif
