/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex reply`: notmuch 0.37's reply command (notmuch-reply.c): for each message of a query, the
 * headers of a reply (recipients without the user's own addresses, From the user's address the mail
 * came to, Re: subject, In-Reply-To, References) and the quoted original, or the headers alone, or
 * JSON / S-expressions of the reply headers and the original (notmuch-compat.md 2.7). The user's
 * addresses come from the config; the reply is built by the library; this file prints. */
#include "cli.h"
#include "print/show.h"

#include <stdlib.h>

enum { FORMAT_DEFAULT, FORMAT_JSON, FORMAT_SEXP, FORMAT_HEADERS_ONLY };

static int reply_one(struct show *s, maildex_message_t *m, const maildex_reply_options_t *opts, int format)
{
    maildex_reply_t *r;
    size_t n;
    const maildex_header_t *headers;

    if (maildex_message_reply(m, s->duplicate, opts, &r) != MAILDEX_STATUS_OK)
        return cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
    /* notmuch walks the original's parts for every format but headers-only. */
    if (format != FORMAT_HEADERS_ONLY)
        show_report_crypto_errors(s->cli->err, maildex_reply_original(r));
    if (format == FORMAT_DEFAULT || format == FORMAT_HEADERS_ONLY) {
        reply_print_text(s->out, r, format == FORMAT_HEADERS_ONLY);
    } else {
        headers = maildex_reply_headers(r, &n);
        s->sp->begin_map(s->sp);
        s->sp->map_key(s->sp, "reply-headers");
        show_structured_headers(s->sp, headers, n);
        s->sp->map_key(s->sp, "original");
        show_structured_part(s, m, maildex_reply_original(r));
        s->sp->end(s->sp);
    }
    return 0;
}

/* Every message of q (newest first), or the one it must match for JSON and S-expressions. */
static int reply_all(struct show *s, maildex_query_t *q, const maildex_reply_options_t *opts, int format)
{
    maildex_messages_t *it;
    maildex_message_t *m;
    maildex_status_t st;
    uint64_t count = 0;
    int rc = 0;

    if (format == FORMAT_JSON || format == FORMAT_SEXP) {
        if (maildex_query_count_messages(q, &count) != MAILDEX_STATUS_OK)
            return cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
        if (count != 1) {
            fprintf(s->cli->err, "Error: search term did not match precisely one message (matched %llu messages).\n",
                    (unsigned long long) count);
            return EXIT_FAILURE;
        }
        s->sp = format == FORMAT_JSON ? sprinter_json_create(s->cli->ctx, s->out)
                                      : sprinter_sexp_create(s->cli->ctx, s->out);
    }
    st = maildex_query_search_messages(q, &it);
    while (rc == 0 && st == MAILDEX_STATUS_OK && (st = maildex_messages_next(it, &m)) == MAILDEX_STATUS_OK && m)
        rc = reply_one(s, m, opts, format);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
    if (rc == 0 && s->sp && s->sp->error)
        return cli_error(s->cli, "%s", s->sp->error);
    return rc;
}

int cmd_reply(struct cli *cli, int argc, char **argv)
{
    static const struct keyword formats[] = {{"default", FORMAT_DEFAULT}, {"json", FORMAT_JSON},
                                             {"sexp", FORMAT_SEXP}, {"headers-only", FORMAT_HEADERS_ONLY},
                                             {NULL, 0}};
    static const struct keyword reply_tos[] = {{"all", true}, {"sender", false}, {NULL, 0}};
    /* A bare --decrypt means true: the first keyword. */
    static const struct keyword decrypts[] = {{"true", MAILDEX_DECRYPT_TRUE}, {"false", MAILDEX_DECRYPT_FALSE},
                                              {"auto", MAILDEX_DECRYPT_AUTO}, {NULL, 0}};
    struct show s = {.cli = cli, .out = cli->out, .part = -1, .body = true, .unmatched = true};
    int format = FORMAT_DEFAULT, reply_to = true, decrypt = MAILDEX_DECRYPT_AUTO, rc;
    const struct option opts[] = {
        {OPT_KEYWORD, "format", &format, formats, NULL, NULL},
        {OPT_KEYWORD, "reply-to", &reply_to, reply_tos, NULL, NULL},
        {OPT_KEYWORD, "decrypt", &decrypt, decrypts, NULL, NULL},
        {OPT_COUNT, "duplicate", &s.duplicate, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_reply_options_t ropts = {0};
    maildex_query_t *q;
    int first = cli_start(cli, argc, argv, opts);
    char *text;

    if (first < 0)
        return -first;
    if ((text = cli_query_required(cli, argc - first, argv + first)) == NULL)
        return EXIT_FAILURE;
    ropts.user_name = config_get(cli->ctx, cli->config, "user.name");
    ropts.primary_email = config_get(cli->ctx, cli->config, "user.primary_email");
    ropts.other_email = (const char *const *) config_get_list(cli->ctx, cli->config, "user.other_email");
    ropts.extra_headers = (const char *const *) config_get_list(cli->ctx, cli->config, "show.extra_headers");
    ropts.reply_all = reply_to;
    ropts.headers_only = format == FORMAT_HEADERS_ONLY;
    ropts.decrypt = (maildex_decrypt_t) decrypt;
    /* notmuch's reply adds no excluded tags: every matching message is replied to. */
    qopts.exclude = MAILDEX_EXCLUDE_FALSE;
    if ((rc = cli_query_create(cli, text, &qopts, &q)) != 0)
        return rc;
    rc = reply_all(&s, q, &ropts, format);
    maildex_query_destroy(q);
    return rc;
}
