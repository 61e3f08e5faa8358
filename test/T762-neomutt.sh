#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# neomutt's notmuch backend on maildex (issue 29, deliver 4): Debian's neomutt, which links
# libnotmuch.so.5, through `maildex exec neomutt`, driven in tmux. With nm_default_url naming the
# mail root and the virtual mailbox "inbox" (notmuch://?query=tag:inbox) as its spool file, it starts
# on the index of that mailbox: the query's messages (maildex's count in the status line, the known
# messages newest first). vfolder-from-query (run with exec, as a key bound to it would) opens a
# query's virtual folder: its three messages and no other. modify-labels adds a tag and removes one,
# in the store at once. Enter opens the next message in the pager, and leaving marks it read: it
# loses unread and its file gains the S flag. Mail indexed meanwhile shows when the virtual folder
# is opened again (not by itself: doc/notmuch-differences.md). After neomutt quits (exit 0), the
# store agrees with the files neomutt renamed (mail it saw left new/ for cur/): `maildex new` finds
# nothing to do. The mail is tui_mail's (test/libnotmuch/tmux.sh).
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require neomutt
if ! abi_have_lib; then
    echo "1..0 # SKIP $abi_skip_reason"
    exit 0
fi
. "$srcdir/test/libnotmuch/tmux.sh"

tui_mail

# neomutt's config: the notmuch database and the virtual mailboxes; folder names the mail root so
# that neomutt does not offer to create ~/Mail; newest first; never purge (bench/gen's Trash holds
# a message with the T flag, which neomutt would offer to delete at exit); no GnuPG, which the test
# needs not (gpgme runs gpgconf at neomutt's start, and gpgconf with ASan's runtime preloaded, as
# in a --enable-sanitizers build, deadlocks in its first textdomain call).
mkdir -p "$XDG_CONFIG_HOME/neomutt"
cat > "$XDG_CONFIG_HOME/neomutt/neomuttrc" <<EOF
set nm_default_url = "notmuch://$MAIL_DIR"
virtual-mailboxes "inbox" "notmuch://?query=tag:inbox"
set virtual_spool_file = yes
set folder = "$MAIL_DIR"
set sort = reverse-date
set delete = no
set crypt_use_gpgme = no
EOF

# shellcheck disable=SC2046 # asan_env's words
tui_start neomutt $(asan_env) maildex exec neomutt

test_begin_subtest "neomutt starts on the virtual mailbox inbox: its status line counts the query's messages"
tui_expect neomutt "NeoMutt: inbox [Msgs:$(maildex count tag:inbox) "
test_begin_subtest "the index: the query's newest messages first, with their senders and subjects"
# sender, size, subject: the size left out
known_rows() { tui_known_rows 's/ *([0-9.]*K) */ | /; s/ *$//'; }
tui_expect_screen neomutt "Carol Singer | Re: Lunch on Friday
Bob Builder | Re: Lunch on Friday
Alice Example | Lunch on Friday
Erin Admin | Server maintenance window
Dave Counter | Quarterly report figures" known_rows

# ':exec FUNCTION' runs the function a key would be bound to; it prompts for its argument.
tui_command neomutt "exec vfolder-from-query"
tui_answer neomutt "Query:" 'subject:"Lunch on Friday"'
test_begin_subtest "vfolder-from-query opens the query's virtual folder: its three messages"
tui_expect neomutt 'NeoMutt: subject:"Lunch on Friday" [Msgs:3 '
test_begin_subtest "the virtual folder lists them, newest first"
tui_expect_screen neomutt "Carol Singer | Re: Lunch on Friday
Bob Builder | Re: Lunch on Friday
Alice Example | Lunch on Friday" known_rows

tui_command neomutt "exec modify-labels"
tui_answer neomutt "Add/remove labels:" "+todo -inbox"
test_begin_subtest "modify-labels changes the current message's tags in the store"
tagged() { [ "$(maildex search --output=tags id:lunch-3@example.org | tr '\n' ' ')" = "todo unread " ]; }
if tui_poll 30 tagged; then test_ok_; else test_failure_ "$(maildex search --output=tags id:lunch-3@example.org; tui_screen neomutt)"; fi

# The cursor moved on to the next message (resolve): Enter opens it in the pager.
tui_keys neomutt Enter
test_begin_subtest "Enter opens the next message in the pager: its headers and text"
tui_expect neomutt "The text of lunch-2."
tui_keys neomutt q
tui_wait neomutt 'NeoMutt: subject:"Lunch on Friday"' 10

# Mail indexed while neomutt runs: neomutt learns that notmuch's database changed from the mtime of
# its Xapian directory, which a maildex store does not have (doc/notmuch-differences.md, "Clients
# that watch notmuch's files"); opening the virtual folder again (change-vfolder to ^, the current
# one) shows the mail.
tui_known 6 lunch-4 "Re: Lunch on Friday" "Dan Late <dan@example.org>" "Thu, 06 Mar 2025 13:00:00 +0000" lunch-1
maildex new > /dev/null 2>&1
tui_command neomutt "exec change-vfolder"
tui_answer neomutt "Open mailbox ('?' for list):" "^"
test_begin_subtest "mail indexed meanwhile shows when the virtual folder is opened again"
tui_expect neomutt 'NeoMutt: subject:"Lunch on Friday" [Msgs:4 '
tui_keys neomutt q
test_begin_subtest "neomutt quits (exit 0)"
tui_wait_file "$TMP_DIRECTORY/neomutt.status"
test_expect_equal "$(cat "$TMP_DIRECTORY/neomutt.status" 2>/dev/null)" 0
test_begin_subtest "the message read lost unread, and its file has the S flag; the others are unread"
test_expect_equal "$(for m in lunch-1 lunch-2 lunch-3; do
    printf '%s %s %s\n' "$m" "$(maildex search --output=tags id:$m@example.org | tr '\n' ' ')" \
        "$(maildex search --output=files id:$m@example.org | sed 's|.*/||')"; done)" "lunch-1 inbox unread  1:2,
lunch-2 inbox  2:2,S
lunch-3 todo unread  3:2,"
test_begin_subtest "the store agrees with the files neomutt renamed: maildex new finds nothing to do"
test_expect_equal "$(maildex new 2>&1)" "No new mail."

test_done
