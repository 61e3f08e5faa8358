/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files.h: reading one of a message's files as notmuch's mime_node_open picks it (file number
 * duplicate, or for 0 the first that can be read), without the database, so that show's read-ahead
 * thread runs the same code as the caller (show.c, prefetch.c); and the status of a read that
 * failed. */
#ifndef MAILDEX_READ_FILES_H
#define MAILDEX_READ_FILES_H

#include "store/maildex-private.h"

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

#endif
