/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_index(): the write path of `new`, in phases.
 *   1. scan.c walks the mail root and finds new files, removed files and removed directories;
 *   2. directory and folder rows are created for directories new to the database;
 *   3. every new file is either recognised as a renamed file (same unique name and size as a removed
 *      one: the row moves, the file is not read) or parsed on parse threads (parse-pool.c, one thread
 *      per core but this one's, joined at the end); results are applied in submission
 *      order (so thread ids do not depend on timing) by this thread, the only one that touches
 *      SQLite, in batched transactions; a bounded window of files in flight keeps memory flat. The
 *      parse threads also build each message's full-text columns and record their tokens
 *      (sqlext/tokenizer.h), so this thread, the bottleneck, only replays them into FTS5;
 *   4. the remaining removals (after the adds, so a message that moved keeps its tags);
 *   5. directory mtimes, recorded only now that everything under them is committed.
 * A crash anywhere leaves committed batches and unrecorded mtimes: the next run lists those
 * directories again, finds the committed files known, and finishes. */
#include "store/maildex-private.h"

#include "gone.h"
#include "index.h"
#include "util/maildir.h"
#include "mime/parse.h"
#include "mime/mime.h"
#include "parse-pool.h"
#include "message/renames.h"
#include "relist.h"
#include "scan.h"
#include "message/write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW 64          /* files in flight on the parse threads */
/* WAL pages between checkpoints while indexing (SQLite's default is 1,000). Each checkpoint stops the
 * writer for two fsyncs and copies pages a later batch may rewrite; at 8,192 (32 MB of WAL) a first
 * index of 10k messages checkpoints once instead of a dozen times, and the WAL stays bounded. */
#define INDEX_WAL_AUTOCHECKPOINT 8192
#define BATCH_FILES 2000   /* files per transaction */
#define RECORD_MAX_BODY ((size_t) 1 << 20) /* longer bodies' tokens are not recorded (file_read) */
/* A run that adds more files than one transaction holds (a first index, a large import) lets dirty
 * pages spill at the 16 MB cache (4,000 pages) instead of at db.c's 8,000 (31 MB), which small
 * passes need (a sync pass over a 100k store dirties ~4,500 pages, and spilling them wrote pages
 * twice). Every batch of a bulk index dirties more pages than either limit, so the higher one only
 * held memory: first index of 100k files, 58 -> 41 MB peak RSS at the same speed; of 1M, 76 MB
 * before, 63 and 75 MB in two runs after (doc/performance.md). */
#define BULK_FILES BATCH_FILES
#define BULK_CACHE_SPILL 4000

struct job {
    struct run *run;
    struct maildex__scan_dir *dir;
    const char *name;
    char *path;                          /* talloc'd on the job context */
    void *ctx;                           /* owns this job's parse result (made by the worker) */
    struct maildex__file_read read;      /* what the parse thread found */
    gint finished;                       /* set by the pool once the parse thread is done */
};

struct run {
    maildex_db_t *db;
    const maildex_index_options_t *opts;
    struct maildex__scan *scan;
    maildex_index_stats_t *stats;
    struct maildex__add_options add;
    struct maildex__parse_options parse; /* read by the parse threads: set before the first job */
    struct maildex__pool *parsers;
    struct job *window[WINDOW];
    size_t head, tail;                   /* sequence numbers: head is the next to apply */
    struct maildex__gone *gone;          /* what the walk found gone, asked again (gone.h) */
    GHashTable *unsafe_dirs;             /* dirs with a vanished file, or that could not be listed
                                            again: mtime not recorded */
    uint64_t done, in_batch;
    const struct maildex__mime_ops *mime; /* loaded only when a file must be parsed */
    GMutex recorders_lock;               /* pool threads share the idle recorders */
    GPtrArray *recorders;                /* idle struct maildex__fts_recorder * */
    bool record;                         /* the FTS table's tokenizer exists: recorders can */
    maildex_status_t st;
};

static bool interrupted(const struct run *r)
{
    return maildex__cancelled(r->db) != 0; /* maildex_db_cancel, from any thread */
}

static void warning(struct run *r, const char *path, const char *reason)
{
    r->stats->warnings++;
    if (r->opts->warning)
        r->opts->warning(r->opts->data, path, reason);
}

/* ---- phase 2: rows for new directories ---------------------------------------------------------- */

/* In notmuch's order, for the order of a message's files (search.c): notmuch makes a directory's
 * document when the first file in it is indexed (its parents' first), and those of directories with
 * no new file at the end of the run; a message's files are listed by their directory's document id,
 * then by name. So the rows of directories with new files come first, in the order their files are
 * indexed (order, phase 3's), then the others'. Find-or-create: `insert --create-folder` may have
 * made a directory's row since the scan. */
static maildex_status_t create_directories(struct run *r, GPtrArray *order)
{
    maildex_status_t st = MAILDEX_STATUS_OK;

    for (int pass = 0; pass < 2; pass++)
        for (guint i = 0; i < order->len && st == MAILDEX_STATUS_OK; i++) {
            struct maildex__scan_dir *d = order->pdata[i];
            if (d->id == 0 && d->has_new_files == (pass == 0))
                st = maildex__store_directory(r->db, d->path, &d->id, &d->folder);
        }
    return st;
}

/* ---- phase 3: new files ------------------------------------------------------------------------- */

/* An idle recorder, or a new one; NULL when none can be made (the writer then tokenizes). */
static struct maildex__fts_recorder *take_recorder(struct run *r)
{
    struct maildex__fts_recorder *rec = NULL;

    g_mutex_lock(&r->recorders_lock);
    if (r->recorders->len > 0)
        rec = g_ptr_array_steal_index_fast(r->recorders, r->recorders->len - 1);
    g_mutex_unlock(&r->recorders_lock);
    return rec ? rec : maildex__fts_recorder_new(r->db->fts);
}

static void give_back_recorder(struct run *r, struct maildex__fts_recorder *rec)
{
    if (rec == NULL)
        return;
    g_mutex_lock(&r->recorders_lock);
    g_ptr_array_add(r->recorders, rec);
    g_mutex_unlock(&r->recorders_lock);
}

/* After a parse error: is the file gone (a race with the sync tool), or there but unreadable? Only
 * the second holds back this run's removals; a file that opens fine was refused for what it is (too
 * large, not a regular file) and is only warned about. */
static void classify_error(const char *path, struct maildex__file_read *out)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd >= 0)
        close(fd);
    else if (errno == ENOENT)
        out->vanished = true;
    else
        out->unreadable = true;
}

