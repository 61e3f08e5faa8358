/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error messages on the command's stderr, with the program's name and the command's, as notmuch words
 * them (and git: what is wrong first, the subject quoted). Every command, printer and the loop report
 * through these; nothing here decides an exit status beyond returning EXIT_FAILURE. */
#include "base.h"

#include <stdarg.h>
#include <stdlib.h>

const char *cli_program = "maildex";

int cli_option_error(struct cli *cli, int parsed, const char *error)
{
    if (parsed == OPTIONS_UNRECOGNIZED) {
        fprintf(cli ? cli->err : stderr, "%s\n", error);
        return EXIT_FAILURE;
    }
    return cli_error(cli, "%s", error);
}

int cli_error(struct cli *cli, const char *fmt, ...)
{
    FILE *err = cli ? cli->err : stderr;
    va_list ap;

    fprintf(err, "%s%s%s: ", cli_program, cli && cli->command ? " " : "",
            cli && cli->command ? cli->command->name : "");
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
    fputc('\n', err);
    return EXIT_FAILURE;
}
