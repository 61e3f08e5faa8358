/* SPDX-License-Identifier: GPL-3.0-or-later */
/* location.c: maildex_database_file(), the one rule for where maildex's database lives beside
 * notmuch's, shared by the command line (cli/config-file.c) and libnotmuch.so.5 so that both open the
 * same file for one configuration. A path rule only: it opens and creates nothing. */
#include "maildex.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char *maildex_database_file(const char *dir, bool split)
{
    char *file = NULL, *legacy = NULL;

    if (asprintf(&legacy, "%s/maildex.db", dir) < 0)
        return NULL;
    if (split)
        return legacy;
    if (asprintf(&file, "%s/.maildex/maildex.db", dir) < 0) {
        free(legacy);
        return NULL;
    }
    if (access(file, F_OK) != 0 && access(legacy, F_OK) == 0) {
        free(file);
        return legacy;
    }
    free(legacy);
    return file;
}
