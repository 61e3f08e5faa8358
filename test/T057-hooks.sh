#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The pre-new and post-new hooks of `maildex new` (doc/hooks.md): where they are looked up, how they
# run (no arguments, MAILDEX_CONFIG and NOTMUCH_CONFIG set, the caller's directory), what their
# failure does, --no-hooks; and the examples shipped in hooks/.
. "$(dirname "$0")/test-lib.sh"

HOOKS=$MAIL_DIR/.maildex/hooks  # the default: hooks/ beside the database
LOG=$TMP_DIRECTORY/hook.log
mkdir -p "$HOOKS"

# write_hook DIR NAME BODY: an executable shell script DIR/NAME running BODY.
write_hook() {
    mkdir -p "$1"
    printf '#!/bin/sh\n%s\n' "$3" > "$1/$2"
    chmod +x "$1/$2"
}

# deliver ID: writes a message into cur/ without using the shell helper's counter (hooks call it too).
deliver_snippet='deliver() { printf "From: a@b\nTo: c@d\nSubject: %s\nMessage-Id: <%s>\n\nbody\n" "$1" "$1" > "$MAIL_DIR/cur/$1"; }'

test_begin_subtest "a failing pre-new stops new: exit 1 and a message"
generate_message id=before-failure@x >/dev/null
write_hook "$HOOKS" pre-new 'echo pre-new ran >> "$TMP_DIRECTORY/hook.log"; exit 3'
maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/out"):$(cat "$TMP_DIRECTORY/err"):$(cat "$LOG")" \
    "1::Error: pre-new hook failed with status 3:pre-new ran"

test_begin_subtest "... before scanning: nothing indexed, not even a database created"
test_expect_equal "$(ls "$MAIL_DIR/.maildex")" "hooks"

