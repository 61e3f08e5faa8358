#!/bin/sh
# Errors about the database that say what and where: a first `new` that cannot create the database's
# directory, a database file that is garbage or lost its tail, and SQLite errors that reach the user.
# Each message names the file, the reason and what to do; the exit status is notmuch's (1).
. "$(dirname "$0")/test-lib.sh"

DB=$MAIL_DIR/.maildex/maildex.db

test_begin_subtest "a first new with an unwritable mail root names the directory and the reason"
if can_drop_overrides; then
    chmod 555 "$MAIL_DIR"
    output=$(without_overrides maildex new 2>&1; echo "status=$?")
    chmod 755 "$MAIL_DIR"
    test_expect_equal "$output" "maildex new: cannot create directory '$MAIL_DIR/.maildex': Permission denied
status=1"
else
    test_skip_ "cannot drop root's permission overrides (no setpriv)"
fi

test_begin_subtest "a missing mail root is reported, not created"
printf '[database]\npath=%s\n' "$TMP_DIRECTORY/no/such/mail" > "$TMP_DIRECTORY/nomail"
output=$(maildex --config="$TMP_DIRECTORY/nomail" new 2>&1; echo "status=$?")
test_expect_equal "$output|$(ls "$TMP_DIRECTORY/no" 2>&1 >/dev/null | wc -l)" \
    "maildex new: cannot create directory '$TMP_DIRECTORY/no/such/mail/.maildex': '$TMP_DIRECTORY/no/such/mail' does not exist
status=1|1"

test_done
