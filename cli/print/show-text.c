/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show's text format (notmuch 0.37's format_part_text): each message and part between form-feed markers
 * ("\fmessage{ id:... depth:N ...", "\fheader{", "\fbody{", "\fpart{ ID: N, Content-type: ...",
 * "\fattachment{", each closed by its "}" line), headers as "Name: value" lines, text parts as their
 * text and other leaves as "Non-text part: type/subtype". The sprinter cannot express this, so it has
 * its own printer here; nothing is escaped, as notmuch escapes nothing. Only printing: the parts come
 * from the library. */
#include "relative-date.h"
#include "show.h"

#include <strings.h>
#include <time.h>

/* notmuch prints a missing Subject or From with printf's "%s" of NULL. */
static const char *or_null(const char *s)
{
    return s ? s : "(null)";
}

/* "From (date_relative) (tag tag)": the summary line of the file's message. */
static void print_summary(struct show *s, maildex_message_t *m, const maildex_part_t *root)
{
    const char *const *tags = NULL;
    char date[64];

    if (maildex_message_tags(m, &tags) != MAILDEX_STATUS_OK)
        cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
    cli_relative_date(date, sizeof date, (time_t) maildex_message_date(m));
    fprintf(s->out, "%s (%s) (", maildex_part_from(root), date);
    for (size_t i = 0; tags && tags[i]; i++)
        fprintf(s->out, "%s%s", i ? " " : "", tags[i]);
    fputs(")\n", s->out);
}

static void print_headers(struct show *s, maildex_message_t *m, const maildex_part_t *p)
{
    static const char *const optional[] = {"To", "Cc"};
    bool found;
    const char *value;

    fputs("\fheader{\n", s->out);
    if (maildex_part_id(p) == 0)
        print_summary(s, m, p);
    fprintf(s->out, "Subject: %s\n", or_null(show_header(p, "Subject", &found)));
    fprintf(s->out, "From: %s\n", or_null(show_header(p, "From", &found)));
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if ((value = show_header(p, optional[i], &found)) != NULL)
            fprintf(s->out, "%s: %s\n", optional[i], value);
    fprintf(s->out, "Date: %s\n", or_null(show_header(p, "Date", &found)));
    fputs("\fheader}\n", s->out);
}

/* The opening marker: the message line for the file's message, else the part line. Returns the
 * marker's name ("message", "part" or "attachment"). */
static const char *print_open(struct show *s, maildex_message_t *m, const maildex_part_t *p, int indent)
{
    const char *disposition = maildex_part_disposition(p), *type;
    const char *const *files = NULL;

    if (maildex_part_id(p) == 0) {
        if (maildex_message_files(m, &files) != MAILDEX_STATUS_OK)
            cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
        fprintf(s->out, "\fmessage{ id:%s depth:%d match:%d excluded:%d filename:%s\n", maildex_message_id(m),
                indent, maildex_message_matched(m), maildex_message_excluded(m),
                or_null(files ? files[0] : NULL));
        return "message";
    }
    type = disposition && strcasecmp(disposition, "attachment") == 0 ? "attachment" : "part";
    fprintf(s->out, "\f%s{ ID: %d", type, maildex_part_id(p));
    if (maildex_part_filename(p))
        fprintf(s->out, ", Filename: %s", maildex_part_filename(p));
    if (maildex_part_content_id(p))
        fprintf(s->out, ", Content-id: %s", maildex_part_content_id(p));
    fprintf(s->out, ", Content-type: %s\n", or_null(maildex_part_content_type(p)));
    return type;
}

static void print_part(struct show *s, maildex_message_t *m, const maildex_part_t *p, int indent)
{
    const char *type = print_open(s, m, p, indent);
    /* An empty message/rfc822 part has no message: notmuch prints no header block for it. */
    size_t nheaders = 0;
    bool message = maildex_part_kind(p) == MAILDEX_PART_MESSAGE && (maildex_part_headers(p, &nheaders), nheaders);
    size_t len;
    const char *content;

    if (message) {
        print_headers(s, m, p);
        if (!s->body) {
            fprintf(s->out, "\f%s}\n", type);
            return;
        }
        fputs("\fbody{\n", s->out);
    }
    if (maildex_part_kind(p) == MAILDEX_PART_LEAF) {
        if ((content = maildex_part_content(p, &len)) != NULL)
            fwrite(content, 1, len, s->out);
        else
            fprintf(s->out, "Non-text part: %s\n", or_null(maildex_part_content_type(p)));
    }
    for (size_t i = 0; i < maildex_part_count(p); i++)
        print_part(s, m, maildex_part_child(p, i), indent);
    if (message)
        fputs("\fbody}\n", s->out);
    fprintf(s->out, "\f%s}\n", type);
}

int show_text_message(struct show *s, maildex_message_t *m, int indent)
{
    maildex_part_t *root = show_open_parts(s, m, &s->popts), *p;

    if (root == NULL)
        return 1;
    p = maildex_part_find(root, s->part < 0 ? 0 : s->part);
    if (p)
        print_part(s, m, p, indent);
    maildex_part_free(root);
    return 0;
}
