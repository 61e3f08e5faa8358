#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `config get|set|list` with notmuch's semantics, against maildex's and notmuch's config locations.
. "$(dirname "$0")/test-lib.sh"

test_begin_subtest "get a plain value"
test_expect_equal "$(maildex config get user.primary_email)" "test_suite@notmuchmail.org"

test_begin_subtest "get a list prints one value per line"
test_expect_equal "$(maildex config get user.other_email)" "test_suite_other@notmuchmail.org
test_suite@otherdomain.org"

test_begin_subtest "get an unset key prints nothing and exits 0"
output=$(maildex config get user.nothing; echo "status=$?")
test_expect_equal "$output" "status=0"

test_begin_subtest "get a key without a section is an error"
output=$(maildex config get foo 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex config: invalid configuration name: foo (should be of the form <section>.<item>)
status=1"

test_begin_subtest "get needs exactly one key"
test_expect_code 1 maildex config get a.b c.d

test_begin_subtest "set then get a value"
maildex config set user.name "Ada Lovelace"
test_expect_equal "$(maildex config get user.name)" "Ada Lovelace"

test_begin_subtest "set several values writes a list"
maildex config set new.tags new unread inbox
test_expect_equal "$(maildex config get new.tags | tr '\n' ' ')" "new unread inbox "

test_begin_subtest "set keeps the notmuch list syntax in the file"
test_expect_equal "$(grep '^tags=' "$MAILDEX_CONFIG")" "tags=new;unread;inbox;"

test_begin_subtest "set with no value removes the key"
maildex config set user.name
test_expect_equal "$(grep -c '^name=' "$MAILDEX_CONFIG")" "0"

test_begin_subtest "list prints sorted section.key=value lines"
cat > "$TMP_DIRECTORY/small" <<EOF2
[database]
path=/srv/mail
[user]
name=N
primary_email=n@example.org
[search]
exclude_tags=deleted;spam;
EOF2
maildex --config="$TMP_DIRECTORY/small" config list > OUTPUT
cat > EXPECTED <<EOF2
built_with.compact=true
built_with.field_processor=true
built_with.retry_lock=true
built_with.sexp_queries=true
database.autocommit=8000
database.mail_root=/srv/mail
database.path=/srv/mail
maildir.synchronize_flags=true
new.ignore=
new.tags=unread;inbox
search.exclude_tags=deleted;spam;
user.name=N
user.primary_email=n@example.org
EOF2
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "defaults when no config file exists (as notmuch's)"
output=$(MAILDEX_CONFIG= HOME="$TMP_DIRECTORY/empty-home" maildex config get new.tags | tr '\n' ' ')
test_expect_equal "$output" "unread inbox "

test_begin_subtest "no config file anywhere: a command that reads the database names where it looked and says to run setup (status 1, as notmuch)"
empty=$TMP_DIRECTORY/empty-home
mkdir -p "$empty"
output=$(MAILDEX_CONFIG= HOME=$empty maildex search foo 2>&1; echo "status=$?")
test_expect_equal "$output" "Error: cannot load config file: there is none. Looked for, in this order:
  \$MAILDEX_CONFIG (not set)
  $empty/.config/maildex/config
  \$NOTMUCH_CONFIG (not set)
  $empty/.config/notmuch/default/config
  $empty/.notmuch-config
Try running 'maildex setup' to create a configuration.
status=1"

test_begin_subtest "... the same for new, count and tag, and nothing is created"
others=$(for cmd in new "count *" "tag +x -- *"; do
    (set -f; MAILDEX_CONFIG= HOME=$empty maildex $cmd 2>&1; echo "status=$?") | sed 's/^maildex [a-z]*: //'
done)
test_expect_equal "$others|$(ls -A "$empty")" "$output
$output
$output|"

test_begin_subtest "... run as notmuch, notmuch's two lines"
mkdir -p "$TMP_DIRECTORY/as-notmuch"
ln -s "$(command -v maildex)" "$TMP_DIRECTORY/as-notmuch/notmuch"
test_expect_equal "$(MAILDEX_CONFIG= HOME=$empty "$TMP_DIRECTORY/as-notmuch/notmuch" search foo 2>&1; echo "status=$?")" \
    "Error: cannot load config file.
Try running 'notmuch setup' to create a configuration.
status=1"

test_begin_subtest "relative database.path is relative to HOME"
printf '[database]\npath=Maildir\n' > "$TMP_DIRECTORY/rel"
test_expect_equal "$(maildex --config="$TMP_DIRECTORY/rel" config get database.path)" "$HOME/Maildir"

test_begin_subtest "an existing notmuch config is found through NOTMUCH_CONFIG"
printf '[user]\nprimary_email=nm@example.org\n' > "$TMP_DIRECTORY/nmcfg"
output=$(MAILDEX_CONFIG= NOTMUCH_CONFIG="$TMP_DIRECTORY/nmcfg" maildex config get user.primary_email)
test_expect_equal "$output" "nm@example.org"

test_begin_subtest "~/.notmuch-config is found when nothing else is set"
printf '[user]\nprimary_email=home@example.org\n' > "$HOME/.notmuch-config"
output=$(MAILDEX_CONFIG= maildex config get user.primary_email)
test_expect_equal "$output" "home@example.org"

test_begin_subtest "maildex's own XDG config wins over notmuch's"
mkdir -p "$HOME/.config/maildex"
printf '[user]\nprimary_email=xdg@example.org\n' > "$HOME/.config/maildex/config"
output=$(MAILDEX_CONFIG= NOTMUCH_CONFIG="$TMP_DIRECTORY/nmcfg" maildex config get user.primary_email)
test_expect_equal "$output" "xdg@example.org"

test_begin_subtest "--config wins over everything"
output=$(maildex --config="$TMP_DIRECTORY/nmcfg" config get user.primary_email)
test_expect_equal "$output" "nm@example.org"

test_begin_subtest "an unreadable config file is an error naming it"
printf '[[[ not a key file\n' > "$TMP_DIRECTORY/broken"
output=$(maildex --config="$TMP_DIRECTORY/broken" config get user.name 2>&1; echo "status=$?")
case "$output" in
    *"cannot read config file '$TMP_DIRECTORY/broken'"*"status=1") test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

