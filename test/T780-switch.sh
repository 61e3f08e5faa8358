#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Switching from notmuch in one step (doc/switching.md), as a notmuch user of years does it: a notmuch
# database with hand-made tags, message properties, named queries in the config file and in the
# database, and a post-new hook in notmuch's hook directory that runs `notmuch tag`. The first
# `maildex new` must carry every tag over (compared with `notmuch dump` line for line), run the hook
# on maildex's store, leave notmuch's database as it was and name its store in new.ignore so that
# `notmuch new` stays quiet; the second must import nothing; `import-notmuch` imports on demand. With
# no notmuch program (only maildex's own `notmuch`), `new` says once how to do it by hand.
. "$(dirname "$0")/test-lib.sh"
test_require python3
NOTMUCH=${NOTMUCH:-$(command -v notmuch || true)}
if [ -z "$NOTMUCH" ] || ! [ -x "$NOTMUCH" ]; then
    echo "1..0 # SKIP notmuch is not installed"
    exit 0
fi

# The notmuch user's config, found as notmuch finds it: maildex is given no config of its own.
SUITE_CONFIG=$MAILDEX_CONFIG
unset MAILDEX_CONFIG
NOTMUCH_CONFIG=$TMP_DIRECTORY/notmuch-config
export NOTMUCH_CONFIG
# write_config MAIL FILE: the suite's config as a notmuch user keeps it (a comment of their own, new
# mail tagged new for the hook), for the mail root MAIL.
write_config() {
    { echo "# my notmuch config, kept since 2015"
      sed "s|^path=.*|path=$1|; s|^tags=.*|tags=unread;inbox;new;|" "$SUITE_CONFIG"; } > "$2"
}
write_config "$MAIL_DIR" "$NOTMUCH_CONFIG"
nm() { "$NOTMUCH" "$@" > /dev/null 2>&1; }
# ids QUERY [N]: the Message-IDs (without id:) of the first N (all) messages notmuch finds.
ids() { "$NOTMUCH" search --output=messages --exclude=false --limit="${2:-100000}" "$1" | sed 's/^id://'; }

# Years of notmuch: its index, hand-made tags, properties, named queries, its post-new hook.
python3 "$srcdir/bench/gen" --count 300 --seed 32 "$MAIL_DIR" > /dev/null
nm new
nm tag -new -- tag:new
nm tag +todo -inbox -- "$(ids folder:INBOX 20 | sed 's/^/id:/' | paste -sd' ' | sed 's/ / or /g')"
nm tag "+with space" +ünïcode +50%off -- folder:Trash
nm tag -unread -- "$(ids tag:unread 10 | sed 's/^/id:/' | paste -sd' ' | sed 's/ / or /g')"
for id in $(ids folder:Sent 2); do
    printf '#= %s sent-by=me%%40example.org review=2024\n' "$id"
done | "$NOTMUCH" restore --include=properties > /dev/null 2>&1
nm config set query.todo "tag:todo and not tag:deleted"
nm config set --database query.old "folder:Trash"
mkdir -p "$MAIL_DIR/.notmuch/hooks"
printf '#!/bin/sh\nnotmuch tag +hooked -new -- tag:new\n' > "$MAIL_DIR/.notmuch/hooks/post-new"
chmod +x "$MAIL_DIR/.notmuch/hooks/post-new"

# Then, before the switch: a sync marks one unread message read (its file gains S, as mbsync renames
# it) and three new messages arrive, none of which notmuch has seen.
renamed=
for id in $(ids tag:unread); do
    file=$("$NOTMUCH" search --output=files "id:$id")
    case "$file" in
        *"
