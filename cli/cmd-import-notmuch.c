/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex import-notmuch`: notmuch's tags, message properties and stored config (named queries)
 * carried over into maildex's store on demand, through the real `notmuch dump` for the same config,
 * and merged as `restore` merges a dump: the messages notmuch has get its tags (added to theirs with
 * --accumulate), the others keep theirs. `new` does the same once by itself on a store's first run.
 * The import is base/notmuch-import.c's; this file reads options and says what was done. */
#include "cli.h"
#include "base/notmuch-import.h"

#include <stdlib.h>

int cmd_import_notmuch(struct cli *cli, int argc, char **argv)
{
    struct notmuch_import imp = {0};
    bool quiet = false;
    const struct option opts[] = {
        {OPT_BOOL, "accumulate", &imp.accumulate, NULL, NULL, NULL},
        {OPT_BOOL, "quiet", &quiet, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts), rc;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    rc = notmuch_import_now(cli, &imp);
    if (!quiet)
        notmuch_import_print(cli, &imp);
    return rc;
}
