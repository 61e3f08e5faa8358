/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stemmer.c: see stemmer.h. */
#include "config.h"
#include "stemmer.h"

#include <glib.h>
#include <libstemmer.h>
#include <stdbool.h>
#include <stdio.h>

/* The four functions of libstemmer's API that maildex calls. */
struct api {
    struct sb_stemmer *(*create)(const char *, const char *);
    void (*destroy)(struct sb_stemmer *);
    const sb_symbol *(*stem)(struct sb_stemmer *, const sb_symbol *, int);
    int (*length)(struct sb_stemmer *);
};

#ifdef MAILDEX_STEMMER_SONAME
#include <dlfcn.h>

static struct api api;

static gpointer load(gpointer unused)
{
    void *so = dlopen(MAILDEX_STEMMER_SONAME, RTLD_NOW | RTLD_LOCAL);

    (void) unused;
    if (so) {
        *(void **) &api.create = dlsym(so, "sb_stemmer_new");
        *(void **) &api.destroy = dlsym(so, "sb_stemmer_delete");
        *(void **) &api.stem = dlsym(so, "sb_stemmer_stem");
        *(void **) &api.length = dlsym(so, "sb_stemmer_length");
    }
    if (!so || !api.create || !api.destroy || !api.stem || !api.length) {
        fprintf(stderr, "maildex: cannot load the stemmer library %s: %s\n", MAILDEX_STEMMER_SONAME,
                so ? "a function is missing" : dlerror());
        api.create = NULL;
    }
    return NULL;
}

static bool loaded(void)
{
    static GOnce once = G_ONCE_INIT;

    g_once(&once, load, NULL);
    return api.create != NULL;
}
#else
static const struct api api = {sb_stemmer_new, sb_stemmer_delete, sb_stemmer_stem, sb_stemmer_length};

static bool loaded(void)
{
    return true;
}
#endif

struct maildex__stemmer *maildex__stemmer_new(void)
{
    return loaded() ? (struct maildex__stemmer *) api.create("english", "UTF_8") : NULL;
}

const char *maildex__stemmer_stem(struct maildex__stemmer *st, const char *word, int n, int *len)
{
    const sb_symbol *s = api.stem((struct sb_stemmer *) st, (const sb_symbol *) word, n);

    *len = s ? api.length((struct sb_stemmer *) st) : 0;
    return (const char *) s;
}

void maildex__stemmer_free(struct maildex__stemmer *st)
{
    if (st)
        api.destroy((struct sb_stemmer *) st);
}
