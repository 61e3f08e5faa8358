#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the config and the database are, as notmuch 0.37 finds them: profiles, the XDG places,
# database.path and database.mail_root, a database.path that is a link to the mail root; what
# `config` lists and how values and files are written; `setup` and the program run with no command.
. "$(dirname "$0")/test-lib.sh"

generate_message >/dev/null
generate_message >/dev/null

# A fresh HOME with notmuch's own config (no $MAILDEX_CONFIG) for each layout.
fresh_home() {
    H=$TMP_DIRECTORY/$1
    rm -rf "$H"
    mkdir -p "$H"
}
in_home() { env HOME="$H" MAILDEX_CONFIG= "$@"; }

test_begin_subtest "config list with a database: where its hooks and backups go, and the defaults"
maildex new >/dev/null
maildex config list > OUTPUT
cat > EXPECTED <<EOF
built_with.compact=true
built_with.field_processor=true
built_with.retry_lock=true
built_with.sexp_queries=true
database.autocommit=8000
database.backup_dir=$MAIL_DIR/.maildex/backups
database.hook_dir=$MAIL_DIR/.maildex/hooks
database.mail_root=$MAIL_DIR
database.path=$MAIL_DIR
maildir.synchronize_flags=true
new.ignore=
new.tags=unread;inbox;
search.exclude_tags=deleted;spam;
user.name=Notmuch Test Suite
user.other_email=test_suite_other@notmuchmail.org;test_suite@otherdomain.org;
user.primary_email=test_suite@notmuchmail.org
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "values with a newline, a tab and a backslash come back as set"
maildex config set foo.bar 'thing
other	tab\back'
test_expect_equal "$(maildex config get foo.bar)" 'thing
other	tab\back'

test_begin_subtest "writing through a symbolic link writes the file it names and keeps the link"
cp "$MAILDEX_CONFIG" alt-config
ln -s alt-config alt-link
maildex --config=alt-link config set user.name "Link Name"
test_expect_equal "$(readlink alt-link) $(maildex --config=alt-config config get user.name)" \
    "alt-config Link Name"

test_begin_subtest "--config:FILE and --config FILE name the file too"
test_expect_equal "$(maildex --config:alt-config config get user.name)|$(maildex --config alt-config config get user.name)" \
    "Link Name|Link Name"

