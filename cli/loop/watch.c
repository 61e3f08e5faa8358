/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The watch (watch.h): inotify events (dir-watches.c) gather the directories that changed; after a
 * quiet time (the debounce) one round indexes them on libuv's thread pool through maildex_index(),
 * the call `new` makes, limited to those directories; then the host hears what changed, the watched
 * set follows the directories the index now knows, and the post-new hook runs. A lost event makes the
 * next round a full pass. Only one round runs at a time; changes seen meanwhile wait for the next. */
#include "watch.h"

#include "config.h"
#include "dir-watches.h"
#include "stop-signals.h"
#include "watch-follow.h"
#include "watch-lock.h"
#include "watch-log.h"
#include "watch-root.h"
#include "base/hooks.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WATCH_RETRY_MS 5000    /* after a round failed */
#define WATCH_RESCAN_MS 60000  /* full passes while some directory could not be watched */

/* One round, filled on the loop's thread before it starts and by the worker while it runs. */
struct round {
    char **dirs;             /* NULL-terminated; NULL for a full pass */
    bool full;
    maildex_index_stats_t stats;
    maildex_status_t st;
    char *error;             /* g_strdup'd */
    GArray *threads;         /* uint64_t */
    int hook_status;
    uint64_t started;        /* uv_hrtime() */
    uint64_t since;          /* wall clock (ns) when dirs were taken: maildex_index's changes_since */
    GPtrArray *relist;       /* paths (owned) the run must list again */
};

struct watch {
    struct cli *cli;
    uv_loop_t *loop;
    struct watch_options opts;
    struct watch_log *log;
    maildex_db_t *db;
    char *mail_root;
    /* the store's watch lock (watch-lock.h): NULL while deferred to another process's watch */
    struct watch_lock *lock;
    bool deferred;
    struct dir_watches *dirs; /* NULL until the lock is held */
    uv_poll_t poll;
    bool polling;             /* poll is initialised (the lock is held) */
    uv_timer_t debounce, rescan;
    struct watch_follow follow; /* while deferred: the other watch's rounds, the lock once free */
    struct stop_signals signals;
    uv_work_t work;
    struct round round;
    GHashTable *dirty;       /* paths (owned) that changed since the last round began */
    /* paths (owned) a round could not finish (a removal held, a file that vanished): walked again
     * with the next round, which they do not start by themselves (an unreadable file would make
     * rounds forever) */
    GHashTable *relist;
    bool full_pending;       /* the next round is a full pass */
    bool running, stopping, reload_pending;
    bool unwatched, was_unwatched; /* a directory could not be watched (this sync, the one before) */
    bool ready;              /* the first pass is done */
    struct watch_root root;  /* the mail root's directory as first seen: rounds act only on it */
    uint64_t first_change;   /* uv_now() of the oldest change not yet indexed; 0: none */
    uint64_t retry_at;       /* no round before this uv_now() (after a failure) */
    int status;              /* for stopped(): 1 once inotify could not be read, else 0 (a failed
                                round is retried, and SIGTERM exits 0) */
    int open_handles;
    /* the config as last read: what rounds index with */
    char **new_tags, **ignore;
    bool synchronize_flags;
};

static void schedule(struct watch *w);
static void stop_handles(struct watch *w);

