/* SPDX-License-Identifier: GPL-3.0-or-later */
/* client-env.h: where a program made for notmuch's library finds maildex's (client-env.c): the
 * directory of maildex's libnotmuch.so.5 and the one whose `notmuch` runs maildex, as `maildex exec`
 * gives them to a client and hooks get them. client-env.c is compiled into each program, as
 * mime-dlopen.c is: the two directories are this build tree's for cli/maildex and $(pkglibdir)'s for
 * the installed maildex. */
#ifndef MAILDEX_CLI_CLIENT_ENV_H
#define MAILDEX_CLI_CLIENT_ENV_H

#include <glib.h>
#include <stdbool.h>

/* The directory of maildex's libnotmuch.so.5: $MAILDEX_NOTMUCH_ABI_DIR made absolute when it is set
 * (*named true), else the one fixed when the program was linked; talloc'd on ctx. */
char *client_abi_dir(void *ctx, bool *named);

/* The directory whose `notmuch` runs maildex. */
const char *client_bin_dir(void);

/* dir in front of old, a ':'-separated list (NULL or "" for none), talloc'd on ctx. */
char *client_path_prepend(void *ctx, const char *dir, const char *old);

/* env (a g_get_environ() list, which it takes) with maildex's library first on LD_LIBRARY_PATH and
 * its notmuch first on PATH, each only when it is there (a build without the library gives hooks
 * notmuch's environment unchanged). Returns the new list. */
gchar **client_environ(void *ctx, gchar **env);

#endif