void maildex__file_read(const struct maildex__mime_ops *mime, struct maildex__fts_recorder *recorder,
                        const struct maildex__parse_options *opts, void *ctx, const char *path,
                        struct maildex__file_read *out)
{
    struct stat sb;

    memset(out, 0, sizeof *out);
    if (stat(path, &sb) != 0) {
        out->rc = MAILDEX__PARSE_ERROR;
        if (errno == ENOENT) {
            out->vanished = true;
            return;
        }
        out->unreadable = true;
        out->error = talloc_asprintf(ctx, "cannot stat: %s", strerror(errno));
        return;
    }
    out->size = sb.st_size;
    out->rc = mime->parse_file(ctx, path, opts, &out->msg, &out->error);
    if (out->rc == MAILDEX__PARSE_ERROR)
        classify_error(path, out);
    /* Recorded tokens take about six times their text's bytes: a long body (up to
     * MAILDEX__BODY_TEXT_MAX) is tokenized by the writer as it is inserted instead. */
    if (out->rc == MAILDEX__PARSE_OK && recorder)
        out->text = maildex__store_text_prepare(ctx, out->msg,
                                                strlen(out->msg->body) <= RECORD_MAX_BODY ? recorder : NULL);
}

static void parse_file(struct job *job)
{
    struct run *r = job->run;
    struct maildex__fts_recorder *rec = r->record ? take_recorder(r) : NULL;

    job->ctx = talloc_new(NULL);
    maildex__file_read(r->mime, rec, &r->parse, job->ctx, job->path, &job->read);
    give_back_recorder(r, rec);
}

