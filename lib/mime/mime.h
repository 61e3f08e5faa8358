/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mime.h: how the library reaches the message parser. The parser (parse.c) needs gmime,
 * whose libraries (gmime, gio, gobject) take longer to load than a whole search takes to run, so the
 * command line does not link them: it loads the parser as a module (maildex-mime.so) the first time
 * a file must be parsed, and `search`, `count` or a `new` with nothing to read never pay for it.
 * The shared libmaildex and the tests link the parser directly (linked.c); the CLI loads it
 * (cli/base/mime-dlopen.c), and refuses a module built from another version of this header. Callers cannot
 * tell the difference. */
#ifndef MAILDEX_MIME_H
#define MAILDEX_MIME_H

#include "store/maildex-private.h"
#include "parse.h"
#include "tree.h"

#include <stdint.h>

/* The version of what crosses the module boundary: this table and struct maildex__parsed_message.
 * Bump it whenever either changes meaning; their sizes are checked as well, which catches a change
 * that forgot the bump. */
#define MAILDEX__MIME_ABI 9 /* 2: the parsed message's senders and recipients (address); 3: show's entries;
                              4: show's crypto (parts options verify/decrypt, parts' signatures);
                              5: user-defined fields (parse's user_fields, the message's user_text);
                              6: index-time crypto (parse options, session keys in and out), the
                                 user fields moved into the parse options;
                              7: the parsed message's warning (text left out at the limit);
                              8: show_part_write (a part in pieces) replaces show_part_bytes;
                              9: show_headers_file (every header of the file at once, for a libnotmuch
                                 client that reads several of one message: one parse, not one each) */

struct maildex__mime_ops {
    /* These three first, in this order, in every version: the loader reads them before anything else. */
    uint32_t abi;          /* MAILDEX__MIME_ABI the module was built with */
    uint32_t ops_size;     /* sizeof(struct maildex__mime_ops) */
    uint32_t message_size; /* sizeof(struct maildex__parsed_message) */
    void (*init)(void);
    int (*parse_file)(void *ctx, const char *path, const struct maildex__parse_options *opts,
                      struct maildex__parsed_message **out, char **error);
    int (*parse_buffer)(void *ctx, const char *data, size_t len, const struct maildex__parse_options *opts,
                        struct maildex__parsed_message **out, char **error);
    /* show and reply (cli/cmd-show.c, cli/cmd-reply.c; lib/mime/show.h says what each returns): a
     * file's parts, the bytes of one part (written in pieces), a reply to it, and its References ids (read/thread-tree.c).
     * Only plain talloc structs (tree.h) come back. session_keys: the message's stored
     * "session-key" properties, NULL-terminated, or NULL. */
    int (*show_file)(void *ctx, const char *path, const maildex_parts_options_t *opts,
                     const char *const *session_keys, struct maildex_part **out, char **error);
    int (*show_part_write)(void *ctx, const char *path, int id, maildex_decrypt_t decrypt,
                           const char *const *session_keys, maildex_write_fn *write, void *data, bool *found,
                           char **error);
    int (*show_reply_file)(void *ctx, const char *path, const char *message_id,
                           const maildex_reply_options_t *opts, const char *const *session_keys,
                           struct maildex_reply **out, char **error);
    int (*show_references_file)(void *ctx, const char *path, const char *message_id, char ***out,
                                char **error);
    int (*show_headers_file)(void *ctx, const char *path, char ***out, char **error);
};

/* The table of the parser as built with this header (linked.c and the module's maildex_mime_ops). */
#define MAILDEX__MIME_OPS_INIT                                                                     \
    {                                                                                              \
        .abi = MAILDEX__MIME_ABI, .ops_size = sizeof(struct maildex__mime_ops),                    \
        .message_size = sizeof(struct maildex__parsed_message), .init = maildex__message_parse_init, \
        .parse_file = maildex__message_parse_file, .parse_buffer = maildex__message_parse_buffer,  \
        .show_file = maildex__show_file, .show_part_write = maildex__show_part_write,              \
        .show_reply_file = maildex__show_reply_file,                                              \
        .show_references_file = maildex__show_references_file,                                    \
        .show_headers_file = maildex__show_headers_file,                                          \
    }

/* Sets *ops to the parser, loading and initialising it on first use (once per process, whichever
 * thread asks first). Returns MAILDEX_STATUS_OK, or MAILDEX_STATUS_IO_ERROR with the reason recorded on
 * db: the module's path and why it could not be loaded or used. */
maildex_status_t maildex__mime(maildex_db_t *db, const struct maildex__mime_ops **ops);

#endif
