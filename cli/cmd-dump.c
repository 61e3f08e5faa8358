/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex dump`: notmuch 0.37's dump (notmuch-dump.c). A header, the database's config ("#@"), then
 * each matching message's tags and properties ("#="), one line each, in the batch-tag or sup format
 * (notmuch-compat.md 5.2). Everything is read in one read transaction, so a dump written while `new`
 * runs is one consistent state, and streamed: memory does not grow with the store. --output writes a
 * file created 0600 beside the target and renamed over it once complete and synced; --gzip
 * compresses through zlib. The lines themselves are the library's (lib/tag/batch-line.c). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

enum { DUMP_BATCH_TAG, DUMP_SUP };

struct dump {
    struct cli *cli;
    gzFile out;
    const char *name; /* the output's name in messages */
    int format, include;
    bool failed;      /* a write failed (reported) */
};

/* Writes line and a newline; reports the first failure. */
static void put(struct dump *d, const char *line)
{
    int err;

    if (d->failed)
        return;
    if (gzputs(d->out, line) < 0 || gzputc(d->out, '\n') < 0) {
        const char *msg = gzerror(d->out, &err);
        cli_error(d->cli, "cannot write '%s': %s", d->name, err == Z_ERRNO ? strerror(errno) : msg);
        d->failed = true;
    }
}

/* Puts a line the library formatted, or reports why it could not. */
static int put_formatted(struct dump *d, maildex_status_t st, char *line, const char *id)
{
    if (st == MAILDEX_STATUS_INVALID_ARGUMENT) {
        fprintf(d->cli->err, "Warning: skipping message id containing line break: \"%s\"\n", id);
        return 0;
    }
    if (st != MAILDEX_STATUS_OK)
        return cli_error(d->cli, "%s", maildex_status_to_string(st));
    if (line)
        put(d, line);
    free(line);
    return d->failed;
}

static int dump_config(struct dump *d)
{
    const maildex_pair_t *pairs;
    maildex_status_t st = maildex_db_config_list(d->cli->db, "", &pairs);
    char *line;
    int rc = 0;

    if (st != MAILDEX_STATUS_OK)
        return cli_error(d->cli, "%s", maildex_db_errmsg(d->cli->db));
    for (size_t i = 0; pairs[i].key && rc == 0; i++) {
        st = maildex_batch_format_config(pairs[i].key, pairs[i].value, &line);
        rc = put_formatted(d, st, line, pairs[i].key);
    }
    return rc;
}

static int dump_message(struct dump *d, maildex_message_t *m)
{
    const char *id = maildex_message_id(m);
    const char *const *tags;
    const maildex_pair_t *props;
    maildex_status_t st = MAILDEX_STATUS_OK;
    char *line = NULL;
    size_t n = 0;
    int rc = 0;

    if (d->include & INCLUDE_TAGS) {
        st = maildex_message_tags(m, &tags);
        if (st == MAILDEX_STATUS_OK)
            st = maildex_batch_format_tags(id, tags, d->format == DUMP_SUP, &line);
        rc = st == MAILDEX_STATUS_OK || st == MAILDEX_STATUS_INVALID_ARGUMENT
                 ? put_formatted(d, st, line, id)
                 : cli_error(d->cli, "%s", maildex_db_errmsg(d->cli->db));
    }
    if (rc == 0 && (d->include & INCLUDE_PROPERTIES)) {
        st = maildex_message_properties(m, &props);
        while (st == MAILDEX_STATUS_OK && props[n].key)
            n++;
        if (st == MAILDEX_STATUS_OK)
            st = maildex_batch_format_properties(id, props, n, &line);
        rc = st == MAILDEX_STATUS_OK || st == MAILDEX_STATUS_INVALID_ARGUMENT
                 ? put_formatted(d, st, line, id)
                 : cli_error(d->cli, "%s", maildex_db_errmsg(d->cli->db));
    }
    return rc;
}

static int dump_messages(struct dump *d, const char *query)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_messages_t *it;
    maildex_message_t *m;
    maildex_status_t st;
    int rc;

    /* Oldest first: the order a store is usually filled in, and the same for every index of the same
     * mail (notmuch's own order is its document ids', which no other index shares). */
    opts.sort = MAILDEX_SORT_OLDEST_FIRST;
    opts.exclude = MAILDEX_EXCLUDE_FALSE;
    if ((rc = cli_query_create(d->cli, query, &opts, &q)) != 0)
        return rc;
    st = maildex_query_search_messages(q, &it);
    while (st == MAILDEX_STATUS_OK && rc == 0 &&
           (st = maildex_messages_next(it, &m)) == MAILDEX_STATUS_OK && m)
        rc = dump_message(d, m);
    if (st != MAILDEX_STATUS_OK)
        rc = cli_error(d->cli, "%s", maildex_db_errmsg(d->cli->db));
    maildex_query_destroy(q);
    return rc;
}

static int dump(struct dump *d, const char *query)
{
    const char *names[] = {"config", "properties", "tags"};
    char *header = talloc_asprintf(d->cli->ctx, "#notmuch-dump %s:3 ",
                                   d->format == DUMP_SUP ? "sup" : "batch-tag");
    const char *sep = "";
    int rc = 0;

    for (int i = 0; i < 3; i++)
        if (d->include & (1 << i)) {
            header = talloc_asprintf_append(header, "%s%s", sep, names[i]);
            sep = ",";
        }
    put(d, header);
    if (maildex_db_begin_read(d->cli->db) != MAILDEX_STATUS_OK)
        return cli_error(d->cli, "%s", maildex_db_errmsg(d->cli->db));
    if (d->include & INCLUDE_CONFIG)
        rc = dump_config(d);
    if (rc == 0 && (d->include & (INCLUDE_TAGS | INCLUDE_PROPERTIES)))
        rc = dump_messages(d, query);
    maildex_db_end_read(d->cli->db);
    return rc ? rc : d->failed;
}

/* Finishes the output: flushes, syncs a file and gives it its name. Returns 0 or 1 (reported). */
static int finish(struct dump *d, int fd, const char *tmp, const char *output)
{
    const char *why = NULL;
    int err;

    if (gzflush(d->out, Z_FINISH) != Z_OK) {
        why = gzerror(d->out, &err);
        if (err == Z_ERRNO)
            why = strerror(errno);
    } else if (output && fsync(fd) != 0) {
        why = strerror(errno);
    }
    if (gzclose_w(d->out) != Z_OK && why == NULL)
        why = strerror(errno);
    if (why)
        return cli_error(d->cli, "cannot write '%s': %s", d->name, why);
    if (output && rename(tmp, output) != 0)
        return cli_error(d->cli, "cannot rename '%s' to '%s': %s", tmp, output, strerror(errno));
    return 0;
}

int cmd_dump(struct cli *cli, int argc, char **argv)
{
    struct dump d = {.cli = cli, .format = DUMP_BATCH_TAG, .name = "stdout"};
    const char *output = NULL;
    bool gzip = false;
    static const struct keyword formats[] = {{"batch-tag", DUMP_BATCH_TAG}, {"sup", DUMP_SUP}, {NULL, 0}};
    const struct option opts[] = {
        {OPT_KEYWORD, "format", &d.format, formats, NULL, NULL},
        {OPT_FLAGS, "include", &d.include, dump_include_keywords, NULL, NULL},
        {OPT_STRING, "output", &output, NULL, NULL, NULL},
        {OPT_BOOL, "gzip", &gzip, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts), fd, rc;
    char *tmp = NULL, *query;

    if (first < 0)
        return -first;
    if (d.include == 0)
        d.include = INCLUDE_CONFIG | INCLUDE_PROPERTIES | INCLUDE_TAGS;
    query = first < argc ? cli_query_string(cli->ctx, argc - first, argv + first)
                         : talloc_strdup(cli->ctx, "*");
    if (output) {
        /* Beside the target, so the rename is atomic; mkstemp makes it 0600. */
        tmp = talloc_asprintf(cli->ctx, "%s.XXXXXX", output);
        fd = mkstemp(tmp);
        d.name = output;
    } else {
        fd = dup(fileno(cli->out));
    }
    if (fd < 0 && output)
        return cli_error(cli, "cannot create a file beside '%s': %s", output, strerror(errno));
    if (fd < 0)
        return cli_error(cli, "cannot write to stdout: %s", strerror(errno));
    if ((d.out = gzdopen(fd, gzip ? "w9" : "wT")) == NULL) {
        close(fd);
        rc = cli_error(cli, "cannot open '%s' for writing: %s", d.name, strerror(errno));
    } else {
        fflush(cli->out); /* nothing printed before may follow the dump */
        rc = dump(&d, query);
        rc = rc ? (gzclose_w(d.out), rc) : finish(&d, fd, tmp, output);
    }
    if (rc && tmp)
        unlink(tmp);
    return rc;
}
