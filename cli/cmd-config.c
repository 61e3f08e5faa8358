/* `maildex config get|set|list`: notmuch's semantics. An unset key prints nothing and exits 0; a list
 * prints one value per line; set with several values writes a list, with none removes the key;
 * --database stores the value in the database instead of the file. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int config_get_cmd(struct cli *cli, const char *key)
{
    char *section, *item;
    char **values;

    if (config_split_key(cli->ctx, key, &section, &item) != 0)
        return cli_error(cli, "invalid configuration name: %s (should be of the form "
                              "<section>.<item>)", key);
    values = config_get_list(cli->ctx, cli->config, key);
    for (char **v = values; *v; v++)
        printf("%s\n", *v);
    return EXIT_SUCCESS;
}

static int config_list_cmd(struct cli *cli)
{
    char **keys = config_list_keys(cli->ctx, cli->config);

    for (char **k = keys; *k; k++) {
        char *value = config_get(cli->ctx, cli->config, *k);
        printf("%s=%s\n", *k, value ? value : "");
    }
    return EXIT_SUCCESS;
}

static int config_set_database(struct cli *cli, const char *key, int n, char **values)
{
    char *joined = n ? g_strjoinv(";", values) : NULL;
    maildex_status_t st;
    int rc = cli_open_db(cli, MAILDEX_DB_CREATE);

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
    if (strcmp(argv[first], "get") == 0) {
        if (argc - first != 2)
            return cli_error(cli, "get requires exactly one argument");
        return config_get_cmd(cli, argv[first + 1]);
    }
    if (strcmp(argv[first], "list") == 0)
        return config_list_cmd(cli);
    if (strcmp(argv[first], "set") == 0) {
        if (argc - first < 2)
            return cli_error(cli, "set requires at least one argument");
        if (database)
            return config_set_database(cli, argv[first + 1], argc - first - 2, argv + first + 2);
        if (config_set(cli->ctx, cli->config, argv[first + 1],
                       (const char *const *) argv + first + 2, argc - first - 2, false, &error) != 0)
            return cli_error(cli, "%s", error);
        return EXIT_SUCCESS;
    }
    return cli_error(cli, "unrecognized command: %s (use get, set or list)", argv[first]);
}
