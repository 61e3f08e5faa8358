#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The Vim plugin (editors/vim) driven headless as a person would drive it: test/vim/harness.vim loads
# it into `vim -Nu NONE -es` and into `nvim --headless -u NONE`, and runs test/vim/steps.vim on the
# corpus of test/corpora/emacs: the start page, a search and its pages, threads (folds, HTML,
# signature status), saving an attachment, tagging from the list and from a thread (checked with
# `maildex search`), a reply sent through a mock sendmail with the Fcc found again in Sent/,
# address completion, the error buffer, a list refreshing itself, a failed `maildex new` reported
# as an error (and every other failure: sendmail, Fcc, a draft, a saved attachment), every key of
# :help maildex in every buffer, the tree view (a thread that branches, as notmuch-tree draws it),
# attachments (binary, non-ASCII names), Fcc into the folder the disk has, drafts saved (the one
# before removed), resumed from a list and a thread.
# Each run is one subtest per step, for every editor installed and every transport (the process
# per command; the server once maildex has `server`). test/vim/conventions.vim checks Vim's runtime
# conventions once per editor (b:undo_ftplugin, <Plug> mappings, no global option or mapping,
# :helptags), and test/vim/first-screen.vim the work a list and a tree do before their first screen,
# on mail bench/gen makes, by the order of events and counts, not by the clock (timing is
# bench/vim-first-screen's). MAILDEX_VIM_UPDATE=1 writes the screens into test/expected/vim/ (check
# the diff). MAILDEX_VIM_TRANSPORTS="process" runs those transports only; MAILDEX_VIM_PLUGIN_SRC=DIR
# drives another copy of editors/vim (an older one, to see which steps fail on it).

srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$srcdir/test/test-lib.sh"
corpus=$srcdir/test/corpora/emacs
test_require gpg
test_require gpgconf

editors=
command -v vim > /dev/null 2>&1 && vim --version | grep -q '+job' && editors="vim"
command -v nvim > /dev/null 2>&1 && editors="$editors nvim"
# MAILDEX_VIM_EDITORS="vim" (or nvim) runs one editor only.
editors=${MAILDEX_VIM_EDITORS:-$editors}
if [ -z "$editors" ]; then
    echo "1..0 # SKIP neither vim (with +job) nor nvim is installed"
    exit 0
fi
# protocol: the plugin's server transport talking to test/vim/protocol-server.py (the protocol of
# doc/protocol.md, each request run as a process); server: the real one, once maildex has it.
# MAILDEX_VIM_SERVER=PROGRAM: the server is PROGRAM's (another build of maildex) over this one's store.
transports="process protocol"
if maildex help server > /dev/null 2>&1 || [ -n "${MAILDEX_VIM_SERVER:-}" ]; then
    transports="$transports server"
fi
transports=${MAILDEX_VIM_TRANSPORTS:-$transports}

{
    tester_config
    printf '\n[query]\nlists=folder:lists/dev\n'
} > "$MAILDEX_CONFIG"

# The corpus's throw-away keys (test/corpora/emacs/README.md) in a GnuPG home of the test's own, so
# that the signed message shows a good signature and the encrypted one its text.
gpg_test_keys T600
trap 'gpgconf --kill gpg-agent; rm -rf "$GNUPGHOME"' EXIT

# fresh_corpus OUT: a new copy of the corpus, indexed, and the mock sendmail writing into OUT.
fresh_corpus() {
    rm -rf "$MAIL_DIR" "$1"
    mkdir -p "$MAIL_DIR" "$1"
    copy_maildir "$corpus/mail"
    # the sent folder as mbsync and most IMAP servers spell it: Fcc must find it, not make sent/
    mv "$MAIL_DIR/sent" "$MAIL_DIR/Sent"
    maildex new > "$1/new.log" 2>&1 || cat "$1/new.log"
    cat > "$1/sendmail" <<SENDMAIL
#!/bin/sh
n=\$(ls "$1" | grep -c '^sent-.*\.eml\$')
printf '%s\n' "\$*" > "$1/sent-\$n.args"
cat > "$1/sent-\$n.eml"
SENDMAIL
    chmod +x "$1/sendmail"
}

