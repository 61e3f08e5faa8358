/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex reindex QUERY`: re-parse the files of the matching messages and re-index them, keeping
 * their tags (maildex_reindex). Prints nothing on success, as notmuch. */
#include "cli.h"

#include <stdlib.h>

int cmd_reindex(struct cli *cli, int argc, char **argv)
{
    int decrypt = MAILDEX_DECRYPT_AUTO;
    bool decrypt_given = false;
    const struct option opts[] = {
        {OPT_KEYWORD, "decrypt", &decrypt, cli_index_decrypt_keywords, NULL, &decrypt_given},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q = NULL;
    int first = cli_start(cli, argc, argv, opts), rc;
    char *query;

    if (first < 0)
        return -first;
    query = cli_query_string(cli->ctx, argc - first, argv + first);
    if (query == NULL || *query == '\0')
        return cli_error(cli, "requires at least one search term");
    /* Excluded messages are re-indexed too, as notmuch does; query:NAME works as in search. */
    qopts.exclude = MAILDEX_EXCLUDE_FALSE;
    if ((rc = cli_query_create(cli, query, &qopts, &q)) != 0)
        return rc;
    if (maildex_reindex(q, cli_index_decrypt(cli, decrypt, decrypt_given), NULL) != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    return EXIT_SUCCESS;
}
