/* Running hooks (see hooks.h). The database is never held open for writing while a hook runs, so a
 * hook may itself run `maildex tag`; callers make sure of that. */
#include "hooks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *hook_dir(void *ctx, struct cli *cli)
{
    char *dir = config_get(ctx, cli->config, "database.hook_dir");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    char *xdg_dir, *db_file, *db_dir;

    if (dir && *dir)
        return dir;
    xdg_dir = xdg && *xdg ? talloc_asprintf(ctx, "%s/maildex/hooks", xdg)
                          : talloc_asprintf(ctx, "%s/.config/maildex/hooks",
                                            getenv("HOME") ? getenv("HOME") : g_get_home_dir());
    if (g_file_test(xdg_dir, G_FILE_TEST_IS_DIR))
        return xdg_dir;
    db_file = config_database_file(ctx, cli->config);
    db_dir = g_path_get_dirname(db_file);
    dir = talloc_asprintf(ctx, "%s/hooks", db_dir);
    g_free(db_dir);
    return dir;
}

int hook_run(struct cli *cli, const char *name)
{
    char *path = talloc_asprintf(cli->ctx, "%s/%s", hook_dir(cli->ctx, cli), name);
    const char *config = cli->config->path ? cli->config->path : cli->config->write_path;
    char *argv[] = {path, NULL};
    gchar **env;
    GError *err = NULL;
    gint wait_status = 0;
    gboolean ok;

    if (access(path, F_OK) != 0)
        return 0;
    if (access(path, X_OK) != 0)
        return cli_error(cli, "%s hook '%s' is not executable: %s", name, path, strerror(errno));
    env = g_get_environ();
    env = g_environ_setenv(env, "MAILDEX_CONFIG", config, TRUE);
    env = g_environ_setenv(env, "NOTMUCH_CONFIG", config, TRUE);
    fflush(stdout);
    ok = g_spawn_sync(NULL, argv, env, G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL,
                      &wait_status, &err);
    g_strfreev(env);
    if (!ok) {
        cli_error(cli, "cannot run %s hook '%s': %s", name, path, err->message);
        g_error_free(err);
        return EXIT_FAILURE;
    }
    if (WIFSIGNALED(wait_status))
        return cli_error(cli, "%s hook killed by signal %d", name, WTERMSIG(wait_status));
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0)
        return cli_error(cli, "%s hook failed with status %d", name, WEXITSTATUS(wait_status));
    return 0;
}
