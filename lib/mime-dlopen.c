/* The message parser loaded as a module (see mime.h), for the command line. The module is looked
 * for, in order: $MAILDEX_MIME_MODULE; lib/.libs/ of the build tree the running binary lives in
 * (so an uninstalled build works); the installed pkglibdir. */
#include "mime.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MAILDEX_PKGLIBDIR
#error "MAILDEX_PKGLIBDIR must name the directory maildex-mime.so is installed in"
#endif

#define MODULE_NAME "maildex-mime.so"

static const struct maildex__mime_ops *loaded;

/* Tries one path; on failure appends dlerror's reason to *why. */
static void *try_open(const char *path, char **why, void *ctx)
{
    void *handle = access(path, F_OK) == 0 ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;

    if (handle == NULL && access(path, F_OK) == 0)
        *why = talloc_asprintf_append(*why, "; '%s': %s", path, dlerror());
    (void) ctx;
    return handle;
}

static void *open_module(void *ctx, char **why)
{
    const char *env = getenv("MAILDEX_MIME_MODULE");
    char exe[PATH_MAX];
    ssize_t n;
    void *handle = NULL;

    if (env && *env)
        return try_open(env, why, ctx);
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            handle = try_open(talloc_asprintf(ctx, "%s/../lib/.libs/" MODULE_NAME, exe), why, ctx);
        }
    }
    if (handle == NULL)
        handle = try_open(MAILDEX_PKGLIBDIR "/" MODULE_NAME, why, ctx);
    return handle;
}

maildex_status_t maildex__mime(maildex_db_t *db, const struct maildex__mime_ops **ops)
{
    void *local, *handle;
    char *why;
    maildex_status_t st = MAILDEX_STATUS_OK;

    *ops = loaded;
    if (loaded)
        return MAILDEX_STATUS_OK;
    local = talloc_new(NULL);
    why = talloc_strdup(local, "");
    handle = open_module(local, &why);
    if (handle)
        loaded = dlsym(handle, "maildex_mime_ops");
    if (loaded == NULL)
        st = maildex__error(db, MAILDEX_STATUS_IO_ERROR,
                            "cannot load the message parser (" MODULE_NAME " in "
                            MAILDEX_PKGLIBDIR " or $MAILDEX_MIME_MODULE)%s",
                            why);
    else
        loaded->init();
    talloc_free(local);
    *ops = loaded;
    return st;
}
