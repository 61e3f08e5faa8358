/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ThreadSanitizer builds only (configure --enable-tsan): what uninstrumented system libraries do
 * that TSan cannot see, told to it, so that what it reports is ours. It must not change what any
 * wrapped function does, and it is linked into nothing but a --enable-tsan build (one object: the
 * program pulls it in for g_mutex_lock, and gets syscall() with it).
 *
 * GLib. Debian's GLib is not instrumented and its GMutex is a futex behind an inline
 * compare-and-exchange, so TSan saw no happens-before through g_mutex_lock, g_cond_wait,
 * GAsyncQueue or g_once and reported every value the parse pool hands from thread to thread as a
 * race (459 reports in one unit test). Each wrapper calls GLib's own function (found with
 * dlsym(RTLD_NEXT)) and adds the acquire or release that function performs, on the object's
 * address. The program's definitions take the place of GLib's for every caller outside GLib
 * (ours, GMime's); GLib's calls to itself stay inside it (test/tsan/suppressions).
 *
 * libuv. It closes with syscall(SYS_close, fd), not close(), on Linux (uv__close_nocancel), so
 * TSan never learnt that a descriptor was gone: when a request thread of `server` then got the
 * same number from dup() or open(), the loop's last use of it (libuv's epoll_ctl as it closed the
 * stream) looked like a race on the descriptor. syscall() below tells TSan of a close just before
 * making it, as libuv does itself when it is built with TSan (__sanitizer_syscall_pre_close). */
#include <dlfcn.h>
#include <glib.h>
#include <sanitizer/tsan_interface.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The wrapped functions, found on first use: GObject's constructors lock mutexes before a
 * constructor of this file would run. Atomic, as two threads may look one up at once. */
static void *resolve(void *_Atomic *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_acquire);

    if (f == NULL) {
        if ((f = dlsym(RTLD_NEXT, name)) == NULL) {
            fprintf(stderr, "tsan annotations: no %s to wrap\n", name);
            abort();
        }
        atomic_store_explicit(slot, f, memory_order_release);
    }
    return f;
}

#define REAL(type, name)                                                                         \
    ({                                                                                           \
        static void *_Atomic slot;                                                               \
        (type) resolve(&slot, #name);                                                            \
    })

void g_mutex_lock(GMutex *mutex)
{
    REAL(void (*)(GMutex *), g_mutex_lock)(mutex);
    __tsan_acquire(mutex);
}

gboolean g_mutex_trylock(GMutex *mutex)
{
    gboolean locked = REAL(gboolean (*)(GMutex *), g_mutex_trylock)(mutex);

    if (locked)
        __tsan_acquire(mutex);
    return locked;
}

void g_mutex_unlock(GMutex *mutex)
{
    __tsan_release(mutex);
    REAL(void (*)(GMutex *), g_mutex_unlock)(mutex);
}

/* The wait unlocks the mutex and locks it again before it returns. */
void g_cond_wait(GCond *cond, GMutex *mutex)
{
    __tsan_release(mutex);
    REAL(void (*)(GCond *, GMutex *), g_cond_wait)(cond, mutex);
    __tsan_acquire(mutex);
}

gboolean g_cond_wait_until(GCond *cond, GMutex *mutex, gint64 end_time)
{
    gboolean signalled;

    __tsan_release(mutex);
    signalled = REAL(gboolean (*)(GCond *, GMutex *, gint64), g_cond_wait_until)(cond, mutex, end_time);
    __tsan_acquire(mutex);
    return signalled;
}

/* What is pushed was written before the push; the thread that pops it reads it after. */
void g_async_queue_push(GAsyncQueue *queue, gpointer data)
{
    __tsan_release(queue);
    REAL(void (*)(GAsyncQueue *, gpointer), g_async_queue_push)(queue, data);
}

gpointer g_async_queue_pop(GAsyncQueue *queue)
{
    gpointer data = REAL(gpointer (*)(GAsyncQueue *), g_async_queue_pop)(queue);

    __tsan_acquire(queue);
    return data;
}

gpointer g_async_queue_try_pop(GAsyncQueue *queue)
{
    gpointer data = REAL(gpointer (*)(GAsyncQueue *), g_async_queue_try_pop)(queue);

    if (data)
        __tsan_acquire(queue);
    return data;
}

gpointer g_async_queue_timeout_pop(GAsyncQueue *queue, guint64 timeout)
{
    gpointer data = REAL(gpointer (*)(GAsyncQueue *, guint64), g_async_queue_timeout_pop)(queue, timeout);

    if (data)
        __tsan_acquire(queue);
    return data;
}

/* g_once's fast path is an atomic acquire load of once->status in the caller's (instrumented)
 * code; GLib stores READY with release semantics TSan cannot see. The initializer releases on
 * that address before GLib stores it, so the load acquires what the initializer wrote. */
struct once_call {
    GOnce *once;
    GThreadFunc func;
    gpointer arg;
};

static gpointer once_func(gpointer data)
{
    struct once_call *call = data;
    gpointer result = call->func(call->arg);

    __tsan_release((void *) &call->once->status);
    return result;
}

gpointer g_once_impl(GOnce *once, GThreadFunc func, gpointer arg)
{
    struct once_call call = {once, func, arg};
    gpointer result = REAL(gpointer (*)(GOnce *, GThreadFunc, gpointer), g_once_impl)(once, once_func, &call);

    __tsan_acquire((void *) &once->status);
    return result;
}

/* ---- libuv's raw close ---------------------------------------------------------------------- */

/* The runtime's hook (sanitizer/linux_syscall_hooks.h, which gcc does not install). */
void __sanitizer_syscall_pre_impl_close(long fd);

typedef long (*syscall_fn)(long, ...);

/* The six argument registers, passed on whatever the call: as libc's own syscall() reads them. */
long syscall(long number, ...)
{
    va_list ap;
    long a[6];

    va_start(ap, number);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_close)
        __sanitizer_syscall_pre_impl_close(a[0]);
    return REAL(syscall_fn, syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
