/* SPDX-License-Identifier: GPL-3.0-or-later */
/* server.h: `maildex server`, the protocol of doc/protocol.md on a libuv loop. A client (an editor
 * over the server's stdin and stdout, or anyone over the Unix socket) sends request lines of JSON,
 * each a maildex command's argv; the server runs the command inside its own process, on a thread of
 * its own with the request's own streams (cli_run with cli->in, out, err), and sends what it prints
 * back in frames tagged with the request's id. Readers (commands that open the database read-only)
 * run at once, each on its own SQLite connection; every other command waits for the one before it,
 * in the order received. With --watch, the watch (cli/loop/watch.h) indexes on the same loop and clients
 * that subscribed hear of each round.
 *
 * server.c holds the clients and the order requests run in; server-request.c one request's streams
 * and thread, which hands what it prints back through the request's callbacks; cmd-server.c the
 * command's options, the socket and the signals. */
#ifndef MAILDEX_CLI_SERVER_H
#define MAILDEX_CLI_SERVER_H

#include "base/base.h"

#include <glib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

struct server;
struct client;

/* One request: what the client asked, and the thread and pipes that run it (server-request.c). */
struct request {
    struct server *server;
    struct client *client; /* NULL once the client is gone: what it printed goes nowhere */
    int64_t id;
    char **argv;           /* argv[0] is the program name, as cli_run wants it */
    int argc;
    GBytes *input;         /* the command's stdin */
    bool writer;           /* runs after the writer before it ends */
    bool started, cancelled_by_client;
    bool cancel;           /* the loop's: what the command prints from now on is dropped */
    struct cli cli;        /* the thread's; cli.db read by a cancel under db_lock */
    GMutex db_lock;
    atomic_int status;     /* cli_run's, stored (release) by the thread before it closes its
                              streams, loaded (acquire) by the loop once both ended */
    uv_pipe_t out, err;    /* the read ends of the command's stdout and stderr */
    int open_handles;
    GString *err_text;
    struct request *next;  /* in the server's queue of writers waiting to run */
    /* What the request hands whoever started it (server.c), on the loop's thread: each piece of its
     * stdout while it runs, and its end (status, all of its stderr) once both pipes are closed.
     * Callbacks: server-request.c never names server.c, which sits above it. */
    void (*output)(struct request *r, const char *data, size_t len);
    void (*ended)(struct request *r, int status, const char *err, size_t err_len);
};

/* Starts r: its stdin as a memfd, pipes for its stdout and stderr read on the loop, a thread that
 * runs r->argv through r->cli.run (main.c's cli_run, handed down). Returns 0, or -1 with *why set (a
 * static string) when it could not start. */
int request_start(struct request *r, uv_loop_t *loop, const char **why);

/* Asks a started request to stop: `new` commits its batch and ends, anything else has its SQLite
 * statements interrupted. What it prints from now on is dropped. */
void request_cancel(struct request *r);

/* Stops reading r's output (the client is slow to take it) and starts again. */
void request_pause(struct request *r);
void request_resume(struct request *r);

/* Sets up the allocator for many short-lived request threads: one malloc arena (glibc). Call before
 * the first request's thread. */
void request_memory_init(void);

/* Gives what the requests freed back to the system; for when no request is running or waiting. */
void request_memory_trim(void);

struct server_options {
    const char *socket_path; /* NULL: stdin and stdout */
    bool watch, hooks;
    unsigned debounce_ms;
};

/* Serves until stdin ends (no socket), or SIGTERM or SIGINT, then lets the writer in hand finish.
 * Returns the exit status. */
int server_run(struct cli *cli, const struct server_options *opts);

#endif
