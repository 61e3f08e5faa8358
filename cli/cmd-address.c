/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex address`: notmuch 0.37's address command (notmuch-search.c, notmuch_address_command): the
 * senders and/or recipients of the matching messages, each mailbox or address once or counted, in
 * text, text0, JSON or S-expressions, byte for byte as notmuch prints them (notmuch-compat.md 2.8).
 * Reading and de-duplicating the mailboxes is the library's (maildex_query_addresses); this file
 * reads options and prints. */
#include "cli.h"
#include "print/sprinter.h"

#include <stdio.h>
#include <stdlib.h>

enum output {
    OUTPUT_SENDER = 1 << 0,
    OUTPUT_RECIPIENTS = 1 << 1,
    OUTPUT_COUNT = 1 << 2,
    OUTPUT_ADDRESS = 1 << 3,
};

/* notmuch's print_mailbox: text prints [count TAB] name-addr (or the address alone); the
 * structures print every field whatever --output=address says. */
static void print_mailbox(struct sprinter *sp, const maildex_mailbox_t *mb, int output)
{
    if (sp->is_text_printer) {
        if (output & OUTPUT_COUNT) {
            sp->integer(sp, maildex_mailbox_count(mb));
            sp->string(sp, "\t");
        }
        sp->string(sp, output & OUTPUT_ADDRESS ? maildex_mailbox_address(mb)
                                               : maildex_mailbox_name_addr(mb));
    } else {
        sp->begin_map(sp);
        sp->map_key(sp, "name");
        sp->string(sp, maildex_mailbox_name(mb));
        sp->map_key(sp, "address");
        sp->string(sp, maildex_mailbox_address(mb));
        sp->map_key(sp, "name-addr");
        sp->string(sp, maildex_mailbox_name_addr(mb));
        if (output & OUTPUT_COUNT) {
            sp->map_key(sp, "count");
            sp->integer(sp, maildex_mailbox_count(mb));
        }
        sp->end(sp);
    }
    sp->separator(sp);
}

static maildex_status_t print_addresses(struct sprinter *sp, maildex_query_t *q,
                                        const maildex_address_options_t *opts, int output)
{
    maildex_addresses_t *it;
    const maildex_mailbox_t *mb;
    maildex_status_t st = maildex_query_addresses(q, opts, &it);

    sp->begin_list(sp);
    while (st == MAILDEX_STATUS_OK && (st = maildex_addresses_next(it, &mb)) == MAILDEX_STATUS_OK &&
           mb)
        print_mailbox(sp, mb, output);
    sp->end(sp);
    return st;
}

int cmd_address(struct cli *cli, int argc, char **argv)
{
    static const struct keyword outputs[] = {{"sender", OUTPUT_SENDER}, {"recipients", OUTPUT_RECIPIENTS},
                                             {"count", OUTPUT_COUNT}, {"address", OUTPUT_ADDRESS},
                                             {NULL, 0}};
    static const struct keyword sorts[] = {{"newest-first", MAILDEX_SORT_NEWEST_FIRST},
                                           {"oldest-first", MAILDEX_SORT_OLDEST_FIRST}, {NULL, 0}};
    static const struct keyword excludes[] = {{"true", MAILDEX_EXCLUDE_TRUE},
                                              {"false", MAILDEX_EXCLUDE_FALSE}, {NULL, 0}};
    static const struct keyword dedups[] = {{"no", MAILDEX_DEDUP_NONE}, {"mailbox", MAILDEX_DEDUP_MAILBOX},
                                            {"address", MAILDEX_DEDUP_ADDRESS}, {NULL, 0}};
    int output = 0, format = SPRINTER_TEXT, sort = MAILDEX_SORT_NEWEST_FIRST;
    int exclude = MAILDEX_EXCLUDE_TRUE, dedup = MAILDEX_DEDUP_MAILBOX, rc;
    const struct option opts[] = {
        {OPT_FLAGS, "output", &output, outputs, NULL, NULL},
        {OPT_KEYWORD, "format", &format, sprinter_format_keywords, NULL, NULL},
        {OPT_KEYWORD, "sort", &sort, sorts, NULL, NULL},
        {OPT_KEYWORD, "exclude", &exclude, excludes, NULL, NULL},
        {OPT_KEYWORD, "deduplicate", &dedup, dedups, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_address_options_t aopts = MAILDEX_ADDRESS_OPTIONS_INIT;
    maildex_query_t *q;
    struct sprinter *sp;
    maildex_status_t st;
    int first = cli_start(cli, argc, argv, opts);
    char *text;

    if (first < 0)
        return -first;
    if ((output & OUTPUT_COUNT) && dedup == MAILDEX_DEDUP_NONE) {
        fprintf(cli->err, "--output=count is not applicable with --deduplicate=no\n");
        return EXIT_FAILURE;
    }
    if ((text = cli_query_required(cli, argc - first, argv + first)) == NULL)
        return EXIT_FAILURE;
    qopts.sort = (maildex_sort_t) sort;
    qopts.exclude = (maildex_exclude_t) exclude;
    if ((rc = cli_query_create(cli, text, &qopts, &q)) != 0)
        return rc;
    aopts.headers = (output & OUTPUT_SENDER ? MAILDEX_ADDRESS_SENDER : 0) |
                    (output & OUTPUT_RECIPIENTS ? MAILDEX_ADDRESS_RECIPIENTS : 0);
    aopts.dedup = (maildex_dedup_t) dedup;
    aopts.count = (output & OUTPUT_COUNT) != 0;
    sp = sprinter_create(cli->ctx, cli->out, (enum sprinter_format) format);
    st = print_addresses(sp, q, &aopts, output);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (sp->error)
        return cli_error(cli, "%s", sp->error);
    maildex_query_destroy(q);
    return EXIT_SUCCESS;
}
