/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Parser modules built wrong on purpose, for test/T045-parser-module.sh: what a maildex-mime.so from
 * another version of maildex looks like to the program that loads it. Each is the real parser behind
 * a table that differs in one way, chosen at compile time:
 *   SKEW_ABI      the ABI version is the next one
 *   SKEW_OPS      the table has an entry point more than this program knows
 *   SKEW_MESSAGE  struct maildex__parsed_message has another size
 *   SKEW_OLD      the table as it was before it had a version (entry points first)
 * Only the loader may look at them: calling into a refused module is the crash the check prevents. */
#include "mime/mime.h"

#if defined(SKEW_OLD)
const struct {
    void (*init)(void);
    int (*parse_file)(void *, const char *, struct maildex__parsed_message **, char **);
    int (*parse_buffer)(void *, const char *, size_t, struct maildex__parsed_message **, char **);
} maildex_mime_ops = {maildex__message_parse_init,
                      /* never called: the loader refuses this table before it looks further */
                      (int (*)(void *, const char *, struct maildex__parsed_message **, char **))(
                          void (*)(void)) maildex__message_parse_file,
                      (int (*)(void *, const char *, size_t, struct maildex__parsed_message **, char **))(
                          void (*)(void)) maildex__message_parse_buffer};
#else
#if defined(SKEW_ABI)
#define ABI (MAILDEX__MIME_ABI + 1)
#else
#define ABI MAILDEX__MIME_ABI
#endif

/* The table of a newer module: the same entry points, then one more. */
struct skewed_ops {
    struct maildex__mime_ops ops;
#if defined(SKEW_OPS)
    void (*one_more)(void);
#endif
};

/* A parsed message with one more field. */
struct skewed_message {
    struct maildex__parsed_message message;
#if defined(SKEW_MESSAGE)
    char *one_more;
#endif
};

const struct skewed_ops maildex_mime_ops = {
    .ops = {
        .abi = ABI,
        .ops_size = sizeof(struct skewed_ops),
        .message_size = sizeof(struct skewed_message),
        .init = maildex__message_parse_init,
        .parse_file = maildex__message_parse_file,
        .parse_buffer = maildex__message_parse_buffer,
    },
};
#endif