test_begin_subtest "setup at the end of its input says so and fails, as notmuch's"
output=$( (maildex setup </dev/null; echo "status=$?") | sed 's/.*\]: //')
test_expect_equal "$output" "Exiting.
status=1"

test_begin_subtest "setup with options writes the file"
maildex --config="$TMP_DIRECTORY/setup-cfg" setup --name="S U" --primary-email=su@example.org \
    --other-email=o1@example.org --other-email=o2@example.org --mail-root=/srv/m \
    --tags="unread inbox" --exclude-tags="spam" >/dev/null </dev/null
output=$(for k in user.name user.primary_email user.other_email database.path new.tags search.exclude_tags; do
    maildex --config="$TMP_DIRECTORY/setup-cfg" config get $k; done | tr '\n' '|')
test_expect_equal "$output" "S U|su@example.org|o1@example.org|o2@example.org|/srv/m|unread|inbox|spam|"

test_begin_subtest "setup on a terminal asks notmuch's questions, any number of other addresses"
if command -v script >/dev/null 2>&1; then
    printf 'N A\nna@example.org\no1@example.org\no2@example.org\no3@example.org\n\n/srv/m\nunread inbox\nspam\n' |
        script -qec "maildex --config='$TMP_DIRECTORY/asked-cfg' setup" /dev/null >/dev/null
    output=$(for k in user.name user.primary_email user.other_email database.path new.tags search.exclude_tags; do
        maildex --config="$TMP_DIRECTORY/asked-cfg" config get $k; done | tr '\n' '|')
    test_expect_equal "$output" "N A|na@example.org|o1@example.org|o2@example.org|o3@example.org|/srv/m|unread|inbox|spam|"
