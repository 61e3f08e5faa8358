/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex count`: notmuch 0.37's count command (notmuch-count.c): the number of matching messages,
 * threads or files, one query from argv or one per input line with --batch (an empty line counts
 * everything), optionally followed by the database UUID and revision (--lastmod). Counting is the
 * library's; this file reads options and prints numbers. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum count_output { COUNT_MESSAGES, COUNT_THREADS, COUNT_FILES };

struct count {
    struct cli *cli;
    int output, exclude;
    bool lastmod;
};

static int count_one(struct count *c, const char *text)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_status_t st;
    uint64_t n = 0;
    int rc;

    opts.exclude = (maildex_exclude_t) c->exclude;
    if ((rc = cli_query_create(c->cli, text, &opts, &q)) != 0)
        return rc;
    st = c->output == COUNT_THREADS ? maildex_query_count_threads(q, &n)
         : c->output == COUNT_FILES ? maildex_query_count_files(q, &n)
                                    : maildex_query_count_messages(q, &n);
    maildex_query_destroy(q);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(c->cli, "%s", maildex_db_errmsg(c->cli->db));
    if (c->lastmod) {
        const char *uuid;
        uint64_t revision;
        if (maildex_db_revision(c->cli->db, &uuid, &revision) != MAILDEX_STATUS_OK)
            return cli_error(c->cli, "%s", maildex_db_errmsg(c->cli->db));
        fprintf(c->cli->out, "%llu\t%s\t%llu\n", (unsigned long long) n, uuid, (unsigned long long) revision);
    } else {
        fprintf(c->cli->out, "%llu\n", (unsigned long long) n);
    }
    return 0;
}

static int count_batch(struct count *c, FILE *in)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    int rc = 0;

    while (rc == 0 && (len = getline(&line, &size, in)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = '\0';
        rc = count_one(c, line);
    }
    free(line);
    return rc;
}

int cmd_count(struct cli *cli, int argc, char **argv)
{
    static const struct keyword outputs[] = {{"messages", COUNT_MESSAGES}, {"threads", COUNT_THREADS},
                                             {"files", COUNT_FILES}, {NULL, 0}};
    static const struct keyword excludes[] = {{"true", MAILDEX_EXCLUDE_TRUE},
                                              {"false", MAILDEX_EXCLUDE_FALSE}, {NULL, 0}};
    struct count c = {.cli = cli};
    bool batch = false;
    const char *input = NULL;
    const struct option opts[] = {
        {OPT_KEYWORD, "output", &c.output, outputs, NULL, NULL},
        {OPT_KEYWORD, "exclude", &c.exclude, excludes, NULL, NULL},
        {OPT_BOOL, "batch", &batch, NULL, NULL, NULL},
        {OPT_STRING, "input", &input, NULL, NULL, NULL},
        {OPT_BOOL, "lastmod", &c.lastmod, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts), rc;
    FILE *in = cli->in;

    if (first < 0)
        return -first;
    if (input && !batch)
        batch = true;
    if (batch && first < argc)
        return cli_error(cli, "--batch and a query on the command line are mutually exclusive");
    if (!batch)
        return count_one(&c, cli_query_string(cli->ctx, argc - first, argv + first));
    if (input && (in = fopen(input, "r")) == NULL)
        return cli_error(cli, "cannot open '%s': %m", input);
    rc = count_batch(&c, in);
    if (in != cli->in)
        fclose(in);
    return rc;
}
