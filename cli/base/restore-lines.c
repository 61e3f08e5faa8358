/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore-lines.c: a dump's lines applied to the store (restore-lines.h), as notmuch 0.37's restore
 * applies them (notmuch-restore.c): every message a line names gets the tags it lists (or gains them,
 * without MAILDEX_TAG_REMOVE_ALL), its properties, and the database the config lines. A message that
 * is not in the store gets notmuch's warning; a bad line gets its warning and the lines after it are
 * still applied. The input is read in batches of lines, each applied in one atomic section, so that
 * memory and other writers' waits stay bounded and no lock is held while the input is read. It
 * opens nothing: `restore` and the notmuch import hand it their input. */
#include "restore-lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 5000 /* lines per atomic section */

/* The next line of in, without its newline, into line: 1, or 0 at the end, or -1 when the input
 * cannot be read (*why says why). */
static int read_line(gzFile in, GString *line, const char **why)
{
    char buf[8192];
    int err;

    g_string_truncate(line, 0);
    while (gzgets(in, buf, sizeof buf)) {
        size_t n = strlen(buf);
        g_string_append_len(line, buf, (gssize) n);
        if (n && buf[n - 1] == '\n') {
            g_string_truncate(line, line->len - 1);
            return 1;
        }
    }
    *why = gzerror(in, &err);
    if (err == Z_ERRNO)
        *why = strerror(errno);
    else if (strrchr(*why, ':') && strrchr(*why, ':')[1] == ' ')
        *why = strrchr(*why, ':') + 2; /* zlib puts the path first; the caller names the input */
    if (err != Z_OK)
        return -1;
    return line->len > 0;
}

/* A tag line decides auto's format: a sup line is "ID (TAGS)", anything else is batch-tag (notmuch
 * looks for a '(' anywhere, which a quoted Message-ID in a batch-tag line may hold too). */
static int detect(const char *line)
{
    maildex_batch_line_t *b = NULL;
    bool sup = maildex_batch_line_parse(line, MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, &b, NULL) ==
                   MAILDEX_STATUS_OK && b;

    maildex_batch_line_free(b);
    return sup ? RESTORE_FORMAT_SUP : RESTORE_FORMAT_BATCH_TAG;
}

/* A line for a message the store does not have: notmuch's warning, or only counted (once per
 * message: every message has a tag line in a dump, and its properties may follow). */
static void missing(struct restore *r, const char *what, const char *message_id)
{
    if (strcmp(what, "tags") == 0)
        r->missing++;
    if (!r->count_missing)
        fprintf(r->cli->err, "Warning: cannot apply %s to missing message: %s\n", what, message_id);
}

/* A message's tags, then (flags_from_files) the tags its files' flags decide. */
static maildex_status_t apply_tags(struct restore *r, const maildex_batch_line_t *b)
{
    maildex_status_t st = maildex_db_tag_message(r->cli->db, b->message_id, b->ops, b->nops,
                                                 r->tag_flags, NULL);

    if (st == MAILDEX_STATUS_OK && r->flags_from_files)
        st = maildex_db_message_flags_to_tags(r->cli->db, b->message_id);
    return st;
}

/* Applies one parsed line. 0, or 1 when the database failed (reported; the restore stops). */
static int apply(struct restore *r, const maildex_batch_line_t *b)
{
    maildex_db_t *db = r->cli->db;
    maildex_status_t st = MAILDEX_STATUS_OK;
    uint64_t *count = NULL;
    const char *what = "tags";

    if (b->kind == MAILDEX_BATCH_CONFIG && (r->include & INCLUDE_CONFIG)) {
        st = maildex_db_config_set(db, b->pairs[0].key, b->pairs[0].value);
        count = &r->config;
    }
    if (b->kind == MAILDEX_BATCH_PROPERTIES && (r->include & INCLUDE_PROPERTIES)) {
        st = maildex_db_set_properties(db, b->message_id, b->pairs, b->npairs, true);
        what = "properties";
        count = &r->properties;
    }
    if (b->kind == MAILDEX_BATCH_TAGS && (r->include & INCLUDE_TAGS)) {
        st = apply_tags(r, b);
        count = &r->tagged;
    }
    if (st == MAILDEX_STATUS_NOT_FOUND) {
        missing(r, what, b->message_id);
        return 0;
    }
    if (st != MAILDEX_STATUS_OK)
        return cli_error(r->cli, "%s", maildex_db_errmsg(db));
    if (count)
        (*count)++;
    return 0;
}

static int restore_line(struct restore *r, const char *line)
{
    maildex_batch_line_t *b = NULL;
    char *error = NULL;
    maildex_status_t st;
    unsigned flags;
    int rc = 0;

    /* A part not restored is not read either: its lines cannot make the restore fail. */
    if ((strncmp(line, "#=", 2) == 0 && !(r->include & INCLUDE_PROPERTIES)) ||
        (strncmp(line, "#@", 2) == 0 && !(r->include & INCLUDE_CONFIG)))
        return 0;
    if (r->format == RESTORE_FORMAT_AUTO && line[strspn(line, " \t")] != '\0' && line[0] != '#')
        r->format = detect(line);
    flags = MAILDEX_BATCH_RESTORE | (r->format == RESTORE_FORMAT_SUP ? MAILDEX_BATCH_SUP : 0);
    st = maildex_batch_line_parse(line, flags, &b, &error);
    if (st == MAILDEX_STATUS_INVALID_ARGUMENT) {
        fprintf(r->cli->err, "%s\n", error);
        r->bad_line = true;
    } else if (st != MAILDEX_STATUS_OK) {
        rc = cli_error(r->cli, "%s", maildex_status_to_string(st));
    } else if (b) {
        rc = apply(r, b);
    }
    free(error);
    maildex_batch_line_free(b);
    return rc;
}

/* Reads up to BATCH lines into lines; -1 when the input cannot be read (*why says why). */
static int read_batch(gzFile in, GPtrArray *lines, const char **why)
{
    GString *line = g_string_new(NULL);
    int got = 1;

    g_ptr_array_set_size(lines, 0);
    while (lines->len < BATCH && (got = read_line(in, line, why)) > 0)
        g_ptr_array_add(lines, g_strdup(line->str));
    g_string_free(line, TRUE);
    return got < 0 ? -1 : 0;
}

/* Applies lines in one transaction: the write lock is held only while they are applied, never while
 * the input is read (a dump coming slowly through a pipe must not make other writers wait). */
static int restore_batch(struct restore *r, GPtrArray *lines)
{
    maildex_db_t *db = r->cli->db;
    int rc = 0;

    if (lines->len == 0)
        return 0;
    if (maildex_db_begin_atomic(db) != MAILDEX_STATUS_OK)
        return cli_error(r->cli, "%s", maildex_db_errmsg(db));
    for (guint i = 0; i < lines->len && rc == 0; i++)
        rc = restore_line(r, lines->pdata[i]);
    /* A failure rolled the batch back (and reported it); the batches before it stay. */
    if (maildex_db_end_atomic(db) != MAILDEX_STATUS_OK && rc == 0)
        rc = cli_error(r->cli, "%s", maildex_db_errmsg(db));
    return rc;
}

int restore_lines(struct restore *r, gzFile in, const char *name)
{
    GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
    const char *why = NULL;
    int got, rc = 0;

    do {
        got = read_batch(in, lines, &why);
        rc = restore_batch(r, lines);
    } while (rc == 0 && got == 0 && lines->len == BATCH);
    if (rc == 0 && got < 0)
        rc = cli_error(r->cli, "cannot read '%s': %s", name, why);
    g_ptr_array_free(lines, TRUE);
    return rc;
}