/* Runs on a parse thread: touches only the job, its own talloc tree, and (under the lock) the idle
 * recorders. */
static void parse_work(void *data, void *user)
{
    (void) user;
    parse_file(data);
}

/* Ends the batch in hand once it holds BATCH_FILES files, and begins the next. */
static void batch_grew(struct run *r)
{
    if (++r->in_batch >= BATCH_FILES && r->st == MAILDEX_STATUS_OK) {
        r->in_batch = 0;
        r->st = maildex__commit_and_begin(r->db);
    }
}

static void count_file_done(struct run *r, const char *path)
{
    r->done++;
    if (r->opts->progress)
        r->opts->progress(r->opts->data, r->stats, r->done, r->stats->files_found, path);
    batch_grew(r);
}

/* Whether the files table has the name already: another writer (`insert`) indexed it after the
 * scan listed it. */
static bool known_meanwhile(struct run *r, struct job *job)
{
    int64_t id = 0;

    r->st = maildex__store_file_find(r->db, job->dir->id, job->name, &id);
    return id != 0;
}

/* A removal the walk found that does not stand now, or must wait: the row stays, and the
 * directories involved are listed again next run (their mtimes are not recorded). */
static void keep_removal(struct run *r, const struct maildex__scan_removal *rm,
                         struct maildex__scan_dir *also)
{
    if (rm->dir)
        g_hash_table_add(r->unsafe_dirs, rm->dir);
    if (also)
        g_hash_table_add(r->unsafe_dirs, also);
}

static void apply(struct run *r, struct job *job)
{
    const struct maildex__file_read *in = &job->read;
    struct maildex__file_ref f = {job->dir->id, job->dir->folder, job->name, NULL, in->size,
                                  job->dir->path};
    bool added = false;

    if (in->vanished && maildex__gone_vanished(r->gone, job->dir->id, job->dir->path, job->name)) {
        /* A file the index knows, renamed again since the walk (by `tag`, by a sync tool), or new
         * mail renamed to cur/: its directory is listed again next run, and the one it is in now
         * has changed since the walk looked at it, so the next run finds the name it has now. */
        g_hash_table_add(r->unsafe_dirs, job->dir);
    } else if (in->vanished) {
        maildex_index_event_t e = {MAILDEX_INDEX_VANISHED, job->path, false, true};
        r->stats->files_vanished++;
        g_hash_table_add(r->unsafe_dirs, job->dir);
        if (r->opts->event)
            r->opts->event(r->opts->data, &e);
        else
            warning(r, job->path, "vanished before it could be read");
    } else if (in->rc == MAILDEX__PARSE_ERROR) {
        /* Not recording the directory's mtime retries the file next time (fixing a permission
         * does not change the directory's mtime). */
        g_hash_table_add(r->unsafe_dirs, job->dir);
        r->stats->files_unreadable += in->unreadable;
        warning(r, job->path, in->error ? in->error : "cannot be read");
    } else if (in->rc == MAILDEX__PARSE_NOT_MAIL) {
        r->stats->files_processed++;
        if (r->opts->not_mail)
            r->opts->not_mail(r->opts->data, job->path);
    } else if (r->st == MAILDEX_STATUS_OK && !known_meanwhile(r, job) && r->st == MAILDEX_STATUS_OK) {
        r->stats->files_processed++;
        f.flags = maildex__maildir_flags(job->name);
        r->st = maildex__store_add(r->db, in->msg, in->text, &f, &r->add, &added);
        if (added)
            r->stats->messages_added++;
        if (in->msg->warning)
            warning(r, job->path, in->msg->warning);
    }
    count_file_done(r, job->path);
}

/* Applies the oldest job in flight once its parse thread is done with it: in submission order, so a
 * later file that finished first waits for the earlier ones. */
