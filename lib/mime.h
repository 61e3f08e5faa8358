/* mime.h: how the library reaches the message parser. The parser (message-parse.c) needs gmime,
 * whose libraries (gmime, gio, gobject) take longer to load than a whole search takes to run, so the
 * command line does not link them: it loads the parser as a module (maildex-mime.so) the first time
 * a file must be parsed, and `search`, `count` or a `new` with nothing to read never pay for it.
 * The shared libmaildex and the tests link the parser directly (mime-linked.c); the CLI loads it
 * (mime-dlopen.c). Callers cannot tell the difference. */
#ifndef MAILDEX_MIME_H
#define MAILDEX_MIME_H

#include "maildex-private.h"
#include "message-parse.h"

struct maildex__mime_ops {
    void (*init)(void);
    int (*parse_file)(void *ctx, const char *path, struct maildex__parsed_message **out,
                      char **error);
    int (*parse_buffer)(void *ctx, const char *data, size_t len,
                        struct maildex__parsed_message **out, char **error);
};

/* Sets *ops to the parser, loading and initialising it on first use. Returns MAILDEX_STATUS_OK, or
 * MAILDEX_STATUS_IO_ERROR with the reason (the module's path and dlerror) recorded on db. Call it from
 * the thread that owns db, before handing parse_file to other threads. */
maildex_status_t maildex__mime(maildex_db_t *db, const struct maildex__mime_ops **ops);

#endif
