/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The message parser loaded as a module (see lib/mime/mime.h), for the command line only: it defines the
 * library's maildex__mime() for the one program that does not link the parser. The module is
 * $MAILDEX_MIME_MODULE, else MAILDEX_MIME_DEFAULT, fixed when the program is linked: $(pkglibdir) for
 * the installed maildex, this build tree's lib/.libs/ for the cli/maildex run from the build tree (the
 * way libtool links a program that needs uninstalled libraries once for the build tree and again to be
 * installed; see Makefile.am). Nothing here guesses from where the binary lives. The module is loaded
 * once per process, whichever thread asks first, and refused unless its table comes from this program's
 * lib/mime/mime.h: a module from another version would crash on the first message instead. */
#include "mime/mime.h"

#include <dlfcn.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef MAILDEX_MIME_DEFAULT
#error "MAILDEX_MIME_DEFAULT must name the maildex-mime.so this program loads by default"
#endif

#define OPS_SYMBOL "maildex_mime_ops"

/* What loading gave, once per process: the parser, or why there is none. */
struct module {
    const struct maildex__mime_ops *ops;
    char *error;
};

/* Why ops is not the table this program was built with, or NULL; g_malloc'd. The version is read
 * first: from another version, only the three leading fields are known to be there. */
static char *mismatch(const struct maildex__mime_ops *ops)
{
    if (ops->abi != MAILDEX__MIME_ABI)
        return g_strdup_printf("it was built for parser module ABI %" PRIu32 ", this maildex uses ABI %d",
                               ops->abi, MAILDEX__MIME_ABI);
    if (ops->ops_size != sizeof *ops)
        return g_strdup_printf("its table of entry points is %" PRIu32 " bytes, this maildex's is %zu",
                               ops->ops_size, sizeof *ops);
    if (ops->message_size != sizeof(struct maildex__parsed_message))
        return g_strdup_printf("its struct maildex__parsed_message is %" PRIu32
                               " bytes, this maildex's is %zu",
                               ops->message_size, sizeof(struct maildex__parsed_message));
    return NULL;
}

/* dlerror's text without the path it starts with (the message quotes the path once, itself). */
static char *load_error(const char *path)
{
    const char *err = dlerror();
    size_t n = strlen(path);

    if (err == NULL)
        return g_strdup("unknown dlopen error");
    if (strncmp(err, path, n) == 0 && strncmp(err + n, ": ", 2) == 0)
        err += n + 2;
    return g_strdup(err);
}

static gpointer load(gpointer unused)
{
    static struct module mod_once; /* written here only, under maildex__mime's g_once */
    struct module *mod = &mod_once;
    const char *env = getenv("MAILDEX_MIME_MODULE");
    const char *path = env && *env ? env : MAILDEX_MIME_DEFAULT;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const struct maildex__mime_ops *ops = NULL;
    char *why;

    (void) unused;
    if (handle == NULL)
        why = load_error(path);
    else if ((ops = dlsym(handle, OPS_SYMBOL)) == NULL)
        why = g_strdup("it has no " OPS_SYMBOL " (not a maildex parser module)");
    else
        why = mismatch(ops);
    /* A refused module stays loaded: unloading gmime's libraries once they are in is not safe. */
    if (why == NULL) {
        ops->init();
        mod->ops = ops;
    } else {
        mod->error = g_strdup_printf("cannot %s the message parser '%s'%s: %s%s", handle ? "use" : "load",
                                     path, env && *env ? " (named by $MAILDEX_MIME_MODULE)" : "", why,
                                     ops ? " (the program and the module must come from the same build)"
                                         : "");
        g_free(why);
    }
    return mod;
}

maildex_status_t maildex__mime(maildex_db_t *db, const struct maildex__mime_ops **ops)
{
    static GOnce once = G_ONCE_INIT;
    const struct module *mod = g_once(&once, load, NULL);

    *ops = mod->ops;
    if (mod->ops == NULL)
        return maildex__error(db, MAILDEX_STATUS_IO_ERROR, "%s", mod->error);
    return MAILDEX_STATUS_OK;
}
