/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.h: what the full-text index holds of a parsed message, its columns in the order of the
 * messages_fts table (sql/), built from the parse alone. It reads no row and writes none: the text
 * queue (text-queue.h) and the writer (write.h) store it. */
#ifndef MAILDEX_TEXT_H
#define MAILDEX_TEXT_H

#include "mime/parse.h"
#include "sqlext/tokenizer.h"

enum maildex__text_column {
    MAILDEX__COL_SUBJECT,
    MAILDEX__COL_FROM,
    MAILDEX__COL_TO,
    MAILDEX__COL_BODY,
    MAILDEX__COL_ATTACHMENT,
    MAILDEX__COL_MIMETYPE,
    MAILDEX__COL_FIELDS,
    MAILDEX__TEXT_COLUMNS
};

/* The full-text columns of a parsed message (subject, from, to+cc+bcc, body, attachment names, user fields,
 * MIME types), the body's stored form (sqlext/text-pack.h) and, when a recorder was given, their tokens, so
 * the writer thread only replays them. Pure: safe on any thread that owns m and ctx. NULL when memory
 * runs out. */
struct maildex__store_text {
    const char *cols[MAILDEX__TEXT_COLUMNS];
    struct maildex__fts_tokens *tokens[MAILDEX__TEXT_COLUMNS]; /* NULL: tokenized at insert */
    unsigned char *packed_body; /* NULL: the body is stored as text */
    size_t packed_len;
};
struct maildex__store_text *maildex__store_text_prepare(void *ctx,
                                                        const struct maildex__parsed_message *m,
                                                        struct maildex__fts_recorder *recorder);

/* Packs text's body column into its stored form again (after the column changed). */
void maildex__store_text_pack_body(struct maildex__store_text *text);

/* The indexed columns of a parsed message, talloc'd on ctx where they are built (the others point
 * into m). cols[MAILDEX__COL_TO] or [MAILDEX__COL_SUBJECT] is NULL when memory runs out. */
void maildex__text_columns(void *ctx, const struct maildex__parsed_message *m,
                           const char *cols[MAILDEX__TEXT_COLUMNS]);

#endif
