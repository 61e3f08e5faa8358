/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch-import.c: notmuch's tags, properties and stored config carried over into maildex's store
 * (notmuch-import.h). They come through the real notmuch program's `notmuch dump`, never by reading
 * Xapian: notmuch's format is its own business, and dump is its promise. The program is the first
 * `notmuch` on PATH that is not maildex (hooks and `maildex exec` put one that is maildex first), run
 * without a shell, on the config maildex reads, and without maildex's libnotmuch.so.5 on its library
 * path, so that it reads notmuch's database and only reads it. Its dump goes to a file beside
 * maildex's database (named as the database's own files are, which the scan skips) and is applied in
 * one transaction with the store's record that it was, so a crash leaves a store that imports again.
 * It must not write notmuch's database or config beyond new.ignore; the lines' meaning is
 * restore-lines.c's. */
#include "notmuch-import.h"
#include "client-env.h"
#include "restore-lines.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the program at path is maildex under another name: the running program itself, or any file
 * named maildex that a link leads to (the notmuch that hooks and `maildex exec` get is one). */
static bool is_maildex(const char *path)
{
    char *real = realpath(path, NULL), *self = realpath("/proc/self/exe", NULL);
    char *base = real ? g_path_get_basename(real) : NULL;
    bool maildex = real == NULL || (self && strcmp(real, self) == 0) || strcmp(base, "maildex") == 0;

    g_free(base);
    free(real);
    free(self);
    return maildex;
}

/* The first notmuch on PATH that is notmuch's, talloc'd on ctx, or NULL. */
static char *real_notmuch(void *ctx)
{
    const char *path = getenv("PATH");
    gchar **dirs = g_strsplit(path && *path ? path : "/usr/local/bin:/usr/bin:/bin", ":", -1);
    char *found = NULL;
    struct stat sb;

    for (gchar **d = dirs; *d && found == NULL; d++) {
        char *candidate = g_build_filename(**d ? *d : ".", "notmuch", NULL);
        if (stat(candidate, &sb) == 0 && S_ISREG(sb.st_mode) && access(candidate, X_OK) == 0 &&
            !is_maildex(candidate))
            found = talloc_strdup(ctx, candidate);
        g_free(candidate);
    }
    g_strfreev(dirs);
    return found;
}

/* env without maildex's library directory on LD_LIBRARY_PATH: notmuch linked against it would read
 * maildex's store (a `maildex new` run from a hook or `maildex exec` inherits that path). */
static gchar **without_maildex_library(void *ctx, gchar **env)
{
    bool named;
    char *ours = g_canonicalize_filename(client_abi_dir(ctx, &named), NULL);
    const char *old = g_environ_getenv(env, "LD_LIBRARY_PATH");
    gchar **dirs = old ? g_strsplit(old, ":", -1) : NULL;
    GString *kept = g_string_new(NULL);

    for (gchar **d = dirs; d && *d; d++) {
        char *canonical = **d ? g_canonicalize_filename(*d, NULL) : NULL;
        if (canonical == NULL || strcmp(canonical, ours) != 0)
            g_string_append_printf(kept, "%s%s", kept->len ? ":" : "", *d);
        g_free(canonical);
    }
    if (old && kept->len)
        env = g_environ_setenv(env, "LD_LIBRARY_PATH", kept->str, TRUE);
    else if (old)
        env = g_environ_unsetenv(env, "LD_LIBRARY_PATH");
    g_string_free(kept, TRUE);
    g_strfreev(dirs);
    g_free(ours);
    return env;
}

/* Runs `notmuch dump` into output. 0, or -1 with *why (talloc'd on ctx) saying what went wrong. */
static int run_dump(struct cli *cli, void *ctx, const char *program, const char *output, char **why)
{
    char *argv[] = {talloc_strdup(ctx, program), talloc_strdup(ctx, "dump"),
                    talloc_strdup(ctx, "--include=config"), talloc_strdup(ctx, "--include=properties"),
                    talloc_strdup(ctx, "--include=tags"), talloc_asprintf(ctx, "--output=%s", output),
                    NULL};
    gchar **env = without_maildex_library(ctx, g_get_environ()), *err_text = NULL;
    GError *gerr = NULL;
    int status = 0, rc = 0;

    if (cli->config->loaded) /* notmuch reads the config maildex reads: the same database */
        env = g_environ_setenv(env, "NOTMUCH_CONFIG", cli->config->path, TRUE);
    if (!g_spawn_sync(NULL, argv, env, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL, NULL,
                      NULL, NULL, &err_text, &status, &gerr) ||
        !g_spawn_check_wait_status(status, &gerr)) {
        g_strchomp(err_text ? err_text : (err_text = g_strdup("")));
        *why = talloc_asprintf(ctx, "'%s dump' failed: %s%s%s", program, gerr->message,
                               *err_text ? ": " : "", err_text);
        rc = -1;
    }
    g_clear_error(&gerr);
    g_free(err_text);
    g_strfreev(env);
    return rc;
}

