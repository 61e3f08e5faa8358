/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The message parser of the indexing path: one mail file in, one plain talloc struct out.
 *
 * It reads a file (or a buffer) with gmime 3 and extracts everything the store indexes, following
 * notmuch 0.37 (lib/message-file.c, lib/index.cc, lib/add-message.cc, lib/mime/message-id.c): the
 * normalised Message-ID, the parent and reference ids, the date, decoded headers, the body text of
 * non-attachment text parts, attachment names and MIME types. It runs on the parse threads of
 * index/parse-pool.c (plain GLib threads), many messages at once, so it keeps no mutable state besides
 * gmime's one-time initialisation; it never touches the database, prints nothing and never gives up on
 * a message it can partly read. parse.c reads the file and its headers, body.c walks
 * the MIME parts (body.h is what they share). */
#ifndef MAILDEX_MESSAGE_PARSE_H
#define MAILDEX_MESSAGE_PARSE_H

#include "maildex.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MIME levels (multipart or message/rfc822) descended into; parts below are not indexed. gmime 3.2's
 * parser builds no more than 1024 nested levels (what is deeper stays one opaque part), so this bounds
 * the walk's recursion without ever stopping before gmime does, as notmuch (which has no bound of its
 * own) indexes: a 1024-level message's text is indexed (T056, doc/reliability.md). */
#define MAILDEX__MESSAGE_MAX_DEPTH 1024
/* Body text indexed per message: text parts are decoded (transfer encoding, charset) only until the
 * body holds this many bytes, so a message's text costs at most a few times this much memory however
 * large its file; the text beyond it is not indexed, its parts' file names are (as attachments'
 * are), and parse says so (warning). notmuch indexes all text (doc/notmuch-differences.md). */
#define MAILDEX__BODY_TEXT_MAX ((size_t) 8 << 20)
/* A gzip-compressed file is decompressed in memory (gmime cannot seek in a decompressing stream):
 * what comes out beyond this is not parsed. */
#define MAILDEX__GZIP_MAX_SIZE ((size_t) 256 << 20)

struct maildex__parsed_message {
    /* All strings are UTF-8 talloc children of the struct, never NULL unless noted. */
    char *message_id;       /* normalised: <> stripped, blanks removed; a value with no <id> in
                               it is kept as written (notmuch); none or empty ->
                               "notmuch-sha1-<40 hex sha1 of the file bytes>" */
    char *parent_id;        /* the parent notmuch would choose (a sane In-Reply-To, else the last
                               References id, else the last In-Reply-To id), never the message
                               itself; NULL when none */
    char **references;      /* every distinct id in References then In-Reply-To, self excluded,
                               NULL-terminated (possibly just the NULL) */
    int64_t date;           /* seconds since the epoch from Date:, 0 when missing, bad or < 0 */
    char *date_header;      /* the Date header as written (unfolded), or NULL */
    char *from, *to, *cc, *bcc, *reply_to, *subject; /* RFC 2047 decoded values, "" when absent */
    char *from_name;        /* notmuch's author: first From display name, else its address */
    char *body;             /* text of every non-attachment text/... leaf: UTF-8, CRLF -> LF, NULs
                               dropped, HTML reduced to text, uuencoded blocks dropped, parts
                               joined with MAILDEX_FTS_PART_BREAK; at most about
                               MAILDEX__BODY_TEXT_MAX bytes */
    char *attachment_names; /* filenames of Content-Disposition: attachment parts, and of text
                               parts whose text was not indexed (the limit), space separated */
    char *mime_types;       /* lower-case type/subtype of every part, space separated */
    bool has_attachment;    /* some part has Content-Disposition: attachment */
    bool is_signed;         /* a multipart/signed part (notmuch's "signed" tag) */
    bool is_encrypted;      /* a multipart/encrypted or S/MIME enveloped part ("encrypted") */
    bool is_mail;           /* at least one of From, Subject, To is non-empty (notmuch's rule) */
    char *user_text;        /* the user-defined fields asked for (maildex_db_set_user_fields): for
                               each whose header is present, MAILDEX_FTS_FIELD_MARKER, its prefix,
                               the marker again and the decoded value (control characters made
                               spaces), the form the tokenizer indexes as PREFIX:word; "" for none */
    /* For `address` (issue 11): the mailboxes of From, and of To, Cc and Bcc in that order, in the
     * stored form of addresses.h (not NUL-separated text: use the lengths). */
    char *senders, *recipients;
    size_t senders_len, recipients_len;
    /* Index-time crypto (struct maildex__parse_options), as notmuch's lib/index.cc records it:
     * decryption has MAILDEX__DECRYPTION_SUCCESS when an encrypted part was decrypted and its
     * cleartext is in body (property index.decryption=success), MAILDEX__DECRYPTION_FAILURE when one
     * could not be (=failure), neither when none was tried; session_keys are the keys of the parts decrypted with MAILDEX_DECRYPT_STASH (to keep
     * as "session-key" properties), NULL-terminated, or NULL; subject_protected is the Subject of
     * a fully decrypted payload's protected headers (then subject is the outer one: both are
     * indexed, the protected one is shown), or NULL; repaired_* are notmuch's index.repaired
     * values "mixedup" and "skip-protected-headers-legacy-display". */
    unsigned decryption;
    char **session_keys;
    char *subject_protected;
    bool repaired_mixedup, repaired_legacy_display;
    /* What of the message was not indexed, for the indexer to warn about ("text beyond its first 8
     * MiB not indexed (2 text parts cut or left out)"), or NULL. */
    char *warning;
};