test_begin_subtest "pre-new runs before scanning: mail it delivers is indexed by the same run"
write_hook "$HOOKS" pre-new "$deliver_snippet
deliver delivered-by-hook@x
echo 'pre-new output'"
output=$(maildex new 2>&1)
test_expect_equal "$output" "pre-new output
Found 2 total files (that's not much mail).
Processed 2 total files in almost no time.
Added 2 new messages to the database."

test_begin_subtest "... and the message it delivered is in the store"
test_expect_equal "$(maildex count id:delivered-by-hook@x)" "1"

test_begin_subtest "a hook runs with no arguments, in the caller's directory, MAILDEX_CONFIG and NOTMUCH_CONFIG set"
rm -f "$HOOKS/pre-new"
write_hook "$HOOKS" post-new 'printf "%s|%s|%s|%s\n" "$#" "$(pwd)" "$MAILDEX_CONFIG" "$NOTMUCH_CONFIG" > "$TMP_DIRECTORY/env"'
mkdir -p "$TMP_DIRECTORY/elsewhere"
(cd "$TMP_DIRECTORY/elsewhere" && maildex new >/dev/null 2>&1)
test_expect_equal "$(cat "$TMP_DIRECTORY/env")" "0|$TMP_DIRECTORY/elsewhere|$MAILDEX_CONFIG|$MAILDEX_CONFIG"

test_begin_subtest "... both variables name the config given with --config"
cp "$MAILDEX_CONFIG" "$TMP_DIRECTORY/other-config"
env -u MAILDEX_CONFIG maildex --config="$TMP_DIRECTORY/other-config" new >/dev/null 2>&1
test_expect_equal "$(cut -d'|' -f3,4 "$TMP_DIRECTORY/env")" "$TMP_DIRECTORY/other-config|$TMP_DIRECTORY/other-config"

test_begin_subtest "post-new runs after indexing, sees the new mail and may write to the database"
write_hook "$HOOKS" post-new "$deliver_snippet
echo \"post-new sees \$(maildex count id:seen-by-post-new@x) \$(maildex count '*')\"
deliver written-by-post-new@x
timeout 20 maildex new --no-hooks --quiet
echo \"nested new exit \$?\""
generate_message id=seen-by-post-new@x >/dev/null
output=$(maildex new 2>&1)
test_expect_equal "$output" "Processed 1 file in almost no time.
Added 1 new message to the database.
post-new sees 1 3
nested new exit 0"

test_begin_subtest "... and what it indexed is there"
test_expect_equal "$(maildex count id:written-by-post-new@x)" "1"

test_begin_subtest "a failing post-new makes new exit 1 with a message; the mail stays indexed"
write_hook "$HOOKS" post-new 'exit 4'
generate_message id=before-post-failure@x >/dev/null
maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/err"):$(maildex count id:before-post-failure@x)" \
    "1:Error: post-new hook failed with status 4:1"

test_begin_subtest "a hook killed by a signal is a failure"
write_hook "$HOOKS" pre-new 'kill -TERM $$'
maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/err")" "1:Error: pre-new hook terminated with signal 15"

test_begin_subtest "a hook that is not executable is an error, and new does not run"
rm -f "$HOOKS/post-new"
write_hook "$HOOKS" pre-new 'exit 0'
chmod 644 "$HOOKS/pre-new"
generate_message id=not-executable@x >/dev/null
maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/err"):$(maildex count id:not-executable@x)" \
    "1:Error: pre-new hook access failed: Permission denied:0"

test_begin_subtest "--no-hooks skips both hooks"
: > "$LOG"
write_hook "$HOOKS" pre-new 'echo pre-new >> "$TMP_DIRECTORY/hook.log"; exit 1'
write_hook "$HOOKS" post-new 'echo post-new >> "$TMP_DIRECTORY/hook.log"; exit 1'
maildex new --no-hooks > "$TMP_DIRECTORY/out" 2>&1
test_expect_equal "$?:$(cat "$LOG"):$(maildex count id:not-executable@x)" "0::1"

test_begin_subtest "database.hook_dir is used instead of hooks/ beside the database"
: > "$LOG"
write_hook "$TMP_DIRECTORY/configured" pre-new 'echo configured pre-new >> "$TMP_DIRECTORY/hook.log"'
write_hook "$TMP_DIRECTORY/configured" post-new 'echo configured post-new >> "$TMP_DIRECTORY/hook.log"'
printf '[database]\npath=%s\nhook_dir=%s\n' "$MAIL_DIR" "$TMP_DIRECTORY/configured" > "$TMP_DIRECTORY/hook-dir-config"
MAILDEX_CONFIG=$TMP_DIRECTORY/hook-dir-config maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:configured pre-new
configured post-new"

test_begin_subtest "... also when XDG_CONFIG_HOME has a hook directory"
: > "$LOG"
write_hook "$TMP_DIRECTORY/xdg/maildex/hooks" pre-new 'echo xdg pre-new >> "$TMP_DIRECTORY/hook.log"'
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg MAILDEX_CONFIG=$TMP_DIRECTORY/hook-dir-config maildex new >/dev/null 2>&1
test_expect_equal "$(cat "$LOG")" "configured pre-new
configured post-new"

test_begin_subtest "\$XDG_CONFIG_HOME/maildex/hooks is used when it exists, before hooks/ beside the database"
: > "$LOG"
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:xdg pre-new"

test_begin_subtest "without XDG_CONFIG_HOME, \$HOME/.config/maildex/hooks"
: > "$LOG"
write_hook "$HOME/.config/maildex/hooks" pre-new 'echo home pre-new >> "$TMP_DIRECTORY/hook.log"'
maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:home pre-new"
rm -rf "$HOME/.config/maildex"

test_begin_subtest "a missing hook is skipped silently"
rm -f "$HOOKS/pre-new" "$HOOKS/post-new"
test_expect_equal "$(maildex new 2>&1)" "No new mail."

test_begin_subtest "a hook the kernel cannot execute (no #! line) fails new with notmuch's message"
printf 'echo not run\n' > "$HOOKS/pre-new"
chmod +x "$HOOKS/pre-new"
maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/out"):$(cat "$TMP_DIRECTORY/err")" \
    "1::Error: pre-new hook execution failed: Exec format error"
rm -f "$HOOKS/pre-new"

# ---- notmuch's hook directories, searched before maildex's own ---------------------------------

# place_hooks: a pre-new hook naming its directory in each of the places, most preferred first.
NOTMUCH_HOOKS=$MAIL_DIR/.notmuch/hooks
place_hooks() {
    for dir in "$TMP_DIRECTORY/xdg/notmuch/default/hooks" "$TMP_DIRECTORY/xdg/notmuch/work/hooks" \
        "$NOTMUCH_HOOKS" "$TMP_DIRECTORY/xdg/maildex/hooks" "$HOOKS"; do
        write_hook "$dir" pre-new "echo '$dir' >> \"\$TMP_DIRECTORY/hook.log\""
    done
}
place_hooks

test_begin_subtest "\$XDG_CONFIG_HOME/notmuch/default/hooks comes first (notmuch's XDG place)"
: > "$LOG"
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:$TMP_DIRECTORY/xdg/notmuch/default/hooks"

test_begin_subtest "... \$NOTMUCH_PROFILE names the profile's directory"
: > "$LOG"
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg NOTMUCH_PROFILE=work maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:$TMP_DIRECTORY/xdg/notmuch/work/hooks"

test_begin_subtest "then .notmuch/hooks in database.path (notmuch's database directory)"
rm -rf "$TMP_DIRECTORY/xdg/notmuch"
: > "$LOG"
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:$NOTMUCH_HOOKS"

test_begin_subtest "... or hooks/ beside xapian/ when database.path holds notmuch's database itself"
mkdir -p "$TMP_DIRECTORY/split/xapian"
write_hook "$TMP_DIRECTORY/split/hooks" pre-new 'echo split >> "$TMP_DIRECTORY/hook.log"'
printf '[database]\npath=%s\n' "$TMP_DIRECTORY/split" > "$TMP_DIRECTORY/split-config"
: > "$LOG"
MAILDEX_CONFIG=$TMP_DIRECTORY/split-config MAILDEX_DATABASE=$TMP_DIRECTORY/split-db/maildex.db \
    XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg maildex new >/dev/null 2>&1
test_expect_equal "$(cat "$LOG")" "split"

test_begin_subtest "then maildex's own places: \$XDG_CONFIG_HOME/maildex/hooks, hooks/ beside the database"
rm -rf "$MAIL_DIR/.notmuch"
: > "$LOG"
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg maildex new >/dev/null 2>&1
rm -rf "$TMP_DIRECTORY/xdg/maildex"
XDG_CONFIG_HOME=$TMP_DIRECTORY/xdg maildex new >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:$TMP_DIRECTORY/xdg/maildex/hooks
$HOOKS"
rm -f "$HOOKS/pre-new"

# ---- the shipped examples ----------------------------------------------------------------------

# Stand-ins for the fetchers: they record their arguments and exit with $FAKE_STATUS.
FAKEBIN=$TMP_DIRECTORY/fakebin
mkdir -p "$FAKEBIN"
for prog in mbsync offlineimap; do
    write_hook "$FAKEBIN" $prog "echo \"$prog \$*\" >> \"\$TMP_DIRECTORY/hook.log\"; exit \${FAKE_STATUS:-0}"
done
cp "$srcdir/hooks/pre-new" "$HOOKS/"

test_begin_subtest "hooks/pre-new runs mbsync -a, then new indexes"
: > "$LOG"
generate_message id=fetched@x >/dev/null
output=$(PATH=$FAKEBIN:$PATH maildex new --quiet 2>&1 && maildex count id:fetched@x)
test_expect_equal "$output:$(cat "$LOG")" "1:mbsync -a"

test_begin_subtest "hooks/pre-new: a failing mbsync stops new, with both messages"
: > "$LOG"
generate_message id=not-fetched@x >/dev/null
PATH=$FAKEBIN:$PATH FAKE_STATUS=2 maildex new > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/err"):$(maildex count id:not-fetched@x)" \
    "1:pre-new: 'mbsync -a' failed with status 2; not indexing
Error: pre-new hook failed with status 2:0"

test_begin_subtest "hooks/pre-new: MAILDEX_FETCH=offlineimap runs offlineimap once, quietly"
: > "$LOG"
PATH=$FAKEBIN:$PATH MAILDEX_FETCH=offlineimap maildex new --quiet >/dev/null 2>&1
test_expect_equal "$?:$(cat "$LOG")" "0:offlineimap -o -u quiet"

test_begin_subtest "hooks/pre-new: a fetcher that is not installed is a failure that says so"
mkdir -p "$TMP_DIRECTORY/empty-path"
output=$(PATH=$TMP_DIRECTORY/empty-path MAILDEX_FETCH=offlineimap "$MAILDEX_BUILDDIR/cli/maildex" new 2>&1)
test_expect_equal "$?:$output" "1:pre-new: offlineimap is not installed (set MAILDEX_FETCH=none to index without fetching)
Error: pre-new hook failed with status 127"

# hooks/post-new needs `maildex tag --batch`; a stand-in maildex records the batch and passes every
# other command to the real one.
cat > "$FAKEBIN/maildex" <<EOF
#!/bin/sh
if [ "\$1" = tag ]; then
    echo "\$*" > "\$TMP_DIRECTORY/tag-args"
    cat > "\$TMP_DIRECTORY/tag-batch"
    exit 0
fi
exec "$MAILDEX_BUILDDIR/cli/maildex" "\$@"
EOF
chmod +x "$FAKEBIN/maildex"
cp "$srcdir/hooks/post-new" "$HOOKS/"
maildex config set new.tags unread inbox new
generate_message id=list-one@x from="Someone <someone@example.com>" \
    header="List-Id: Developer
 discussion <dev.lists.example.org>" >/dev/null
generate_message id=list-two@x from="Other <other@example.com>" filename="list
two" header="List-ID: <Rust-Users.lists.example.net>" >/dev/null
generate_message id=sent@x from="Me <test_suite@otherdomain.org>" >/dev/null
generate_message id=plain@x from="Friend <friend@example.com>" >/dev/null

test_begin_subtest "hooks/post-new tags list mail by List-Id and sent mail, through tag --batch"
PATH=$FAKEBIN:$PATH MAILDEX_FETCH=none maildex new --quiet
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/tag-args")
$(cat "$TMP_DIRECTORY/tag-batch")" '0:tag --batch
+lists/dev -inbox -- id:"list-one@x"
+lists/rust-users -inbox -- id:"list-two@x"
+sent -inbox -- tag:new and (from:"test_suite@notmuchmail.org" or from:"test_suite_other@notmuchmail.org" or from:"test_suite@otherdomain.org")
-new -- tag:new'

test_begin_subtest "hooks/post-new: SENT_QUERY replaces the addresses"
generate_message id=sent-two@x >/dev/null
PATH=$FAKEBIN:$PATH MAILDEX_FETCH=none SENT_QUERY='folder:Sent' maildex new --quiet
test_expect_equal "$(grep '^+sent' "$TMP_DIRECTORY/tag-batch")" "+sent -inbox -- tag:new and (folder:Sent)"

test_begin_subtest "hooks/post-new: a failing tag --batch fails the hook and new"
generate_message id=tag-fails@x >/dev/null
# The stand-in fails the batch, as a real failure would.
sed -i 's/^    exit 0$/    exit 5/' "$FAKEBIN/maildex"
PATH=$FAKEBIN:$PATH MAILDEX_FETCH=none maildex new --quiet > "$TMP_DIRECTORY/out" 2> "$TMP_DIRECTORY/err"
test_expect_equal "$?:$(cat "$TMP_DIRECTORY/err")" "1:post-new: maildex tag --batch failed with status 5
Error: post-new hook failed with status 5"

test_begin_subtest "hooks/post-new with the real maildex tag: list, sent and plain mail tagged, new removed"
generate_message id=list-three@x from="Lister <l@example.com>" header="List-Id: <announce.lists.example.org>" >/dev/null
MAILDEX_FETCH=none maildex new --quiet
tags() { maildex search --output=tags --exclude=false "id:$1" | tr '\n' ' '; }
test_expect_equal "$?|$(tags list-one@x)|$(tags list-three@x)|$(tags sent@x)|$(tags plain@x)|$(maildex count tag:new)" \
    "0|lists/dev unread |lists/announce unread |sent unread |inbox unread |0"

test_done