else
    test_skip_ "script (util-linux) is not installed"
fi

test_begin_subtest "config set --database stores in the database; get falls back to it"
maildex new > /dev/null # the database must exist: set --database does not create it (T246)
maildex config set --database query.lunch 'subject:lunch and tag:inbox'
output=$(maildex config get query.lunch; grep -c '^lunch' "$MAILDEX_CONFIG")
test_expect_equal "$output" "subject:lunch and tag:inbox
0"

test_begin_subtest "the file's value wins over the database's"
maildex config set query.lunch 'tag:file'
test_expect_equal "$(maildex config get query.lunch)" "tag:file"

test_begin_subtest "a config file named by --config that does not exist: every command refuses, naming it"
missing=$TMP_DIRECTORY/no-such-config
for cmd in "new" "count *" "search *" "tag +x -- *" "reindex *"; do
    # shellcheck disable=SC2086
    err=$(set -f; maildex --config="$missing" $cmd 2>&1 >/dev/null)
    echo "$? $err"
done | sort -u > OUTPUT
# Nothing was created: not the file, not a database where the defaults would put it.
test_expect_equal "$(cat OUTPUT)|$(ls -d "$missing" "$HOME/mail" 2>/dev/null)" \
    "1 Error: cannot load config file '$missing' (named by --config): No such file or directory.
Try running 'maildex setup' to create a configuration.|"

test_begin_subtest "... run as notmuch, in notmuch's words"
ln -s "$(command -v maildex)" "$TMP_DIRECTORY/notmuch"
test_expect_equal "$("$TMP_DIRECTORY/notmuch" --config="$missing" new 2>&1; echo "status=$?")" \
    "Error: cannot load config file.
Try running 'notmuch setup' to create a configuration.
status=1"

test_begin_subtest "... config get and list print nothing and say how to make one, status 0 (as notmuch)"
test_expect_equal "$(maildex --config="$missing" config get user.name 2>&1; echo "status=$?"
                     maildex --config="$missing" config list 2>&1; echo "status=$?")" \
    "Try running 'maildex setup' to create a configuration.
status=0
Try running 'maildex setup' to create a configuration.
status=0"

test_begin_subtest "... and the same for \$MAILDEX_CONFIG and \$NOTMUCH_CONFIG"
output=$(MAILDEX_CONFIG=$missing maildex count '*' 2>&1; echo "status=$?"
         HOME=$TMP_DIRECTORY/empty-home MAILDEX_CONFIG= NOTMUCH_CONFIG=$missing maildex count '*' 2>&1
         echo "status=$?")
test_expect_equal "$output" "Error: cannot load config file '$missing' (named by \$MAILDEX_CONFIG): No such file or directory.
Try running 'maildex setup' to create a configuration.
status=1
Error: cannot load config file '$missing' (named by \$NOTMUCH_CONFIG): No such file or directory.
Try running 'maildex setup' to create a configuration.
status=1"

test_begin_subtest "config set and setup create a named config file that does not exist; help needs none"
maildex --config="$missing" config set user.name "Made By Set"
MAILDEX_CONFIG=$missing.2 maildex setup --name="Made By Setup" >/dev/null
maildex --config="$missing.3" help >/dev/null
help_status=$?
test_expect_equal "$(maildex --config="$missing" config get user.name)|$(MAILDEX_CONFIG=$missing.2 maildex config get user.name)|$help_status" \
    "Made By Set|Made By Setup|0"

if [ -n "${NOTMUCH:-}" ] && [ -x "$NOTMUCH" ]; then
    test_begin_subtest "a missing named config file: the exit status of notmuch for new, count, search, tag"
    mine=$(for cmd in new "count *" "search *" "tag +x -- *"; do
        (set -f; maildex --config="$missing.none" $cmd >/dev/null 2>&1; echo "[$?]"); done)
    theirs=$(for cmd in new "count *" "search *" "tag +x -- *"; do
        (set -f; "$NOTMUCH" --config="$missing.none" $cmd >/dev/null 2>&1; echo "[$?]"); done)
    test_expect_equal "$mine" "$theirs"
