/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex compact`: notmuch 0.37's compact (notmuch-compact.c). --backup=DIR keeps the database as it
 * was in DIR (a new directory, as notmuch wants it), --quiet prints nothing; otherwise notmuch's
 * lines and the sizes before and after. How the database is rebuilt and swapped without a reader
 * ever seeing an error is the library's (lib/store/compact.c). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cmd_compact(struct cli *cli, int argc, char **argv)
{
    const char *backup = NULL;
    bool quiet = false;
    const struct option opts[] = {
        {OPT_STRING, "backup", &backup, NULL, NULL, NULL},
        {OPT_BOOL, "quiet", &quiet, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts);
    uint64_t before = 0, after = 0;
    char *file = NULL, *base;
    maildex_status_t st;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if (backup) {
        if (mkdir(backup, 0700) != 0)
            return cli_error(cli, "cannot create the backup directory '%s': %s%s", backup, strerror(errno),
                             errno == EEXIST ? " (it must not exist yet)" : "");
        base = g_path_get_basename(maildex_db_path(cli->db));
        file = talloc_asprintf(cli->ctx, "%s/%s", backup, base);
        g_free(base);
    }
    if (!quiet)
        fprintf(cli->out, "Compacting database...\n");
    fflush(cli->out);
    st = maildex_db_compact(cli->db, file, &before, &after);
    if (st != MAILDEX_STATUS_OK) {
        if (backup)
            rmdir(backup); /* only when nothing was left in it */
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    }
    if (!quiet) {
        fprintf(cli->out, "Compacted database '%s' from %llu to %llu bytes.\n", maildex_db_path(cli->db),
               (unsigned long long) before, (unsigned long long) after);
        if (backup)
            fprintf(cli->out, "The old database has been moved to %s.\n", backup);
        fprintf(cli->out, "Done.\n");
    }
    return 0;
}
