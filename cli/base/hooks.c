/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finding and running hooks (see hooks.h). The database is never held open for writing while a hook
 * runs, so a hook may itself run `maildex tag`; callers make sure of that. This file knows no hook
 * by name: a new moment is one more hook_run() call. */
#include "hooks.h"
#include "client-env.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static const char *config_home(void *ctx)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");

    if (xdg && *xdg)
        return xdg;
    return talloc_asprintf(ctx, "%s/.config", home && *home ? home : g_get_home_dir());
}

/* Where notmuch keeps its own files for database.path: the directory holding xapian/, which is
 * database.path itself in a split layout and its .notmuch/ otherwise (notmuch's lib/open.cc). */
static char *notmuch_dir(void *ctx, struct cli *cli)
{
    char *path = config_get(ctx, cli->config, "database.path");
    char *xapian = talloc_asprintf(ctx, "%s/xapian", path);

    return is_dir(xapian) ? path : talloc_asprintf(ctx, "%s/.notmuch", path);
}

char *hook_dir(void *ctx, struct cli *cli)
{
    char *dir = config_get(ctx, cli->config, "database.hook_dir");
    const char *profile = getenv("NOTMUCH_PROFILE");
    char *db_dir;

    if (dir && *dir)
        return dir;
    /* notmuch's places first, so that hooks written for notmuch run unchanged; each is taken only
     * when it exists, as notmuch takes its XDG one, and the last place is the default. */
    dir = talloc_asprintf(ctx, "%s/notmuch/%s/hooks", config_home(ctx),
                          profile && *profile ? profile : "default");
    if (is_dir(dir))
        return dir;
    dir = talloc_asprintf(ctx, "%s/hooks", notmuch_dir(ctx, cli));
    if (is_dir(dir))
        return dir;
    dir = talloc_asprintf(ctx, "%s/maildex/hooks", config_home(ctx));
    if (is_dir(dir))
        return dir;
    db_dir = g_path_get_dirname(config_database_file(ctx, cli->config));
    dir = talloc_asprintf(ctx, "%s/hooks", db_dir);
    g_free(db_dir);
    return dir;
}

/* Starts path with no arguments and the config file in use named in the environment; waits for it.
 * Returns 0 with *wait_status set, or an errno value when it could not be started. */
static int spawn_and_wait(struct cli *cli, char *path, int *wait_status)
{
    const char *config = cli->config->path ? cli->config->path : cli->config->write_path;
    char *argv[] = {path, NULL};
    gchar **env = g_get_environ();
    posix_spawn_file_actions_t actions;
    pid_t pid;
    int err;

    if (config && *config) {
        env = g_environ_setenv(env, "MAILDEX_CONFIG", config, TRUE);
        env = g_environ_setenv(env, "NOTMUCH_CONFIG", config, TRUE);
    }
    /* As `maildex exec` gives a client: afew or a notmuch2 script in a hook reaches maildex's store
     * through its libnotmuch.so.5, and a `notmuch tag` in it runs maildex. */
    env = client_environ(cli->ctx, env);
    fflush(cli->out); /* what the hook prints comes after what the command printed */
    fflush(cli->err);
    /* The command's own streams, which are not fds 0-2 when it is a request of `server`. */
    posix_spawn_file_actions_init(&actions);
    for (int fd = 0; fd < 3; fd++) {
        int from = fileno(fd == 0 ? cli->in : fd == 1 ? cli->out : cli->err);
        if (from >= 0 && from != fd)
            posix_spawn_file_actions_adddup2(&actions, from, fd);
    }
    err = posix_spawn(&pid, path, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    g_strfreev(env);
    if (err != 0)
        return err;
    while (waitpid(pid, wait_status, 0) < 0)
        if (errno != EINTR) /* a signal meant for the command, which still waits for its hook */
            return errno;
    return 0;
}

int hook_run(struct cli *cli, const char *name)
{
    char *path = talloc_asprintf(cli->ctx, "%s/%s", hook_dir(cli->ctx, cli), name);
    int wait_status = 0, err;

    /* No hook, no hook directory, a dangling symlink: nothing to run (notmuch's rule). */
    if (access(path, X_OK) != 0) {
        if (errno == ENOENT)
            return 0;
        fprintf(cli->err, "Error: %s hook access failed: %s\n", name, strerror(errno));
        return EXIT_FAILURE;
    }
    if ((err = spawn_and_wait(cli, path, &wait_status)) != 0) {
        fprintf(cli->err, "Error: %s hook execution failed: %s\n", name, strerror(err));
        return EXIT_FAILURE;
    }
    if (WIFSIGNALED(wait_status)) {
        fprintf(cli->err, "Error: %s hook terminated with signal %d\n", name, WTERMSIG(wait_status));
        return EXIT_FAILURE;
    }
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
        fprintf(cli->err, "Error: %s hook failed with status %d\n", name, WEXITSTATUS(wait_status));
        return EXIT_FAILURE;
    }
    return 0;
}
