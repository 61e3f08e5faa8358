/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Deflated bodies (see text-pack.h). The stored form must stay readable by every later version: the
 * 4-byte length and zlib's format are the whole of it. */
#include "text-pack.h"

#include <stdint.h>
#include <string.h>
#include <talloc.h>
#include <zlib.h>

/* Below this a body saves a few bytes at most, and a row's overhead is more than that. */
#define PACK_MIN_BYTES 200
#define PACK_HEADER 4
/* Level 1: bodies are short and Zipf-worded, so level 6 saves ~8% more bytes for twice the time on
 * the parse threads, which keep pace with the writer only barely. */
#define PACK_LEVEL 1
#define PACK_WINDOW_BITS 12
#define PACK_MEM_LEVEL 5
/* A stored length above this is not ours (a corrupt row): refused rather than allocated. */
#define PACK_MAX_BYTES (256u * 1024 * 1024)

unsigned char *maildex__text_pack(void *ctx, const char *text, size_t n, size_t *len)
{
    z_stream z = {0};
    unsigned char *out;
    uLong room;
    int rc;

    if (text == NULL || n < PACK_MIN_BYTES || n > PACK_MAX_BYTES)
        return NULL;
    /* A 4 KB window and 4 K hash heads: a body is a few KB, and zlib's defaults (32 KB, 32 K) made
     * setting up and clearing the stream cost more than compressing it; the ratio is the same. */
    if (deflateInit2(&z, PACK_LEVEL, Z_DEFLATED, PACK_WINDOW_BITS, PACK_MEM_LEVEL,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    room = deflateBound(&z, (uLong) n);
    out = talloc_array(ctx, unsigned char, PACK_HEADER + room);
    if (out == NULL) {
        deflateEnd(&z);
        return NULL;
    }
    for (int i = 0; i < PACK_HEADER; i++)
        out[i] = (unsigned char) (n >> (8 * i));
    z.next_in = (Bytef *) text;
    z.avail_in = (uInt) n;
    z.next_out = out + PACK_HEADER;
    z.avail_out = (uInt) room;
    rc = deflate(&z, Z_FINISH);
    *len = PACK_HEADER + z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END || *len >= n) {
        talloc_free(out);
        return NULL;
    }
    return out;
}

void maildex__text_bind(sqlite3_stmt *stmt, int i, const char *text, const unsigned char *packed,
                        size_t packed_len)
{
    if (packed)
        sqlite3_bind_blob(stmt, i, packed, (int) packed_len, SQLITE_STATIC);
    else
        sqlite3_bind_text(stmt, i, text ? text : "", -1, SQLITE_STATIC);
}

static void text_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const unsigned char *in = sqlite3_value_blob(argv[0]);
    int n = sqlite3_value_bytes(argv[0]);
    uLongf size = 0;
    char *out;

    (void) argc;
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
        sqlite3_result_value(ctx, argv[0]);
        return;
    }
    for (int i = 0; n >= PACK_HEADER && i < PACK_HEADER; i++)
        size |= (uLongf) in[i] << (8 * i);
    if (n < PACK_HEADER || size > PACK_MAX_BYTES) {
        sqlite3_result_error(ctx, "maildex_text: not a packed text", -1);
        return;
    }
    out = sqlite3_malloc64(size + 1);
    if (out == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    if (uncompress((Bytef *) out, &size, in + PACK_HEADER, (uLong) (n - PACK_HEADER)) != Z_OK) {
        sqlite3_free(out);
        sqlite3_result_error(ctx, "maildex_text: a packed text is corrupt", -1);
        return;
    }
    out[size] = '\0';
    sqlite3_result_text64(ctx, out, size, sqlite3_free, SQLITE_UTF8);
}

static void pack_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const char *text = (const char *) sqlite3_value_text(argv[0]);
    size_t len = 0;
    unsigned char *packed;

    (void) argc;
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
        sqlite3_result_value(ctx, argv[0]);
        return;
    }
    packed = maildex__text_pack(NULL, text, (size_t) sqlite3_value_bytes(argv[0]), &len);
    if (packed)
        sqlite3_result_blob64(ctx, packed, len, SQLITE_TRANSIENT);
    else
        sqlite3_result_value(ctx, argv[0]);
    talloc_free(packed);
}

int maildex__text_pack_register(sqlite3 *sql)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(sql, "maildex_text", 1, flags, NULL, text_function, NULL,
                                        NULL, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(sql, "maildex_text_pack", 1, flags, NULL, pack_function,
                                        NULL, NULL, NULL);
    return rc;
}