"*) continue ;;
        */cur/*:2,*) renamed=$id
            flags=$(printf '%sS' "${file##*:2,}" | fold -w1 | sort | tr -d '\n')
            mv "$file" "${file%:2,*}:2,$flags"
            break ;;
    esac
done
for n in 1 2 3; do
    generate_message dir=INBOX/new filename="arrived-$n" > /dev/null
done
"$NOTMUCH" dump > "$TMP_DIRECTORY/nm-before"
messages=$("$NOTMUCH" count --exclude=false '*')

test_begin_subtest "the first new indexes, names its store in new.ignore and imports notmuch's tags, saying so"
maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?|$(grep -v '^Found\|^Processed' "$TMP_DIRECTORY/out")|$(cat "$TMP_DIRECTORY/err")" \
    "0|Added $((messages + 3)) new messages to the database.
Added .maildex to new.ignore in $NOTMUCH_CONFIG, so that notmuch new passes over maildex's store.
Imported from notmuch: the tags of $messages messages, 2 property lines, 1 stored config value.|"

# expected_dump: notmuch's dump as the switch must leave it in maildex, sorted: the renamed file's
# message without unread (its files decide, as notmuch's next new would), the new mail as the hook
# left it.
expected_dump() {
    awk -v end=" -- id:$renamed" '
        substr($0, length($0) - length(end) + 1) == end { sub(/\+unread /, "") }
        { print }' "$TMP_DIRECTORY/nm-before"
    for n in 1 2 3; do
        printf '+hooked +inbox +unread -- id:msg-00%s@maildex-test-suite\n' "$n"
    done
}
expected_dump | sort > "$TMP_DIRECTORY/expected"

test_begin_subtest "every tag, property and stored query is there: notmuch's dump, line for line"
test -n "$renamed" && maildex dump | sort > "$TMP_DIRECTORY/got"
test_expect_equal_file "$TMP_DIRECTORY/expected" "$TMP_DIRECTORY/got"

test_begin_subtest "the hook's notmuch tag reached maildex's store, not notmuch's"
test_expect_equal "$(maildex search --output=messages tag:hooked | paste -sd' ')|$("$NOTMUCH" count tag:hooked)" \
    "id:msg-001@maildex-test-suite id:msg-002@maildex-test-suite id:msg-003@maildex-test-suite|0"

test_begin_subtest "notmuch's database is unchanged"
"$NOTMUCH" dump > "$TMP_DIRECTORY/nm-after"
test_expect_equal_file "$TMP_DIRECTORY/nm-before" "$TMP_DIRECTORY/nm-after"

test_begin_subtest "named queries from the config file and from notmuch's database count as in notmuch"
test_expect_equal "$(maildex count query:todo) $(maildex count query:old)" \
    "$("$NOTMUCH" count query:todo) $("$NOTMUCH" count query:old)"

test_begin_subtest "the config keeps the user's comment; both read .maildex in new.ignore"
test_expect_equal "$(head -n 1 "$NOTMUCH_CONFIG")|$(maildex config get new.ignore)|$("$NOTMUCH" config get new.ignore)" \
    "# my notmuch config, kept since 2015|.maildex|.maildex"

test_begin_subtest "hooks/README.md's install: config get database.hook_dir names notmuch's hook directory"
test_expect_equal "$(maildex config get database.hook_dir)" "$MAIL_DIR/.notmuch/hooks"

test_begin_subtest "a second new imports nothing: maildex's own tag changes stay"
maildex tag +mine -todo -- tag:todo
todo=$("$NOTMUCH" count --exclude=false tag:todo)
output=$(maildex new 2>&1)
test_expect_equal "$output|$(maildex count --exclude=false tag:mine)|$(maildex count tag:todo)" "No new mail.|$todo|0"

test_begin_subtest "import-notmuch --accumulate adds notmuch's tags to maildex's"
output=$(maildex import-notmuch --accumulate 2>&1)
test_expect_equal "$output|$(maildex count --exclude=false tag:mine)|$(maildex count --exclude=false tag:todo)" \
    "Imported from notmuch: the tags of $messages messages, 2 property lines, 1 stored config value.|$todo|$todo"

test_begin_subtest "import-notmuch merges as restore does: notmuch's messages get notmuch's tags again"
maildex import-notmuch --quiet > "$TMP_DIRECTORY/out" 2>&1
maildex dump | sort > "$TMP_DIRECTORY/got"
test_expect_equal "$(cat "$TMP_DIRECTORY/out")|$(cmp "$TMP_DIRECTORY/expected" "$TMP_DIRECTORY/got" && echo same)" "|same"

test_begin_subtest "notmuch is read even with maildex's libnotmuch.so.5 on LD_LIBRARY_PATH (as in a hook)"
abi=$MAILDEX_BUILDDIR/lib/notmuch-abi/.libs
if [ -e "$abi/libnotmuch.so.5" ]; then
    maildex tag -todo -- tag:todo
    LD_LIBRARY_PATH=$abi maildex import-notmuch --quiet
    test_expect_equal "$(maildex count --exclude=false tag:todo)" "$todo"
else
    test_skip_ "this build has no libnotmuch.so.5"
fi

test_begin_subtest "notmuch new beside maildex prints nothing about maildex's files"
output=$("$NOTMUCH" new --no-hooks 2>&1)
test_expect_equal "$(printf '%s\n' "$output" | grep -c maildex)" "0"

test_begin_subtest "... which it would without .maildex in new.ignore"
write_config "$MAIL_DIR" "$TMP_DIRECTORY/no-ignore"
output=$(NOTMUCH_CONFIG=$TMP_DIRECTORY/no-ignore "$NOTMUCH" new --no-hooks 2>&1)
case "$output" in
    *"Note: Ignoring non-mail file: $MAIL_DIR/.maildex/maildex.db"*) test_ok_ ;;
    *) test_failure_ "$output" ;;
esac

# Another notmuch user, on a machine without notmuch: only maildex's own `notmuch` (a link to maildex,
# as hooks get it) is on PATH, and it must not be taken for notmuch.
MAIL2=$TMP_DIRECTORY/mail2
CONFIG2=$TMP_DIRECTORY/config2
write_config "$MAIL2" "$CONFIG2"
saved_mail=$MAIL_DIR
MAIL_DIR=$MAIL2
generate_message > /dev/null
generate_message > /dev/null
MAIL_DIR=$saved_mail
NOTMUCH_CONFIG=$CONFIG2 "$NOTMUCH" new > /dev/null 2>&1
NOTMUCH_CONFIG=$CONFIG2 "$NOTMUCH" tag +kept -- '*'
no_notmuch() {
    PATH=$MAILDEX_BUILDDIR/cli/notmuch-bin:$MAILDEX_BUILDDIR/cli NOTMUCH_CONFIG=$CONFIG2 maildex "$@"
}

test_begin_subtest "without notmuch, new --quiet says nothing"
no_notmuch new --quiet > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/out")" "0|"

test_begin_subtest "... new says how to import by hand, once"
no_notmuch new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
no_notmuch new > "$TMP_DIRECTORY/out2" 2> "$TMP_DIRECTORY/err2"
test_expect_equal "$(cat "$TMP_DIRECTORY/out")|$(cat "$TMP_DIRECTORY/err")|$(cat "$TMP_DIRECTORY/err2")" \
    "No new mail.|Note: notmuch's tags in $MAIL2/.notmuch/xapian were not imported: no notmuch program on PATH. Where notmuch is, run: notmuch dump | maildex restore|"

test_begin_subtest "... import-notmuch fails saying the same, and nothing was imported"
no_notmuch import-notmuch > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?|$(cat "$TMP_DIRECTORY/out")|$(no_notmuch count tag:kept)" \
    "1|maildex import-notmuch: no notmuch program on PATH to dump notmuch's database '$MAIL2/.notmuch/xapian' (where notmuch is: notmuch dump | maildex restore)|0"

test_begin_subtest "... and once notmuch is there, import-notmuch imports"
output=$(NOTMUCH_CONFIG=$CONFIG2 maildex import-notmuch 2>&1)
test_expect_equal "$output|$(NOTMUCH_CONFIG=$CONFIG2 maildex count tag:kept)" \
    "Imported from notmuch: the tags of 2 messages.|2"

test_begin_subtest "new.import_notmuch=false: the first new imports nothing (new.ignore is still set)"
MAIL4=$TMP_DIRECTORY/mail4
cp -R "$MAIL2" "$MAIL4"
rm -rf "$MAIL4/.maildex"
write_config "$MAIL4" "$TMP_DIRECTORY/config4"
printf '[new]\nimport_notmuch=false\n' >> "$TMP_DIRECTORY/config4"
output=$(NOTMUCH_CONFIG=$TMP_DIRECTORY/config4 maildex new 2>&1 | grep -v '^Found\|^Processed')
test_expect_equal "$output|$(NOTMUCH_CONFIG=$TMP_DIRECTORY/config4 maildex count tag:kept)" \
    "Added 2 new messages to the database.
Added .maildex to new.ignore in $TMP_DIRECTORY/config4, so that notmuch new passes over maildex's store.|0"

test_begin_subtest "a store with no notmuch database beside it imports nothing and says nothing"
MAIL3=$TMP_DIRECTORY/mail3
write_config "$MAIL3" "$TMP_DIRECTORY/config3"
mkdir -p "$MAIL3/cur"
cp "$MAIL2"/cur/* "$MAIL3/cur/"
output=$(NOTMUCH_CONFIG=$TMP_DIRECTORY/config3 maildex new 2>&1)
test_expect_equal "$output|$(grep -c maildex "$TMP_DIRECTORY/config3")" "Found 2 total files (that's not much mail).
Processed 2 total files in almost no time.
Added 2 new messages to the database.|0"

test_done
