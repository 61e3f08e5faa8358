/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex exec CLIENT [ARGS...]`: runs a program made for notmuch's library (alot, afew, a notmuch2
 * script ...) on maildex's store, by its environment alone: maildex's libnotmuch.so.5 first on
 * LD_LIBRARY_PATH, NOTMUCH_CONFIG (and MAILDEX_CONFIG) naming the config file this maildex read, and
 * PATH starting with a directory whose `notmuch` runs maildex, for clients that also run the command.
 * Both directories are fixed when the program is linked (cli/base/client-env.c says where);
 * $MAILDEX_NOTMUCH_ABI_DIR names another library directory. Hooks get the same directories
 * (cli/base/hooks.c).
 *
 * The client replaces this process, so its exit status is its own; 127 when it is not found, 126
 * when it is found but cannot be run, 1 when maildex has no library to give it. What it must not
 * do: open the database, or let a client run on notmuch's own library unawares (a missing library
 * is an error, not a fallback). */
#include "cli.h"
#include "base/client-env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Puts dir in front of the list in the environment variable name (':'-separated). */
static int prepend(struct cli *cli, const char *name, const char *dir)
{
    char *value = client_path_prepend(cli->ctx, dir, getenv(name));

    if (value == NULL || setenv(name, value, 1) != 0)
        return cli_error(cli, "cannot set %s: %s", name, value ? strerror(errno) : "out of memory");
    return 0;
}

/* NOTMUCH_CONFIG and MAILDEX_CONFIG name the file this maildex read, as an absolute path (the client
 * may change directory). With no file (none found, or --config=''), they are left as they are. */
static int set_config(struct cli *cli)
{
    const char *path = cli->config->path;
    char *absolute;
    int rc = 0;

    if (path == NULL || *path == '\0')
        return 0;
    absolute = g_canonicalize_filename(path, NULL);
    if (setenv("NOTMUCH_CONFIG", absolute, 1) != 0 || setenv("MAILDEX_CONFIG", absolute, 1) != 0)
        rc = cli_error(cli, "cannot set NOTMUCH_CONFIG: %s", strerror(errno));
    g_free(absolute);
    return rc;
}

/* Whether dir holds name (a file that may be run when executable is set); says why not. */
static int check_file(struct cli *cli, const char *dir, const char *name, bool executable, const char *hint)
{
    char *path = talloc_asprintf(cli->ctx, "%s/%s", dir, name);

    if (path && access(path, executable ? X_OK : R_OK) == 0)
        return 0;
    return cli_error(cli, "cannot use '%s': %s (%s)", path ? path : name,
                     path ? strerror(errno) : "out of memory", hint);
}

int cmd_exec(struct cli *cli, int argc, char **argv)
{
    const struct option opts[] = {{OPT_END, NULL, NULL, NULL, NULL, NULL}};
    bool named = false;
    char *libdir;
    int first = cli_start(cli, argc, argv, opts), err;

    if (first < 0)
        return -first;
    libdir = client_abi_dir(cli->ctx, &named);
    if (libdir == NULL)
        return cli_error(cli, "out of memory");
    if (first >= argc)
        return cli_error(cli, "no program to run (usage: maildex exec CLIENT [ARGS...])");
    if (check_file(cli, libdir, "libnotmuch.so.5", false,
                   named ? "named by $MAILDEX_NOTMUCH_ABI_DIR"
                         : "maildex's libnotmuch.so.5 is not built or not installed") != 0 ||
        check_file(cli, client_bin_dir(), "notmuch", true, "the notmuch that runs maildex is missing") != 0)
        return EXIT_FAILURE;
    if (prepend(cli, "LD_LIBRARY_PATH", libdir) != 0 || prepend(cli, "PATH", client_bin_dir()) != 0 ||
        set_config(cli) != 0)
        return EXIT_FAILURE;
    fflush(cli->out);
    fflush(cli->err);
    execvp(argv[first], argv + first);
    err = errno;
    cli_error(cli, "cannot run '%s': %s", argv[first], strerror(err));
    return err == ENOENT ? 127 : 126;
}
