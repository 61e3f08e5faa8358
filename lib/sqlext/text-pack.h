/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text-pack.h: a message's indexed body kept deflated (sql/0007-packed-text.sql). The body is most of
 * the text `texts` keeps for exact deletes; stored as is it was 40% of the database. A packed body is
 * a BLOB (its length as 4 bytes, little-endian, then zlib's stream); a short body stays TEXT, which
 * packing would only make longer. Pure and thread-safe: the parse threads pack, the writer stores. */
#ifndef MAILDEX_TEXT_PACK_H
#define MAILDEX_TEXT_PACK_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

/* The stored form of text (n bytes): a talloc'd blob on ctx with its length in *len, or NULL when the
 * text is to be stored as it is (short, incompressible, or memory ran out: never an error, since the
 * plain text is always a valid stored form). */
unsigned char *maildex__text_pack(void *ctx, const char *text, size_t n, size_t *len);

/* Binds the stored form of text to parameter i: the packed blob when given, else the text itself. */
void maildex__text_bind(sqlite3_stmt *stmt, int i, const char *text, const unsigned char *packed,
                        size_t packed_len);

/* Registers maildex_text(x) (a stored body as text: a packed blob unpacked, anything else as it is)
 * and maildex_text_pack(x) (text in its stored form, for the migration), on every connection. */
int maildex__text_pack_register(sqlite3 *sql);

#endif
