/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_purge(): the mail a query matches off the disk and out of the store, in an order that no
 * kill can turn into lost tags or rows without files (maildex.h says what it promises). Under the
 * indexer lock and in one write transaction, a batch of messages at a time: read them (purge-read.c),
 * append their dump lines to the purge log and fsync it (purge-log.c), remove or move their files
 * (purge-files.c), fsync the directories, and only then let the rows of the files that went go
 * (message/write.c's own calls, as `new` removes and moves files). It never prints or decides how
 * the host reports: the host's callback is told about every file. */
#include "purge.h"

#include "message/renames.h"
#include "message/write.h"
#include "util/maildir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Messages read, logged and removed at a time: the log is synced once per batch. */
#define BATCH 1000

/* Whether the file sits in a Maildir's new/ (a move keeps it there, in the target's new/). */
static bool in_new(const char *dir)
{
    bool is_new = false;

    return maildex__maildir_is_leaf(dir, &is_new) && is_new;
}

/* Tells the host about file f of m: where it goes (or went), or why it cannot (could not). */
static void report(struct maildex__purge *p, void *ctx, const struct maildex__purge_message *m,
                   const struct maildex__purge_file *f)
{
    maildex_purge_file_t r = {m->message_id, f->path, NULL, f->size, f->error,
                              f->error ? maildex__purge_reason(f->error) : NULL};

    if (p->opts->file == NULL)
        return;
    if (p->target && !f->gone) {
        const char *name = f->to_name ? f->to_name : maildex__purge_target_name(ctx, f->name);
        r.to = talloc_asprintf(ctx, "%s/%s/%s/%s", p->db->mail_root, p->target,
                               in_new(f->dir) ? "new" : "cur", name ? name : f->name);
    }
    p->opts->file(p->opts->data, &r);
}

/* Counts what became of m (in a dry run, what would) and reports its files. */
static void account(struct maildex__purge *p, void *ctx, const struct maildex__purge_message *m)
{
    bool kept = false;

    for (size_t i = 0; i < m->nfiles; i++) {
        const struct maildex__purge_file *f = &m->files[i];
        if (f->error) {
            p->stats->files_failed++;
            kept = true;
        } else if (!f->gone) {
            p->stats->files++;
            p->stats->bytes += f->size;
        }
        report(p, ctx, m, f);
    }
    if (kept)
        p->stats->messages_kept++;
    else
        p->stats->messages++;
}

/* Whether any file of m is to go (then its lines are logged first). */
static bool acts(const struct maildex__purge_message *m)
{
    for (size_t i = 0; i < m->nfiles; i++)
        if (m->files[i].error == 0)
            return true;
    return false;
}

/* The batch's lines in the log, synced: nothing of the batch goes before they are on disk. */
static maildex_status_t log_batch(struct maildex__purge *p, GArray *msgs)
{
    int err = 0;

    for (guint i = 0; i < msgs->len && err == 0; i++) {
        const struct maildex__purge_message *m = &g_array_index(msgs, struct maildex__purge_message, i);
        if (!acts(m))
            continue;
        err = maildex__purge_log_add(p->log, m->tags_line);
        if (err == 0 && m->properties_line)
            err = maildex__purge_log_add(p->log, m->properties_line);
    }
    if (err == 0)
        err = maildex__purge_log_sync(p->log);
    if (err)
        return maildex__error(p->db, MAILDEX_STATUS_IO_ERROR, "cannot write the purge log '%s': %s "
                              "(nothing more was removed)", p->opts->log_path, strerror(err));
    return MAILDEX_STATUS_OK;
}

/* Removes or moves the files of m that can go; a file that is not there any more is gone. */
static void act(struct maildex__purge *p, void *ctx, struct maildex__purge_message *m)
{
    for (size_t i = 0; i < m->nfiles; i++) {
        struct maildex__purge_file *f = &m->files[i];
        int err;
        if (f->error || f->gone)
            continue;
        err = p->target ? maildex__purge_fs_move(p->fs, ctx, f->dir, f->name, in_new(f->dir), &f->to_name)
                        : maildex__purge_fs_remove(p->fs, f->dir, f->name);
        f->gone = err == ENOENT;
        f->error = f->gone ? 0 : err;
    }
}

/* A moved file's row, pointed at its new place (the directory's row made when it is new, listed
 * by the next `new`). Its message keeps its tags: no flag changes, so none is synchronised. */
static maildex_status_t move_row(struct maildex__purge *p, void *ctx, const struct maildex__purge_file *f)
{
    char *dir = talloc_asprintf(ctx, "%s/%s", p->target, in_new(f->dir) ? "new" : "cur");
    struct maildex__file_ref to = {.name = f->to_name, .flags = maildex__maildir_flags(f->to_name),
                                   .size = (int64_t) f->size, .dir_path = dir};
    maildex_status_t st = dir ? maildex__store_directory(p->db, dir, &to.directory, &to.folder)
                              : maildex__error(p->db, MAILDEX_STATUS_NO_MEMORY, "out of memory");

    return st ? st : maildex__store_move_file(p->db, f->id, &to, false);
}

/* The rows of m's files that went (or were gone): removed, or with a target moved. A message whose
 * last file goes leaves the store (write.c). */
static maildex_status_t rows(struct maildex__purge *p, void *ctx, const struct maildex__purge_message *m)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (size_t i = 0; i < m->nfiles && st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__purge_file *f = &m->files[i];
        bool removed;
        if (f->error)
            continue;
        st = f->to_name ? move_row(p, ctx, f) : maildex__store_remove_file(p->db, f->id, false, &removed);
    }
    return st;
}

