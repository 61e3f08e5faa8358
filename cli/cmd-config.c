/* `maildex config get|set|list`: notmuch's semantics. An unset key prints nothing and exits 0; a list
 * prints one value per line; set with several values writes a list, with none removes the key, and
 * creates a config file that --config or an environment variable names but that does not exist yet;
 * --database stores the value in the database instead of the file (which must exist already). get
 * and list merge the two as notmuch does: a key the file sets comes from the file, else from the
 * database, else notmuch's default. built_with.NAME says what this maildex supports and cannot be set;
 * the names of saved sexp queries (squery.NAME) and user fields (index.header.NAME) follow notmuch's
 * rule. */
#include "cli.h"

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

/* A key stored with `config set --database`, one list item per line; false when the database does
 * not hold it. */
static bool print_database_value(struct cli *cli, const char *key)
{
    maildex_db_t *db = existing_database(cli);
    const char *value = NULL;
    bool found = false;
    gchar **items;

    if (db && maildex_db_config_get(db, key, &value) == MAILDEX_STATUS_OK && value) {
        items = g_strsplit(value, ";", -1);
        for (gchar **i = items; *i; i++)
            if (**i)
                printf("%s\n", *i);
        g_strfreev(items);
        found = true;
    }
    maildex_db_close(db);
    return found;
}

#define BUILT_WITH "built_with."

/* notmuch's built_with.NAME: true for what maildex does as notmuch does it. */
static bool built_with(const char *name)
{
    static const char *const features[] = {"field_processor", "retry_lock", "sexp_queries"};

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
static int check_prefix_name(const char *key)
{
    static const char *const sections[] = {"squery.", "index.header."};
    const char *name = NULL;
    bool sectioned = false;

    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
        sectioned |= strncmp(key, sections[i], strlen(sections[i])) == 0;
    if (!sectioned)
        return 0;
    if (!g_utf8_validate(key, -1, NULL)) {
        fprintf(stderr, "Invalid utf8: %s\n", key);
        return 1;
    }
    name = strrchr(key, '.') + 1;
    if (*name == '\0') {
        fprintf(stderr, "Empty prefix name: %s\n", key);
        return 1;
    }
    for (const char *s = name; *s; s = g_utf8_next_char(s))
        if (!is_word_char(g_utf8_get_char(s))) {
            fprintf(stderr, "Non-word character in prefix name: %s\n", name);
            return 1;
        }
    if (*name >= 'a' && *name <= 'z') {
        fprintf(stderr, "Prefix names starting with lower case letters are reserved: %s\n", name);
        return 1;
    }
    return 0;
}

static int config_get_cmd(struct cli *cli, const char *key)
{
    char *section, *item;
    char **values;

    if (config_split_key(cli->ctx, key, &section, &item) != 0)
        return cli_error(cli, "invalid configuration name: %s (should be of the form "
                              "<section>.<item>)", key);
    if (strncmp(key, BUILT_WITH, strlen(BUILT_WITH)) == 0) {
        puts(built_with(key + strlen(BUILT_WITH)) ? "true" : "false");
        return EXIT_SUCCESS;
    }
    if (!config_is_set(cli->config, key) && print_database_value(cli, key))
        return EXIT_SUCCESS;
    values = config_get_list(cli->ctx, cli->config, key);
    for (char **v = values; *v; v++)
        printf("%s\n", *v);
    return EXIT_SUCCESS;
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Every key of the file (and notmuch's derived ones) and of the database, sorted, each with the value
 * config get would print (a list ;-joined). */
static int config_list_cmd(struct cli *cli)
{
    char **keys = config_list_keys(cli->ctx, cli->config);
    maildex_db_t *db = existing_database(cli);
    const maildex_pair_t *stored = NULL;
    GHashTable *from_db = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *all = g_ptr_array_new();

    if (db && maildex_db_config_list(db, "", &stored) != MAILDEX_STATUS_OK)
        stored = NULL;
    for (char **k = keys; *k; k++)
        g_ptr_array_add(all, *k);
    for (size_t i = 0; stored && stored[i].key; i++) {
        if (!g_hash_table_contains(from_db, stored[i].key))
            g_hash_table_insert(from_db, (gpointer) stored[i].key, (gpointer) stored[i].value);
        bool known = false;
        for (char **k = keys; *k && !known; k++)
            known = strcmp(*k, stored[i].key) == 0;
        if (!known)
            g_ptr_array_add(all, (gpointer) stored[i].key);
    }
    qsort(all->pdata, all->len, sizeof(char *), compare_keys);
    for (guint i = 0; i < all->len; i++) {
        const char *key = all->pdata[i], *value = g_hash_table_lookup(from_db, key);
        if (value == NULL || config_is_set(cli->config, key))
            value = config_get(cli->ctx, cli->config, key);
        printf("%s=%s\n", key, value ? value : "");
    }
    g_ptr_array_free(all, TRUE);
    g_hash_table_destroy(from_db);
    maildex_db_close(db);
    return EXIT_SUCCESS;
}

static int config_set_database(struct cli *cli, const char *key, int n, char **values)
{
    char *joined = n ? g_strjoinv(";", values) : NULL;
    maildex_status_t st;
    /* As notmuch: the database must exist (`new` creates it). */
    int rc = cli_open_db(cli, MAILDEX_DB_READ_WRITE);

    if (rc == 0) {
        st = maildex_db_config_set(cli->db, key, joined);
        if (st != MAILDEX_STATUS_OK)
            rc = cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    }
    g_free(joined);
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
     * answer notmuch's defaults as if they were the file's. */
    if (strcmp(argv[first], "set") != 0 && (error = config_missing(cli->ctx, cli->config)) != NULL)
        return cli_error(cli, "%s", error);
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
            return cli_error(cli, "%s", error);
        if (argc - key < 1)
            return cli_error(cli, "set requires at least one argument");
        if (strncmp(argv[key], BUILT_WITH, strlen(BUILT_WITH)) == 0)
            return cli_error(cli, "'%s' cannot be set: it says what this maildex supports", argv[key]);
        if (check_prefix_name(argv[key]) != 0)
            return EXIT_FAILURE;
        if (database)
            return config_set_database(cli, argv[key], argc - key - 1, argv + key + 1);
        if (config_set(cli->ctx, cli->config, argv[key], (const char *const *) argv + key + 1,
                       argc - key - 1, false, &error) != 0)
            return cli_error(cli, "%s", error);
        return EXIT_SUCCESS;
    }
    return cli_error(cli, "unrecognized command: %s (use get, set or list)", argv[first]);
}
