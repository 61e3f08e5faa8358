/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The parse threads of `new` (see parse-pool.h). */
#include "parse-pool.h"

struct item {
    void *job;
    gint *done; /* NULL: the thread stops */
};

struct maildex__pool {
    void (*run)(void *job, void *data);
    void *data;
    int size;
    GThread **threads; /* started at the first push */
    GAsyncQueue *queue;
    GMutex lock;
    GCond finished;
};

static gpointer worker(gpointer arg)
{
    struct maildex__pool *pool = arg;

    for (;;) {
        struct item *item = g_async_queue_pop(pool->queue);
        if (item->done == NULL) {
            g_free(item);
            return NULL;
        }
        pool->run(item->job, pool->data);
        g_mutex_lock(&pool->lock);
        *item->done = 1;
        g_cond_broadcast(&pool->finished);
        g_mutex_unlock(&pool->lock);
        g_free(item);
    }
}

struct maildex__pool *maildex__pool_new(int threads, void (*run)(void *job, void *data), void *data)
{
    struct maildex__pool *pool = g_new0(struct maildex__pool, 1);

    pool->run = run;
    pool->data = data;
    pool->size = threads > 0 ? threads : 1;
    pool->queue = g_async_queue_new();
    g_mutex_init(&pool->lock);
    g_cond_init(&pool->finished);
    return pool;
}

void maildex__pool_push(struct maildex__pool *pool, void *job, gint *done)
{
    struct item *item = g_new(struct item, 1);

    if (pool->threads == NULL) {
        pool->threads = g_new0(GThread *, pool->size);
        for (int i = 0; i < pool->size; i++)
            pool->threads[i] = g_thread_new("maildex-parse", worker, pool);
    }
    *item = (struct item){job, done};
    g_async_queue_push(pool->queue, item);
}

void maildex__pool_wait(struct maildex__pool *pool, const gint *done)
{
    g_mutex_lock(&pool->lock);
    while (!*done)
        g_cond_wait(&pool->finished, &pool->lock);
    g_mutex_unlock(&pool->lock);
}

void maildex__pool_free(struct maildex__pool *pool)
{
    if (pool == NULL)
        return;
    for (int i = 0; pool->threads && i < pool->size; i++) {
        struct item *stop = g_new0(struct item, 1);
        g_async_queue_push(pool->queue, stop);
    }
    for (int i = 0; pool->threads && i < pool->size; i++)
        g_thread_join(pool->threads[i]);
    g_free(pool->threads);
    g_async_queue_unref(pool->queue);
    g_mutex_clear(&pool->lock);
    g_cond_clear(&pool->finished);
    g_free(pool);
}