/* One batch of keys: read; in a dry run only counted; else logged, acted on, synced, rows changed. */
static maildex_status_t run_batch(struct maildex__purge *p, const int64_t *keys, size_t n)
{
    void *ctx = talloc_new(NULL);
    GArray *msgs = g_array_new(FALSE, TRUE, sizeof(struct maildex__purge_message));
    maildex_status_t st = maildex__purge_read(p, ctx, keys, n, msgs);
    int err = 0;

    if (st == MAILDEX_STATUS_OK && !p->opts->dry_run)
        st = log_batch(p, msgs);
    for (guint i = 0; i < msgs->len && st == MAILDEX_STATUS_OK && !p->opts->dry_run; i++)
        act(p, ctx, &g_array_index(msgs, struct maildex__purge_message, i));
    if (st == MAILDEX_STATUS_OK && !p->opts->dry_run && (err = maildex__purge_fs_sync(p->fs)) != 0)
        st = maildex__error(p->db, MAILDEX_STATUS_IO_ERROR, "cannot sync a directory of removed mail: "
                            "%s (their rows are kept, for `new` to remove)", strerror(err));
    for (guint i = 0; i < msgs->len && st == MAILDEX_STATUS_OK && !p->opts->dry_run; i++)
        st = rows(p, ctx, &g_array_index(msgs, struct maildex__purge_message, i));
    for (guint i = 0; i < msgs->len && st == MAILDEX_STATUS_OK; i++)
        account(p, ctx, &g_array_index(msgs, struct maildex__purge_message, i));
    g_array_free(msgs, TRUE);
    talloc_free(ctx);
    return st;
}

static int compare_keys(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

    return (x > y) - (x < y);
}

/* Every batch of q's matches, oldest first, inside the caller's transaction. A failure to write
 * the log or sync a directory, or an interruption, stops between batches: *stop says which. */
static maildex_status_t run_batches(struct maildex__purge *p, maildex_query_t *q, maildex_status_t *stop)
{
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(int64_t));
    maildex_status_t st = maildex__query_keys(q, keys);

    g_array_sort(keys, compare_keys);
    for (guint i = 0; i < keys->len && st == MAILDEX_STATUS_OK && *stop == MAILDEX_STATUS_OK; i += BATCH) {
        st = run_batch(p, &g_array_index(keys, int64_t, i), MIN(BATCH, keys->len - i));
        if (st == MAILDEX_STATUS_IO_ERROR)
            *stop = st, st = MAILDEX_STATUS_OK;
        else if (st == MAILDEX_STATUS_OK && maildex__cancelled(p->db))
            *stop = maildex__error(p->db, MAILDEX_STATUS_INTERRUPTED, "interrupted: %llu messages purged",
                                   (unsigned long long) p->stats->messages);
    }
    g_array_free(keys, TRUE);
    return st;
}

