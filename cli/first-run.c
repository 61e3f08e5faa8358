/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex` with no command, as notmuch with none: without a config file it runs `setup` (on stdin,
 * terminal or not); with one but no database it says to run `new`; with both it prints the command
 * list. It must not create anything itself: setup and new do. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cli_first_run(struct cli *cli)
{
    char *args[] = {(char *) "setup", NULL};
    char *file;

    if (!cli->config->loaded && !(cli->config->path && *cli->config->path == '\0')) {
        cli->command = cli_find_command(cli, "setup");
        return cli->command->fn(cli, 1, args);
    }
    file = config_database_file(cli->ctx, cli->config);
    if (access(file, F_OK) != 0) {
        /* notmuch's words, with this program's name. */
        fprintf(cli->out, "%c%s is configured, but no database was found.\n"
               "You probably want to run \"%s new\" now to create a database.\n\n"
               "Note that the first run of \"%s new\" can take a very long time\n"
               "and that the resulting database will use roughly the same amount of\n"
               "storage space as the email being indexed.\n\n",
               g_ascii_toupper(cli_program[0]), cli_program + 1, cli_program, cli_program);
        return EXIT_SUCCESS;
    }
    args[0] = (char *) "help";
    return cmd_help(cli, 1, args);
}
