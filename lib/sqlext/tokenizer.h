/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The "maildex" FTS5 tokenizer and the helpers that build FTS5 MATCH strings for it.
 *
 * One FTS5 index answers both exact and stemmed word queries, as Xapian's `plans` + `Zplan` terms do for
 * notmuch. Documents are tokenized by FTS5's unicode61 (remove_diacritics 2: accents are folded on purpose,
 * a documented deviation from notmuch) and every token t is indexed as t; when its Snowball English stem
 * differs, "\x01" + stem(t) is indexed too, colocated (same position). Tokens longer than
 * MAILDEX_FTS_MAX_STEM_BYTES are indexed but never stemmed. unicode61 never emits control characters, so
 * the "\x01" namespace holds only stems.
 *
 * How the query planner builds MATCH strings (every user value goes through one of the helpers below, and
 * the whole string is bound with sqlite3_bind_text, never spliced into SQL):
 *   exact word       maildex__fts_match_quote(ctx, "Plans")       -> "Plans"          finds plans only
 *   stemmed word     maildex__fts_match_stemmed(ctx, "plans")     -> "\x01plans"      finds plan, plans, planning
 *   phrase           maildex__fts_match_quote(ctx, "lunch plans") -> "lunch plans"    adjacent, unstemmed
 *                    (notmuch's a-b-c / a.b.c phrases are the same: unicode61 splits them into a phrase)
 *   prefix           maildex__fts_match_prefix(ctx, "lun")        -> "lun"*           plain tokens only
 *   column filter    "{subject} : (" expr ")" or "subject : " phrase — column names come from the planner's
 *                    own table, never from the user
 *   and/or/not/near  FTS5's AND, OR, NOT, NEAR(p1 p2, N) between the pieces above
 * notmuch stems lower-case unprefixed words and body:/to: words; from:, subject:, capitalised words and
 * phrases use the exact form (notmuch-compat.md 3.2, 3.4).
 *
 * A query string that starts with "\x01" is tokenized as stemmed: each token w becomes the FTS5 synonym set
 * { "\x01" + s, s } with s = stem(w), FTS5's query-side synonyms (colocated query tokens are alternatives
 * at one position, see FTS5_TOKEN_COLOCATED in sqlite3.h), so stemmed words also work inside phrases and
 * NEAR groups. The plain alternative s is offered only when stem(s) == s: Snowball is not idempotent
 * (agreed -> agre -> agr), and a document holding the literal word "agre" has stem "agr", not "agre", so
 * Xapian would not match it and neither do we.
 *
 * Vocabulary scans (fts5vocab, "did you mean") must skip terms that start with "\x01".
 * This file must not know the schema or the query grammar: it only tokenizes and quotes. */
#ifndef MAILDEX_FTS_TOKENIZER_H
#define MAILDEX_FTS_TOKENIZER_H

#include <sqlite3.h>

/* The tokenizer's name, for CREATE VIRTUAL TABLE ... USING fts5(..., tokenize='maildex'). Extra words after
 * the name are passed on to unicode61 (for example tokenize='maildex tokenchars ''-_''). */
#define MAILDEX_FTS_TOKENIZER_NAME "maildex"

/* First byte of an indexed stem, and of a query string that asks for stemming. */
#define MAILDEX_FTS_STEM_MARKER '\x01'

/* User-defined fields (notmuch's index.header.PREFIX). A text that starts with this byte is a sequence of
 * segments "\x02PREFIX\x02value": every token t of a value is indexed as "\x02PREFIX\x02" t, and its stem
 * as "\x02PREFIX\x02\x01" stem, so PREFIX:word is a term of its own that no other text produces
 * (unicode61 never emits control characters). A query string of the same form (after the stem marker
 * when stemmed: "\x01\x02PREFIX\x02value") asks for the field's tokens; a prefix query with an empty
 * value ("\x02PREFIX\x02"*) for any word of the field. Build them with maildex__fts_match_field. */
#define MAILDEX_FTS_FIELD_MARKER '\x02'

/* Separates two MIME parts in a document's text. The document tokenizer puts one gap token (this
 * byte alone, which no query can produce: unicode61 never emits control characters) between the words
 * on either side, so a phrase never matches across two parts, as notmuch leaves a gap of 100 term
 * positions between the parts it indexes. */
