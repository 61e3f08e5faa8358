/* SPDX-License-Identifier: GPL-3.0-or-later */
/* uv-lazy.c: libuv, loaded the first time `watch` or `server` starts an event loop.
 *
 * Why: only those two commands use libuv, and every other process paid for mapping and relocating
 * it before main (~0.07 ms of the ~1.1 ms an empty program linked to maildex's libraries takes to
 * run; doc/performance.md, "Process start"). When configure found libuv's soname
 * (MAILDEX_LIBUV_SONAME), the program is not linked to it: the functions below carry libuv's own
 * names and forward to the library, dlopen'ed by uv_loop_init, so watch.c and server.c call libuv
 * as usual. Without the soname, libuv is linked and this file defines nothing.
 *
 * Every libuv call needs a loop, and a loop exists only once uv_loop_init succeeded, so only
 * uv_loop_init (and uv_strerror and uv_buf_init, which need none) can run before the library is
 * there; the rest forward without checking. */
#include "config.h"

#ifdef MAILDEX_LIBUV_SONAME
#include <dlfcn.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <uv.h>

/* Each function of libuv that maildex calls. Add a name here and a forwarder below together. */
#define UV_CALLED(X)                                                                                 \
    X(uv_accept) X(uv_close) X(uv_fs_event_init) X(uv_fs_event_start) X(uv_fs_event_stop)            \
    X(uv_hrtime) X(uv_is_active) X(uv_is_closing) X(uv_listen) X(uv_loop_close)                      \
    X(uv_loop_init) X(uv_now) X(uv_pipe_bind) X(uv_pipe_init) X(uv_pipe_open)                        \
    X(uv_poll_init) X(uv_poll_start) X(uv_queue_work) X(uv_read_start) X(uv_read_stop)               \
    X(uv_run) X(uv_signal_init) X(uv_signal_start) X(uv_strerror) X(uv_timer_init)                   \
    X(uv_timer_start) X(uv_timer_stop) X(uv_write)

static struct {
#define FIELD(f) __typeof__(f) *f;
    UV_CALLED(FIELD)
#undef FIELD
} uv;

static gpointer load(gpointer unused)
{
    void *so = dlopen(MAILDEX_LIBUV_SONAME, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;

    (void) unused;
    if (!so) {
        fprintf(stderr, "maildex: cannot load the libuv library %s: %s\n", MAILDEX_LIBUV_SONAME,
                dlerror());
        return NULL;
    }
#define RESOLVE(f)                                                                                   \
    if ((*(void **) &uv.f = dlsym(so, #f)) == NULL && missing == NULL)                                \
        missing = #f;
    UV_CALLED(RESOLVE)
#undef RESOLVE
    if (missing) {
        fprintf(stderr, "maildex: cannot load the libuv library %s: it has no %s\n",
                MAILDEX_LIBUV_SONAME, missing);
        uv.uv_loop_init = NULL;
    }
    return NULL;
}

static bool loaded(void)
{
    static GOnce once = G_ONCE_INIT;

    g_once(&once, load, NULL);
    return uv.uv_loop_init != NULL;
}

int uv_loop_init(uv_loop_t *loop)
{
    return loaded() ? uv.uv_loop_init(loop) : UV_ENOSYS;
}

const char *uv_strerror(int err)
{
    return loaded() ? uv.uv_strerror(err) : g_strerror(-err);
}

/* libuv's own is this: no reason to load the library for it. */
uv_buf_t uv_buf_init(char *base, unsigned int len)
{
    uv_buf_t buf = {.base = base, .len = len};

    return buf;
}

int uv_accept(uv_stream_t *server, uv_stream_t *client)
{
    return uv.uv_accept(server, client);
}

void uv_close(uv_handle_t *handle, uv_close_cb close_cb)
{
    uv.uv_close(handle, close_cb);
}

int uv_fs_event_init(uv_loop_t *loop, uv_fs_event_t *handle)
{
    return uv.uv_fs_event_init(loop, handle);
}

int uv_fs_event_start(uv_fs_event_t *handle, uv_fs_event_cb cb, const char *path, unsigned int flags)
{
    return uv.uv_fs_event_start(handle, cb, path, flags);
}

int uv_fs_event_stop(uv_fs_event_t *handle)
{
    return uv.uv_fs_event_stop(handle);
}

uint64_t uv_hrtime(void)
{
    return uv.uv_hrtime();
}

int uv_is_active(const uv_handle_t *handle)
{
    return uv.uv_is_active(handle);
}

int uv_is_closing(const uv_handle_t *handle)
{
    return uv.uv_is_closing(handle);
}

int uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb)
{
    return uv.uv_listen(stream, backlog, cb);
}

int uv_loop_close(uv_loop_t *loop)
{
    return uv.uv_loop_close(loop);
}

uint64_t uv_now(const uv_loop_t *loop)
{
    return uv.uv_now(loop);
}

int uv_pipe_bind(uv_pipe_t *handle, const char *name)
{
    return uv.uv_pipe_bind(handle, name);
}

int uv_pipe_init(uv_loop_t *loop, uv_pipe_t *handle, int ipc)
{
    return uv.uv_pipe_init(loop, handle, ipc);
}

int uv_pipe_open(uv_pipe_t *pipe, uv_file file)
{
    return uv.uv_pipe_open(pipe, file);
}

int uv_poll_init(uv_loop_t *loop, uv_poll_t *handle, int fd)
{
    return uv.uv_poll_init(loop, handle, fd);
}

int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb)
{
    return uv.uv_poll_start(handle, events, cb);
}

int uv_queue_work(uv_loop_t *loop, uv_work_t *req, uv_work_cb work_cb, uv_after_work_cb after_work_cb)
{
    return uv.uv_queue_work(loop, req, work_cb, after_work_cb);
}

int uv_read_start(uv_stream_t *stream, uv_alloc_cb alloc_cb, uv_read_cb read_cb)
{
    return uv.uv_read_start(stream, alloc_cb, read_cb);
}

int uv_read_stop(uv_stream_t *stream)
{
    return uv.uv_read_stop(stream);
}

int uv_run(uv_loop_t *loop, uv_run_mode mode)
{
    return uv.uv_run(loop, mode);
}

int uv_signal_init(uv_loop_t *loop, uv_signal_t *handle)
{
    return uv.uv_signal_init(loop, handle);
}

int uv_signal_start(uv_signal_t *handle, uv_signal_cb signal_cb, int signum)
{
    return uv.uv_signal_start(handle, signal_cb, signum);
}

int uv_timer_init(uv_loop_t *loop, uv_timer_t *handle)
{
    return uv.uv_timer_init(loop, handle);
}

int uv_timer_start(uv_timer_t *handle, uv_timer_cb cb, uint64_t timeout, uint64_t repeat)
{
    return uv.uv_timer_start(handle, cb, timeout, repeat);
}

int uv_timer_stop(uv_timer_t *handle)
{
    return uv.uv_timer_stop(handle);
}

int uv_write(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[], unsigned int nbufs,
             uv_write_cb cb)
{
    return uv.uv_write(req, handle, bufs, nbufs, cb);
}
#else
/* libuv is linked: nothing to forward. (ISO C wants a declaration in every file.) */
typedef int maildex_uv_linked;
#endif
