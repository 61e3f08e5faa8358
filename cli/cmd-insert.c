/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex insert`: notmuch 0.37's insert command (notmuch-insert.c), what notmuch.el's Fcc and
 * drafts run: the message on standard input is delivered into a Maildir folder of the mail root and
 * indexed with new.tags and the +TAG/-TAG arguments (maildex_insert does both), then the post-insert
 * hook runs (its failure changes nothing, as in notmuch). Exit status as notmuch's: 0, 1 for what
 * is wrong with the command, the input or the folder, 75 (EX_TEMPFAIL) when the database could
 * not take the message now; with --keep a message that could not be indexed stays in the folder,
 * says so, and the exit status is 0. */
#include "cli.h"
#include "base/hooks.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_TEMPFAIL 75 /* sysexits.h's EX_TEMPFAIL */

/* new.tags, each checked as notmuch checks them before anything is delivered. */
static int new_tags(struct cli *cli, char ***out)
{
    char **tags = config_get_list(cli->ctx, cli->config, "new.tags");

    *out = tags;
    return cli_check_new_tags(cli, (const char *const *) tags);
}

/* The +TAG -TAG arguments, read as `tag` reads them (notmuch's parse_tag_command_line); what would
 * be its query is an error. */
static int tag_ops(struct cli *cli, int argc, char **argv, GArray *ops)
{
    for (int i = 0; i < argc; i++) {
        maildex_tag_op_t op = {argv[i] + 1, argv[i][0] == '+'};
        const char *why;
        if (strcmp(argv[i], "--") == 0 || (argv[i][0] != '+' && argv[i][0] != '-')) {
            int rest = strcmp(argv[i], "--") == 0 ? i + 1 : i;
            if (rest == argc)
                return 0;
            return cli_error(cli, "unexpected query string '%s': insert takes only +TAG and -TAG",
                             cli_query_string(cli->ctx, argc - rest, argv + rest));
        }
        if (maildex_tag_check(op.tag, op.add, &why) != MAILDEX_STATUS_OK)
            return cli_error(cli, "invalid tag change '%s': %s", argv[i], why);
        g_array_append_val(ops, op);
    }
    return 0;
}

static int exit_status(maildex_status_t st)
{
    switch (st) {
    case MAILDEX_STATUS_OK:
        return EXIT_SUCCESS;
    case MAILDEX_STATUS_DATABASE_BUSY:
    case MAILDEX_STATUS_NO_MEMORY:
    case MAILDEX_STATUS_IO_ERROR:
    case MAILDEX_STATUS_DATABASE_ERROR:
        return EXIT_TEMPFAIL;
    default:
        return EXIT_FAILURE;
    }
}

int cmd_insert(struct cli *cli, int argc, char **argv)
{
    const char *folder = "";
    bool create_folder = false, keep = false, hooks = true, world_readable = false, decrypt_given = false;
    int decrypt = MAILDEX_DECRYPT_AUTO;
    const struct option opts[] = {
        {OPT_STRING, "folder", &folder, NULL, NULL, NULL},
        {OPT_BOOL, "create-folder", &create_folder, NULL, NULL, NULL},
        {OPT_BOOL, "keep", &keep, NULL, NULL, NULL},
        {OPT_BOOL, "hooks", &hooks, NULL, NULL, NULL},
        {OPT_BOOL, "world-readable", &world_readable, NULL, NULL, NULL},
        {OPT_KEYWORD, "decrypt", &decrypt, cli_index_decrypt_keywords, NULL, &decrypt_given},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_insert_options_t io = {0};
    GArray *ops = g_array_new(FALSE, FALSE, sizeof(maildex_tag_op_t));
    char **tags = NULL, *path = NULL, *error;
    maildex_status_t st;
    int first = cli_start(cli, argc, argv, opts), rc;

    if (first < 0) {
        rc = -first;
        goto done;
    }
    if ((rc = new_tags(cli, &tags)) != 0 || (rc = tag_ops(cli, argc - first, argv + first, ops)) != 0)
        goto done;
    if ((rc = config_get_bool(cli->ctx, cli->config, "maildir.synchronize_flags", true,
                              &io.synchronize_flags, &error)) != 0) {
        rc = cli_error(cli, "%s", error);
        goto done;
    }
    io.folder = folder;
    io.create_folder = create_folder;
    io.world_readable = world_readable;
    io.keep = keep;
    io.new_tags = (const char *const *) tags;
    io.ops = (const maildex_tag_op_t *) ops->data;
    io.nops = ops->len;
    io.decrypt = cli_index_decrypt(cli, decrypt, decrypt_given);
    st = maildex_insert(cli->db, fileno(cli->in), &io, &path);
    if (st != MAILDEX_STATUS_OK && path) {
        fprintf(cli->err, "maildex insert: %s; the message is kept in '%s' for 'maildex new'\n",
                maildex_db_errmsg(cli->db), path);
        st = MAILDEX_STATUS_OK;
    } else if (st != MAILDEX_STATUS_OK) {
        cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    }
    rc = exit_status(st);
    /* The hook may write to the database itself. */
    cli_close_db(cli);
    if (rc == EXIT_SUCCESS && hooks)
        hook_run(cli, "post-insert");
done:
    free(path);
    g_array_free(ops, TRUE);
    return rc;
}
