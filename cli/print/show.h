/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show.h: what `show` and `reply` share between their command files and their printers. cmd-show.c
 * decides which messages to print and in what nesting (notmuch-show.c's show_messages); each format has
 * its own printer file and prints one message through the entry points below: show-structured.c (JSON
 * and S-expressions, through the sprinter), show-text.c (the text format and its \f markers),
 * show-raw.c (raw and mbox bytes); reply prints its original through show-structured.c and its text
 * template in reply-text.c. Printers print; the parts come from the library. */
#ifndef MAILDEX_CLI_SHOW_H
#define MAILDEX_CLI_SHOW_H

#include "base/base.h"
#include "sprinter.h"

#include <stdio.h>

struct show {
    struct cli *cli;
    struct sprinter *sp;          /* every format has one; text, raw and mbox print beside it */
    FILE *out;
    int part;                     /* --part=N, or -1 */
    int duplicate;                /* --duplicate=N, or 0 */
    bool body, include_html;
    bool unmatched;               /* print "match" false: reply's original, which notmuch reads with a
                                     message search that marks no match */
    maildex_parts_options_t popts; /* from the three above and show.extra_headers */
    GPtrArray *stashed;           /* --decrypt=stash: the Message-ID, then the session key, of each key
                                     a decryption found (talloc strings of the command's context) */
};

/* Prints message m (its part s->part when that is not negative) at depth indent in the thread.
 * Returns 0, or 1 after saying on stderr why m could not be printed. */
typedef int show_message_fn(struct show *s, maildex_message_t *m, int indent);

show_message_fn show_structured_message; /* --format=json|sexp */
show_message_fn show_text_message;       /* --format=text */
show_message_fn show_raw_message;        /* --format=raw */
show_message_fn show_mbox_message;       /* --format=mbox */

/* notmuch's format_part_sprinter for the whole message (root, id 0, with m's database fields) or any
 * part below it; reply's original is printed by it too. */
void show_structured_part(struct show *s, maildex_message_t *m, const maildex_part_t *p);

/* notmuch's format_headers_sprinter: a map of headers in their order (NULL values print ""). */
void show_structured_headers(struct sprinter *sp, const maildex_header_t *headers, size_t n);

/* The value of the first header called name, whether it was found (a found value may be NULL). */
const char *show_header(const maildex_part_t *p, const char *name, bool *found);

/* reply's default and headers-only formats: the reply's headers, then (unless headers_only) the
 * quoted original (reply-text.c). */
void reply_print_text(FILE *out, const maildex_reply_t *r, bool headers_only);

/* Opens m's parts for printing; on failure says why on stderr, as notmuch does, and returns NULL. */
maildex_part_t *show_open_parts(struct show *s, maildex_message_t *m, const maildex_parts_options_t *opts);
/* notmuch's "Failed to decrypt part: ..." and "Failed to verify signed part: ..." on stderr, for each
 * part under p that failed (show_open_parts calls it; reply for its original). */
void show_report_crypto_errors(FILE *err, const maildex_part_t *p);

#endif
