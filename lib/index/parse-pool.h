/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse-pool.h: the threads that parse (and tokenize) mail files for `new` while the one writer
 * thread applies the results in submission order. Plain GLib threads started at the first job and
 * joined when the pool is freed, so no thread outlives a run. It knows nothing of files or SQLite. */
#ifndef MAILDEX_PARSE_POOL_H
#define MAILDEX_PARSE_POOL_H

#include <glib.h>

struct maildex__pool;

/* A pool of threads that call run(job, data) for each pushed job. */
struct maildex__pool *maildex__pool_new(int threads, void (*run)(void *job, void *data), void *data);

/* Queues job; *done is set (under the pool's lock) once run(job) has returned. */
void maildex__pool_push(struct maildex__pool *pool, void *job, gint *done);

/* Waits until *done is set. */
void maildex__pool_wait(struct maildex__pool *pool, const gint *done);

/* Stops the threads once the queued jobs are run, joins them and frees the pool. Accepts NULL. */
void maildex__pool_free(struct maildex__pool *pool);

#endif
