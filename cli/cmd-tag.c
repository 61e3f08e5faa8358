/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex tag`: notmuch 0.37's tag command (notmuch-tag.c, tag-util.c). Tag changes from the command
 * line (`+TAG -TAG ... [--] QUERY`) or, with --batch, one change per input line in notmuch's batch
 * syntax (tags hex-encoded, `--` optional, the query as written), which is what notmuch.el sends for
 * every tag change; each line is one call of the library, so one transaction. Excluded tags do not
 * apply, as in notmuch. A bad batch line is reported with the line ("Warning: ... [LINE]", notmuch's
 * words), the others are applied, and the exit status is 1; a line that cannot be applied (a tag too
 * long, a query that does not parse, the database) stops the batch there, as notmuch's does.
 * Command-line usage errors keep notmuch's meaning and exit status but are maildex's ("maildex tag:
 * ..."), naming the argument. Tagging itself, Maildir flag renames included, is the library's. */
#include "cli.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tagging {
    struct cli *cli;
    unsigned flags;
};

static int apply(struct tagging *t, const char *query, const maildex_tag_op_t *ops, size_t nops)
{
    maildex_query_options_t opts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_status_t st;
    int rc;

    opts.exclude = MAILDEX_EXCLUDE_FALSE;
    if ((rc = cli_query_create(t->cli, query, &opts, &q)) != 0)
        return rc;
    st = maildex_query_tag(q, ops, nops, t->flags, NULL);
    maildex_query_destroy(q);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(t->cli, "%s", maildex_db_errmsg(t->cli->db));
    return 0;
}

/* One batch line: "+tag -tag ... [--] query", tags hex-encoded, parsed by the library as notmuch's
 * parse_tag_line parses it (lib/tag/batch-line.c, which restore reads its lines with too), its warnings
 * word for word (scripts and notmuch's tests read them). 0: applied or skipped; -1: the line was bad
 * (warned), and the batch goes on; otherwise it could not be applied (the error printed), and the
 * batch stops. */
static int batch_line(struct tagging *t, const char *line)
{
    maildex_batch_line_t *b = NULL;
    char *warning = NULL;
    maildex_status_t st = maildex_batch_line_parse(line, 0, &b, &warning);
    int rc = 0;

    if (st == MAILDEX_STATUS_INVALID_ARGUMENT) {
        fprintf(t->cli->err, "%s\n", warning);
        rc = -1;
    } else if (st != MAILDEX_STATUS_OK) {
        rc = cli_error(t->cli, "%s", maildex_status_to_string(st));
    } else if (b) {
        rc = apply(t, b->query, b->ops, b->nops);
    }
    free(warning);
    maildex_batch_line_free(b);
    return rc;
}

static int tag_batch(struct tagging *t, FILE *in)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    int rc = 0;

    while ((len = getline(&line, &size, in)) >= 0) {
        int r;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        r = batch_line(t, line);
        if (r != 0)
            rc = EXIT_FAILURE;
        if (r > 0)
            break;
    }
    free(line);
    return rc;
}

/* `+TAG -TAG ... [--] QUERY` into ops and *query, with notmuch's usage errors said by maildex.
 * Returns 0, or 1 when the command line is wrong (reported). */
static int command_line(struct cli *cli, int argc, char **argv, bool remove_all, GArray *ops,
                        char **query)
{
    int i;

    for (i = 0; i < argc; i++) {
        maildex_tag_op_t op;
        const char *bad;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (argv[i][0] != '+' && argv[i][0] != '-')
            break;
        op.add = argv[i][0] == '+';
        op.tag = argv[i] + 1;
        if (maildex_tag_check(op.tag, op.add, &bad) != MAILDEX_STATUS_OK)
            return cli_error(cli, "invalid tag change '%s': %s", argv[i], bad);
        g_array_append_val(ops, op);
    }
    if (ops->len == 0 && !remove_all)
        return cli_error(cli, "requires at least one tag to add or remove (+TAG or -TAG)");
    *query = cli_query_string(cli->ctx, argc - i, argv + i);
    if (**query == '\0')
        return cli_error(cli, "requires at least one search term after the tags (use '*' for "
                              "every message)");
    return 0;
}

int cmd_tag(struct cli *cli, int argc, char **argv)
{
    struct tagging t = {.cli = cli};
    bool batch = false, remove_all = false, sync_flags;
    const char *input = NULL;
    const struct option opts[] = {
        {OPT_BOOL, "batch", &batch, NULL, NULL, NULL},
        {OPT_STRING, "input", &input, NULL, NULL, NULL},
        {OPT_BOOL, "remove-all", &remove_all, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts), rc;
    GArray *ops = NULL;
    char *error, *query = NULL;
    FILE *in = cli->in;

    if (first < 0)
        return -first;
    if (input)
        batch = true;
    if (batch && first < argc)
        return cli_error(cli, "'%s': with --batch or --input the tag changes and queries are read "
                              "from the input, not the command line",
                         argv[first]);
    if (!batch) {
        ops = g_array_new(FALSE, FALSE, sizeof(maildex_tag_op_t));
        if ((rc = command_line(cli, argc - first, argv + first, remove_all, ops, &query)) != 0)
            goto done;
    }
    if ((rc = config_get_bool(cli->ctx, cli->config, "maildir.synchronize_flags", true,
                              &sync_flags, &error)) != 0) {
        rc = cli_error(cli, "%s", error);
        goto done;
    }
    t.flags = (sync_flags ? MAILDEX_TAG_SYNC_FLAGS : 0) | (remove_all ? MAILDEX_TAG_REMOVE_ALL : 0);
    if (!batch)
        rc = apply(&t, query, (maildex_tag_op_t *) ops->data, ops->len);
    else if (input && (in = fopen(input, "r")) == NULL)
        rc = cli_error(cli, "cannot open '%s': %s", input, strerror(errno));
    else
        rc = tag_batch(&t, in);
    if (in && in != cli->in)
        fclose(in);
done:
    if (ops)
        g_array_free(ops, TRUE);
    return rc;
}
