/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stmt.h: the per-handle prepared-statement cache, the FTS5 way. Every SQL statement the library runs
 * more than once is listed here with an id; maildex__stmt() prepares it on first use with
 * SQLITE_PREPARE_PERSISTENT and hands it out reset with its bindings cleared. All of them are finalized
 * when the database closes. Statements whose text depends on the query (the planner's) are not cached
 * here. Values are always bound; no statement text is ever built from user input. */
#ifndef MAILDEX_STMT_H
#define MAILDEX_STMT_H

#include "maildex.h"

#include <sqlite3.h>

#define MAILDEX__STMT_LIST(X)                                                                 \
    X(META_GET, "SELECT value FROM meta WHERE key = ?1")                                      \
    X(META_SET, "INSERT INTO meta(key, value) VALUES (?1, ?2) "                               \
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value")                      \
    X(REVISION_BUMP, "UPDATE meta SET value = value + 1 WHERE key = 'revision' "              \
                     "RETURNING value")                                                       \
    X(CONFIG_GET, "SELECT value FROM config WHERE key = ?1")                                  \
    X(CONFIG_SET, "INSERT INTO config(key, value) VALUES (?1, ?2) "                           \
                  "ON CONFLICT(key) DO UPDATE SET value = excluded.value")                    \
    X(CONFIG_DELETE, "DELETE FROM config WHERE key = ?1")                                     \
    X(CONFIG_LIST, "SELECT key, value FROM config WHERE key >= ?1 ORDER BY key")              \
    /* message/tags.c */                                                                      \
    X(TAG_FIND, "SELECT id FROM tags WHERE name = ?1")                                        \
    X(TAG_CREATE, "INSERT INTO tags(name) VALUES (?1)")                                       \
    X(TAG_MESSAGES, "SELECT messages FROM tags WHERE id = ?1")                                \
    X(MESSAGE_TAG_ADD, "INSERT OR IGNORE INTO message_tags(tag, message) VALUES (?1, ?2)")    \
    X(MESSAGE_TAG_REMOVE, "DELETE FROM message_tags WHERE tag = ?1 AND message = ?2")         \
    X(TAG_COUNT_ADD, "UPDATE tags SET messages = messages + ?2 WHERE id = ?1")                \
    X(MESSAGE_TAGS_DELETE, "DELETE FROM message_tags WHERE message = ?1 RETURNING tag")       \
    X(MESSAGE_TOUCH, "UPDATE messages SET lastmod = ?2 WHERE id = ?1")                        \
    X(MESSAGE_TAG_NAMES, "SELECT t.name FROM message_tags mt JOIN tags t ON t.id = mt.tag "   \
                         "WHERE mt.message = ?1")                                             \
    X(MESSAGE_FILES_SYNC, "SELECT f.id, f.name, f.folder, d.path, d.id FROM files f "         \
                          "JOIN directories d ON d.id = f.directory WHERE f.message = ?1")    \
    X(MESSAGE_FILE_FLAGS, "SELECT d.path, f.flags FROM files f JOIN directories d "           \
                          "ON d.id = f.directory WHERE f.message = ?1")                       \
    /* message/renames.c */                                                                           \
    X(RENAME_RECORD, "INSERT OR REPLACE INTO file_renames(file, from_directory, from_name, "  \
                     "to_directory, to_name) VALUES (?1, ?2, ?3, ?4, ?5)")                    \
    X(RENAME_FORGET, "DELETE FROM file_renames WHERE file = ?1")                              \
    X(RENAMES_ANY, "SELECT 1 FROM file_renames WHERE file > ?1 LIMIT 1")                      \
    X(RENAMES_OWED, "SELECT r.file, r.from_name, r.to_name, fd.path, td.path, "               \
                    "r.to_directory, td.folder, "                                             \
                    "f.directory IS r.from_directory AND f.name IS r.from_name "              \
                    "FROM file_renames r LEFT JOIN files f ON f.id = r.file "                 \
                    "LEFT JOIN directories fd ON fd.id = r.from_directory "                   \
                    "LEFT JOIN directories td ON td.id = r.to_directory "                     \
                    "WHERE r.file > ?1 ORDER BY r.file LIMIT ?2")                             \
    X(RENAMES_DONE, "DELETE FROM file_renames WHERE file <= ?1")                              \
    /* message/threads.c */                                                                            \
    X(THREAD_OF_MESSAGE, "SELECT thread FROM messages WHERE message_id = ?1")                 \
    X(THREAD_OF_GHOST, "SELECT thread FROM ghosts WHERE message_id = ?1")                     \
    X(THREAD_CREATE, "INSERT INTO threads(messages) VALUES (0)")                              \
    X(THREAD_SIZE, "SELECT messages FROM threads WHERE id = ?1")                              \
    X(THREAD_COUNT_ADD, "UPDATE threads SET messages = messages + ?2 WHERE id = ?1")          \
    X(THREAD_DELETE, "DELETE FROM threads WHERE id = ?1")                                     \
    X(THREAD_MOVE_MESSAGES, "UPDATE messages SET thread = ?2 WHERE thread = ?1")              \
    X(THREAD_MOVE_GHOSTS, "UPDATE ghosts SET thread = ?2 WHERE thread = ?1")                  \
    X(THREAD_DELETE_GHOSTS, "DELETE FROM ghosts WHERE thread = ?1")                           \
    X(GHOST_ADD, "INSERT OR IGNORE INTO ghosts(message_id, thread) VALUES (?1, ?2)")          \
    X(GHOST_DELETE, "DELETE FROM ghosts WHERE message_id = ?1")                               \
    /* message/write.c, index/insert.c, index/reindex.c */                                                                           \
    X(MESSAGE_FIND, "SELECT id FROM messages WHERE message_id = ?1")                          \
    X(MESSAGE_KEY_MIN, "SELECT min(id) FROM messages WHERE id BETWEEN ?1 AND ?2")             \
    X(MESSAGE_INSERT, "INSERT INTO messages(id, message_id, thread, date, parent, subject, "  \
                      "author, lastmod) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")             \
    X(MESSAGE_DELETE, "DELETE FROM messages WHERE id = ?1 RETURNING message_id, thread")      \
    X(TEXT_INSERT, "INSERT INTO texts(id, subject, \"from\", \"to\", body, attachment, "        \
                   "mimetype, fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")               \
    X(FTS_INSERT, "INSERT INTO fts(rowid, subject, \"from\", \"to\", body, attachment, "        \
                  "mimetype, fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")                \
    X(FTS_DELETE, "INSERT INTO fts(fts, rowid, subject, \"from\", \"to\", body, attachment, "   \
                  "mimetype, fields) VALUES ('delete', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")       \
    X(TEXT_DELETE, "DELETE FROM texts WHERE id = ?1")                                         \
    X(TEXT_READ, "SELECT subject, \"from\", \"to\", body, attachment, mimetype, fields "       \
                 "FROM fts_text WHERE id = ?1")                                               \
    X(PROPERTIES_DELETE, "DELETE FROM properties WHERE message = ?1")                         \
    X(INDEXED_FROM_KEEP, "INSERT OR IGNORE INTO indexed_from(id, value) VALUES (?1, ?2)")     \
    X(INDEXED_FROM_DELETE, "DELETE FROM indexed_from WHERE id = ?1")                          \
    /* message/properties.c */                                                                \
    X(PROPERTIES_OF_MESSAGE, "SELECT key, value FROM properties WHERE message = ?1 "           \
                             "ORDER BY key, value")                                           \
    X(PROPERTY_ADD, "INSERT OR IGNORE INTO properties(message, key, value) VALUES (?1, ?2, ?3)") \
    X(PROPERTY_REMOVE, "DELETE FROM properties WHERE message = ?1 AND key = ?2 AND value = ?3") \
    X(PROPERTIES_DELETE_INDEX, "DELETE FROM properties WHERE message = ?1 "                   \
                               "AND key >= 'index.' AND key < 'index/'")                      \
    X(PROPERTIES_DELETE_KEY, "DELETE FROM properties WHERE message = ?1 AND key = ?2")         \
    /* query/field-property.c */                                                                      \
    X(PROPERTY_COUNT, "SELECT messages FROM property_counts WHERE key = ?1 AND value = ?2")    \
    X(ADDRESSES_INSERT, "INSERT INTO addresses(id, sender, recipients) VALUES (?1, ?2, ?3)")  \
    X(ADDRESSES_DELETE, "DELETE FROM addresses WHERE id = ?1")                                \
    X(FILE_INSERT, "INSERT INTO files(directory, name, message, folder, flags, size) "        \
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")                                         \
    X(FILE_DELETE, "DELETE FROM files WHERE id = ?1 RETURNING message")                       \
    X(FILE_MOVE, "UPDATE files SET directory = ?2, name = ?3, folder = ?4, flags = ?5 "       \
                 "WHERE id = ?1 RETURNING message")                                           \
    X(MESSAGE_READ, "SELECT date, thread FROM messages WHERE id = ?1")                        \
    X(MESSAGE_UPDATE, "UPDATE messages SET date = ?2, parent = ?3, subject = ?4, author = ?5, " \
                      "lastmod = ?6 WHERE id = ?1")                                           \
    X(REKEY_MESSAGE, "UPDATE messages SET id = ?2 WHERE id = ?1")                             \
    X(MESSAGE_COUNT_ADD, "UPDATE meta SET value = value + ?1 WHERE key = 'messages'")          \
    X(REKEY_FILES, "UPDATE files SET message = ?2 WHERE message = ?1")                        \
    X(REKEY_TAGS, "UPDATE message_tags SET message = ?2 WHERE message = ?1")                  \
    X(REKEY_PROPERTIES, "UPDATE properties SET message = ?2 WHERE message = ?1")              \
    X(FILE_FIRST_OF_MESSAGE, "SELECT d.path, f.name, f.id FROM files f JOIN directories d "   \
                             "ON d.id = f.directory WHERE f.message = ?1 "                    \
                             "ORDER BY f.directory, f.name")                                  \
    X(FILE_COUNT_OF_MESSAGE, "SELECT count(*) FROM files WHERE message = ?1")                 \
    X(FILE_FIND, "SELECT id FROM files WHERE directory = ?1 AND name = ?2")                   \
    X(FILE_IS_LAST, "SELECT count(*) = 1 FROM files WHERE message = "                         \
                    "(SELECT message FROM files WHERE id = ?1)")                              \
    /* read/show.c */                                                                              \
    X(MESSAGE_INDEXED_FROM, "SELECT coalesce(i.value, t.\"from\"), a.sender FROM texts t "      \
                            "LEFT JOIN indexed_from i ON i.id = t.id "                        \
                            "LEFT JOIN addresses a ON a.id = t.id WHERE t.id = ?1")           \
    /* read/addresses.c */                                                                           \
    X(ADDRESSES_READ, "SELECT sender, recipients FROM addresses WHERE id = ?1")               \
    /* read/message-find.c */                                                                \
    X(MESSAGE_ROW, "SELECT id, message_id, thread, date FROM messages WHERE message_id = ?1") \
    X(MESSAGE_ROW_OF_FILE, "SELECT m.id, m.message_id, m.thread, m.date FROM files f "        \
                           "JOIN messages m ON m.id = f.message "                             \
                           "WHERE f.directory = ?1 AND f.name = ?2")                          \
    X(MESSAGE_SUBJECT, "SELECT subject FROM messages WHERE id = ?1")                          \
    /* read/search.c: a message's files (by directory in the order the index first had a file in \
     * it, then by name) and tags */                                                          \
    X(MESSAGE_FILES, "SELECT d.path, f.name FROM files f JOIN directories d ON d.id = "       \
                     "f.directory WHERE f.message = ?1 ORDER BY f.directory, f.name")         \
    X(MESSAGE_TAGS, "SELECT t.name FROM message_tags mt JOIN tags t ON t.id = mt.tag "        \
                    "WHERE mt.message = ?1 ORDER BY t.name")                                  \
    /* index/scan.c */                                                                              \
    X(DIR_FIND, "SELECT id, mtime, folder FROM directories WHERE path = ?1")                  \
    X(DIR_INSERT, "INSERT INTO directories(path, parent, folder) VALUES (?1, ?2, ?3)")        \
    X(DIR_CHILDREN, "SELECT id, path FROM directories WHERE parent = ?1")                     \
    X(DIR_ALL, "SELECT path FROM directories ORDER BY path")                                  \
    X(DIR_SET_MTIME, "UPDATE directories SET mtime = ?2 WHERE id = ?1")                       \
    X(DIR_DELETE, "DELETE FROM directories WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM files " \
                  "WHERE directory = ?1) AND NOT EXISTS (SELECT 1 FROM directories "          \
                  "WHERE parent = ?1)")                                                       \
    X(DIR_FILES, "SELECT id, name FROM files WHERE directory = ?1 ORDER BY name")             \
    X(FILE_SIZE, "SELECT size FROM files WHERE id = ?1")                                      \
    X(DIR_HAS_FILES, "SELECT 1 FROM files WHERE directory = ?1 LIMIT 1")                      \
    X(FOLDER_FIND, "SELECT id FROM folders WHERE name = ?1")                                  \
    X(FOLDER_INSERT, "INSERT INTO folders(name) VALUES (?1)")                                 \
    /* query/fts.c, after maildex__vocab_ensure */                                           \
    X(VOCAB_DOCS, "SELECT doc FROM temp.maildex_vocab WHERE term = ?1")                        \
    X(VOCAB_PREFIX_DOCS, "SELECT sum(doc) FROM (SELECT doc FROM temp.maildex_vocab "           \
                         "WHERE term >= ?1 AND term < ?2 LIMIT 1000)")                         \
    X(BEGIN, "BEGIN IMMEDIATE")                                                               \
    X(COMMIT, "COMMIT")                                                                       \
    X(ROLLBACK, "ROLLBACK")

typedef enum {
#define MAILDEX__STMT_ENUM(name, sql) MAILDEX__STMT_##name,
    MAILDEX__STMT_LIST(MAILDEX__STMT_ENUM)
#undef MAILDEX__STMT_ENUM
    MAILDEX__STMT_COUNT
} maildex__stmt_id_t;

struct maildex_db;

/* Sets *out to the cached statement id, prepared if needed, reset and with bindings cleared. On
 * failure *out is NULL and the error is recorded on db. */
maildex_status_t maildex__stmt(struct maildex_db *db, maildex__stmt_id_t id, sqlite3_stmt **out);

/* The SQL text of a statement id (tests, EXPLAIN QUERY PLAN). */
const char *maildex__stmt_sql(maildex__stmt_id_t id);

/* Finalizes every cached statement; the database destructor calls it before sqlite3_close. */
void maildex__stmt_finalize_all(struct maildex_db *db);

#endif
