/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A parsed message's full-text columns and stored body (see text.h). Pure: no database here, so a
 * parse thread prepares the text and the writer only stores it. */
#include "text.h"

#include "sqlext/text-pack.h"

#include <string.h>
#include <talloc.h>

/* The recipients as notmuch indexes them (lib/index.cc, _index_address_list): each mailbox of To, Cc
 * and Bcc as "name address", a group by its members alone (`undisclosed-recipients:;` gives no word,
 * so `(not (to *))` finds the message), and a part break between two mailboxes (notmuch leaves a gap
 * of 100 positions after each: no phrase spans two). Read from the stored form of mime/addresses.h
 * (each mailbox: name, address, name-addr, NUL-terminated). NULL when memory runs out. */
static char *recipients_text(void *ctx, const struct maildex__parsed_message *m)
{
    static const char gap[] = {MAILDEX_FTS_PART_BREAK, '\0'};
    const char *p = m->recipients, *end = p ? p + m->recipients_len : NULL;
    char *text = talloc_strdup(ctx, "");

    while (text && p && p < end) {
        const char *name = p, *address = name + strlen(name) + 1;
        const char *name_addr = address < end ? address + strlen(address) + 1 : end;
        if (name_addr >= end)
            break;
        text = talloc_asprintf_append(text, "%s%s%s%s", *text ? gap : "", name, *name ? " " : "", address);
        p = name_addr + strlen(name_addr) + 1;
    }
    return text;
}

void maildex__text_columns(void *ctx, const struct maildex__parsed_message *m,
                           const char *cols[MAILDEX__TEXT_COLUMNS])
{
    /* Both subjects of a message with protected headers are indexed, as notmuch does. */
    cols[MAILDEX__COL_SUBJECT] = m->subject_protected ? talloc_asprintf(ctx, "%s%c%s", m->subject,
                                                                        MAILDEX_FTS_PART_BREAK,
                                                                        m->subject_protected)
                                                      : m->subject;
    cols[MAILDEX__COL_FROM] = m->from;
    cols[MAILDEX__COL_TO] = recipients_text(ctx, m);
    cols[MAILDEX__COL_BODY] = m->body;
    cols[MAILDEX__COL_ATTACHMENT] = m->attachment_names;
    cols[MAILDEX__COL_MIMETYPE] = m->mime_types;
    cols[MAILDEX__COL_FIELDS] = m->user_text;
}

/* On a parse thread when the indexer prepares the text, so the writer only stores. */
void maildex__store_text_pack_body(struct maildex__store_text *text)
{
    const char *body = text->cols[MAILDEX__COL_BODY];

    text->packed_body = maildex__text_pack(text, body, body ? strlen(body) : 0, &text->packed_len);
}

struct maildex__store_text *maildex__store_text_prepare(void *ctx,
                                                        const struct maildex__parsed_message *m,
                                                        struct maildex__fts_recorder *recorder)
{
    struct maildex__store_text *text = talloc_zero(ctx, struct maildex__store_text);

    if (text == NULL)
        return NULL;
    maildex__text_columns(text, m, text->cols);
    /* The text owns its columns: a held text outlives the parsed message (text-queue.h). */
    bool ok = text->cols[MAILDEX__COL_TO] && text->cols[MAILDEX__COL_SUBJECT];
    for (int c = 0; ok && c < MAILDEX__TEXT_COLUMNS; c++)
        if (text->cols[c] && c != MAILDEX__COL_TO && !(text->cols[c] = talloc_strdup(text, text->cols[c])))
            ok = false;
    if (!ok) {
        talloc_free(text);
        return NULL;
    }
    maildex__store_text_pack_body(text);
    for (int c = 0; recorder && c < MAILDEX__TEXT_COLUMNS; c++)
        text->tokens[c] = maildex__fts_record(text, recorder, text->cols[c]);
    return text;
}

