/* SPDX-License-Identifier: GPL-3.0-or-later */
/* purge.h: what the two halves of maildex_purge share. purge-read.c reads a batch of messages (their
 * files, resolved below the mail root, and their dump lines); purge.c writes the log, removes or
 * moves the files and then their rows. */
#ifndef MAILDEX_PURGE_H
#define MAILDEX_PURGE_H

#include "store/maildex-private.h"

#include "purge-files.h"
#include "purge-log.h"

/* One file of a message in the batch. */
struct maildex__purge_file {
    int64_t id;
    const char *dir, *name; /* the directory relative to the mail root, as stored */
    const char *path;       /* absolute, for reports */
    uint64_t size;
    int error;              /* why it cannot go (or could not), or 0 */
    bool gone;              /* no such file: only its row goes */
    char *to_name;          /* after a move: its name in the target */
};

/* One message of the batch: only those with a file to act on. */
struct maildex__purge_message {
    int64_t key;
    const char *message_id;
    struct maildex__purge_file *files;
    size_t nfiles;
    const char *tags_line, *properties_line; /* the dump's lines; properties_line NULL for none */
};

struct maildex__purge {
    maildex_db_t *db;
    const maildex_purge_options_t *opts;
    maildex_purge_stats_t *stats;
    struct maildex__purge_fs *fs;
    struct maildex__purge_log *log; /* NULL for a dry run */
    const char *target;             /* to_folder, normalised; NULL to remove */
    int64_t cutoff;                 /* with older_than: the newest tag of a message to purge is not
                                       younger than this (seconds since the epoch) */
    sqlite3_stmt *head;             /* a message's Message-ID and newest tag time (purge-read.c) */
    bool reading;                   /* a dry run's read snapshot is open */
};

/* Prepares p->head, finalized with ctx. Returns MAILDEX_STATUS_OK or a database status. */
maildex_status_t maildex__purge_read_prepare(struct maildex__purge *p, void *ctx);

/* Reads the messages of keys[0..n) that are to be purged into out (struct maildex__purge_message,
 * allocated on ctx): old enough, with a file outside the target; their files resolved and sized
 * (error set for a file that cannot go) and, unless this is a dry run, their dump lines. Counts the
 * young ones. Returns MAILDEX_STATUS_OK or a database status. */
maildex_status_t maildex__purge_read(struct maildex__purge *p, void *ctx, const int64_t *keys, size_t n,
                                     GArray *out);

/* The words for a file's error (ELOOP: a link out of the root; EINVAL: a Message-ID the log cannot
 * hold), static. */
const char *maildex__purge_reason(int error);

#endif