fi

test_begin_subtest "maildir.synchronize_flags=maybe: new and tag refuse it, naming the key, the value and the file"
sed 's/^synchronize_flags=true/synchronize_flags=maybe/' "$MAILDEX_CONFIG" > "$TMP_DIRECTORY/maybe"
printf '[database]\nhook_dir=%s\n' "$TMP_DIRECTORY/maybe-hooks" >> "$TMP_DIRECTORY/maybe"
mkdir -p "$TMP_DIRECTORY/maybe-hooks"
printf '#!/bin/sh\ntouch "%s"\n' "$TMP_DIRECTORY/pre-new-ran" > "$TMP_DIRECTORY/maybe-hooks/pre-new"
chmod +x "$TMP_DIRECTORY/maybe-hooks/pre-new"
output=$(maildex --config="$TMP_DIRECTORY/maybe" new 2>&1; echo "status=$?"
         maildex --config="$TMP_DIRECTORY/maybe" tag +x -- '*' 2>&1; echo "status=$?")
test_expect_equal "$output" "maildex new: config key 'maildir.synchronize_flags' has value 'maybe', which is not true or false (in '$TMP_DIRECTORY/maybe')
status=1
maildex tag: config key 'maildir.synchronize_flags' has value 'maybe', which is not true or false (in '$TMP_DIRECTORY/maybe')
status=1"

test_begin_subtest "... and new refuses it before running the pre-new hook (as notmuch)"
test_expect_equal "$(ls "$TMP_DIRECTORY/pre-new-ran" 2>/dev/null | wc -l)" "0"

test_begin_subtest "... while commands that do not read it still work"
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex --config="$TMP_DIRECTORY/maybe" count '*'; echo "status=$?")" "0
status=0"

if [ -n "${NOTMUCH:-}" ] && [ -x "$NOTMUCH" ]; then
    test_begin_subtest "synchronize_flags=maybe: the exit status of notmuch for new, tag and count"
    mine=$(for cmd in new "tag +x -- *" "count *"; do
        (set -f; maildex --config="$TMP_DIRECTORY/maybe" $cmd >/dev/null 2>&1; echo "[$?]"); done)
    theirs=$(for cmd in new "tag +x -- *" "count *"; do
        (set -f; "$NOTMUCH" --config="$TMP_DIRECTORY/maybe" $cmd >/dev/null 2>&1; echo "[$?]"); done)
    test_expect_equal "$mine" "$theirs"
fi

if [ -n "${NOTMUCH:-}" ] && [ -x "$NOTMUCH" ]; then
    test_begin_subtest "config get agrees with notmuch on a notmuch config"
    cp "$TMP_DIRECTORY/small" "$TMP_DIRECTORY/both"
    printf '[new]\ntags=unread;inbox;\n[user]\nother_email=a@x.org;b@y.org;\n' >> "$TMP_DIRECTORY/both"
    mine=$(for k in user.name user.primary_email user.other_email new.tags search.exclude_tags database.path database.mail_root maildir.synchronize_flags user.unset; do
        maildex --config="$TMP_DIRECTORY/both" config get $k; echo "[$?]"; done)
    theirs=$(for k in user.name user.primary_email user.other_email new.tags search.exclude_tags database.path database.mail_root maildir.synchronize_flags user.unset; do
        "$NOTMUCH" --config="$TMP_DIRECTORY/both" config get $k 2>/dev/null; echo "[$?]"; done)
    test_expect_equal "$mine" "$theirs"
fi

test_begin_subtest "an unknown option, before the command or after config set, in notmuch's words"
output=$(maildex --frobnicate count 2>&1; echo "rc=$?"; maildex config set --frobnicate k v 2>&1; echo "rc=$?")
test_expect_equal "$output" "Unrecognized option: --frobnicate
rc=1
Unrecognized option: --frobnicate
rc=1"

test_done
