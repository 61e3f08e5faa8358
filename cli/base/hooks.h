/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hooks.h: notmuch's hook contract (notmuch-hooks(5)). A hook is an executable named for its moment
 * (pre-new, post-new, post-insert: any name works) in the hook directory, the first of: database.hook_dir;
 * $XDG_CONFIG_HOME/notmuch/<profile>/hooks; notmuch's database directory's hooks/ (<database.path>/
 * .notmuch/hooks, or <database.path>/hooks beside a split layout's xapian/); then maildex's own,
 * $XDG_CONFIG_HOME/maildex/hooks and hooks/ beside maildex's database. It runs with no arguments, the
 * caller's working directory and environment, plus MAILDEX_CONFIG and NOTMUCH_CONFIG naming the
 * config file in use and, as `maildex exec` gives a client, maildex's libnotmuch.so.5 first on
 * LD_LIBRARY_PATH and a `notmuch` that runs maildex first on PATH (each when this build has it).
 * Whether a failed hook fails the command is the caller's choice. */
#ifndef MAILDEX_CLI_HOOKS_H
#define MAILDEX_CLI_HOOKS_H

#include "base.h"

/* Runs the named hook if it exists. Returns 0 when it is absent or succeeded; otherwise prints why on
 * stderr in notmuch's words ("Error: pre-new hook failed with status 3") and returns 1. */
int hook_run(struct cli *cli, const char *name);

/* The hook directory in use; talloc'd on ctx. */
char *hook_dir(void *ctx, struct cli *cli);

#endif
