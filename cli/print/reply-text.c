/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reply's default format after the headers (notmuch 0.37's format_part_reply): "On <Date>, <From> wrote:",
 * then each text part of the original quoted with "> " (as notmuch's reply filter quotes: every line,
 * the empty ones too, carriage returns dropped), an attached message's headers as "> Name: value"
 * lines, attachments as "Attachment: name (type)", other parts as "Non-text part: type", and PGP/MIME
 * and S/MIME envelope parts not at all. Only printing: the parts come from the library. */
#include "show.h"

#include <strings.h>

/* notmuch's GMimeFilterReply in encode mode, over the whole text at once. */
static void quote(FILE *out, const char *text, size_t len)
{
    bool line_start = true;

    for (size_t i = 0; i < len; i++) {
        if (line_start)
            fputs("> ", out);
        line_start = text[i] == '\n';
        if (text[i] != '\r')
            fputc(text[i], out);
    }
}

/* Is type (as the part writes it) type/subtype, case-insensitively? */
static bool is_type(const char *type, const char *want)
{
    return type && strcasecmp(type, want) == 0;
}

static bool is_text(const char *type)
{
    return type && strncasecmp(type, "text/", 5) == 0;
}

static void print_message_part(FILE *out, const maildex_part_t *p)
{
    static const char *const optional[] = {"To", "Cc"};
    bool found;
    const char *value;

    value = show_header(p, "From", &found);
    fprintf(out, "> From: %s\n", value ? value : "(null)");
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if ((value = show_header(p, optional[i], &found)) != NULL)
            fprintf(out, "> %s: %s\n", optional[i], value);
    value = show_header(p, "Subject", &found);
    fprintf(out, "> Subject: %s\n", value ? value : "(null)");
    fprintf(out, "> Date: %s\n", show_header(p, "Date", &found));
    fputs(">\n", out);
}

static void print_leaf(FILE *out, const maildex_part_t *p)
{
    const char *type = maildex_part_content_type(p), *disposition = maildex_part_disposition(p);
    const char *filename = maildex_part_filename(p);
    size_t len;
    const char *content = maildex_part_content(p, &len);

    if (is_type(type, "application/pgp-encrypted") || is_type(type, "application/pgp-signature") ||
        is_type(type, "application/pkcs7-mime"))
        return;
    if (is_text(type) && !is_type(type, "text/html"))
        quote(out, content ? content : "", content ? len : 0);
    else if (disposition && strcasecmp(disposition, "attachment") == 0)
        fprintf(out, "Attachment: %s (%s)\n", filename ? filename : "(null)", type ? type : "(null)");
    else
        fprintf(out, "Non-text part: %s\n", type ? type : "(null)");
}

static void print_part(FILE *out, const maildex_part_t *p)
{
    size_t n;

    if (maildex_part_id(p) == 0)
        fprintf(out, "On %s, %s wrote:\n", maildex_part_date(p), maildex_part_from(p));
    else if (maildex_part_kind(p) == MAILDEX_PART_MESSAGE && maildex_part_headers(p, &n))
        print_message_part(out, p);
    else if (maildex_part_kind(p) == MAILDEX_PART_LEAF)
        print_leaf(out, p);
    for (size_t i = 0; i < maildex_part_count(p); i++)
        print_part(out, maildex_part_child(p, i));
}

void reply_print_text(FILE *out, const maildex_reply_t *r, bool headers_only)
{
    fputs(maildex_reply_header_text(r), out);
    if (!headers_only)
        print_part(out, maildex_reply_original(r));
}