/* One line of the watch's log, "maildex watch: " and the text. Safe on a round's worker too. */
static void log_line(struct watch *w, enum watch_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void log_line(struct watch *w, enum watch_log_level level, const char *fmt, ...)
{
    va_list ap;
    char *text;

    va_start(ap, fmt);
    text = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    watch_log_printf(w->log, level, "%s watch: %s", cli_program, text);
    g_free(text);
}

/* ---- the config -------------------------------------------------------------------------------- */

/* Reads what a round needs from cli->config into w; NULL, or why not (talloc'd). */
static char *read_config(struct watch *w)
{
    char *error = NULL;
    bool sync;

    if (config_get_bool(w->cli->ctx, w->cli->config, "maildir.synchronize_flags", true, &sync,
                        &error) != 0)
        return error;
    w->synchronize_flags = sync;
    talloc_free(w->new_tags);
    talloc_free(w->ignore);
    w->new_tags = config_get_list(w, w->cli->config, "new.tags");
    w->ignore = config_get_list(w, w->cli->config, "new.ignore");
    return NULL;
}

int watch_reload(struct watch *w)
{
    char *error = NULL, *db_file, *root;
    struct config *config;

    if (w->running) { /* the worker reads the config: after its round */
        w->reload_pending = true;
        return 0;
    }
    w->reload_pending = false;
    if ((config = config_load(w->cli->ctx, w->cli->config_option, &error)) == NULL) {
        log_line(w, WATCH_LOG_ERR, "cannot reload the config: %s; the old one stays in use", error);
        return 1;
    }
    w->cli->config = config;
    db_file = config_database_file(w, config);
    root = config_mail_root(w, config);
    if (strcmp(db_file, maildex_db_path(w->db)) != 0 || strcmp(root, w->mail_root) != 0)
        log_line(w, WATCH_LOG_WARNING, "the database or the mail root changed in the config: restart to follow them; "
                 "still indexing '%s' into '%s'", w->mail_root, maildex_db_path(w->db));
    talloc_free(db_file);
    talloc_free(root);
    if ((error = read_config(w)) != NULL) {
        log_line(w, WATCH_LOG_ERR, "%s", error);
        return 1;
    }
    if (watch_log_reopen(w->log) != 0) /* after logrotate moved it: a SIGHUP opens it again */
        log_line(w, WATCH_LOG_ERR, "cannot open the log file again: %s", strerror(errno));
    log_line(w, WATCH_LOG_NOTICE, "config reloaded from '%s'", config->path ? config->path : "(defaults)");
    w->full_pending = true;
    schedule(w);
    return 0;
}

/* ---- the round, on the thread pool -------------------------------------------------------------- */

static void on_warning(void *data, const char *path, const char *reason)
{
    log_line(data, WATCH_LOG_WARNING, "'%s': %s", path, reason);
}

static void on_not_mail(void *data, const char *path)
{
    struct watch *w = data;
    if (!w->opts.quiet)
        watch_log_printf(w->log, WATCH_LOG_INFO, "Note: Ignoring non-mail file: %s", path); /* new's words */
}

static void on_thread_changed(void *data, uint64_t thread)
{
    struct watch *w = data;
    g_array_append_val(w->round.threads, thread);
}

static void on_relist(void *data, const char *path)
{
    struct watch *w = data;
    g_ptr_array_add(w->round.relist, g_strdup(path));
}

static bool round_changed(const struct round *r)
{
    return r->stats.messages_added || r->stats.messages_removed || r->stats.renames;
}

/* The post-new hook, as `new` runs it, with a talloc root of its own: the host's loop thread may be
 * allocating on cli->ctx meanwhile. */
static int run_hook(struct watch *w)
{
    struct cli hook_cli = *w->cli;
    int rc;

    hook_cli.ctx = talloc_new(NULL);
    rc = hook_run(&hook_cli, "post-new");
    talloc_free(hook_cli.ctx);
    return rc;
}

static void round_work(uv_work_t *req)
{
    struct watch *w = req->data;
    struct round *r = &w->round;
    maildex_index_options_t io = {0};

    io.new_tags = (const char *const *) w->new_tags;
    io.ignore = (const char *const *) w->ignore;
    io.synchronize_flags = w->synchronize_flags;
    io.directories = (const char *const *) r->dirs;
    io.warning = on_warning;
    io.not_mail = on_not_mail;
    io.thread_changed = on_thread_changed;
    io.data = w;
    io.mail_root_device = w->root.dev;
    io.mail_root_inode = w->root.ino;
    io.changes_since = r->since;
    io.relist = on_relist;
    r->st = maildex_index(w->db, &io, &r->stats);
    if (r->st != MAILDEX_STATUS_OK && r->st != MAILDEX_STATUS_INTERRUPTED)
        r->error = g_strdup(maildex_db_errmsg(w->db));
    else if (r->st == MAILDEX_STATUS_OK && w->opts.hooks && round_changed(r))
        r->hook_status = run_hook(w);
}

/* ---- after a round, on the loop's thread --------------------------------------------------------- */

/* `new`'s exit status for the round (cmd-new.c's finish), which a host may pass on. */
static int round_status(const struct round *r)
{
    if (r->st != MAILDEX_STATUS_OK && r->st != MAILDEX_STATUS_INTERRUPTED)
        return EXIT_FAILURE;
    if (r->stats.directories_unreadable || r->stats.dangling_symlinks)
        return EXIT_FAILURE;
    if (r->hook_status)
        return r->hook_status;
    return r->stats.files_vanished || r->stats.files_unreadable ? 75 : EXIT_SUCCESS;
}

/* Logs the round; returns what the log says of it (g_malloc'd) for the lock's record. */
static char *log_round(struct watch *w, const struct round *r, int status)
{
    double ms = (uv_hrtime() - r->started) / 1e6;
    char *text;

    if (r->error)
        text = g_strdup_printf("indexing failed: %s; a full pass in %d s", r->error, WATCH_RETRY_MS / 1000);
    else
        text = g_strdup_printf("%s%" PRIu64 " added, %" PRIu64 " removed, %" PRIu64 " renamed, %zu %s "
                               "changed (%.1f ms)",
                               r->full ? "full pass: " : "", r->stats.messages_added, r->stats.messages_removed,
                               r->stats.renames, (size_t) r->threads->len,
                               r->threads->len == 1 ? "thread" : "threads", ms);
    if (r->error)
        log_line(w, WATCH_LOG_ERR, "%s", text);
    if (r->hook_status)
        log_line(w, WATCH_LOG_WARNING, "the post-new hook failed (status %d)", r->hook_status);
    if (!r->error && !w->opts.quiet && (round_changed(r) || r->full || status != 0))
        log_line(w, WATCH_LOG_INFO, "%s", text);
    return text;
}

static void mark_dirty(void *data, const char *path)
{
    struct watch *w = data;

    if (!g_hash_table_contains(w->dirty, path))
        g_hash_table_add(w->dirty, g_strdup(path));
    if (w->first_change == 0)
        w->first_change = uv_now(w->loop);
}

/* Reads the pending inotify events into dirty; when some were lost, the next round is a full pass. */
static void read_events(struct watch *w)
{
    if (!dir_watches_read(w->dirs, mark_dirty, w)) {
        log_line(w, WATCH_LOG_WARNING, "events were lost (the inotify queue overflowed): a full pass follows");
        w->full_pending = true;
        if (w->first_change == 0)
            w->first_change = uv_now(w->loop);
    }
}

static void watch_failed(void *data, const char *path, int err)
{
    struct watch *w = data;

    if (!w->was_unwatched)
        log_line(w, WATCH_LOG_WARNING, "cannot watch '%s%s%s': %s%s; a full pass every %d s instead", w->mail_root,
                 path[0] ? "/" : "", path, strerror(err),
                 err == ENOSPC ? " (the limit fs.inotify.max_user_watches)" : "",
                 WATCH_RESCAN_MS / 1000);
    w->unwatched = true;
}

static void on_rescan(uv_timer_t *t)
{
    struct watch *w = t->data;

    w->full_pending = true;
    schedule(w);
}

/* The watched set follows the directories the index knows; a directory watched only now may have
 * changed before its watch existed, so the next round looks at it. */
static size_t sync_watches(struct watch *w, bool look_again)
{
    char **paths = NULL;
    GPtrArray *wanted = g_ptr_array_new();
    size_t watched;
    bool was_unwatched = w->was_unwatched = w->unwatched;

    if (maildex_db_directories(w->db, &paths) != MAILDEX_STATUS_OK) {
        log_line(w, WATCH_LOG_ERR, "cannot list the directories to watch: %s", maildex_db_errmsg(w->db));
        g_ptr_array_free(wanted, TRUE);
        return 0;
    }
    /* The mail root always: a database that never indexed knows no directory yet. */
    if (paths[0] == NULL || paths[0][0] != '\0')
        g_ptr_array_add(wanted, (char *) "");
    for (size_t i = 0; paths[i]; i++)
        g_ptr_array_add(wanted, paths[i]);
    w->unwatched = false;
    watched = dir_watches_sync(w->dirs, (char *const *) wanted->pdata, wanted->len,
                               look_again ? mark_dirty : NULL, watch_failed, w);
    g_ptr_array_free(wanted, TRUE);
    maildex_strings_free(paths);
    if (w->unwatched && !was_unwatched)
        uv_timer_start(&w->rescan, on_rescan, WATCH_RESCAN_MS, WATCH_RESCAN_MS);
    else if (!w->unwatched && was_unwatched)
        uv_timer_stop(&w->rescan);
    return watched;
}

/* The round to the lock's record (text: what the log said, for `watch --status`; the round itself
 * for a watch that follows this one) and to the host. */
static void report(struct watch *w, const struct round *r, int status, const char *text)
{
    struct watch_round out = {r->stats.messages_added, r->stats.messages_removed, r->stats.renames,
                              (const uint64_t *) (void *) r->threads->data, r->threads->len,
                              r->full, status, r->error};
    char stamp[WATCH_LOG_TIME_SIZE], *line;

    watch_log_time(stamp);
    line = r->hook_status ? g_strdup_printf("%s %s; the post-new hook failed (status %d)", stamp, text, r->hook_status)
                          : g_strdup_printf("%s %s", stamp, text);
    watch_lock_round(w->lock, line, &out);
    g_free(line);
    if (w->opts.round)
        w->opts.round(w->opts.data, &out);
}

/* ---- the mail root gone (watch-root.h) -------------------------------------------------------------- */

static void on_root_back(struct watch_root *root)
{
    struct watch *w = root->data;

    log_line(w, WATCH_LOG_NOTICE, "mail root '%s' is back: a full pass follows", w->mail_root);
    w->full_pending = true;
    schedule(w);
}

/* After a round that failed: when the mail root is gone or is another directory, the watch says so
 * once, waits for it (nothing was removed: maildex_index checks the root before it removes), puts
 * that in *error for the host, and returns true. */
static bool wait_for_root(struct watch *w, char **error)
{
    char *why = watch_root_lost(&w->root);

    if (why == NULL)
        return false;
    g_free(*error);
    *error = why;
    log_line(w, WATCH_LOG_WARNING, "%s", why);
    w->full_pending = true;
    return true;
}

static void round_done(uv_work_t *req, int uv_status)
{
    struct watch *w = req->data;
    struct round *r = &w->round;
    int status = round_status(r);
    size_t watched;
    bool waiting;
    char *text;

    (void) uv_status;
    w->running = false;
    waiting = r->error && wait_for_root(w, &r->error);
    text = waiting ? g_strdup(r->error) : log_round(w, r, status);
    if (r->error && !waiting) { /* everything it was to do is done by a full pass, later */
        w->full_pending = true;
        w->retry_at = uv_now(w->loop) + WATCH_RETRY_MS;
    }
    report(w, r, status, text);
    g_free(text);
    g_strfreev(r->dirs);
    g_free(r->error);
    g_array_free(r->threads, TRUE);
    for (guint i = 0; i < r->relist->len; i++)
        g_hash_table_add(w->relist, r->relist->pdata[i]);
    g_ptr_array_free(r->relist, TRUE);
    memset(r, 0, sizeof *r);
    if (w->stopping) {
        stop_handles(w);
        return;
    }
    watched = sync_watches(w, true);
    if (!w->ready) /* always: scripts and tests wait for it */
        log_line(w, WATCH_LOG_NOTICE, "watching %zu %s under '%s' (pid %ld)", watched,
                 watched == 1 ? "directory" : "directories", w->mail_root, (long) getpid());
    w->ready = true;
    if (w->reload_pending)
        watch_reload(w);
    schedule(w);
}

/* The directories of a round: what changed, and what the last rounds must walk again. */
static char **round_dirs(struct watch *w)
{
    char **dirs = g_new0(char *, g_hash_table_size(w->dirty) + g_hash_table_size(w->relist) + 1);
    GHashTableIter it;
    gpointer path;
    guint i = 0;

    g_hash_table_iter_init(&it, w->dirty);
    while (g_hash_table_iter_next(&it, &path, NULL))
        dirs[i++] = g_strdup(path);
    g_hash_table_iter_init(&it, w->relist);
    while (g_hash_table_iter_next(&it, &path, NULL))
        if (!g_hash_table_contains(w->dirty, path))
            dirs[i++] = g_strdup(path);
    return dirs;
}

static void start_round(uv_timer_t *t)
{
    struct watch *w = t->data;
    struct round *r = &w->round;

    if (w->running || w->stopping)
        return;
    memset(r, 0, sizeof *r);
    /* Every change made before `since` has its events queued by now: read into this round, a
     * message moved between two folders is never half in it (its old folder walked, the new one
     * left to the next round); a folder outside the round that changes later holds the removal
     * of a message's last file (maildex_index_options_t's changes_since). */
    r->since = (uint64_t) g_get_real_time() * 1000;
    read_events(w);
    r->full = w->full_pending;
    if (!r->full)
        r->dirs = round_dirs(w);
    r->threads = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    r->relist = g_ptr_array_new();
    r->started = uv_hrtime();
    g_hash_table_remove_all(w->dirty);
    g_hash_table_remove_all(w->relist);
    w->full_pending = false;
    w->first_change = 0;
    w->running = true;
    w->work.data = w;
    if (uv_queue_work(w->loop, &w->work, round_work, round_done) != 0) {
        log_line(w, WATCH_LOG_ERR, "cannot start a round on the thread pool");
        w->running = false;
    }
}

/* A round after the quiet time, but no later than WATCH_MAX_WAIT_MS after the first change it
 * will index, and none while one runs (its end schedules the next). */
static void schedule(struct watch *w)
{
    uint64_t now = uv_now(w->loop), delay = w->opts.debounce_ms, deadline;

    if (w->running || w->stopping || w->root.gone || w->deferred ||
        (!w->full_pending && g_hash_table_size(w->dirty) == 0))
        return;
    if (w->first_change == 0)
        w->first_change = now;
    deadline = w->first_change + WATCH_MAX_WAIT_MS;
    if (!w->ready)
        delay = 0; /* the first pass */
    else if (now + delay > deadline)
        delay = deadline > now ? deadline - now : 0;
    if (w->retry_at > now + delay)
        delay = w->retry_at - now;
    uv_timer_start(&w->debounce, start_round, delay, 0);
}

/* ---- events, signals, start and stop ------------------------------------------------------------ */

static void on_events(uv_poll_t *p, int status, int events)
{
    struct watch *w = p->data;

    (void) events;
    if (status < 0) {
        log_line(w, WATCH_LOG_ERR, "cannot read inotify events: %s; stopping", uv_strerror(status));
        w->status = EXIT_FAILURE;
        watch_stop(w);
        return;
    }
    read_events(w);
    schedule(w);
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct watch *w = s->data;

    if (signum == SIGHUP) {
        watch_reload(w);
        return;
    }
    if (!w->opts.quiet)
        log_line(w, WATCH_LOG_NOTICE, "%s: %s", strsignal(signum),
                 w->running ? "finishing the round in hand, then stopping" : "stopping");
    watch_stop(w);
}

static void handle_closed(uv_handle_t *h)
{
    struct watch *w = h->data;
    void (*stopped)(void *, int) = w->opts.stopped;
    void *data = w->opts.data;
    int status = w->status;

    if (--w->open_handles > 0)
        return;
    dir_watches_free(w->dirs);
    g_hash_table_destroy(w->dirty);
    g_hash_table_destroy(w->relist);
    if (maildex_db_close(w->db) != MAILDEX_STATUS_OK && status == 0)
        status = EXIT_FAILURE;
    talloc_free(w);
    if (stopped)
        stopped(data, status);
}

static void close_handle(struct watch *w, uv_handle_t *h)
{
    if (uv_is_closing(h))
        return;
    h->data = w; /* the root's timer carries the root */
    w->open_handles++;
    uv_close(h, handle_closed);
}

static void stop_handles(struct watch *w)
{
    if (w->polling)
        close_handle(w, (uv_handle_t *) &w->poll);
    close_handle(w, (uv_handle_t *) &w->debounce);
    close_handle(w, (uv_handle_t *) &w->rescan);
    close_handle(w, (uv_handle_t *) &w->root.wait);
    close_handle(w, (uv_handle_t *) &w->follow.changed);
    close_handle(w, (uv_handle_t *) &w->follow.tick);
    if (w->opts.signals)
        w->open_handles += stop_signals_close(&w->signals, handle_closed);
}

void watch_stop(struct watch *w)
{
    if (w == NULL || w->stopping)
        return;
    w->stopping = true;
    maildex_db_cancel(w->db, MAILDEX_CANCEL_BATCH); /* a round in hand commits its batch and ends */
    if (!w->running)
        stop_handles(w);
}

/* Developer builds only: the events a test cannot make happen on demand (dir-watches.h). */
static void test_hooks(struct watch *w)
{
#ifdef MAILDEX_DEVELOPER
    const char *overflow = getenv("MAILDEX_WATCH_TEST_OVERFLOW");
    const char *limit = getenv("MAILDEX_WATCH_TEST_LIMIT");
    unsigned after = overflow ? (unsigned) strtoul(overflow, NULL, 10) : 0;
    size_t most = limit ? (size_t) strtoul(limit, NULL, 10) : 0;

    if (after || most) {
        log_line(w, WATCH_LOG_NOTICE, "test hooks: an overflow after %u events, at most %zu watches", after, most);
        dir_watches_test_hooks(w->dirs, after, most);
    }
#else
    (void) w;
#endif
}

/* A round waits for another writer (a `new` from cron): said in the log whatever stderr is, since
 * nobody watches a terminal for a daemon. Called on the worker; touches nothing of the watch. */
static void on_db_waiting(void *data, const char *what)
{
    log_line(data, WATCH_LOG_WARNING, "%s", what);
}

/* The watch's own read-write handle, opened as every command opens one (creating the database
 * and its directory), without touching the host's cli->db. */
static int open_db(struct watch *w)
{
    maildex_db_t *host_db = w->cli->db;
    int rc;

    w->cli->db = NULL;
    rc = cli_open_db(w->cli, MAILDEX_DB_CREATE);
    w->db = w->cli->db;
    w->cli->db = host_db;
    if (rc == 0)
        maildex_db_set_waiting(w->db, on_db_waiting, w);
    return rc;
}

static void start_poll(struct watch *w)
{
    uv_poll_init(w->loop, &w->poll, dir_watches_fd(w->dirs));
    w->poll.data = w;
    w->polling = true;
    uv_poll_start(&w->poll, UV_READABLE, on_events);
}

/* What the lock's record names as the holder. */
static const char *host_name(const struct watch *w)
{
    return w->opts.host ? w->opts.host : "watch";
}

static void init_handles(struct watch *w)
{
    uv_timer_t *timers[] = {&w->debounce, &w->rescan};

    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        uv_timer_init(w->loop, timers[i]);
        timers[i]->data = w;
    }
    watch_root_init(&w->root, w->loop, w->mail_root, on_root_back, w);
    watch_follow_init(&w->follow, w->loop, maildex_db_path(w->db), host_name(w), watch_log_where(w->log), w);
    if (w->dirs)
        start_poll(w);
    if (w->opts.signals)
        stop_signals_start(&w->signals, w->loop, on_signal, w);
}

