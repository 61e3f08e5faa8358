/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The start every command gets through cli_start(): its options and the shared ones, --help (the
 * command's help from its man page, against the table it has here: help.c), the format version, the database opened as the
 * command's flags say, --uuid checked against it; and finding a command in the table main hands
 * down (cli->commands). Commands never repeat this, and nothing here knows any one command. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command *cli_find_command(const struct cli *cli, const char *name)
{
    for (const struct command *c = cli->commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static int check_format_version(struct cli *cli)
{
    if (cli->format_version < FORMAT_VERSION_MIN) {
        fprintf(cli->err,
                "A caller requested output format version %d, which is no longer supported\n"
                "by the maildex CLI (it requires at least version %d).  You may need to\n"
                "upgrade your notmuch front-end.\n",
                cli->format_version, FORMAT_VERSION_MIN);
        return EXIT_FORMAT_TOO_OLD;
    }
    if (cli->format_version > FORMAT_VERSION_CURRENT) {
        fprintf(cli->err,
                "A caller requested output format version %d, but the installed maildex\n"
                "CLI only supports up to format version %d.  You may need to upgrade your\n"
                "maildex CLI.\n",
                cli->format_version, FORMAT_VERSION_CURRENT);
        return EXIT_FORMAT_TOO_NEW;
    }
    return 0;
}

/* --uuid names the database a caller read lastmod values from: another database (rebuilt, or a
 * different one) must not be read or written as if it were that one. notmuch's wording and status. */
static int check_uuid(struct cli *cli)
{
    const char *uuid = NULL;
    maildex_status_t st;

    if (cli->uuid == NULL)
        return 0;
    st = maildex_db_revision(cli->db, &uuid, NULL);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (strcmp(cli->uuid, uuid) != 0) {
        fprintf(cli->err, "Error: requested database revision %s does not match %s\n", cli->uuid, uuid);
        return EXIT_FAILURE;
    }
    return 0;
}

/* Without a config file (a named one missing, or none anywhere) only the commands that make one or
 * need none run: notmuch's words and status (a maildex names the file, or where it looked, too);
 * nothing runs on defaults. After --help, which needs no config. */
static int check_config(struct cli *cli)
{
    char *missing;

    if ((cli->command->flags & CMD_CONFIG_CREATE) || ((cli->command->flags & CMD_NO_CONFIG) && cli->config->none))
        return 0;
    missing = config_missing(cli->ctx, cli->config, strcmp(cli_program, "notmuch") != 0);
    if (missing == NULL)
        return 0;
    fprintf(cli->err, "%s\nTry running '%s setup' to create a configuration.\n", missing, cli_program);
    return EXIT_FAILURE;
}

int cli_start(struct cli *cli, int argc, char **argv, const struct option *opts)
{
    static const struct keyword syntaxes[] = {{"infix", MAILDEX_QUERY_INFIX}, {"sexp", MAILDEX_QUERY_SEXP},
                                              {NULL, 0}};
    bool help = false;
    const struct option query[] = {
        {OPT_KEYWORD, "query", &cli->query_syntax, syntaxes, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    const struct option shared[] = {
        {OPT_INT, "format-version", &cli->format_version, NULL, NULL, NULL},
        {OPT_BOOL, "help", &help, NULL, NULL, NULL},
        {OPT_STRING, "uuid", &cli->uuid, NULL, NULL, NULL},
        {OPT_INHERIT, NULL, NULL, NULL, (cli->command->flags & CMD_QUERY) ? query : query + 1, NULL},
        {OPT_INHERIT, NULL, NULL, NULL, opts, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    char *error = NULL;
    int first = options_parse(cli->ctx, argc, argv, 1, shared, &error), rc;
    const int flags = cli->command->flags;

    if (first < 0)
        return -cli_option_error(cli, first, error);
    if (help) { /* the command does not run; its help page is its output */
        cli_print_help(cli, shared);
        return -CLI_STATUS_HELPED;
    }
    if ((rc = check_config(cli)) != 0 || (rc = check_format_version(cli)) != 0)
        return -rc;
    if (flags & (CMD_DB_READ | CMD_DB_WRITE | CMD_DB_CREATE)) {
        maildex_db_mode_t mode = (flags & CMD_DB_CREATE)  ? MAILDEX_DB_CREATE
                                 : (flags & CMD_DB_WRITE) ? MAILDEX_DB_READ_WRITE
                                                          : MAILDEX_DB_READ_ONLY;
        if ((rc = cli_open_db(cli, mode)) != 0 || (rc = check_uuid(cli)) != 0)
            return -rc;
    } else if (cli->uuid) {
        fprintf(cli->err, "Warning: ignoring --uuid=%s\n", cli->uuid);
    }
    return first;
}
