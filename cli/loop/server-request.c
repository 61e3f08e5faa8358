/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One request of `maildex server`: the command runs on a thread of its own through cli_run (main.c's,
 * reached through r->cli.run), as it would run in a process, with a memfd holding what the client
 * sent as its stdin and pipes for its stdout and stderr, whose read ends the loop reads. Real
 * descriptors, not memory streams, because a command hands them on: `new` and `insert` give them to
 * their hooks as fds 0-2, `dump` and `restore` write and read them through zlib. The request ends on
 * the loop once both pipes are at their end, which the thread causes by closing them last, after it
 * stored the exit status; what it prints and its end go to the request's callbacks (server.c's). */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static gpointer run(gpointer data)
{
    struct request *r = data;
    FILE *out = r->cli.out, *err = r->cli.err;
    int status = EXIT_FAILURE;

    if ((r->cli.ctx = talloc_new(NULL)) != NULL)
        status = r->cli.run(&r->cli, r->argc, r->argv);
    talloc_free(r->cli.ctx);
    fclose(r->cli.in);
    /* The thread's last touch of r, a release the loop's acquire pairs with: what it did with r
     * happens before the loop frees r (the pipes' end orders it too, but nothing TSan can see). */
    atomic_store_explicit(&r->status, status, memory_order_release);
    /* From here on r may be freed by the loop (it sees both pipes end): touch only the streams. */
    fclose(err);
    fclose(out);
    return NULL;
}

static void on_closed(uv_handle_t *h)
{
    struct request *r = h->data;

    if (--r->open_handles == 0)
        r->ended(r, atomic_load_explicit(&r->status, memory_order_acquire), r->err_text->str,
                 r->err_text->len);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void) h;
    (void) suggested;
    buf->base = g_malloc(65536);
    buf->len = 65536;
}

static void on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    struct request *r = stream->data;

    if (n > 0 && !r->cancel) {
        if (stream == (uv_stream_t *) &r->out)
            r->output(r, buf->base, (size_t) n);
        else
            g_string_append_len(r->err_text, buf->base, n);
    }
    g_free(buf->base);
    if (n < 0) /* UV_EOF once the thread closed its end; any other error ends the stream too */
        uv_close((uv_handle_t *) stream, on_closed);
}

/* A pipe whose read end the loop reads through handle; returns the write end as a stream, or NULL. */
static FILE *open_pipe(uv_loop_t *loop, struct request *r, uv_pipe_t *handle)
{
    int fds[2];
    FILE *f;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return NULL;
    if ((f = fdopen(fds[1], "w")) == NULL) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    uv_pipe_init(loop, handle, 0);
    handle->data = r;
    r->open_handles++;
    if (uv_pipe_open(handle, fds[0]) != 0 || uv_read_start((uv_stream_t *) handle, on_alloc, on_read) != 0) {
        close(fds[0]);
        uv_close((uv_handle_t *) handle, on_closed);
    }
    return f;
}

/* The client's bytes as a file the command can read, seek and hand on. */
static FILE *open_input(GBytes *input)
{
    gsize len = 0;
    const char *data = input ? g_bytes_get_data(input, &len) : NULL;
    int fd = memfd_create("maildex-request-stdin", MFD_CLOEXEC);
    FILE *f;

    if (fd < 0)
        return NULL;
    for (gsize done = 0; done < len;) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno != EINTR) {
            close(fd);
            return NULL;
        }
        done += n > 0 ? (gsize) n : 0;
    }
    if (lseek(fd, 0, SEEK_SET) != 0 || (f = fdopen(fd, "r")) == NULL) {
        close(fd);
        return NULL;
    }
    return f;
}

int request_start(struct request *r, uv_loop_t *loop, const char **why)
{
    GThread *thread = NULL;
    GError *error = NULL;

    r->err_text = g_string_new(NULL);
    g_mutex_init(&r->db_lock);
    r->cli.db_lock = &r->db_lock;
    if ((r->cli.in = open_input(r->input)) == NULL) {
        *why = "cannot hold the request's input";
        return -1;
    }
    if ((r->cli.out = open_pipe(loop, r, &r->out)) == NULL) {
        fclose(r->cli.in);
        *why = "cannot make a pipe for the request's output";
        return -1;
    }
    r->started = true;
    /* From here on the request ends when its pipes do, started or not. */
    if ((r->cli.err = open_pipe(loop, r, &r->err)) != NULL)
        thread = g_thread_try_new("maildex-request", run, r, &error);
    if (thread == NULL) {
        atomic_store_explicit(&r->status, EXIT_FAILURE, memory_order_relaxed); /* no thread */
        g_string_append_printf(r->err_text, "maildex server: cannot run the request: %s\n",
                               error ? error->message : strerror(errno));
        g_clear_error(&error);
        if (r->cli.err)
            fclose(r->cli.err);
        fclose(r->cli.out);
        fclose(r->cli.in);
        return 0;
    }
    g_thread_unref(thread); /* detached: the pipes tell when it is done */
    return 0;
}

void request_cancel(struct request *r)
{
    r->cancel = true;
    if (!r->started)
        return;
    g_mutex_lock(&r->db_lock);
    /* `new` stops at its next batch and commits what it indexed; the rest stop at their next step;
     * a command whose database is not open yet is cancelled when it opens (cli_open_db). The
     * command is read once db is set: the thread set it before, and db under this lock. */
    r->cli.cancel = MAILDEX_CANCEL_ALL;
    if (r->cli.db)
        maildex_db_cancel(r->cli.db, r->cli.command && strcmp(r->cli.command->name, "new") == 0
                                         ? MAILDEX_CANCEL_BATCH
                                         : MAILDEX_CANCEL_ALL);
    g_mutex_unlock(&r->db_lock);
}

void request_pause(struct request *r)
{
    if (r->started && uv_is_active((uv_handle_t *) &r->out))
        uv_read_stop((uv_stream_t *) &r->out);
}

void request_resume(struct request *r)
{
    if (r->started && !uv_is_closing((uv_handle_t *) &r->out) && !uv_is_active((uv_handle_t *) &r->out))
        uv_read_start((uv_stream_t *) &r->out, on_alloc, on_read);
}

/* Every request runs on a thread of its own, and glibc gives threads arenas of their own (up to eight
 * per core), each keeping much of what was freed in it for the next thread that lands there: over
 * 100,000 requests the RSS of a server that leaked nothing grew by 4.7 MB (T072), by 3.4 MB over
 * 30,000 with two arenas, not at all with one. One arena costs little here: a request's work is
 * SQLite's, under its own locks, and two threads rarely allocate at the same instant. */
void request_memory_init(void)
{
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    mallopt(M_ARENA_MAX, 1);
#endif
}

/* With one arena the heap keeps the high-water mark of the busiest moment so far; once nothing runs,
 * what the requests freed goes back to the system. */
void request_memory_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
