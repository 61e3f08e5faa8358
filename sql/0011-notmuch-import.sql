-- SPDX-License-Identifier: GPL-3.0-or-later
-- Whether notmuch's tags, properties and stored config were carried over into this store: the row
-- meta('notmuch_import'). A store made empty starts 'pending': its first `maildex new` runs
-- `notmuch dump` for the same config and applies it in one transaction that also writes 'done'
-- (cli/base/notmuch-import.c), so a crash before that commit leaves 'pending' and the next `new`
-- imports again. A store that already held mail when this migration came has had its tags from
-- somewhere (maildex's own tagging, or a `notmuch dump | maildex restore` by hand): 'before', and
-- nothing is imported unless asked (`maildex import-notmuch`). The library only keeps the word.
-- OR IGNORE: a row already there is the one that counts (the unit tests take a new store back to an
-- older schema version and upgrade it again).
INSERT OR IGNORE INTO meta(key, value)
SELECT 'notmuch_import',
       CASE WHEN EXISTS (SELECT 1 FROM messages) OR (SELECT value FROM meta WHERE key = 'revision') > 0
            THEN 'before' ELSE 'pending' END;
