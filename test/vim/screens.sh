#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Prints the screens of doc/vim.md: the plugin in a real Vim in a 100x30 tmux window, on a copy of
# test/corpora/emacs, driven by keys; each screen as `tmux capture-pane` gives it.
# Usage (from a build directory): sh ../test/vim/screens.sh > screens.txt
set -eu
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
build=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/maildex-screens.XXXXXX")
trap 'tmux -L maildex-screens kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/mail"
cp -R "$srcdir/test/corpora/emacs/mail/." "$work/mail"
cp "$srcdir/test/corpora/emacs/minutes.pdf" "$work/minutes.pdf"
find "$work/mail" -type d -name cur | while read -r d; do mkdir -p "${d%/cur}/new" "${d%/cur}/tmp"; done
cat > "$work/config" <<CONFIG
[database]
path=$work/mail
[user]
name=Maildex Tester
primary_email=tester@example.org
[new]
tags=unread;inbox;
[maildir]
synchronize_flags=true
[query]
lists=folder:lists/dev
CONFIG
export MAILDEX_CONFIG="$work/config" PATH="$build/cli:$PATH" TZ=UTC
maildex new > /dev/null
t() { tmux -L maildex-screens "$@"; }
t new-session -d -x 100 -y 30 -s screens \
    "vim -Nu NONE -i NONE --cmd 'set rtp^=$srcdir/editors/vim hidden laststatus=2' -c 'runtime plugin/maildex.vim'"
sleep 1
# screen TITLE KEYS...: types the keys, waits for maildex, prints the pane
screen() {
    title=$1
    shift
    for k in "$@"; do
        t send-keys -t screens "$k"
        sleep 0.3
    done
    sleep 1
    printf '### %s\n\n```\n' "$title"
    t capture-pane -p -t screens | sed "s|$work|/home/you|g; s/ *\$//"
    printf '```\n\n'
}
screen ':Maildex' ':Maildex' Enter
screen 'Enter on "inbox"' '4G' Enter
screen 'Enter on the garden party' 'G' 'k' Enter
screen 'n n n: the next messages, with the signature and the long quote folded' 'n' 'n' 'n' 'zt' 'kkkkkkkkkkkkkkkkk'
screen 'q, then Enter on the minutes: the PDF is a button (s saves it)' 'q' '4G' Enter
screen 'R on the second message: reply to all' 'G' 'R'
screen '+ in the list: the tag prompt completes (Tab)' Escape ':bwipeout!' Enter ':Maildex tag:inbox' Enter '+' 'fl' Tab
screen 'Z in the list: its mail as a tree, as notmuch-tree draws it' Escape 'Z'
screen 'Enter on a message of the tree: its thread, at that message' '10G' Enter
screen 'm, a subject, then CTRL-C CTRL-A and a file: an Attach: line (:write would save a draft)' 'q' 'q' 'm' \
    '4G' 'A' 'The minutes' Escape 0 C-c C-a "$work/minutes.pdf" Enter