# The plugin as installed: a copy, where :helptags may write.
cp -R "${MAILDEX_VIM_PLUGIN_SRC:-$srcdir/editors/vim}" "$TMP_DIRECTORY/plugin"

# run_editor EDITOR TRANSPORT STEPS OUT: the harness with the steps file in one editor.
run_editor() {
    export MAILDEX_VIM_PLUGIN="$TMP_DIRECTORY/plugin" MAILDEX_VIM_STEPS="$3" MAILDEX_VIM_OUT="$4" \
        MAILDEX_VIM_EXPECTED="$srcdir/test/expected/vim" MAILDEX_VIM_TRANSPORT="$2" \
        MAILDEX_VIM_CORPUS="$corpus" MAILDEX_VIM_SENDMAIL="$4/sendmail" \
        MAILDEX_VIM_PROTOCOL_SERVER="$srcdir/test/vim/protocol-server.py" MAILDEX_VIM_SERVER="${MAILDEX_VIM_SERVER:-}" \
        MAILDEX_VIM_DOC="$srcdir/doc/vim.md"
    case $1 in
    vim) timeout 300 vim -Nu NONE -i NONE -es -S "$srcdir/test/vim/harness.vim" < /dev/null > "$4/editor.log" 2>&1 ;;
    nvim) timeout 300 nvim --headless -u NONE -i NONE -S "$srcdir/test/vim/harness.vim" < /dev/null > "$4/editor.log" 2>&1 ;;
    esac
}

# report EDITOR TRANSPORT OUT STEPS...: one subtest per step the steps file defines.
report() {
    editor=$1 transport=$2 out=$3
    shift 3
    tab=$(printf '\t')
    for step in "$@"; do
        test_begin_subtest "$editor, $transport: $step"
        line=$(grep -a "^[a-z ]*$tab$step\($tab\|\$\)" "$out/results" 2>/dev/null)
        case $line in
        "ok$tab"*) test_ok_ ;;
        "not ok$tab"*) test_failure_ "$(printf '%s\n' "$line" | cut -f 3 | sed 's/ || /\n/g')" ;;
        *) test_failure_ "$editor did not reach this step:" "$(tail -n 20 "$out/editor.log" 2>/dev/null)" ;;
        esac
    done
}

step_names() {
    sed -n 's/^function! Step_\([A-Za-z0-9_]*\)() abort$/\1/p' "$1"
}

for editor in $editors; do
    out=$TMP_DIRECTORY/$editor-conventions
    mkdir -p "$out"
    run_editor "$editor" process "$srcdir/test/vim/conventions.vim" "$out"
    report "$editor" conventions "$out" $(step_names "$srcdir/test/vim/conventions.vim")
done

for editor in $editors; do
    for transport in $transports; do
        out=$TMP_DIRECTORY/$editor-$transport
        fresh_corpus "$out"
        run_editor "$editor" "$transport" "$srcdir/test/vim/steps.vim" "$out"
        report "$editor" "$transport" "$out" $(step_names "$srcdir/test/vim/steps.vim")
    done
done

# The first screen of a list and of a tree of more than 1,000 threads, on mail bench/gen makes (seed 1).
big=$TMP_DIRECTORY/big
mkdir -p "$big"
python3 "$srcdir/bench/gen" --count 5000 --seed 1 "$big/mail" > "$big/gen.log" 2>&1 || cat "$big/gen.log"
MAILDEX_CONFIG=$big/config
cat > "$MAILDEX_CONFIG" <<CONFIG
[database]
path=$big/mail

[user]
name=Test User
primary_email=user@example.org

[new]
tags=unread;inbox;
CONFIG
maildex new > "$big/new.log" 2>&1 || cat "$big/new.log"
for editor in $editors; do
    for transport in $transports; do
        out=$big/$editor-$transport
        mkdir -p "$out"
        run_editor "$editor" "$transport" "$srcdir/test/vim/first-screen.vim" "$out"
        report "$editor" "$transport" "$out" $(step_names "$srcdir/test/vim/first-screen.vim")
    done
done

test_done
