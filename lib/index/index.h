/* SPDX-License-Identifier: GPL-3.0-or-later */
/* index.h: one mail file read as `new` reads it, for maildex_index's parse threads and for
 * maildex_insert, so that both index a file through the same calls: its size, the parser's result
 * and the full-text columns (with their tokens when a recorder is given). Thread-safe: touches only
 * the file, ctx and the recorder. */
#ifndef MAILDEX_INDEX_H
#define MAILDEX_INDEX_H

#include "sqlext/tokenizer.h"
#include "mime/mime.h"
#include "message/write.h"

struct maildex__file_read {
    int rc;                              /* MAILDEX__PARSE_OK, _NOT_MAIL or _ERROR */
    struct maildex__parsed_message *msg; /* on ctx; set for OK and NOT_MAIL */
    struct maildex__store_text *text;    /* on ctx; NULL: maildex__store_add builds it */
    char *error;                         /* on ctx: why it is not mail, or could not be read */
    int64_t size;
    bool vanished;                       /* gone before it could be read */
    bool unreadable;                     /* there, but could not be opened or read */
};

/* Reads and parses the file at path (with opts: decryption) into *out (zeroed first); with a
 * recorder, also prepares its full-text columns and records their tokens for the writer to replay. */
void maildex__file_read(const struct maildex__mime_ops *mime, struct maildex__fts_recorder *recorder,
                        const struct maildex__parse_options *opts, void *ctx, const char *path,
                        struct maildex__file_read *out);

#endif
