/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finding and running hooks (see hooks.h). The database is never held open for writing while a hook
 * runs, so a hook may itself run `maildex tag`; callers make sure of that. This file knows no hook
 * by name: a new moment is one more hook_run() call. */
#include "hooks.h"
#include "client-env.h"
#include "config-file.h"
#include "hook-process.h"

#include <errno.h>
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
    dir = talloc_asprintf(ctx, "%s/hooks", config_notmuch_dir(ctx, cli->config));
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

#define DEFAULT_TIMEOUT_S 300
#define MAX_TIMEOUT_S 86400

/* hooks.timeout: seconds a hook may run before its processes are ended; 0: no limit. Returns 0, or
 * 1 when the value is not a number of seconds (said on stderr). */
static int hook_timeout(struct cli *cli, unsigned *seconds)
{
    char *value = config_get(cli->ctx, cli->config, "hooks.timeout"), *end;
    unsigned long n;

    *seconds = DEFAULT_TIMEOUT_S;
    if (value == NULL || *value == '\0')
        return 0;
    errno = 0;
    n = strtoul(value, &end, 10);
    if (*end != '\0' || errno || value[0] == '-' || n > MAX_TIMEOUT_S) {
        fprintf(cli->err, "Error: hooks.timeout must be seconds from 0 (no limit) to %d, not '%s'\n",
                MAX_TIMEOUT_S, value);
        return 1;
    }
    *seconds = (unsigned) n;
    return 0;
}

/* A request of `server` cancelled (cli->cancel, set under db_lock from the loop's thread). */
static bool cli_cancelled(void *data)
{
    struct cli *cli = data;
    bool cancelled;

    if (cli->db_lock == NULL)
        return false;
    g_mutex_lock(cli->db_lock);
    cancelled = cli->cancel != 0;
    g_mutex_unlock(cli->db_lock);
    return cancelled;
}

/* Runs path as a hook runs: no arguments, the config file in use named in the environment, the
 * command's own streams (not fds 0-2 when it is a request of `server`). */
static int spawn_and_wait(struct cli *cli, char *path, const struct hook_wait *how,
                          enum hook_end *end, int *wait_status)
{
    const char *config = cli->config->path ? cli->config->path : cli->config->write_path;
    gchar **env = g_get_environ();
    int fds[3] = {fileno(cli->in), fileno(cli->out), fileno(cli->err)};
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
    err = hook_process_run(path, env, fds, how, end, wait_status);
    g_strfreev(env);
    return err;
}

/* Why a hook that did not end by itself was ended, in the words of notmuch's hook errors. */
static int report_ended(struct cli *cli, const char *name, enum hook_end end, unsigned timeout)
{
    if (end == HOOK_TIMED_OUT)
        fprintf(cli->err, "Error: %s hook still running after %u s (hooks.timeout): its processes were ended\n",
                name, timeout);
    else if (end == HOOK_CANCELLED)
        fprintf(cli->err, "Error: %s hook cancelled: its processes were ended\n", name);
    else
        fprintf(cli->err, "Error: %s hook ended: the program is stopping\n", name);
    return EXIT_FAILURE;
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
    struct hook_wait how = {.cancelled = cli_cancelled, .data = cli};
    enum hook_end end;
    if (hook_timeout(cli, &how.timeout_s) != 0)
        return EXIT_FAILURE;
    if ((err = spawn_and_wait(cli, path, &how, &end, &wait_status)) != 0) {
        fprintf(cli->err, "Error: %s hook execution failed: %s\n", name, strerror(err));
        return EXIT_FAILURE;
    }
    if (end != HOOK_EXITED)
        return report_ended(cli, name, end, how.timeout_s);
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
