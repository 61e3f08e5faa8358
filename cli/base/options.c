/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The option parser behind every command (see options.h). */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

static const struct option *find(const struct option *opts, const char *name, size_t len)
{
    for (const struct option *o = opts; o->type != OPT_END; o++) {
        if (o->type == OPT_INHERIT) {
            const struct option *found = find(o->sub, name, len);
            if (found)
                return found;
        } else if (o->name && strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
            return o;
        }
    }
    return NULL;
}

static bool parse_bool(const char *value, bool *out)
{
    if (strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
        *out = true;
    else if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

bool options_strv_append(void *ctx, char ***list, const char *value)
{
    size_t n = 0;
    char **grown;
    char *copy;

    while (*list && (*list)[n])
        n++;
    grown = talloc_realloc(ctx, *list, char *, n + 2);
    if (grown == NULL)
        return false;
    /* The array may have moved: *list follows it even if the copy below fails. */
    *list = grown;
    grown[n] = NULL;
    if ((copy = talloc_strdup(grown, value)) == NULL)
        return false;
    grown[n] = copy;
    grown[n + 1] = NULL;
    return true;
}

/* An out-of-range number is refused, never clamped: `--limit=-5` or a part past INT_MAX would
 * otherwise quietly mean "no limit" or another part. */
static int set_int(void *ctx, const struct option *o, const char *value, char **error)
{
    long min = o->type == OPT_COUNT ? 0 : INT_MIN;
    char *end;
    long n;

    errno = 0;
    n = value ? strtol(value, &end, 10) : 0;
    if (value == NULL || *value == '\0' || *end != '\0' || (errno && errno != ERANGE)) {
        *error = talloc_asprintf(ctx, "--%s needs an integer, not '%s'", o->name, value ? value : "");
        return -1;
    }
    if (errno == ERANGE || n < min || n > INT_MAX) {
        *error = talloc_asprintf(ctx, "--%s must be from %ld to %d, not '%s'", o->name, min, INT_MAX,
                                 value);
        return -1;
    }
    *(int *) o->out = (int) n;
    return 0;
}

static int apply(void *ctx, const struct option *o, const char *value, char **error)
{
    switch (o->type) {
    case OPT_BOOL: {
        bool b = true;
        if (value && !parse_bool(value, &b)) {
            *error = talloc_asprintf(ctx, "unknown value for --%s: '%s' (use true or false)",
                                     o->name, value);
            return -1;
        }
        *(bool *) o->out = b;
        return 0;
    }
    case OPT_KEYWORD:
    case OPT_FLAGS:
        for (const struct keyword *k = o->keywords; k->name; k++) {
            if (value == NULL || strcmp(value, k->name) == 0) {
                if (o->type == OPT_FLAGS)
                    *(int *) o->out |= k->value;
                else
                    *(int *) o->out = k->value;
                return 0;
            }
        }
        *error = talloc_asprintf(ctx, "unknown keyword for --%s: '%s'", o->name,
                                 value ? value : "");
        return -1;
    case OPT_INT:
    case OPT_COUNT:
        return set_int(ctx, o, value, error);
    case OPT_STRING:
        if (value == NULL) {
            *error = talloc_asprintf(ctx, "--%s needs a value", o->name);
            return -1;
        }
        *(const char **) o->out = value;
        return 0;
    case OPT_STRINGS:
        if (value == NULL) {
            *error = talloc_asprintf(ctx, "--%s needs a value", o->name);
            return -1;
        }
        if (!options_strv_append(ctx, o->out, value)) {
            *error = talloc_strdup(ctx, "out of memory");
            return -1;
        }
        return 0;
    case OPT_END:
    case OPT_INHERIT:
        break;
    }
    return -1;
}

static bool is_keyword_of(const struct option *o, const char *value)
{
    for (const struct keyword *k = o->keywords; k->name; k++)
        if (strcmp(value, k->name) == 0)
            return true;
    return false;
}

/* Whether the next argument is this option's value (`--format json`), as notmuch's parser decides:
 * a boolean never takes it; a keyword takes it only when it is one of its keywords, so
 * `--exclude tag:x` leaves the query alone. */
static bool takes_separate_value(const struct option *o, const char *next)
{
    if (o->type == OPT_KEYWORD || o->type == OPT_FLAGS)
        return is_keyword_of(o, next);
    return o->type == OPT_INT || o->type == OPT_COUNT || o->type == OPT_STRING || o->type == OPT_STRINGS;
}

int options_parse(void *ctx, int argc, char **argv, int start, const struct option *opts,
                  char **error)
{
    int i;

    *error = NULL;
    for (i = start; i < argc; i++) {
        const char *arg = argv[i], *name, *eq, *value = NULL;
        const struct option *o;
        bool negated = false;

        if (strcmp(arg, "--") == 0)
            return i + 1;
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
            return i;
        name = arg + 2;
        eq = strpbrk(name, "=:"); /* notmuch takes --name:value as --name=value */
        o = find(opts, name, eq ? (size_t) (eq - name) : strlen(name));
        if (o == NULL && eq == NULL && strncmp(name, "no-", 3) == 0) {
            o = find(opts, name + 3, strlen(name + 3));
            negated = o && o->type == OPT_BOOL;
            if (!negated)
                o = NULL;
        }
        if (o == NULL) {
            *error = talloc_asprintf(ctx, "Unrecognized option: %s", arg);
            return OPTIONS_UNRECOGNIZED;
        }
        if (eq)
            value = eq + 1;
        else if (negated)
            value = "false";
        else if (i + 1 < argc && takes_separate_value(o, argv[i + 1]))
            value = argv[++i];
        if (apply(ctx, o, value, error) != 0)
            return -1;
        if (o->present)
            *o->present = true;
    }
    return i;
}
