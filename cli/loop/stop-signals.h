/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SIGTERM, SIGINT and SIGHUP on an event loop, for watch and server alike. */
#ifndef MAILDEX_CLI_LOOP_STOP_SIGNALS_H
#define MAILDEX_CLI_LOOP_STOP_SIGNALS_H

#include <uv.h>

struct stop_signals {
    uv_signal_t handles[3];
};

/* Starts the three; cb runs on the loop with each handle's data set to data. */
void stop_signals_start(struct stop_signals *s, uv_loop_t *loop, uv_signal_cb cb, void *data);

/* Closes those not closing yet and returns how many (each ends in closed). From then on the three
 * are ignored, never put back to their default action: the program is already stopping, and a
 * repeated SIGTERM (timeout(1) sends one to the process and one to its group) must not turn a clean
 * exit into death by that signal. */
int stop_signals_close(struct stop_signals *s, uv_close_cb closed);

#endif