/* What must hold before anything is read: a writable handle, a target folder inside the root, the
 * mail root there (a disk not mounted is refused, not purged), the target made. */
static maildex_status_t set_up(struct maildex__purge *p, void *ctx)
{
    const maildex_purge_options_t *o = p->opts;
    int err;

    if (!o->dry_run && p->db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(p->db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only",
                              p->db->path);
    if (o->to_folder && ((p->target = maildex__maildir_folder_normalise(ctx, o->to_folder)) == NULL ||
                         p->target[0] == '\0'))
        return maildex__error(p->db, MAILDEX_STATUS_INVALID_ARGUMENT, "invalid folder name '%s': it "
                              "must be a folder inside the mail root, without '..' (and without 'cur', "
                              "'new' or 'tmp', which are a Maildir's own)", o->to_folder);
    if ((p->fs = maildex__purge_fs_open(ctx, p->db->mail_root)) == NULL)
        return maildex__error(p->db, MAILDEX_STATUS_FILE_NOT_FOUND, "mail root '%s' is not a directory "
                              "(%s): nothing was purged", p->db->mail_root, strerror(errno));
    if (p->target && !o->dry_run && (err = maildex__purge_fs_target(p->fs, p->target)) != 0)
        return maildex__error(p->db, MAILDEX_STATUS_IO_ERROR, "cannot make the folder '%s' to move mail "
                              "to: %s", p->target, maildex__purge_reason(err));
    return maildex__purge_read_prepare(p, ctx);
}

/* The log opened and the transaction begun, under the indexer lock (not for a dry run: a read
 * snapshot is enough). */
static maildex_status_t begin(struct maildex__purge *p, void *ctx, struct maildex__writer_lock **lock)
{
    const maildex_purge_options_t *o = p->opts;
    maildex_status_t st;
    char *what;

    if (o->dry_run) {
        st = maildex_db_begin_read(p->db);
        p->reading = st == MAILDEX_STATUS_OK;
        return st;
    }
    what = p->target ? talloc_asprintf(ctx, "move to '%s'", p->target) : talloc_strdup(ctx, "remove");
    /* Nothing of `new` or `watch` runs between a file's removal and its row's, nor plans from rows
     * a purge is changing. */
    st = maildex__writer_lock(p->db, "indexing", lock);
    if (st == MAILDEX_STATUS_OK) /* files where their rows say, before any is read */
        st = maildex__renames_finish(p->db);
    if (st == MAILDEX_STATUS_OK && (p->log = maildex__purge_log_open(ctx, o->log_path, o->now, what)) == NULL)
        st = maildex__error(p->db, MAILDEX_STATUS_IO_ERROR, "cannot open the purge log '%s': %s "
                            "(nothing was purged)", o->log_path, strerror(errno));
    return st ? st : maildex__begin(p->db);
}

maildex_status_t maildex_purge(maildex_query_t *q, const maildex_purge_options_t *opts,
                               maildex_purge_stats_t *stats)
{
    static const maildex_purge_options_t defaults = {0};
    maildex_purge_options_t o = opts ? *opts : defaults;
    maildex_purge_stats_t ignored;
    struct maildex__purge p = {.db = maildex__query_db(q), .opts = &o, .stats = stats ? stats : &ignored};
    struct maildex__writer_lock *lock = NULL;
    void *ctx = talloc_new(NULL);
    maildex_status_t st, stop = MAILDEX_STATUS_OK;

    memset(p.stats, 0, sizeof *p.stats);
    if (o.now == 0)
        o.now = (int64_t) time(NULL);
    if (o.older_than > 0)
        p.cutoff = o.now - o.older_than;
    if (o.log_path == NULL)
        o.log_path = talloc_asprintf(ctx, "%s-purge.log", p.db->path);
    st = set_up(&p, ctx);
    if (st == MAILDEX_STATUS_OK)
        st = begin(&p, ctx, &lock);
    if (st == MAILDEX_STATUS_OK)
        st = run_batches(&p, q, &stop);
    if (p.reading)
        maildex_db_end_read(p.db);
    else if (st == MAILDEX_STATUS_OK)
        st = maildex__commit(p.db);
    else if (p.db->in_transaction)
        maildex__rollback(p.db);
    maildex__writer_unlock(lock);
    talloc_free(ctx);
    return st ? st : stop;
}
