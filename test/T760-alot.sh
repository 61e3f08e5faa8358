#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# alot on maildex (issue 29, deliver 2): Debian's alot, on notmuch2 and so on maildex's libnotmuch.so.5
# through `maildex exec alot`, driven in tmux as a person would: it starts on a maildex store and
# shows the thread list of its search (the subjects and thread sizes of known mail on screen, the
# count in its status bar), opens a thread (the message's headers and text), tags the message with
# its tag command (the tag in the store: `maildex search`), and writes a reply into a
# draft (the reply command, an editor that is a script writing the text, the envelope's save key):
# the draft is a file in the Drafts Maildir, indexed with alot's draft tag. After alot quits (exit 0),
# `maildex new` finds nothing the library left out of the store. The mail is tui_mail's
# (tmux.sh): three known threads on top of the list, the lunch thread first.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require alot
if ! abi_have_lib; then
    echo "1..0 # SKIP $abi_skip_reason"
    exit 0
fi
. "$srcdir/test/libnotmuch/tmux.sh"

tui_mail

# alot's own config (XDG_CONFIG_HOME): the search it starts with, and one account whose drafts go
# into the store's Drafts folder. The editor is a script: it writes the reply's text under what alot
# hands it and leaves a mark.
mkdir -p "$XDG_CONFIG_HOME/alot"
cat > "$TMP_DIRECTORY/editor" <<EOF
#!/bin/sh
printf '%s\n' 'Friday at noon works for me.' >> "\$1"
: > "$TMP_DIRECTORY/editor.done"
EOF
chmod +x "$TMP_DIRECTORY/editor"
cat > "$XDG_CONFIG_HOME/alot/config" <<EOF
initial_command = search tag:inbox
editor_cmd = $TMP_DIRECTORY/editor
[accounts]
    [[suite]]
        realname = Notmuch Test Suite
        address = test_suite@notmuchmail.org
        draft_box = maildir://$MAIL_DIR/Drafts
        sent_box = maildir://$MAIL_DIR/Sent
EOF

# shellcheck disable=SC2046 # asan_env's words
tui_start alot $(asan_env) maildex exec alot -l "$TMP_DIRECTORY/alot.log" -d debug

test_begin_subtest "alot starts on the maildex store: its search's thread list shows the known subjects"
tui_expect alot "Server maintenance window"
test_begin_subtest "the thread list: each known thread with its size, tags and authors"
known_rows() {
    grep -E -o '\([0-9]+\) +[a-z ]+ [A-Za-z, ]*(Server maintenance window|Quarterly report figures|Lunch on Friday)' \
        "$TUI_SCREEN" | sed 's/  */ /g'
}
tui_expect_screen alot "(3) inbox unread Alice, Bob, Carol Lunch on Friday
(1) inbox unread Erin Admin Server maintenance window
(1) inbox unread Dave Counter Quarterly report figures" known_rows

test_begin_subtest "the status bar counts the search's messages as maildex does"
tui_expect alot "$(maildex count tag:inbox) of $(maildex count tag:inbox) messages"

# One key at a time, each after the screen shows what the one before did: keys sent together are
# lost (alot reads them as one chunk). The lunch thread is the newest, focused: open it.
tui_keys alot Enter
test_begin_subtest "opening a thread shows its message: headers and text"
tui_expect alot "The text of lunch-1."
test_begin_subtest "the status bar names the thread"
tui_expect alot "[1: thread] Lunch on Friday"

tui_command alot "tag todo"
test_begin_subtest "the tag command tags the message: the tag reaches the store"
tagged() { [ "$(maildex search --output=messages tag:todo)" = "id:lunch-1@example.org" ]; }
if tui_poll 30 tagged; then
    test_ok_
else
    test_failure_ "$(maildex search --output=messages tag:todo; tui_screen alot; tui_ended alot)"
fi
test_begin_subtest "the tagged message keeps its other tags"
test_expect_equal "$(maildex search --output=tags id:lunch-1@example.org | tr '\n' ' ')" "inbox todo unread "

# A reply: alot runs the editor, shows the envelope, and P saves it as a draft.
tui_keys alot r
test_begin_subtest "reply runs the editor on the reply"
if tui_wait_file "$TMP_DIRECTORY/editor.done"; then test_ok_; else test_failure_ "$(tui_screen alot; tui_ended alot)"; fi
test_begin_subtest "the envelope shows the reply: its subject and the editor's text"
tui_wait alot "Friday at noon works for me."
test_expect_equal "$(grep -c -e '^Subject *Re: Lunch on Friday' -e 'Friday at noon works for me.' "$TUI_SCREEN")" 2
tui_keys alot P
# alot writes the draft into Drafts/new, indexes it through the library and syncs its flags, which
# moves it to cur/: settled when the one file with the reply's text is the one the store names.
drafts() { find "$MAIL_DIR/Drafts" -type f -exec grep -l 'Friday at noon works for me' {} + 2>/dev/null; }
indexed_draft() { maildex search --output=files '"Friday at noon"'; }
draft_settled() { [ -n "$(drafts)" ] && [ "$(drafts)" = "$(indexed_draft)" ]; }
test_begin_subtest "the envelope's save key writes the draft into the Drafts Maildir and indexes it there"
if tui_poll 30 draft_settled; then
    test_expect_equal "$(drafts | sed "s|^$MAIL_DIR/||; s|/[^/]*:2,|/NAME:2,|")" "Drafts/cur/NAME:2,DS"
else
    test_failure_ "$(ls -R "$MAIL_DIR/Drafts"; echo "indexed: $(indexed_draft)"; tui_screen alot; tui_ended alot)"
fi
# What Debian's libnotmuch gives the same draft on notmuch's database: the draft tag alone (the file
# had S when alot wrote it), the flags D and S.
test_begin_subtest "the draft: alot's draft tag alone, a reply to the lunch mail, in its thread"
test_expect_equal "$(maildex search --output=tags '"Friday at noon"' | tr '\n' ' '):$(grep -c -s '^In-Reply-To: <lunch-1@example.org>' "$(drafts)"):$(maildex count 'thread:{id:lunch-1@example.org}')" \
    "draft :1:4"

test_begin_subtest "the envelope, saved, closes without sending; alot quits cleanly (exit 0)"
tui_wait alot "close without sending?"
tui_keys alot y
tui_wait alot "[1: thread] Lunch on Friday"
tui_keys alot q
tui_wait_file "$TMP_DIRECTORY/alot.status"
test_expect_equal "$(cat "$TMP_DIRECTORY/alot.status" 2>/dev/null)" 0

test_begin_subtest "the store agrees with the files alot wrote and renamed: maildex new finds nothing to do"
test_expect_equal "$(maildex new 2>&1)" "No new mail."

test_done
