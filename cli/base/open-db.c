/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening the database where the config says, in the mode a command asks for (creating its directory
 * for `new`), with the config's user-defined header fields; and closing it under the lock a server
 * request's cancel takes. Failures are reported here, in notmuch's words; nothing here runs a command. */
#include "base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A write that waits for another process says so on a terminal (a pipe, such as an editor's, gets
 * nothing: notmuch.el shows any stderr as an error). */
static void on_waiting(void *data, const char *what)
{
    struct cli *cli = data;

    if (isatty(fileno(cli->err)))
        fprintf(cli->err, "maildex %s: %s...\n", cli->command ? cli->command->name : "", what);
}

/* Creates the directory the database file goes in (mode 0700), but not its parents: a missing mail
 * root is a mistake to report, as notmuch does, not a directory to invent. Returns 0, or 1 when it
 * reported a failure. */
static int make_database_dir(struct cli *cli, const char *file)
{
    char *dir = g_path_get_dirname(file), *parent = g_path_get_dirname(dir);
    int rc = 0, err;

    if (mkdir(dir, 0700) != 0 && (err = errno) != EEXIST) {
        if (err == ENOENT)
            rc = cli_error(cli, "cannot create directory '%s': '%s' does not exist", dir, parent);
        else
            rc = cli_error(cli, "cannot create directory '%s': %s", dir, strerror(err));
    }
    g_free(parent);
    g_free(dir);
    return rc;
}

/* notmuch's index.header.PREFIX=Header keys (user-defined fields) for indexing and queries. */
static maildex_status_t set_user_fields(struct cli *cli)
{
    static const char section[] = "index.header.";
    char **keys = config_list_keys(cli->ctx, cli->config);
    maildex_pair_t *fields = talloc_zero_array(cli->ctx, maildex_pair_t, 1);
    size_t n = 0;

    for (char **k = keys; fields && k && *k; k++) {
        if (strncmp(*k, section, sizeof section - 1) != 0 || (*k)[sizeof section - 1] == '\0')
            continue;
        fields = talloc_realloc(cli->ctx, fields, maildex_pair_t, n + 2);
        if (fields == NULL)
            break;
        fields[n].key = *k + sizeof section - 1;
        fields[n].value = config_get(cli->ctx, cli->config, *k);
        fields[++n] = (maildex_pair_t){NULL, NULL};
    }
    return fields ? maildex_db_set_user_fields(cli->db, fields) : MAILDEX_STATUS_NO_MEMORY;
}

int cli_open_db(struct cli *cli, maildex_db_mode_t mode)
{
    char *file = config_database_file(cli->ctx, cli->config);
    char *root = config_mail_root(cli->ctx, cli->config);
    char *error = NULL;
    maildex_db_t *db = NULL;
    maildex_status_t st;

    if (mode == MAILDEX_DB_CREATE && make_database_dir(cli, file) != 0)
        return EXIT_FAILURE;
    st = maildex_db_open(file, root, mode, &db, &error);
    if (st == MAILDEX_STATUS_OK) {
        if (cli->db_lock)
            g_mutex_lock(cli->db_lock);
        cli->db = db;
        if (cli->cancel) /* cancelled before it was open */
            maildex_db_cancel(db, (maildex_cancel_t) cli->cancel);
        if (cli->db_lock)
            g_mutex_unlock(cli->db_lock);
    }
    if (st != MAILDEX_STATUS_OK) {
        if (st == MAILDEX_STATUS_FILE_NOT_FOUND && mode != MAILDEX_DB_CREATE)
            cli_error(cli, "no database at '%s': run 'maildex new' first", file);
        else
            cli_error(cli, "%s", error ? error : maildex_status_to_string(st));
        free(error);
        return EXIT_FAILURE;
    }
    if (set_user_fields(cli) != MAILDEX_STATUS_OK)
        return cli_error(cli, "out of memory");
    if (mode != MAILDEX_DB_READ_ONLY)
        maildex_db_set_waiting(cli->db, on_waiting, cli);
    return 0;
}

void cli_close_db(struct cli *cli)
{
    maildex_db_t *db = cli->db;

    if (cli->db_lock)
        g_mutex_lock(cli->db_lock);
    cli->db = NULL;
    if (cli->db_lock)
        g_mutex_unlock(cli->db_lock);
    maildex_db_close(db);
}
