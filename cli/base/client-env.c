/* SPDX-License-Identifier: GPL-3.0-or-later */
/* client-env.c: the directories a client of notmuch's library is given to run on maildex's store
 * (client-env.h). Compiled into each program with MAILDEX_NOTMUCH_ABI_DIR and MAILDEX_NOTMUCH_BIN_DIR
 * (Makefile.am), never into the CLI's library. It only says where: `maildex exec` (cli/cmd-exec.c)
 * refuses to run a client without the library, hooks (hooks.c) run with or without it. */
#include "client-env.h"

#include <talloc.h>
#include <unistd.h>

#ifndef MAILDEX_NOTMUCH_ABI_DIR
#error "MAILDEX_NOTMUCH_ABI_DIR must name the directory of maildex's libnotmuch.so.5"
#endif
#ifndef MAILDEX_NOTMUCH_BIN_DIR
#error "MAILDEX_NOTMUCH_BIN_DIR must name the directory whose notmuch runs maildex"
#endif

char *client_abi_dir(void *ctx, bool *named)
{
    const char *env = getenv("MAILDEX_NOTMUCH_ABI_DIR");
    char *absolute, *dir;

    *named = env && *env;
    if (!*named)
        return talloc_strdup(ctx, MAILDEX_NOTMUCH_ABI_DIR);
    absolute = g_canonicalize_filename(env, NULL); /* the client may change directory */
    dir = talloc_strdup(ctx, absolute);
    g_free(absolute);
    return dir;
}

const char *client_bin_dir(void)
{
    return MAILDEX_NOTMUCH_BIN_DIR;
}

char *client_path_prepend(void *ctx, const char *dir, const char *old)
{
    return old && *old ? talloc_asprintf(ctx, "%s:%s", dir, old) : talloc_strdup(ctx, dir);
}

/* Whether dir holds name, readable (or, with executable, runnable). */
static bool holds(void *ctx, const char *dir, const char *name, bool executable)
{
    char *path = talloc_asprintf(ctx, "%s/%s", dir, name);

    return path && access(path, executable ? X_OK : R_OK) == 0;
}

gchar **client_environ(void *ctx, gchar **env)
{
    void *local = talloc_new(ctx);
    bool named;
    char *lib = client_abi_dir(local, &named), *value;

    if (lib && holds(local, lib, "libnotmuch.so.5", false) &&
        (value = client_path_prepend(local, lib, g_environ_getenv(env, "LD_LIBRARY_PATH"))) != NULL)
        env = g_environ_setenv(env, "LD_LIBRARY_PATH", value, TRUE);
    if (holds(local, client_bin_dir(), "notmuch", true) &&
        (value = client_path_prepend(local, client_bin_dir(), g_environ_getenv(env, "PATH"))) != NULL)
        env = g_environ_setenv(env, "PATH", value, TRUE);
    talloc_free(local);
    return env;
}
