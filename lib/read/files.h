/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files.h: reading one of a message's files as notmuch's mime_node_open picks it (file number
 * duplicate, or for 0 the first that can be read), without the database, so that show's read-ahead
 * thread runs the same code as the caller (show.c, prefetch.c); the status of a read that failed;
 * and the first of a stored message's files that parses (address, reindex). */
#ifndef MAILDEX_READ_FILES_H
#define MAILDEX_READ_FILES_H

#include "store/maildex-private.h"

#include <glib.h>

struct maildex__mime_ops;
struct maildex__parse_options;
struct maildex__parsed_message;

/* Reads one file: returns a MAILDEX__PARSE_* code, *error (on ctx) why it failed. */
typedef int maildex__open_fn(void *ctx, const char *path, void *data, char **error);

/* Runs open on file number duplicate of files[0..n) or, for duplicate 0, on each file in turn until
 * one can be read (notmuch's "the first file in the list is not available anymore" fallback).
 * Returns open's last code; *tried is the file it was for, *error its reason (on ctx). n must be at
 * least 1 and duplicate at most n. Touches no database: any thread may run it. */
int maildex__read_files(void *ctx, const char *const *files, size_t n, int duplicate, maildex__open_fn *fn,
                        void *data, size_t *tried, char **error);

/* The status of a read that ended with code rc on file (OK for MAILDEX__PARSE_OK), the reason on db. */
maildex_status_t maildex__read_files_status(maildex_db_t *db, int rc, const char *file, const char *error);

/* Parses, under ctx and with opts (NULL for the defaults), the first of message key's files (in the
 * order they were found) that reads as mail, as `address` (for a message stored without its
 * addresses) and reindex read a message; *out is NULL when none does. When gone is not NULL every
 * file is looked at and the ids of those that are gone (ENOENT, ENOTDIR: never one that exists but
 * cannot be read) are appended to it. Returns MAILDEX_STATUS_OK or a database status. */
maildex_status_t maildex__parse_first_file(maildex_db_t *db, const struct maildex__mime_ops *mime, void *ctx,
                                           int64_t key, const struct maildex__parse_options *opts,
                                           struct maildex__parsed_message **out, GArray *gone);

#endif