test_begin_subtest "config set --database takes one value at most (as notmuch)"
output=$(maildex config set --database foo.two a b 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex config: at most one value expected for foo.two
status=1"

test_begin_subtest "XDG: without database.path the database is in \$XDG_DATA_HOME/notmuch/default"
fresh_home xdg
mkdir -p "$H/.config/notmuch/default" "$H/.local/share/notmuch/default"
printf '[database]\nmail_root=%s\n' "$MAIL_DIR" > "$H/.config/notmuch/default/config"
output=$(in_home maildex config get database.path; in_home maildex new; in_home maildex count '*'
         ls "$H/.local/share/notmuch/default" | grep -c '^maildex.db$')
test_expect_equal "$output" "$H/.local/share/notmuch/default
Found 2 total files (that's not much mail).
Processed 2 total files in almost no time.
Added 2 new messages to the database.
2
1"

test_begin_subtest "XDG: --config='' reads no file and finds the same database"
in_home maildex config set --database test.key from-db
test_expect_equal "$(in_home maildex --config='' config get test.key)" "from-db"

test_begin_subtest "a profile: NOTMUCH_PROFILE picks its config and its database directory"
fresh_home profile
mkdir -p "$H/.config/notmuch/work" "$H/.local/share/notmuch/work"
printf '[database]\nmail_root=%s\n[new]\ntags=work;\n' "$MAIL_DIR" > "$H/.config/notmuch/work/config"
output=$(in_home NOTMUCH_PROFILE=work maildex new >/dev/null
         in_home NOTMUCH_PROFILE=work maildex search --output=tags '*'
         ls "$H/.local/share/notmuch/work" | grep -c '^maildex.db$')
test_expect_equal "$output" "work
1"

test_begin_subtest "a database.path that is a link to the mail root uses the database in the mail root"
ln -s "$MAIL_DIR" mail-link
printf '[database]\npath=%s\nmail_root=%s\n' "$TMP_DIRECTORY/mail-link" "$MAIL_DIR" > link-config
output=$(maildex --config=link-config new; ls mail-link | grep -c maildex.db)
test_expect_equal "$output" "No new mail.
0"

test_begin_subtest "no database.path: \$MAILDIR, then \$HOME/mail"
fresh_home env
printf '[user]\nname=N\n' > "$H/.notmuch-config"
ln -s "$MAIL_DIR" "$H/mail"
output=$(in_home MAILDIR="$TMP_DIRECTORY/mail-link" maildex config get database.path
         in_home maildex config get database.path; in_home maildex count '*')
test_expect_equal "$output" "$TMP_DIRECTORY/mail-link
$H/mail
2"

test_begin_subtest "a database inside the mail root is not read as mail"
mkdir -p "$MAIL_DIR/db"
printf '[database]\npath=%s\nmail_root=%s\n' "$MAIL_DIR/db" "$MAIL_DIR" > inner-config
output=$(maildex --config=inner-config new 2>&1; maildex --config=inner-config new 2>&1
         ls "$MAIL_DIR/db" | grep -c '^maildex.db$')
test_expect_equal "$output" "Found 2 total files (that's not much mail).
Processed 2 total files in almost no time.
Added 2 new messages to the database.
No new mail.
1"

test_begin_subtest "no command, no config file: setup asks on stdin and stops at the end of it"
fresh_home first
output=$(in_home maildex </dev/null; echo "status=$?")
test_expect_equal "$output" "Your full name [$(in_home maildex --config='' config get user.name)]: Exiting.
status=1"

test_begin_subtest "no command, a config file but no database: run new"
mkdir -p empty-mail
printf '[database]\npath=%s\n' "$TMP_DIRECTORY/empty-mail" > nodb-config
output=$(maildex --config=nodb-config 2>&1 </dev/null; echo "status=$?")
test_expect_equal "$output" "Maildex is configured, but no database was found.
You probably want to run \"maildex new\" now to create a database.

Note that the first run of \"maildex new\" can take a very long time
and that the resulting database will use roughly the same amount of
storage space as the email being indexed.

status=0"

test_begin_subtest "no command, a config file and a database: the command list"
output=$(maildex </dev/null; echo "status=$?")
case "$output" in
    "Usage: maildex"*"config"*"status=0") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "setup keeps what an empty answer leaves, and writes a list only for two or more"
printf '[user]\nname=Kept Name\nother_email=o@x.org\n' > kept-config
printf '\nme@x.org\n\nnew@x.org\n\n\ninbox\nspam trash\n' | maildex --config=kept-config setup >/dev/null
test_expect_equal "$(grep -E '^(name|primary_email|other_email|tags|exclude_tags)=' kept-config)" \
    "name=Kept Name
other_email=o@x.org;new@x.org;
primary_email=me@x.org
tags=inbox
exclude_tags=spam;trash;"

if [ -n "${NOTMUCH:-}" ] || NOTMUCH=$(command -v notmuch); then
    test_begin_subtest "setup writes the file notmuch's setup writes, comments and all"
    answers='Test Suite
test.suite@example.com
another.suite@example.com

/path/to/maildir
foo bar
baz
'
    printf '%s' "$answers" | maildex --config=setup-maildex setup >/dev/null
    printf '%s' "$answers" | "$NOTMUCH" --config=setup-notmuch setup >/dev/null
    test_expect_equal_file setup-notmuch setup-maildex

    test_begin_subtest "... and the same for a config file that exists"
    printf '# mine\n[user]\nname=Old\n[new]\nignore=.x;\n' > setup-maildex
    cp setup-maildex setup-notmuch
    printf '%s' "$answers" | maildex --config=setup-maildex setup >/dev/null
    printf '%s' "$answers" | "$NOTMUCH" --config=setup-notmuch setup >/dev/null
    test_expect_equal_file setup-notmuch setup-maildex
fi

test_done
