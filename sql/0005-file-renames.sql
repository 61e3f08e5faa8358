-- SPDX-License-Identifier: GPL-3.0-or-later
-- Maildir renames that a committed tag change still owes (lib/message/renames.c). A tag change that changes
-- a message's flags commits its tags together with one row here per file to rename; the files are
-- renamed after that commit, and the next transaction points their rows at the new names and
-- deletes these. A kill in between leaves rows here, and the next writer (new, tag, insert,
-- reindex) finishes them: the tag change is never lost, and no file is. from_* is where the file
-- was when the change was made: a file that has moved since (another program renamed it) is left
-- where it is.
CREATE TABLE file_renames (
    file            INTEGER PRIMARY KEY,  -- files.id
    from_directory  INTEGER NOT NULL,
    from_name       TEXT NOT NULL,
    to_directory    INTEGER NOT NULL,
    to_name         TEXT NOT NULL
);
