/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SIGTERM, SIGINT and SIGHUP on an event loop (see stop-signals.h). */
#include "stop-signals.h"

#include <glib.h>
#include <signal.h>

static const int signums[] = {SIGTERM, SIGINT, SIGHUP};

static void ignore(uv_signal_t *h, int signum)
{
    (void) h;
    (void) signum;
}

/* libuv puts back a signal's default action when the last handle of it stops, and SIG_IGN set after
 * uv_close would leave a moment where a repeated SIGTERM still ends the program. So one handle of
 * each stays started for good on a loop that never runs: libuv keeps its own handler, and what it
 * writes to that loop is never read (a full pipe is dropped by libuv, not an error). */
static gpointer keep_handlers(gpointer unused)
{
    static uv_loop_t keeper;
    static uv_signal_t kept[G_N_ELEMENTS(signums)];

    (void) unused;
    if (uv_loop_init(&keeper) != 0)
        return NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(signums); i++)
        if (uv_signal_init(&keeper, &kept[i]) == 0)
            uv_signal_start(&kept[i], ignore, signums[i]);
    return NULL;
}

void stop_signals_start(struct stop_signals *s, uv_loop_t *loop, uv_signal_cb cb, void *data)
{
    static GOnce once = G_ONCE_INIT;

    g_once(&once, keep_handlers, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(signums); i++) {
        uv_signal_init(loop, &s->handles[i]);
        s->handles[i].data = data;
        uv_signal_start(&s->handles[i], cb, signums[i]);
    }
}

int stop_signals_close(struct stop_signals *s, uv_close_cb closed)
{
    int n = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(signums); i++) {
        if (uv_is_closing((uv_handle_t *) &s->handles[i]))
            continue;
        uv_close((uv_handle_t *) &s->handles[i], closed);
        n++;
    }
    return n;
}
