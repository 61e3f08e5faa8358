-- SPDX-License-Identifier: GPL-3.0-or-later
-- How many messages carry each property key=value, kept by triggers as properties come and go. The
-- planner reads it to choose the driving side of a query with property: as it reads tags.messages:
-- a count of the rows would stop at 1,000 and then lose to any stored size, so that a property on
-- 9,000 messages would be probed per row of a tag on 30,000. Properties are written rarely (restore,
-- the library's callers), so a trigger per row costs nothing that matters.
CREATE TABLE property_counts (
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    messages  INTEGER NOT NULL,
    PRIMARY KEY (key, value)
) WITHOUT ROWID;

INSERT INTO property_counts(key, value, messages)
    SELECT key, value, count(*) FROM properties GROUP BY key, value;

-- INSERT OR IGNORE of a pair a message has already inserts nothing and fires nothing; re-keying a
-- message (UPDATE of properties.message) changes no count.
CREATE TRIGGER properties_counted AFTER INSERT ON properties BEGIN
    INSERT INTO property_counts(key, value, messages) VALUES (new.key, new.value, 1)
        ON CONFLICT(key, value) DO UPDATE SET messages = messages + 1;
END;

CREATE TRIGGER properties_uncounted AFTER DELETE ON properties BEGIN
    UPDATE property_counts SET messages = messages - 1 WHERE key = old.key AND value = old.value;
    DELETE FROM property_counts WHERE key = old.key AND value = old.value AND messages <= 0;
END;