/* Applies the dump at path in one atomic section that also records "done". With first_run, only
 * while the record still says "pending" (another `new` may have imported meanwhile). 0, or 1 after
 * reporting a failure (the section rolled back). */
static int apply_dump(struct cli *cli, struct notmuch_import *imp, gzFile in, const char *path,
                      bool first_run)
{
    struct restore r = {.cli = cli, .format = RESTORE_FORMAT_AUTO, .count_missing = true,
                        .include = INCLUDE_CONFIG | INCLUDE_PROPERTIES | INCLUDE_TAGS};
    const char *state = "pending";
    bool sync_flags = true;
    char *error;
    int rc = 0;

    if (config_get_bool(cli->ctx, cli->config, "maildir.synchronize_flags", true, &sync_flags, &error))
        return cli_error(cli, "%s", error);
    /* notmuch's tags, as they are: no file is renamed; then the files' flags decide the flag tags, as
     * notmuch's next `new` would for files renamed since it last ran (a no-op for the others). */
    r.tag_flags = imp->accumulate ? 0 : MAILDEX_TAG_REMOVE_ALL;
    r.flags_from_files = sync_flags;
    if (maildex_db_begin_atomic(cli->db) != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (first_run && maildex_db_notmuch_import_get(cli->db, &state) != MAILDEX_STATUS_OK)
        rc = cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (rc == 0 && strcmp(state, "pending") == 0) {
        rc = restore_lines(&r, in, path);
        if (rc == 0 && maildex_db_notmuch_import_set(cli->db, "done") != MAILDEX_STATUS_OK)
            rc = cli_error(cli, "%s", maildex_db_errmsg(cli->db));
        imp->imported = rc == 0;
    }
    if (maildex_db_end_atomic(cli->db) != MAILDEX_STATUS_OK && rc == 0)
        rc = cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    imp->tagged = r.tagged;
    imp->properties = r.properties;
    imp->config_values = r.config;
    imp->missing = r.missing;
    return rc;
}

/* notmuch's dump of its database through program, applied. 0, or 1 after saying why not. */
static int import_dump(struct cli *cli, struct notmuch_import *imp, const char *program, bool first_run)
{
    void *local = talloc_new(cli->ctx);
    char *path = talloc_asprintf(local, "%s.notmuch-dump-XXXXXX", maildex_db_path(cli->db)), *why;
    int fd = g_mkstemp_full(path, O_RDWR, 0600), rc = 0;
    gzFile in = NULL;

    if (fd < 0) {
        rc = cli_error(cli, "cannot import notmuch's tags: cannot create '%s': %s", path, strerror(errno));
        goto done;
    }
    close(fd);
    if (run_dump(cli, local, program, path, &why) != 0) {
        rc = cli_error(cli, "cannot import notmuch's tags: %s", why);
        unlink(path);
        goto done;
    }
    in = gzopen(path, "r");
    unlink(path); /* the open file is enough: nothing is left behind whatever happens next */
    if (in == NULL)
        rc = cli_error(cli, "cannot import notmuch's tags: cannot read '%s': %s", path, strerror(errno));
    else
        rc = apply_dump(cli, imp, in, path, first_run);
done:
    if (in)
        gzclose_r(in);
    talloc_free(local);
    return rc;
}

/* The new.ignore entry that keeps `notmuch new` out of maildex's store: the name of the directory
 * below the mail root that holds the database (.maildex), talloc'd on ctx; NULL when the store is
 * not inside the mail root, or lies in it directly (an old layout: its files are named one by one). */
static char *store_entry(void *ctx, struct cli *cli)
{
    char *dir = g_path_get_dirname(config_database_file(ctx, cli->config));
    char *root = realpath(config_mail_root(ctx, cli->config), NULL), *real = realpath(dir, NULL);
    size_t n = root ? strlen(root) : 0;
    char *entry = NULL;

    if (root && real && strncmp(real, root, n) == 0 && real[n] == '/')
        entry = talloc_strndup(ctx, real + n + 1, strcspn(real + n + 1, "/"));
    free(root);
    free(real);
    g_free(dir);
    return entry;
}

/* Adds maildex's store to new.ignore in the config file when it lies inside the mail root and the
 * list does not name it: `notmuch new` would otherwise note each of its files as non-mail. */
static void ignore_store(struct cli *cli, struct notmuch_import *imp)
{
    char *entry = store_entry(cli->ctx, cli), *error;
    char **list = config_get_list(cli->ctx, cli->config, "new.ignore");
    int n = 0;

    if (entry == NULL || !cli->config->loaded)
        return;
    for (; list[n]; n++)
        if (strcmp(list[n], entry) == 0)
            return;
    list = talloc_realloc(cli->ctx, list, char *, n + 2);
    list[n] = entry;
    list[n + 1] = NULL;
    if (config_set(cli->ctx, cli->config, "new.ignore", (const char *const *) list, n + 1, &error) != 0) {
        fprintf(cli->err, "Note: notmuch new will note the files of maildex's store as non-mail: "
                          "add %s to new.ignore (%s)\n", entry, error);
        return;
    }
    imp->ignored = entry;
    imp->config = cli->config->path;
}

/* notmuch's database and program, found for an import (imp says what is missing). 0 or -1. */
static int locate(struct cli *cli, struct notmuch_import *imp, char **program)
{
    imp->xapian = config_notmuch_database(cli->ctx, cli->config);
    *program = imp->xapian ? real_notmuch(cli->ctx) : NULL;
    imp->no_program = imp->xapian && *program == NULL;
    return *program ? 0 : -1;
}

static maildex_status_t mark(struct cli *cli, const char *state)
{
    maildex_status_t st = maildex_db_notmuch_import_set(cli->db, state);

    if (st != MAILDEX_STATUS_OK)
        cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    return st;
}

void notmuch_import_first_run(struct cli *cli, struct notmuch_import *imp, bool quiet)
{
    const char *state;
    char *program, *error;
    bool enabled = true;

    if (maildex_db_notmuch_import_get(cli->db, &state) != MAILDEX_STATUS_OK) {
        cli_error(cli, "%s", maildex_db_errmsg(cli->db));
        return;
    }
    if (strcmp(state, "pending") != 0)
        return;
    if (config_get_bool(cli->ctx, cli->config, "new.import_notmuch", true, &enabled, &error) != 0) {
        cli_error(cli, "%s", error);
        return;
    }
    if (locate(cli, imp, &program) != 0 && imp->xapian == NULL) {
        mark(cli, "none");
        return;
    }
    ignore_store(cli, imp);
    if (!enabled)
        mark(cli, "off");
    else if (imp->no_program && !quiet)
        mark(cli, "manual");
    else if (!imp->no_program && import_dump(cli, imp, program, true) != 0)
        fprintf(cli->err, "%s new: the next new tries again (or: %s config set new.import_notmuch "
                          "false)\n", cli_program, cli_program);
    imp->no_program = imp->no_program && enabled && !quiet;
}

int notmuch_import_now(struct cli *cli, struct notmuch_import *imp)
{
    char *program;

    if (locate(cli, imp, &program) != 0) {
        imp->no_program = false; /* the error says it */
        if (imp->xapian == NULL)
            return cli_error(cli, "no notmuch database for this config (no '%s/xapian')",
                             config_notmuch_dir(cli->ctx, cli->config));
        return cli_error(cli, "no notmuch program on PATH to dump notmuch's database '%s' "
                              "(where notmuch is: notmuch dump | %s restore)", imp->xapian, cli_program);
    }
    ignore_store(cli, imp);
    return import_dump(cli, imp, program, false);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

void notmuch_import_print(struct cli *cli, const struct notmuch_import *imp)
{
    if (imp->ignored)
        fprintf(cli->out, "Added %s to new.ignore in %s, so that notmuch new passes over maildex's store.\n",
                imp->ignored, imp->config);
    if (imp->imported) {
        fprintf(cli->out, "Imported from notmuch: the tags of %" PRIu64 " %s", imp->tagged,
                plural(imp->tagged, "message", "messages"));
        if (imp->properties)
            fprintf(cli->out, ", %" PRIu64 " %s", imp->properties,
                    plural(imp->properties, "property line", "property lines"));
        if (imp->config_values)
            fprintf(cli->out, ", %" PRIu64 " %s", imp->config_values,
                    plural(imp->config_values, "stored config value", "stored config values"));
        fprintf(cli->out, ".");
        if (imp->missing)
            fprintf(cli->out, " %" PRIu64 " %s not in maildex's store: skipped.", imp->missing,
                    plural(imp->missing, "message notmuch has is", "messages notmuch has are"));
        fprintf(cli->out, "\n");
    }
    if (imp->no_program)
        fprintf(cli->err, "Note: notmuch's tags in %s were not imported: no notmuch program on PATH. "
                          "Where notmuch is, run: notmuch dump | %s restore\n", imp->xapian, cli_program);
}
