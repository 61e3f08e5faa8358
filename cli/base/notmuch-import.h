/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch-import.h: a notmuch user's tags carried over into maildex's store (notmuch-import.c).
 * notmuch's tags, message properties and stored config (named queries) come through the real
 * `notmuch dump` for the same config and are applied as `restore` applies a dump: once by the first
 * `new` of a store made empty, and whenever `import-notmuch` asks. Beside it, maildex's store is named
 * in new.ignore when it lies inside the mail root, so that `notmuch new` run beside maildex passes
 * over it. */
#ifndef MAILDEX_CLI_NOTMUCH_IMPORT_H
#define MAILDEX_CLI_NOTMUCH_IMPORT_H

#include "base.h"

/* What an import found and did, for notmuch_import_print to say after new's report. */
struct notmuch_import {
    bool accumulate;       /* notmuch's tags added to the store's, as `restore --accumulate` */
    bool imported;         /* a dump was applied: the counts below say what */
    bool no_program;       /* notmuch has a database, but no notmuch program was found */
    const char *xapian;    /* notmuch's database, when there is one */
    const char *ignored;   /* the new.ignore entry added to the config file, or NULL */
    const char *config;    /* that file */
    uint64_t tagged, properties, config_values, missing;
};

/* For `new`, after indexing, on cli->db open for writing: when the store's record says "pending" (a
 * store made empty that notmuch's tags never reached) and new.import_notmuch is not false, imports
 * from notmuch's database for this config if there is one and records "done" in the same
 * transaction; records why not otherwise ("none": no notmuch database; "off": new.import_notmuch is
 * false; "manual": no notmuch program, and the way to do it by hand will be said, unless quiet, when
 * it is left "pending"). A failure is reported on stderr and leaves "pending", so the next `new` tries
 * again; it does not fail `new`. */
void notmuch_import_first_run(struct cli *cli, struct notmuch_import *imp, bool quiet);

/* For `import-notmuch`: the same import on demand, whatever the record says, merged into the store as
 * `restore` merges a dump. Returns 0, or 1 after saying why nothing was imported. */
int notmuch_import_now(struct cli *cli, struct notmuch_import *imp);

/* Says on cli->out what was imported and what was added to the config, and on cli->err the way to
 * import by hand when there was no notmuch program. */
void notmuch_import_print(struct cli *cli, const struct notmuch_import *imp);

#endif
