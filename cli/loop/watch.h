/* SPDX-License-Identifier: GPL-3.0-or-later */
/* watch.h: keeping the index up to date as mail lands, on a libuv loop: `maildex watch` runs one on
 * its own loop, `maildex server --watch` beside its requests on the server's loop. Indexing goes
 * through maildex_index(), the call `new` makes, limited to the directories that changed; a lost
 * event (inotify's queue overflowed, a directory that could not be watched) makes the next round a
 * full pass, as `new` would make it. Rounds run on libuv's thread pool with the watch's own
 * read-write handle, so the loop keeps answering while one runs; the host hears of each round on the
 * loop's thread. This module does not print to stdout, never exits and reads the config only when
 * started or reloaded.
 *
 * One watch per store: a watch holds the store's watch lock (watch-lock.h) while it runs. When
 * another process holds it, `maildex watch` says so and starts nothing (WATCH_ALREADY_RUNS), and the
 * server's watch (opts.defer) says so in its log and looks every second, watching once the other
 * one has ended; so the post-new hook runs once per round whichever of them watches.
 *
 * Usage (the server's --watch):
 *
 *     struct watch_options wo = {.debounce_ms = WATCH_DEBOUNCE_MS, .hooks = true,
 *                                .round = on_round, .data = server};
 *     struct watch *w;
 *     if (watch_start(cli, loop, &wo, &w) != 0)
 *         return EXIT_FAILURE;             // already reported on stderr
 *     ...                                  // uv_run(loop); on_round is called after each round
 *     watch_stop(w);                       // when the server stops: on_stopped follows
 */
#ifndef MAILDEX_CLI_WATCH_H
#define MAILDEX_CLI_WATCH_H

#include "base/base.h"
#include "watch-round.h"

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* The quiet time after the last change before a round starts, unless --debounce says otherwise;
 * a burst that never goes quiet is indexed at least every WATCH_MAX_WAIT_MS. */
#define WATCH_DEBOUNCE_MS 20
#define WATCH_MAX_WAIT_MS 1000

/* watch_start's answer when another process watches the store and opts->defer is not set (said on
 * stderr already): not an exit status, the command decides what it means. */
#define WATCH_ALREADY_RUNS (-1)

struct watch; /* opaque: one running watch */

/* --debounce=MS of `watch` and `server --watch`: 0, or 1 after saying it is out of range. */
int watch_check_debounce(struct cli *cli, int ms);

struct watch_log;

struct watch_options {
    unsigned debounce_ms;  /* 0 for WATCH_DEBOUNCE_MS */
    struct watch_log *log; /* where the log lines go (watch-log.h), the host's to free after the
                              watch stopped; NULL: stderr (the journal's form under systemd) */
    const char *host;      /* what the lock's record names for --status: NULL ("watch") or "server" */
    bool defer;            /* another process watches the store: wait for it to end, then watch,
                              instead of WATCH_ALREADY_RUNS */
    bool hooks;            /* run the post-new hook after each round that changed something */
    bool signals;          /* handle SIGTERM and SIGINT (finish the round, commit, stop) and SIGHUP
                              (watch_reload) on the loop: `maildex watch` sets it; a host that
                              handles its own signals calls watch_stop and watch_reload instead */
    bool quiet;            /* do not log rounds (errors, fallbacks and the line saying the first
                              pass is done are logged anyway) */
    /* After each round, on the loop's thread. NULL for none. */
    void (*round)(void *data, const struct watch_round *round);
    /* Once the watch has stopped (watch_stop, or a signal) and every handle is closed, with 0, or 1
     * when it stopped because inotify could not be read (a failed round is retried, not fatal);
     * the watch is freed just after. NULL for none. */
    void (*stopped)(void *data, int status);
    void *data;
};

/* Opens the database for writing (creating it, as `new` does), takes the store's watch lock, watches
 * every directory of the mail root the database knows and starts a full pass on loop (deferred, with
 * opts->defer, while another process watches). opts is copied. Returns 0 and sets *out (a talloc
 * child of cli->ctx), WATCH_ALREADY_RUNS, or an exit status after saying why on stderr. */
int watch_start(struct cli *cli, uv_loop_t *loop, const struct watch_options *opts,
                struct watch **out);

/* Stops: the round in hand finishes its batch and commits, nothing new starts, the handles close,
 * then opts->stopped is called. Safe to call twice. */
void watch_stop(struct watch *w);

/* Reads the config file again (new.tags, new.ignore, maildir.synchronize_flags, the hook
 * directory), opens a log file again by its name (after logrotate) and makes the next round a full
 * pass. The database and the mail root stay those the
 * watch started with (a change to them is logged: restart to follow it). Returns 0, or 1 after
 * saying why on stderr (the old config stays in use). */
int watch_reload(struct watch *w);

#endif