#define MAILDEX__DECRYPTION_SUCCESS 1u
#define MAILDEX__DECRYPTION_FAILURE 2u

/* How a file is parsed for the index. decrypt is maildex.h's maildex_decrypt_t (FALSE, AUTO, TRUE,
 * STASH); session_keys (NULL-terminated, or NULL) are tried first on every encrypted part, as notmuch
 * tries a message's stored keys; user_fields are the user-defined fields to extract into user_text
 * (maildex_db_set_user_fields' form; NULL for none). NULL options: nothing is decrypted, no user
 * field is extracted. */
struct maildex__parse_options {
    int decrypt;
    const char *const *session_keys;
    const maildex_pair_t *user_fields;
};

enum {
    MAILDEX__PARSE_ERROR = -1,   /* nothing parsed: *out is NULL, *error says why */
    MAILDEX__PARSE_OK = 0,       /* *out is set, is_mail is true */
    MAILDEX__PARSE_NOT_MAIL = 1, /* *out is set with is_mail false and *error says why:
                                    "not a mail file: no From, Subject or To header", or
                                    "...: mbox with more than one message" (notmuch refuses
                                    those), or "...: no message found" */
};

/* Initialises gmime once per process; safe to call from any thread, any number of times. The parse
 * functions call it themselves. */
void maildex__message_parse_init(void);

/* Parses the mail file at `path` (with opts, which may be NULL). Symlinks are followed; anything but
 * a regular file (a FIFO, a device, a directory) is refused at once without blocking, and a file of
 * any size is taken: it is never read whole, gmime parses it from the file and reads a part's bytes
 * only when its content is decoded, and text parts are decoded only up to MAILDEX__BODY_TEXT_MAX (a
 * file that needs the line-end repair of line-ends.h, or a gzip-compressed one, is parsed from
 * memory). A gzip-compressed file (notmuch's `.gz` mail: it starts with gzip's magic bytes) is read
 * decompressed. Returns one of the values above; the result and the error string are talloc'd under
 * `ctx`. `error` may be NULL. */
int maildex__message_parse_file(void *ctx, const char *path, const struct maildex__parse_options *opts,
                                struct maildex__parsed_message **out, char **error);

/* The same for `len` bytes at `data` (which need not be NUL-terminated); the sha1 fallback id is
 * computed over exactly these bytes (compressed ones included, as notmuch's). */
int maildex__message_parse_buffer(void *ctx, const char *data, size_t len,
                                  const struct maildex__parse_options *opts,
                                  struct maildex__parsed_message **out, char **error);

#endif
