/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gzip-compressed mail files, as notmuch 0.37 reads them (util/gmime-extra.c): a file that starts with
 * gzip's two magic bytes is decompressed through gmime's GMimeFilterGZip, whatever its name; any other
 * file is read as it is. Used by the indexing parser (parse.c) and by show and reply
 * (content.c); part of the parser module, so it may use gmime. It keeps no state. */
#ifndef MAILDEX_MIME_GZIP_H
#define MAILDEX_MIME_GZIP_H

#include <gmime/gmime.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether the first n bytes at p begin a gzip stream (n may be less than 2: then not). */
bool maildex__is_gzip(const char *p, size_t n);

/* notmuch's g_mime_stream_gzfile_new: file (a seekable stream the caller holds, at its start) itself,
 * or a stream that decompresses it, held by ctx. NULL when file cannot be read or reset. */
GMimeStream *maildex__gzip_stream(void *ctx, GMimeStream *file);

#endif