/* Once the lock is held and inotify is on: the first pass. */
static void start_watching(struct watch *w)
{
    watch_root_pin(&w->root);
    test_hooks(w);
    /* Watches first, then the first pass: nothing lands unseen in between. */
    sync_watches(w, false);
    w->full_pending = true;
    schedule(w);
}

/* ---- one watch per store (watch-lock.h) ----------------------------------------------------------- */

static const char *inotify_limit(int err)
{
    return err == EMFILE ? " (the limit fs.inotify.max_user_instances)" : "";
}

/* ---- deferred to another process's watch (watch-follow.h) ---- */

static void on_relayed(struct watch_follow *f, const struct watch_round *round)
{
    struct watch *w = f->ctx;

    if (w->opts.round)
        w->opts.round(w->opts.data, round);
}

static void on_follow_failed(struct watch_follow *f, const char *error)
{
    log_line(f->ctx, WATCH_LOG_ERR, "%s: not watching", error);
}

/* The other watch has ended and the lock is this one's: it watches. */
static void on_taken(struct watch_follow *f, struct watch_lock *lock)
{
    struct watch *w = f->ctx;

    w->lock = lock;
    if ((w->dirs = dir_watches_new(w->mail_root)) == NULL) {
        log_line(w, WATCH_LOG_ERR, "cannot start inotify: %s%s: not watching", strerror(errno), inotify_limit(errno));
        TALLOC_FREE(w->lock); /* for another watch to take */
        return;
    }
    log_line(w, WATCH_LOG_NOTICE, "the other watch of '%s' has ended: watching here", maildex_db_path(w->db));
    w->deferred = false;
    start_poll(w);
    start_watching(w);
}

