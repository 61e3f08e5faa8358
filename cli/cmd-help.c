/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex help [COMMAND]` and `--help`: the command list (main.c's table, handed down as
 * cli->commands), or one command's usage. The full text is the man page; this is the reminder that
 * works without it. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_help(struct cli *cli, int argc, char **argv)
{
    const struct command *c;
    int width = 0;

    if (argc < 2) {
        for (c = cli->commands; c->name; c++) /* the summaries in one column, however long a name */
            width = MAX(width, (int) strlen(c->name));
        fprintf(cli->out, "Usage: maildex [--config=FILE] COMMAND [OPTIONS] [ARGS]\n\n"
               "maildex indexes the mail in your Maildirs and answers notmuch's queries.\n\n"
               "Commands:\n");
        for (c = cli->commands; c->name; c++)
            fprintf(cli->out, "  %-*s %s\n", width, c->name, c->summary);
        fprintf(cli->out, "\nGlobal options: --config=FILE, --version, --help.\n"
               "Use 'maildex help COMMAND' for one command, and 'man maildex' for all.\n");
        return EXIT_SUCCESS;
    }
    c = cli_find_command(cli, argv[1]);
    if (c == NULL) {
        fprintf(cli->err, "maildex help: no command '%s' (see 'maildex help')\n", argv[1]);
        return EXIT_FAILURE;
    }
    cli_print_usage(cli, c);
    return EXIT_SUCCESS;
}
