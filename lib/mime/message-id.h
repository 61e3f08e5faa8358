/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Message-IDs and the References / In-Reply-To lists that link messages into threads, read exactly as
 * notmuch 0.37 reads them (lib/mime/message-id.c, lib/add-message.cc): the normalised id of one value, the
 * strict "one clean <id>" test, and the distinct referenced ids with the parent notmuch would choose.
 *
 * Pure string code on plain talloc and GLib: it must not know gmime, files or the store, so it can be
 * fuzzed and unit-tested alone. Header values arrive already unfolded and decoded (parse.c). It
 * keeps no state and is linear in its input. Private to lib/. */
#ifndef MAILDEX_MESSAGE_ID_H
#define MAILDEX_MESSAGE_ID_H

#include <stdbool.h>

/* The first id in s (notmuch's _notmuch_message_id_parse), quirks included: whitespace and RFC 822
 * comments before the id and unstructured text before its '<' are skipped; the '<' and '>' are
 * stripped; of every run of k spaces or tabs inside the id, k/2 survive ("<a  b>" is "a b"); a
 * one-character id is rejected and an unterminated "<id" is accepted. *next is set after the id's '>'
 * (or at the end of s), so a list is read by calling again with *next until it points at '\0'.
 * Returns the id talloc'd on ctx, or NULL when s holds no id (or out of memory). s must not be NULL. */
char *maildex__message_id_parse(void *ctx, const char *s, const char **next);

/* notmuch's _notmuch_message_id_parse_strict: the id when the whole of s is one "<id>" with no
 * whitespace inside and nothing but whitespace around it; NULL otherwise (or out of memory). */
char *maildex__message_id_parse_strict(void *ctx, const char *s);

/* The ids a message refers to, as notmuch links them (lib/add-message.cc): every distinct id of the
 * References value, then of the In-Reply-To value, in order, leaving out `self`. *ids is set to a
 * NULL-terminated array (possibly just the NULL) and *parent to the parent notmuch would choose: the
 * In-Reply-To id when that value is one clean <id>, else the last References id, else the last
 * In-Reply-To id; never `self` (notmuch would make the message its own parent, which no thread can
 * hold); NULL when there is none. references and in_reply_to may be NULL. The array, its strings and
 * the parent are talloc children of ctx. Returns false only when out of memory (outputs then NULL). */
bool maildex__references_parse(void *ctx, const char *self, const char *references,
                               const char *in_reply_to, char ***ids, char **parent);

#endif