static void follow(struct watch *w)
{
    int rc;

    w->follow.round = on_relayed;
    w->follow.taken = on_taken;
    w->follow.failed = on_follow_failed;
    if ((rc = watch_follow_start(&w->follow)) != 0) /* its rounds are then heard a second late */
        log_line(w, WATCH_LOG_WARNING, "cannot watch the lock file of '%s': %s", maildex_db_path(w->db),
                 uv_strerror(rc));
}

/* The store's lock. Held by another process: a deferring watch (the server's) says so in its log and
 * follows that one; any other says so on stderr and returns WATCH_ALREADY_RUNS. */
static int take_lock(struct watch *w)
{
    const char *db = maildex_db_path(w->db);
    struct watch_holder other;
    char *error = NULL;

    switch (watch_lock_take(w, db, host_name(w), watch_log_where(w->log), &w->lock, &other, &error)) {
    case WATCH_LOCK_TAKEN:
        return 0;
    case WATCH_LOCK_HELD:
        break;
    default:
        return cli_error(w->cli, "%s", error);
    }
    if (!w->opts.defer) {
        cli_error(w->cli, "a watch already runs for %s", watch_holder_text(w, db, &other));
        return WATCH_ALREADY_RUNS;
    }
    log_line(w, WATCH_LOG_NOTICE, "a watch already runs for %s: not watching here; watching once it ends",
             watch_holder_text(w, db, &other));
    w->deferred = true;
    return 0;
}

