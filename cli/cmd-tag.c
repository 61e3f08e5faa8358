/* `maildex tag`: notmuch 0.37's tag command (notmuch-tag.c, tag-util.c). Tag changes from the command
 * line (`+TAG -TAG ... [--] QUERY`) or, with --batch, one change per input line in notmuch's batch
 * syntax (tags hex-encoded, `--` optional, the query as written), which is what notmuch.el sends for
 * every tag change. Excluded tags do not apply, as in notmuch. A bad batch line is reported with the
 * line ("Warning: ... [LINE]"), the others are applied, and the exit status is 1. Tagging itself,
 * Maildir flag renames included, is the library's. */
#include "cli.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tagging {
    struct cli *cli;
    unsigned flags;
};

/* notmuch's illegal_tag(): what is wrong with adding or removing tag, or NULL. */
static const char *illegal_tag(const char *tag, bool add)
{
    if (add && *tag == '\0')
        return "empty tag forbidden";
    if (add && *tag == '-')
        return "tag starting with '-' forbidden";
    return NULL;
}

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

static void line_warning(const char *what, const char *line)
{
    fprintf(stderr, "Warning: %s [%s]\n", what, line);
}

/* One batch line: "+tag -tag ... [--] query", tags hex-encoded. 0: applied or skipped; otherwise the
 * line was bad (warned) or could not be applied (the error printed), and the batch goes on. */
static int batch_line(struct tagging *t, void *ctx, char *line)
{
    GArray *ops = g_array_new(FALSE, FALSE, sizeof(maildex_tag_op_t));
    char *p = line, *query;
    int rc = 0;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '#')
        goto done;
    for (;;) {
        char *end = p + strcspn(p, " ");
        const char *bad;
        char *decoded;
        maildex_tag_op_t op;
        if (end - p == 2 && p[0] == '-' && p[1] == '-') { /* the rest is the query */
            p = end;
            break;
        }
        if (*p != '+' && *p != '-')
            break;
        op.add = *p == '+';
        decoded = g_uri_unescape_segment(p + 1, end, NULL);
        if (decoded == NULL) {
            char *raw = talloc_strndup(ctx, p + 1, (size_t) (end - p - 1));
            line_warning(talloc_asprintf(ctx, "hex decoding of tag %s failed", raw), line);
            rc = 1;
            goto done;
        }
        op.tag = talloc_strdup(ctx, decoded);
        g_free(decoded);
        if ((bad = illegal_tag(op.tag, op.add)) != NULL) {
            line_warning(bad, line);
            rc = 1;
            goto done;
        }
        g_array_append_val(ops, op);
        p = end;
        while (*p == ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    query = p;
    if (*query == '\0') {
        line_warning("no query string", line);
        rc = 1;
        goto done;
    }
    rc = apply(t, query, (maildex_tag_op_t *) ops->data, ops->len);
done:
    g_array_free(ops, TRUE);
    return rc;
}

static int tag_batch(struct tagging *t, FILE *in)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    int rc = 0;

    while ((len = getline(&line, &size, in)) >= 0) {
        void *ctx = talloc_new(t->cli->ctx);
        int r;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        r = batch_line(t, ctx, line);
        talloc_free(ctx);
        if (r != 0)
            rc = EXIT_FAILURE;
    }
    free(line);
    return rc;
}

int cmd_tag(struct cli *cli, int argc, char **argv)
{
    struct tagging t = {.cli = cli};
    bool batch = false, remove_all = false;
    const char *input = NULL;
    const struct option opts[] = {
        {OPT_BOOL, "batch", &batch, NULL, NULL, NULL},
        {OPT_STRING, "input", &input, NULL, NULL, NULL},
        {OPT_BOOL, "remove-all", &remove_all, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts), i, rc;
    GArray *ops;
    FILE *in = stdin;

    if (first < 0)
        return -first;
    if (config_get_bool(cli->config, "maildir.synchronize_flags", true))
        t.flags |= MAILDEX_TAG_SYNC_FLAGS;
    if (remove_all)
        t.flags |= MAILDEX_TAG_REMOVE_ALL;
    if (input)
        batch = true;
    if (batch) {
        if (first < argc) {
            fprintf(stderr, "Can't specify both cmdline and stdin!\n");
            return EXIT_FAILURE;
        }
        if (input && (in = fopen(input, "r")) == NULL)
            return cli_error(cli, "cannot open '%s': %m", input);
        rc = tag_batch(&t, in);
        if (in != stdin)
            fclose(in);
        return rc;
    }
    ops = g_array_new(FALSE, FALSE, sizeof(maildex_tag_op_t));
    for (i = first; i < argc; i++) {
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
        if ((bad = illegal_tag(op.tag, op.add)) != NULL) {
            g_array_free(ops, TRUE);
            fprintf(stderr, "Error: %s\n", bad);
            return EXIT_FAILURE;
        }
        g_array_append_val(ops, op);
    }
    if (ops->len == 0 && !remove_all) {
        g_array_free(ops, TRUE);
        fprintf(stderr, "Error: 'notmuch tag' requires at least one tag to add or remove.\n");
        return EXIT_FAILURE;
    }
    char *query = cli_query_string(cli->ctx, argc - i, argv + i);
    if (*query == '\0') {
        g_array_free(ops, TRUE);
        fprintf(stderr, "Error: notmuch tag requires at least one search term.\n");
        return EXIT_FAILURE;
    }
    rc = apply(&t, query, (maildex_tag_op_t *) ops->data, ops->len);
    g_array_free(ops, TRUE);
    return rc;
}
