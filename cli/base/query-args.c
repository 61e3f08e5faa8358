/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The query a command's arguments give, for every command that takes one: argv joined as notmuch
 * joins it (or notmuch's error when a query is required and empty), and the query created in the
 * syntax --query asked for, with search.exclude_tags, and query.NAME and squery.NAME looked up in
 * the config file, else in the database's stored config. Syntax errors are reported in notmuch's
 * words, which its test suite and scripts read. It prints nothing but errors. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>

/* section.NAME from the config file, else from the database's stored config. */
static const char *lookup_config(struct cli *cli, const char *section, const char *name)
{
    char *key = talloc_asprintf(cli->ctx, "%s.%s", section, name);
    const char *value = config_get(cli->ctx, cli->config, key);

    if (value == NULL && cli->db && maildex_db_config_get(cli->db, key, &value) == MAILDEX_STATUS_OK &&
        value)
        value = talloc_strdup(cli->ctx, value);
    return value;
}

/* query:NAME (and the sexp (query NAME)) is query.NAME. */
static const char *lookup_named_query(void *data, const char *name)
{
    return lookup_config(data, "query", name);
}

/* The sexp (NAME ...) is squery.NAME when that is set. */
static const char *lookup_saved_query(void *data, const char *name)
{
    return lookup_config(data, "squery", name);
}

char *cli_query_string(void *ctx, int argc, char **argv)
{
    char *q = talloc_strdup(ctx, "");

    for (int i = 0; i < argc && q; i++)
        q = talloc_asprintf_append(q, "%s%s", i ? " " : "", argv[i]);
    return q;
}

char *cli_query_required(struct cli *cli, int argc, char **argv)
{
    char *text = cli_query_string(cli->ctx, argc, argv);

    if (text && *text)
        return text;
    fprintf(cli->err, "Error: %s %s requires at least one search term.\n", cli_program, cli->command->name);
    return NULL;
}

int cli_query_create(struct cli *cli, const char *text, maildex_query_options_t *opts,
                     maildex_query_t **out)
{
    maildex_status_t st;

    opts->exclude_tags = (const char *const *) config_get_list(cli->ctx, cli->config,
                                                               "search.exclude_tags");
    opts->lookup = lookup_named_query;
    opts->squery = lookup_saved_query;
    opts->lookup_data = cli;
    opts->syntax = (maildex_query_syntax_t) cli->query_syntax;
    st = maildex_query_create(cli->db, text, opts, out);
    if (st == MAILDEX_STATUS_QUERY_SYNTAX && opts->syntax == MAILDEX_QUERY_SEXP) {
        /* notmuch's two lines, which its test suite and scripts read */
        fprintf(cli->err, "%s %s: Syntax error in query\n%s\n", cli_program, cli->command->name,
                maildex_db_errmsg(cli->db));
        return EXIT_FAILURE;
    }
    if (st == MAILDEX_STATUS_QUERY_SYNTAX) {
        cli_error(cli, "%s", maildex_db_errmsg(cli->db));
        fprintf(cli->err, "Query string was: %s\n", text);
        return EXIT_FAILURE;
    }
    if (st != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    return 0;
}