int watch_check_debounce(struct cli *cli, int ms)
{
    if (ms < 1 || ms > 60000)
        return cli_error(cli, "--debounce=%d: give milliseconds from 1 to 60000", ms);
    return 0;
}

int watch_start(struct cli *cli, uv_loop_t *loop, const struct watch_options *opts,
                struct watch **out)
{
    struct watch *w = talloc_zero(cli->ctx, struct watch);
    char *error;
    int rc;

    *out = NULL;
    w->cli = cli;
    w->loop = loop;
    w->opts = *opts;
    w->log = opts->log ? opts->log : watch_log_stderr(w);
    if (w->opts.debounce_ms == 0)
        w->opts.debounce_ms = WATCH_DEBOUNCE_MS;
    w->mail_root = config_mail_root(w, cli->config);
    if ((error = read_config(w)) != NULL)
        rc = cli_error(cli, "%s", error);
    else if ((rc = cli_check_new_tags(cli, (const char *const *) w->new_tags)) == 0 && (rc = open_db(w)) == 0 &&
             (rc = take_lock(w)) == 0 && !w->deferred && (w->dirs = dir_watches_new(w->mail_root)) == NULL)
        rc = cli_error(cli, "cannot start inotify: %s%s", strerror(errno), inotify_limit(errno));
    if (rc != 0) {
        if (w->db)
            maildex_db_close(w->db);
        talloc_free(w);
        return rc;
    }
    w->dirty = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    w->relist = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    init_handles(w);
    if (w->deferred)
        follow(w);
    else
        start_watching(w);
    *out = w;
    return 0;
}