static void apply_head(struct run *r)
{
    struct job *next = r->window[r->head % WINDOW];

    maildex__pool_wait(r->parsers, &next->finished);
    apply(r, next);
    talloc_free(next->ctx);
    talloc_free(next);
    r->window[r->head % WINDOW] = NULL;
    r->head++;
}

/* A new file with the unique name and size of a removed one is that file renamed or moved (flags
 * changed, new/ -> cur/, another folder): move the row, do not read the file. Unless the removal no
 * longer stands (a tag change moved the row, or the old name is back): then this name is either
 * the row's already, or a file to read. */
static bool try_rename(struct run *r, struct maildex__scan_dir *d, const char *name,
                       const char *path)
{
    struct maildex__scan_removal *removal = maildex__gone_renamed(r->gone, path, name);
    struct maildex__file_ref to = {d->id, d->folder, name, maildex__maildir_flags(name), 0, d->path};
    int64_t known = 0;
    bool gone = false;

    if (removal == NULL)
        return false;
    removal->done = true;
    r->st = maildex__gone_still(r->gone, removal, &gone);
    if (r->st == MAILDEX_STATUS_OK && !gone) {
        keep_removal(r, removal, d);
        r->st = maildex__store_file_find(r->db, d->id, name, &known);
        if (r->st == MAILDEX_STATUS_OK && known == 0)
            return false;
    } else if (r->st == MAILDEX_STATUS_OK) {
        r->st = maildex__store_move_file(r->db, removal->file_id, &to, r->add.synchronize_flags);
        r->stats->renames++;
        /* notmuch counts every new name in a directory it lists as processed, renames too. */
        r->stats->files_processed++;
    }
    count_file_done(r, path);
    return true;
}

