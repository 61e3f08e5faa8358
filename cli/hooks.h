/* hooks.h: notmuch's hook contract. A hook is an executable named pre-new, post-new or post-insert in
 * the hook directory (database.hook_dir, else $XDG_CONFIG_HOME/maildex/hooks when it exists, else
 * hooks/ beside the database); it runs with no arguments, the caller's working directory and
 * environment, plus MAILDEX_CONFIG and NOTMUCH_CONFIG naming the config file in use. */
#ifndef MAILDEX_CLI_HOOKS_H
#define MAILDEX_CLI_HOOKS_H

#include "cli.h"

/* Runs the named hook if it exists. Returns 0 when it is absent or succeeded; otherwise prints why
 * on stderr ("pre-new hook failed with status 3", "... is not executable") and returns 1. */
int hook_run(struct cli *cli, const char *name);

/* The hook directory in use; talloc'd on ctx. */
char *hook_dir(void *ctx, struct cli *cli);

#endif
