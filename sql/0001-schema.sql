-- SPDX-License-Identifier: GPL-3.0-or-later
-- maildex schema, version 1. Applied by lib/store/migrate.c in one transaction; later changes are new files
-- (sql/0002-name.sql, ...), never edits to this one once released.
--
-- The central trick: messages.id is the message's Date in seconds times 2^20 plus a tie-break
-- (lib/store-keys.c). Every index that ends in a message id - the FTS5 rowid, message_tags, files by
-- folder or directory - therefore streams newest first, and a date range is a key range, so a query
-- with a limit stops after reading about `limit` index entries.

-- Key/value facts about the database: uuid, revision (bumped by every write transaction that
-- changes messages or tags; lastmod values come from it).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value
) WITHOUT ROWID;

-- Configuration stored in the database (notmuch's `config set --database`, dump's `#@` lines).
CREATE TABLE config (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- A Maildir folder as notmuch's folder: prefix sees it: a directory path relative to the mail root
-- minus a trailing /cur or /new ('' for the root).
CREATE TABLE folders (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

-- Every directory under the mail root that was scanned. path is relative to the mail root ('' for the
-- root) and kept as the bytes found on disk. mtime is st_mtim in nanoseconds as of the last complete
-- scan of the directory; 0 means "list it next time".
CREATE TABLE directories (
    id      INTEGER PRIMARY KEY,
    path    TEXT NOT NULL UNIQUE,
    parent  INTEGER REFERENCES directories(id),
    folder  INTEGER NOT NULL REFERENCES folders(id),
    mtime   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX directories_parent ON directories(parent);

-- Threads: ids are printed as 16 hex digits. messages counts the real messages, so that a merge moves
-- the smaller thread into the larger.
CREATE TABLE threads (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    messages  INTEGER NOT NULL DEFAULT 0
);

-- One row per Message-ID that has at least one file.
CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,        -- date * 2^20 + tie-break: key order is date order
    message_id  TEXT NOT NULL UNIQUE,
    thread      INTEGER NOT NULL,
    date        INTEGER NOT NULL,           -- Date header, seconds since the epoch; 0 when unparseable
    parent      TEXT,                       -- Message-ID of the parent notmuch would choose
    subject     TEXT NOT NULL DEFAULT '',
    author      TEXT NOT NULL DEFAULT '',   -- From display name, else address (search summaries)
    lastmod     INTEGER NOT NULL DEFAULT 0  -- meta.revision of the last change to this message
);
CREATE INDEX messages_thread ON messages(thread, id);

-- Message-IDs referenced by some message but not (yet, or no longer) in the store. A message that
-- arrives later with this id takes over the thread.
CREATE TABLE ghosts (
    message_id  TEXT PRIMARY KEY,
    thread      INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX ghosts_thread ON ghosts(thread);

-- The files of a message: several for a duplicate Message-ID, in discovery order (id). flags is the
-- Maildir info after ":2," or NULL when the name has none. folder repeats directories.folder so that
-- folder: streams newest first from one index. size lets `new` recognise a renamed file (same unique
-- name part, same size) without reading it again.
CREATE TABLE files (
    id         INTEGER PRIMARY KEY,
    directory  INTEGER NOT NULL REFERENCES directories(id),
    name       TEXT NOT NULL,
    message    INTEGER NOT NULL,
    folder     INTEGER NOT NULL,
    flags      TEXT,
    size       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (directory, name)
);
CREATE INDEX files_message ON files(message);
CREATE INDEX files_folder ON files(folder, message);
CREATE INDEX files_directory_message ON files(directory, message);

-- Tags: messages counts the messages carrying the tag, which the planner reads to pick the driving
-- side of a query.
CREATE TABLE tags (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,
    messages  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE message_tags (
    tag      INTEGER NOT NULL,
    message  INTEGER NOT NULL,
    PRIMARY KEY (tag, message)
) WITHOUT ROWID;
CREATE INDEX message_tags_message ON message_tags(message, tag);

-- Message properties (notmuch's key=value pairs).
CREATE TABLE properties (
    message  INTEGER NOT NULL,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (message, key, value)
) WITHOUT ROWID;
CREATE INDEX properties_key_value ON properties(key, value, message);

-- The text that was indexed, kept so that a message's FTS entry can be deleted exactly (SQLite 3.40
-- has no contentless_delete) and so that the index can be rebuilt. rowid = messages.id.
CREATE TABLE fts_text (
    id          INTEGER PRIMARY KEY,
    subject     TEXT,
    "from"      TEXT,
    "to"        TEXT,
    body        TEXT,
    attachment  TEXT,
    mimetype    TEXT
);
-- The full-text index. The "maildex" tokenizer (lib/sqlext/tokenizer.c) is registered on every
-- connection before this table is touched; it adds colocated stems so one index answers both exact and
-- stemmed words. '_' is a word character, as in Xapian's term generator (notmuch_mail is one word).
-- No column sizes: results are ordered by date, never ranked.
CREATE VIRTUAL TABLE fts USING fts5(
    subject, "from", "to", body, attachment, mimetype,
    content='fts_text', content_rowid='id', columnsize=0, tokenize='maildex tokenchars _'
);

INSERT INTO meta(key, value) VALUES ('revision', 0);
