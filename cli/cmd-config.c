/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex config get|set|list`: notmuch's semantics. An unset key prints nothing and exits 0; a list
 * prints one value per line; set with several values writes a list, with none removes the key, and
 * creates a config file that --config or an environment variable names but that does not exist yet;
 * --database stores the value in the database instead of the file (which must exist already). get
 * and list merge the two as notmuch does: a key the file sets comes from the file, else from the
 * database, else notmuch's default. built_with.NAME says what this maildex supports and cannot be set;
 * the names of saved sexp queries (squery.NAME) and user fields (index.header.NAME) follow notmuch's
 * rule. */
#include "cli.h"
#include "base/hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The database, read-only, when there is one; NULL otherwise (config get and list must work before
 * the first `new`). Close it with maildex_db_close. */
static maildex_db_t *existing_database(struct cli *cli)
{
    char *file = config_database_file(cli->ctx, cli->config);
    maildex_db_t *db = NULL;

    if (access(file, F_OK) != 0 ||
        maildex_db_open(file, "/", MAILDEX_DB_READ_ONLY, &db, NULL) != MAILDEX_STATUS_OK)
        return NULL;
    return db;
}

#define BUILT_WITH "built_with."

/* notmuch's built_with.NAME, all of which `config list` prints: true for what maildex does as
 * notmuch does it. */
static const char *const features[] = {"compact", "field_processor", "retry_lock", "sexp_queries"};

static bool built_with(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(features); i++)
        if (strcmp(name, features[i]) == 0)
            return true;
    return false;
}

/* Xapian's word characters (notmuch's unicode_word_utf8). */
static bool is_word_char(gunichar c)
{
    switch (g_unichar_type(c)) {
    case G_UNICODE_UPPERCASE_LETTER: case G_UNICODE_LOWERCASE_LETTER: case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER: case G_UNICODE_OTHER_LETTER: case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK: case G_UNICODE_SPACING_MARK: case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER: case G_UNICODE_OTHER_NUMBER: case G_UNICODE_CONNECT_PUNCTUATION:
        return true;
    default:
        return false;
    }
}

/* notmuch's rule for the NAME of squery.NAME and index.header.NAME (they become query prefixes): UTF-8
 * word characters only, not starting with a lower-case ASCII letter (those are notmuch's own), with
 * notmuch's messages word for word (scripts and the suite read them). NAME is what follows the last dot,
 * as notmuch takes it. Returns 0, or 1 when it reported why not. */
static int check_prefix_name(struct cli *cli, const char *key)
{
    static const char *const sections[] = {"squery.", "index.header."};
    const char *name = NULL;
    bool sectioned = false;

    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
        sectioned |= strncmp(key, sections[i], strlen(sections[i])) == 0;
    if (!sectioned)
        return 0;
    if (!g_utf8_validate(key, -1, NULL)) {
        fprintf(cli->err, "Invalid utf8: %s\n", key);
        return 1;
    }
    name = strrchr(key, '.') + 1;
    if (*name == '\0') {
        fprintf(cli->err, "Empty prefix name: %s\n", key);
        return 1;
    }
    for (const char *s = name; *s; s = g_utf8_next_char(s))
        if (!is_word_char(g_utf8_get_char(s))) {
            fprintf(cli->err, "Non-word character in prefix name: %s\n", name);
            return 1;
        }
    if (*name >= 'a' && *name <= 'z') {
        fprintf(cli->err, "Prefix names starting with lower case letters are reserved: %s\n", name);
        return 1;
    }
    return 0;
}

/* What `config get` and `config list` say for key, with notmuch's precedence: built_with.NAME; the
 * file's value; the database's; what notmuch derives (database.path, user.name ...); notmuch's
 * defaults; and, once there is a database, where its hooks and backups go. NULL when nothing sets it.
 * *from_file says whether the value is the file's (a list in GLib's syntax). */
static const char *value_of(struct cli *cli, maildex_db_t *db, const char *key, bool *from_file)
{
    const char *value = NULL;

    *from_file = false;
    if (strncmp(key, BUILT_WITH, strlen(BUILT_WITH)) == 0)
        return built_with(key + strlen(BUILT_WITH)) ? "true" : "false";
    if (config_is_set(cli->config, key)) {
        *from_file = true;
        return config_get(cli->ctx, cli->config, key);
    }
    if (db && maildex_db_config_get(db, key, &value) == MAILDEX_STATUS_OK && value)
        return talloc_strdup(cli->ctx, value);
    if ((value = config_get(cli->ctx, cli->config, key)) || (value = config_default(key)))
        return value;
    if (db && strcmp(key, "database.hook_dir") == 0)
        return hook_dir(cli->ctx, cli);
    if (db && strcmp(key, "database.backup_dir") == 0)
        return config_backup_dir(cli->ctx, cli->config);
    return NULL;
}

/* One item per line, as notmuch splits every value at ';'. */
static int config_get_cmd(struct cli *cli, const char *key)
{
    char *section, *item;
    maildex_db_t *db;
    const char *value;
    bool from_file;

    if (config_split_key(cli->ctx, key, &section, &item) != 0)
        return cli_error(cli, "invalid configuration name: %s (should be of the form "
                              "<section>.<item>)", key);
    db = existing_database(cli);
    value = value_of(cli, db, key, &from_file);
    if (from_file) {
        for (char **v = config_get_list(cli->ctx, cli->config, key); *v; v++)
            fprintf(cli->out, "%s\n", *v);
    } else if (value) {
        for (char **v = config_split_list(cli->ctx, value); *v; v++)
            fprintf(cli->out, "%s\n", *v);
    }
    maildex_db_close(db);
    return EXIT_SUCCESS;
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

static void add_key(GPtrArray *keys, const char *key)
{
    for (guint i = 0; i < keys->len; i++)
        if (strcmp(keys->pdata[i], key) == 0)
            return;
    g_ptr_array_add(keys, (gpointer) key);
}

/* notmuch's list: built_with.*, then every key of the file, the database, notmuch's derived values
 * and defaults (and, with a database, its hook and backup directories), sorted, each with its value
 * as written (a list ;-joined). */
static int config_list_cmd(struct cli *cli)
{
    static const char *const with_database[] = {"database.backup_dir", "database.hook_dir"};
    maildex_db_t *db = existing_database(cli);
    const maildex_pair_t *stored = NULL;
    GPtrArray *all = g_ptr_array_new();
    bool from_file;

    if (db && maildex_db_config_list(db, "", &stored) != MAILDEX_STATUS_OK)
        stored = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(features); i++)
        add_key(all, talloc_asprintf(cli->ctx, BUILT_WITH "%s", features[i]));
    for (size_t i = 0; i < G_N_ELEMENTS(with_database); i++)
        add_key(all, with_database[i]);
    for (char **k = config_list_keys(cli->ctx, cli->config); *k; k++)
        add_key(all, *k);
    for (size_t i = 0; stored && stored[i].key; i++)
        add_key(all, stored[i].key);
    qsort(all->pdata, all->len, sizeof(char *), compare_keys);
    for (guint i = 0; i < all->len; i++) {
        const char *value = value_of(cli, db, all->pdata[i], &from_file);
        if (value)
            fprintf(cli->out, "%s=%s\n", (const char *) all->pdata[i], value);
    }
    g_ptr_array_free(all, TRUE);
    maildex_db_close(db);
    return EXIT_SUCCESS;
}

/* As notmuch: one value at most (the database keeps a string, not a list), and the database must
 * exist (`new` creates it). */
static int config_set_database(struct cli *cli, const char *key, int n, char **values)
{
    maildex_status_t st;
    int rc;

    if (n > 1)
        return cli_error(cli, "at most one value expected for %s", key);
    if ((rc = cli_open_db(cli, MAILDEX_DB_READ_WRITE)) != 0)
        return rc;
    st = maildex_db_config_set(cli->db, key, n ? values[0] : NULL);
    if (st != MAILDEX_STATUS_OK)
        rc = cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    return rc;
}

int cmd_config(struct cli *cli, int argc, char **argv)
{
    bool database = false;
    const struct option opts[] = {
        {OPT_BOOL, "database", &database, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    char *error = NULL;
    int first = cli_start(cli, argc, argv, opts);

    if (first < 0)
        return -first;
    if (first >= argc)
        return cli_error(cli, "requires at least one argument (get, set or list)");
    /* Only set may start from a named file that is missing (it creates it); get and list would
     * answer notmuch's defaults as if they were the file's: they say how to make one and print
     * nothing, with notmuch's words and status. */
    if (strcmp(argv[first], "set") != 0 && cli->config->missing) {
        fprintf(cli->err, "Try running '%s setup' to create a configuration.\n", cli_program);
        return EXIT_SUCCESS;
    }
    if (strcmp(argv[first], "get") == 0) {
        if (argc - first != 2)
            return cli_error(cli, "get requires exactly one argument");
        return config_get_cmd(cli, argv[first + 1]);
    }
    if (strcmp(argv[first], "list") == 0)
        return config_list_cmd(cli);
    if (strcmp(argv[first], "set") == 0) {
        /* notmuch takes `config set --database KEY VALUE`: options may follow the subcommand. */
        int key = options_parse(cli->ctx, argc, argv, first + 1, opts, &error);
        if (key < 0)
            return cli_option_error(cli, key, error);
        if (argc - key < 1)
            return cli_error(cli, "set requires at least one argument");
        if (strncmp(argv[key], BUILT_WITH, strlen(BUILT_WITH)) == 0)
            return cli_error(cli, "'%s' cannot be set: it says what this maildex supports", argv[key]);
        if (check_prefix_name(cli, argv[key]) != 0)
            return EXIT_FAILURE;
        if (database)
            return config_set_database(cli, argv[key], argc - key - 1, argv + key + 1);
        if (config_set(cli->ctx, cli->config, argv[key], (const char *const *) argv + key + 1,
                       argc - key - 1, &error) != 0)
            return cli_error(cli, "%s", error);
        return EXIT_SUCCESS;
    }
    return cli_error(cli, "unrecognized command: %s (use get, set or list)", argv[first]);
}