#define MAILDEX_FTS_PART_BREAK '\x1e'

/* Tokens longer than this many bytes are indexed as they are and never stemmed (Xapian's TermGenerator
 * skips words over 64 bytes altogether). */
#define MAILDEX_FTS_MAX_STEM_BYTES 64

/* Per-connection tokenizer state (owned by the connection). */
struct maildex__fts_shared;

/* Registers the "maildex" tokenizer on db. Call once per connection, before any statement touches an FTS5
 * table that uses it. Sets *out (when out is not NULL) to the connection's tokenizer state, valid until the
 * connection closes. Returns SQLITE_OK, or an SQLite error code (SQLITE_ERROR when the SQLite library has
 * no FTS5); the message is left in sqlite3_errmsg(db) where SQLite set one. */
int maildex__fts_tokenizer_register(sqlite3 *db, struct maildex__fts_shared **out);

/* Recording a document's tokens on another thread, so the writer only replays them.
 *
 * A recorder is a document tokenizer configured exactly as the FTS5 table's own (NULL until FTS5 has
 * created that tokenizer on the connection, i.e. until the table was first used, or when memory runs
 * out). maildex__fts_recorder_new reads the connection's state but not the connection: call it on any
 * thread once the table has been used. A recorder is used by one thread at a time.
 *
 * maildex__fts_record returns text's tokens allocated on ctx, or NULL on failure (the insert then
 * tokenizes as usual). The recording points at text, which must outlive it.
 *
 * maildex__fts_replay_set (writer thread) registers the recordings of the row about to be inserted
 * (entries may be NULL); while registered, a document tokenization of a text equal byte for byte to a
 * recorded one replays that recording. Clear it with count 0 right after the insert. */
struct maildex__fts_recorder;
struct maildex__fts_tokens;
struct maildex__fts_recorder *maildex__fts_recorder_new(struct maildex__fts_shared *shared);
void maildex__fts_recorder_free(struct maildex__fts_recorder *recorder);
struct maildex__fts_tokens *maildex__fts_record(void *ctx, struct maildex__fts_recorder *recorder,
                                                const char *text);
void maildex__fts_replay_set(struct maildex__fts_shared *shared,
                             struct maildex__fts_tokens *const *tokens, int count);

/* The index tokens a one-word MATCH literal (as maildex__fts_match_quote, _stemmed or _field without
 * a prefix make it) asks for: the word as the table's tokenizer folds it, or the synonym set of a
 * stemmed word; a document matches when it holds any of them. A NULL-terminated array on ctx, or NULL
 * when the literal is a phrase (tokens at two positions) or holds no word, or before FTS5 has made
 * the table's tokenizer on this connection. */
char **maildex__fts_query_tokens(void *ctx, struct maildex__fts_shared *shared, const char *literal);

/* text as the index holds its words, for looking them up in the word list: lower case, accents
 * removed (what unicode61 with remove_diacritics does). g_malloc'd; free with g_free. */
char *maildex__fts_fold(const char *text);

/* Returns text as an FTS5 string literal: wrapped in double quotes, each '"' doubled, and any "\x01" byte
 * replaced by a space so that user text can never ask for stemming (unicode61 treats both as separators).
 * FTS5 tokenizes the literal as one word, or as a phrase when it holds several words. The result is
 * allocated on ctx; NULL when text is NULL or memory runs out. */
const char *maildex__fts_match_quote(void *ctx, const char *text);

/* Like maildex__fts_match_quote, but the literal starts with the stem marker, so it matches every word
 * with the same Snowball stem (a phrase of stems when text holds several words). */
const char *maildex__fts_match_stemmed(void *ctx, const char *text);

/* Like maildex__fts_match_quote, followed by FTS5's prefix operator: matches exact words that start with
 * text (when text holds several words, a phrase whose last word is the prefix). */
const char *maildex__fts_match_prefix(void *ctx, const char *text);

/* The same three in a user-defined field (see MAILDEX_FTS_FIELD_MARKER): text exactly, stemmed, or as
 * a prefix ("" for any word of the field). */
enum maildex__fts_match_kind { MAILDEX_FTS_EXACT, MAILDEX_FTS_STEMMED, MAILDEX_FTS_PREFIX };
const char *maildex__fts_match_field(void *ctx, const char *field, const char *text,
                                     enum maildex__fts_match_kind kind);

#endif
