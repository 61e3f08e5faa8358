/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex help [COMMAND|TOPIC]` and `--help`: the command list (main.c's table, handed down as
 * cli->commands, each with its man page's summary), or one command's help, which is exactly what
 * `COMMAND --help` prints (the command is run with --help: its own option table meets its page,
 * cli_print_help), or a topic's page (maildex-hooks(5), maildex-search-terms(7)). On a terminal an
 * installed man page is shown instead of the text, as notmuch's help does. */
#include "cli.h"
#include "base/help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_list(struct cli *cli)
{
    fprintf(cli->out, "Usage: maildex [--config=FILE] COMMAND [OPTIONS] [ARGS]\n\n"
           "maildex indexes the mail in your Maildirs and answers notmuch's queries.\n\n"
           "Commands:\n");
    int width = 0;

    for (const struct command *c = cli->commands; c->name; c++) /* one column, however long a name */
        width = MAX(width, (int) strlen(c->name));
    for (const struct command *c = cli->commands; c->name; c++)
        fprintf(cli->out, "  %-*s %c%s\n", width, c->name, g_ascii_toupper(cli_command_summary(c)[0]),
                cli_command_summary(c)[0] ? cli_command_summary(c) + 1 : "");
    fprintf(cli->out, "\nMore pages:\n");
    for (const struct help_page *p = help_pages; p->name; p++)
        if (p->section != '1')
            fprintf(cli->out, "  %s(%c)%*s %s\n", p->name, p->section, (int) (24 - strlen(p->name)), "",
                    p->summary);
    fprintf(cli->out, "\nGlobal options: --config=FILE, --version, --help.\n"
           "Use 'maildex help COMMAND' for a command, 'maildex help hooks' for maildex-hooks(5) (and so\n"
           "on), and 'man maildex' for all.\n");
}

/* A page that is no command's: man's, or where to read it. */
static int print_topic(struct cli *cli, const struct help_page *p)
{
    if (cli_help_man(cli, p->section, p->name))
        return EXIT_SUCCESS;
    fprintf(cli->out, "%s(%c): %s.\n\nRead it with 'man %c %s' (installed with maildex).\n", p->name,
            p->section, p->summary, p->section, p->name);
    return EXIT_SUCCESS;
}

int cmd_help(struct cli *cli, int argc, char **argv)
{
    const struct option none[] = {{OPT_END, NULL, NULL, NULL, NULL, NULL}};
    const struct command *c;
    const struct help_page *p;
    char *args[3], *page;
    int first, status;

    /* `maildex --help` and `maildex` alone come here without a command of their own. */
    if (cli->command == NULL)
        cli->command = cli_find_command(cli, "help");
    if ((first = cli_start(cli, argc, argv, none)) < 0)
        return -first;
    if (first >= argc) {
        print_list(cli);
        return EXIT_SUCCESS;
    }
    if ((c = cli_find_command(cli, argv[first])) != NULL) {
        args[0] = (char *) c->name, args[1] = (char *) "--help", args[2] = NULL;
        cli->command = c;
        status = c->fn(cli, 2, args);
        return status == CLI_STATUS_HELPED ? EXIT_SUCCESS : status;
    }
    page = talloc_asprintf(cli->ctx, "maildex-%s", argv[first]);
    if (page && (p = cli_help_page(page, 0)) != NULL)
        return print_topic(cli, p);
    fprintf(cli->err, "maildex help: no command or topic '%s' (see 'maildex help')\n", argv[first]);
    return EXIT_FAILURE;
}
