#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# aerc on maildex (issue 29, deliver 3): Debian's aerc, whose notmuch worker links libnotmuch.so.5,
# through `maildex exec aerc`, driven in tmux. A notmuch account (source = notmuch://MAIL_DIR, a
# query-map file with the folders inbox=tag:inbox and lunch=subject:"Lunch on Friday") starts on
# its inbox: the folder list, the known subjects at the top of the message list, the unread and
# total counts maildex counts. :cf lunch lists the query-map folder's three messages and no other;
# Enter opens the newest (headers and text) and aerc marks it read, which reaches the store;
# :modify-labels tags it in the store; q closes the message and quits (exit 0); `maildex new` then
# finds nothing the library left out of the store. The mail is tui_mail's (test/libnotmuch/tmux.sh).
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
test_require aerc
if ! abi_have_lib; then
    echo "1..0 # SKIP $abi_skip_reason"
    exit 0
fi
. "$srcdir/test/libnotmuch/tmux.sh"

tui_mail

# aerc's config: the account (aerc refuses an accounts.conf others may read) and its query map; no
# aerc.conf, so aerc's defaults.
mkdir -p "$XDG_CONFIG_HOME/aerc"
cat > "$XDG_CONFIG_HOME/aerc/accounts.conf" <<EOF
[maildex]
source = notmuch://$MAIL_DIR
query-map = $XDG_CONFIG_HOME/aerc/query-map
default = inbox
from = Notmuch Test Suite <test_suite@notmuchmail.org>
outgoing = /bin/false
EOF
chmod 600 "$XDG_CONFIG_HOME/aerc/accounts.conf"
cat > "$XDG_CONFIG_HOME/aerc/query-map" <<'EOF'
inbox=tag:inbox
lunch=subject:"Lunch on Friday"
EOF

# shellcheck disable=SC2046 # asan_env's words
tui_start aerc $(asan_env) maildex exec aerc

test_begin_subtest "aerc starts on the notmuch account: the known subjects top the inbox's list"
tui_expect aerc "Quarterly report figures"
test_begin_subtest "the message list: newest first, the known messages' senders, unread flag (O) and subjects"
tui_expect_screen aerc "Carol Singer | O Re: Lunch on Friday
Bob Builder | O Re: Lunch on Friday
Alice Example | O Lunch on Friday
Erin Admin | O Server maintenance window
Dave Counter | O Quarterly report figures" tui_known_rows 's/   */ | /g; s/ *$//'
test_begin_subtest "the folder list: the query map's folders with maildex's unread and total counts"
folders() { grep -E -o '^(inbox|lunch) +[0-9]+/[0-9]+ ' "$TUI_SCREEN" | sed 's/ *$//; s/  */ /'; }
tui_expect_screen aerc "inbox $(maildex count tag:inbox and tag:unread)/$(maildex count tag:inbox)
lunch 3/3" folders

tui_command aerc "cf lunch"
test_begin_subtest ":cf lunch lists the query-map folder: its three messages and no other"
# the list's rows are the lines with a date: the lunch folder's are its three
rows() { grep -c -E '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} [AP]M' "$TUI_SCREEN"; }
lunch_only() { [ "$(rows):$(grep -c 'Lunch on Friday' "$TUI_SCREEN")" = 3:3 ]; }
if tui_until aerc 30 lunch_only; then test_ok_; else test_failure_ "$(cat "$TUI_SCREEN"; tui_ended aerc)"; fi

tui_keys aerc Enter
test_begin_subtest "Enter opens the newest message: its headers and text"
tui_expect aerc "The text of lunch-3."
test_begin_subtest "the open message shows its sender and subject"
test_expect_equal "$(grep -c -e '^From: "Carol Singer" <carol@example.net>' -e '^Subject: Re: Lunch on Friday' "$TUI_SCREEN")" 2
test_begin_subtest "aerc marks the opened message read: unread leaves it in the store"
read_now() { [ "$(maildex search --output=tags id:lunch-3@example.org | tr '\n' ' ')" = "inbox " ]; }
if tui_poll 30 read_now; then test_ok_; else test_failure_ "$(maildex search --output=tags id:lunch-3@example.org)"; fi

tui_command aerc "modify-labels +todo"
test_begin_subtest ":modify-labels +todo tags the open message in the store"
tagged() { [ "$(maildex search --output=messages tag:todo)" = "id:lunch-3@example.org" ]; }
if tui_poll 30 tagged; then test_ok_; else test_failure_ "$(maildex search --output=messages tag:todo; tui_screen aerc)"; fi

test_begin_subtest "q closes the message, q again quits aerc (exit 0)"
tui_keys aerc q
tui_until aerc 10 lunch_only # the lunch folder's list again
tui_keys aerc q
tui_wait_file "$TMP_DIRECTORY/aerc.status"
test_expect_equal "$(cat "$TMP_DIRECTORY/aerc.status" 2>/dev/null)" 0

test_begin_subtest "the store agrees with the files aerc wrote and renamed: maildex new finds nothing to do"
test_expect_equal "$(maildex new 2>&1)" "No new mail."

test_done
