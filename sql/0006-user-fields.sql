-- SPDX-License-Identifier: GPL-3.0-or-later
-- User-defined fields (notmuch's index.header.PREFIX=Header): a seventh full-text column, fields, holding
-- for each configured header present in a message its prefix and decoded value, as
-- "\x02PREFIX\x02value" segments (lib/mime/parse.h, user_text). The maildex tokenizer indexes a
-- segment's words as "\x02PREFIX\x02word" tokens (and their stems likewise), so PREFIX:word is one FTS5
-- term in this column, streamed by rowid like every other word: never a scan, and never confused with
-- the same word elsewhere or under another prefix.
--
-- FTS5 cannot add a column to a table, so the index is made again from fts_text, which holds every
-- indexed text (one pass over the stored text, once, at the upgrade). Messages indexed before a field
-- was configured have no value for it until `maildex reindex`, as with notmuch.
ALTER TABLE fts_text ADD COLUMN fields TEXT;
DROP TABLE fts;
CREATE VIRTUAL TABLE fts USING fts5(
    subject, "from", "to", body, attachment, mimetype, fields,
    content='fts_text', content_rowid='id', columnsize=0, tokenize='maildex tokenchars _'
);
INSERT INTO fts(fts) VALUES('rebuild');