static void submit(struct run *r, struct maildex__scan_dir *d, const char *name)
{
    struct job *job;
    char *path = maildex__path_join(NULL, r->db->mail_root, d->path, name);

    if (path == NULL) {
        r->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    if (try_rename(r, d, name, path)) {
        talloc_free(path);
        return;
    }
    if (r->mime == NULL && (r->st = maildex__mime(r->db, &r->mime)) != MAILDEX_STATUS_OK) {
        talloc_free(path);
        return;
    }
    while (r->tail - r->head >= WINDOW)
        apply_head(r);
    job = talloc_zero(NULL, struct job);
    if (job == NULL) {
        talloc_free(path);
        r->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    job->run = r;
    job->dir = d;
    job->name = name;
    job->path = talloc_steal(job, path);
    r->window[r->tail % WINDOW] = job;
    r->tail++;
    maildex__pool_push(r->parsers, job, &job->finished);
}

/* notmuch's order: depth first, a directory's subdirectories (by name) before its own files. Which
 * copy of a duplicate comes first decides the message's date, subject and author, so the order is
 * notmuch's, not the walk's breadth-first one. */
static gint compare_dir_indices(gconstpointer a, gconstpointer b, gpointer data)
{
    const GPtrArray *dirs = data;
    const struct maildex__scan_dir *da = dirs->pdata[*(const guint *) a];
    const struct maildex__scan_dir *db = dirs->pdata[*(const guint *) b];
    const struct maildex__scan_dir *parent = dirs->pdata[da->parent];

    /* Siblings in notmuch's order: inode order under a directory new to the database. */
    if (parent->was_new && da->ino != db->ino)
        return da->ino < db->ino ? -1 : 1;
    return strcmp(da->path, db->path);
}

static GPtrArray *processing_order(GPtrArray *dirs)
{
    GPtrArray *order = g_ptr_array_sized_new(dirs->len);
    GArray **children = g_new0(GArray *, dirs->len);
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(guint64)); /* index * 2 + "children done" */

    for (guint i = 0; i < dirs->len; i++) {
        struct maildex__scan_dir *d = dirs->pdata[i];
        if (d->parent < 0)
            continue;
        if (!children[d->parent])
            children[d->parent] = g_array_new(FALSE, FALSE, sizeof(guint));
        g_array_append_val(children[d->parent], i);
    }
    for (guint i = 0; i < dirs->len; i++)
        if (children[i])
            g_array_sort_with_data(children[i], compare_dir_indices, dirs);
    /* The roots of the walk come first in dirs: the first of them is processed first. */
    for (guint i = dirs->len; i-- > 0;) {
        guint64 root = (guint64) i * 2;
        if (((struct maildex__scan_dir *) dirs->pdata[i])->parent < 0)
            g_array_append_val(stack, root);
    }
    while (stack->len) {
        guint64 top = g_array_index(stack, guint64, stack->len - 1);
        guint index = (guint) (top / 2);
        g_array_set_size(stack, stack->len - 1);
        if (top % 2 == 1 || !children[index]) {
            g_ptr_array_add(order, dirs->pdata[index]);
            continue;
        }
        top++; /* revisit after the children */
        g_array_append_val(stack, top);
        for (guint j = children[index]->len; j-- > 0;) {
            guint64 entry = (guint64) g_array_index(children[index], guint, j) * 2;
            g_array_append_val(stack, entry);
        }
    }
    for (guint i = 0; i < dirs->len; i++)
        if (children[i])
            g_array_free(children[i], TRUE);
    g_free(children);
    g_array_free(stack, TRUE);
    return order;
}

static void submit_all(struct run *r, struct maildex__scan_dir *d, GPtrArray *names)
{
    for (guint j = 0; names && j < names->len && r->st == MAILDEX_STATUS_OK && !interrupted(r); j++)
        submit(r, d, names->pdata[j]);
}

static void index_new_files(struct run *r, GPtrArray *dirs)
{
    sqlite3_stmt *stmt;

    /* Preparing the insert opens the FTS table, which makes its tokenizer: recorders copy its
     * arguments. Before any job is queued, so the pool threads see them. */
    r->record = r->scan->files_found > 0 &&
                maildex__stmt(r->db, MAILDEX__STMT_FTS_INSERT, &stmt) == MAILDEX_STATUS_OK;

    for (guint i = 0; i < dirs->len && r->st == MAILDEX_STATUS_OK && !interrupted(r); i++) {
        struct maildex__scan_dir *d = dirs->pdata[i];
        struct maildex__relist *relist;
        if (d->id <= 0)
            continue;
        if (!d->fresh) {
            submit_all(r, d, d->new_names);
            continue;
        }
        relist = maildex__relist_new(r->scan, r->db->mail_root, d);
        while (r->st == MAILDEX_STATUS_OK && !interrupted(r)) {
            GStringChunk *chunk = g_string_chunk_new(16 * 1024);
            GPtrArray *names = g_ptr_array_new();
            bool more = maildex__relist_next(relist, chunk, names);
            submit_all(r, d, names);
            /* A slice's names must outlive the jobs that point at them. */
            while (r->head < r->tail)
                apply_head(r);
            g_ptr_array_free(names, TRUE);
            g_string_chunk_free(chunk);
            if (!more)
                break;
        }
        /* Listed again next run: the files it could not give are still to index. */
        if (maildex__relist_failed(relist))
            g_hash_table_add(r->unsafe_dirs, d);
        maildex__relist_free(relist);
    }
    while (r->head < r->tail)
        apply_head(r);
    for (guint i = 0; i < r->recorders->len; i++)
        maildex__fts_recorder_free(r->recorders->pdata[i]);
    g_ptr_array_set_size(r->recorders, 0);
}

/* ---- phases 4 and 5 ----------------------------------------------------------------------------- */

/* Whether this run must keep messages whose last file is gone: a directory or file that exists but
 * could not be read, or the missing target of a symlink, may be exactly where they moved (notmuch
 * gives up the whole run for the same reason). Removals that leave a message another file are safe
 * either way. */
static bool must_hold_removals(const struct run *r)
{
    return r->stats->directories_unreadable || r->stats->files_unreadable ||
           r->stats->dangling_symlinks;
}

/* Removes one file row, if its file is still gone (gone.h), unless it is a message's last and
 * removals are held (some mail could not be read), its file is being renamed (a new name of the
 * same unique name vanished) or a directory changed after the walk looked at it (the message may
 * have moved there under another name, as a sync tool moves it to another folder): then the row
 * stays, with the message's tags, and its directory is listed again next run. */
static void remove_one(struct run *r, struct maildex__scan_removal *rm)
{
    bool gone = false, last = false, held = must_hold_removals(r);

    r->st = maildex__gone_stands(r->gone, rm, &gone);
    if (r->st == MAILDEX_STATUS_OK && gone &&
        (held || maildex__gone_moving(r->gone, rm) || maildex__gone_tree_changed(r->gone)))
        r->st = maildex__store_file_is_last(r->db, rm->file_id, &last);
    if (r->st != MAILDEX_STATUS_OK || !gone || last) {
        r->stats->removals_held += r->st == MAILDEX_STATUS_OK && last && held;
        keep_removal(r, rm, NULL);
        return;
    }
    r->st = maildex__store_remove_file(r->db, rm->file_id, r->add.synchronize_flags, &gone);
    if (gone)
        r->stats->messages_removed++;
    else
        r->stats->renames++;
}

/* A directory gone from disk: its row goes once nothing is left in it, and its parent is listed
 * again next run, so that a directory that comes back (a folder moved away and back) is found even
 * where nothing else changed the parent's mtime. */
static void forget_dir(struct run *r, const struct maildex__scan_gone_dir *dir)
{
    const char *slash = strrchr(dir->path, '/');
    char *parent = g_strndup(dir->path, slash ? (size_t) (slash - dir->path) : 0);
    int64_t parent_id = 0;

    r->st = maildex__run_ids(r->db, MAILDEX__STMT_DIR_DELETE, dir->id, 0, "cannot forget a directory");
    if (r->st == MAILDEX_STATUS_OK && sqlite3_changes(r->db->sql) > 0 && dir->path[0])
        r->st = maildex__lookup_id(r->db, MAILDEX__STMT_DIR_FIND, parent, &parent_id);
    if (r->st == MAILDEX_STATUS_OK && parent_id)
        r->st = maildex__run_ids(r->db, MAILDEX__STMT_DIR_SET_MTIME, parent_id, 0,
                                 "cannot record a directory's mtime");
    g_free(parent);
}

static void remove_files(struct run *r)
{
    GArray *removals = r->scan->removals;
    GArray *dirs = r->scan->removed_dirs;

    /* Moved away while the run read it: every name would look gone. */
    if (removals->len && maildex__gone_root_moved(r->gone)) {
        r->st = maildex__error(r->db, MAILDEX_STATUS_FILE_NOT_FOUND,
                               "mail root '%s' was moved away or replaced during the run: nothing "
                               "was removed", r->db->mail_root);
        return;
    }
    for (guint i = 0; i < removals->len && r->st == MAILDEX_STATUS_OK; i++) {
        struct maildex__scan_removal *rm = &g_array_index(removals, struct maildex__scan_removal, i);
        if (rm->done)
            continue;
        remove_one(r, rm);
        batch_grew(r);
    }
    /* Children before parents; a directory that still holds a file (a held removal) or a
     * subdirectory keeps its row, and the next run finds it gone again. */
    for (guint i = dirs->len; i-- > 0 && r->st == MAILDEX_STATUS_OK;)
        forget_dir(r, &g_array_index(dirs, struct maildex__scan_gone_dir, i));
}

static void record_mtimes(struct run *r)
{
    GPtrArray *dirs = r->scan->dirs;

    for (guint i = 0; i < dirs->len && r->st == MAILDEX_STATUS_OK; i++) {
        struct maildex__scan_dir *d = dirs->pdata[i];
        sqlite3_stmt *stmt;
        /* An unlisted directory's recorded mtime is still right: rewriting it would make every
         * no-op `new` a write transaction (and a checkpoint). */
        if (d->id <= 0 || !d->listed)
            continue;
        if (g_hash_table_contains(r->unsafe_dirs, d)) {
            if (r->opts->relist)
                r->opts->relist(r->opts->data, d->path);
            continue;
        }
        r->st = maildex__stmt(r->db, MAILDEX__STMT_DIR_SET_MTIME, &stmt);
        if (r->st)
            break;
        sqlite3_bind_int64(stmt, 1, d->id);
        /* 0 = "list it next time": a too-recent mtime is not trusted (see scan.c). */
        sqlite3_bind_int64(stmt, 2, d->record_mtime ? d->fs_mtime : 0);
        r->st = maildex__step_done(r->db, stmt, "cannot record a directory's mtime");
    }
}

/* After the last commit: the threads the run changed, to a host that asked (a run interrupted
 * committed what it did, so it tells too). */
static void tell_changed_threads(struct run *r)
{
    GHashTable *changed = r->db->changed_threads;
    GHashTableIter it;
    gpointer key;

    r->db->changed_threads = NULL;
    if (changed == NULL)
        return;
    g_hash_table_iter_init(&it, changed);
    while ((r->st == MAILDEX_STATUS_OK || r->st == MAILDEX_STATUS_INTERRUPTED) &&
           g_hash_table_iter_next(&it, &key, NULL))
        r->opts->thread_changed(r->opts->data, (uint64_t) *(int64_t *) key);
    g_hash_table_destroy(changed);
}

/* Sets the connection's cache_spill to pages; returns what it was, or -1 when it cannot be read
 * (then nothing is changed). */
static int64_t set_cache_spill(maildex_db_t *db, int64_t pages)
{
    int64_t was = -1;
    char sql[48];

    if (maildex__pragma_int(db->sql, "PRAGMA cache_spill", &was) != SQLITE_OK)
        return -1;
    snprintf(sql, sizeof sql, "PRAGMA cache_spill=%" PRId64, pages);
    sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
    return was;
}

/* ---- the run: its phases in order ----------------------------------------------------------------- */

/* Phase 1, the walk: what changed under the mail root, and the counts it found for stats. */
static maildex_status_t scan_phase(struct run *r)
{
    const maildex_index_options_t *opts = r->opts;
    struct maildex__scan_options scan_opts = {opts->ignore, opts->directories, opts->full_scan,
                                              opts->warning, opts->event, opts->data};
    maildex_index_stats_t *stats = r->stats;
    maildex_status_t st = maildex__scan(r->db, &scan_opts, &r->scan);

    if (st)
        return st;
    stats->files_found = r->scan->files_found;
    stats->warnings = r->scan->warnings;
    stats->directories_unreadable = r->scan->unreadable_dirs;
    stats->files_unreadable = r->scan->unreadable_entries;
    stats->dangling_symlinks = r->scan->dangling;
    stats->directories = r->scan->dirs->len;
    stats->directories_listed = r->scan->listed;
    stats->first_run = r->scan->dirs->len > 0 &&
                       ((struct maildex__scan_dir *) r->scan->dirs->pdata[0])->path[0] == '\0' &&
                       ((struct maildex__scan_dir *) r->scan->dirs->pdata[0])->was_new;
    return MAILDEX_STATUS_OK;
}

/* What the writing phases share: the rename index, the parse threads, the recorders. */
static void start_writing(struct run *r)
{
    r->unsafe_dirs = g_hash_table_new(g_direct_hash, g_direct_equal);
    r->recorders = g_ptr_array_new();
    /* A parse thread per core: parsing is now most of the work (callgrind, 2k first index: 1.90G
     * instructions parsing, 0.72G in this thread, which applies), so this thread, idle most of the
     * time, shares a core with one of them. The threads start only when a file needs parsing. */
    r->parsers = maildex__pool_new(MAX(1, MIN(8, (int) g_get_num_processors())), parse_work, r);
    g_mutex_init(&r->recorders_lock);
    maildex__gone_learn(r->gone, r->scan);
}

/* Phases 2 to 5 in one transaction: directory rows, new files, removals, mtimes; then the WAL left
 * empty and the changed threads told. */
static void write_phases(struct run *r)
{
    maildex_db_t *db = r->db;
    GPtrArray *order;
    sqlite3_int64 changes_before;
    int64_t spill = -1; /* the cache_spill to put back, when a bulk run changed it */

    if (r->opts->thread_changed)
        db->changed_threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    changes_before = sqlite3_total_changes64(db->sql);
    sqlite3_wal_autocheckpoint(db->sql, INDEX_WAL_AUTOCHECKPOINT);
    if (r->scan->files_found > BULK_FILES)
        spill = set_cache_spill(db, BULK_CACHE_SPILL);
    order = processing_order(r->scan->dirs);
    r->st = maildex__begin(db);
    if (r->st == MAILDEX_STATUS_OK)
        r->st = create_directories(r, order);
    if (r->st == MAILDEX_STATUS_OK)
        index_new_files(r, order);
    g_ptr_array_free(order, TRUE);
    if (r->st == MAILDEX_STATUS_OK && !interrupted(r))
        remove_files(r);
    if (r->st == MAILDEX_STATUS_OK && !interrupted(r))
        record_mtimes(r);
    if (r->st == MAILDEX_STATUS_OK)
        r->st = maildex__commit(db);
    else
        maildex__rollback(db);
    /* Leave an empty WAL behind: every later reader (each search is a new process) would otherwise
     * find and index the frames of this run. A reader holding the WAL is not waited for. */
    if (r->st == MAILDEX_STATUS_OK && sqlite3_total_changes64(db->sql) != changes_before)
        maildex__checkpoint(db);
    sqlite3_wal_autocheckpoint(db->sql, 1000); /* SQLite's default again */
    if (spill >= 0)
        set_cache_spill(db, spill);
    if (r->st == MAILDEX_STATUS_OK && interrupted(r))
        r->st = maildex__error(db, MAILDEX_STATUS_INTERRUPTED, "interrupted: what was indexed so far is saved");
    tell_changed_threads(r);
}

/* Every job is applied; the threads are joined, so none outlives the run. */
static void end_writing(struct run *r)
{
    maildex__pool_free(r->parsers);
    g_hash_table_destroy(r->unsafe_dirs);
    g_ptr_array_free(r->recorders, TRUE);
    g_mutex_clear(&r->recorders_lock);
}

maildex_status_t maildex_index(maildex_db_t *db, const maildex_index_options_t *opts,
                               maildex_index_stats_t *stats)
{
    maildex_index_stats_t local_stats = {0};
    struct run r = {0};
    struct maildex__writer_lock *lock = NULL;

    if (stats == NULL)
        stats = &local_stats;
    memset(stats, 0, sizeof *stats);
    if (db->mode == MAILDEX_DB_READ_ONLY)
        return maildex__error(db, MAILDEX_STATUS_READ_ONLY, "database '%s' was opened read-only",
                              db->path);
    r.db = db;
    r.opts = opts;
    r.stats = stats;
    r.add.new_tags = opts->new_tags;
    r.add.synchronize_flags = opts->synchronize_flags;
    r.add.hold_text = true;
    r.parse.decrypt = opts->decrypt;
    r.parse.user_fields = db->user_fields;
    /* Before the scan: a second indexer must plan from the first one's finished work, and from
     * file names that a killed tag change no longer owes (message/renames.c). */
    r.st = maildex__writer_lock(db, "indexing", &lock);
    if (r.st == MAILDEX_STATUS_OK)
        r.st = maildex__renames_finish(db);
    if (r.st == MAILDEX_STATUS_OK)
        r.st = maildex__gone_open(db, opts, &r.gone);
    if (r.st == MAILDEX_STATUS_OK)
        r.st = scan_phase(&r);
    if (r.st == MAILDEX_STATUS_OK) {
        start_writing(&r);
        write_phases(&r);
        end_writing(&r);
    }
    maildex__scan_free(r.scan);
    maildex__gone_free(r.gone);
    maildex__writer_unlock(lock);
    return r.st;
}
