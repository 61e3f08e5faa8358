#!/bin/sh
# notmuch.el, unchanged, on the program under test: Debian's elpa-notmuch is loaded in `emacs --batch
# -Q` with `notmuch-command` set to the program, in a private HOME whose ~/.notmuch-config is the only
# config, on the corpus of test/corpora/emacs (threads, non-ASCII names and subjects, an HTML
# alternative, a PDF attachment, a signed and an encrypted message). test/emacs/steps.el acts as a
# person's keystrokes would (notmuch-hello, search both ways, tagging, tree, unthreaded, show, reply,
# sending through a mock sendmail with the Fcc through `insert`, address completion); each step is one
# subtest, and what it saw must equal test/expected/emacs/NAME.out line for line. Text in
# *Notmuch errors* fails the step that caused it.
#
# MAILDEX_EMACS_PROGRAM selects the program: maildex (the default, the build's cli/maildex), notmuch
# (T501-emacs-notmuch.sh), which must pass every step, so that a failure shows whether the test or
# maildex is wrong, or the path of any other program (a wrapper breaking one command on purpose).
# For maildex, a step needing a command maildex does not have (`maildex help COMMAND` fails) is
# skipped, naming the command, and runs by itself once the command exists; a step where maildex is
# known to differ is skipped with the reason while it differs (the table below).
# MAILDEX_EMACS_UPDATE=1 with notmuch writes the outputs into test/expected/emacs/ (check the diff).

# test-lib.sh moves into the test's directory: a relative srcdir would point nowhere after that.
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$srcdir/test/test-lib.sh"
# notmuch.el shows dates in local time: the expected ones are UTC's, whatever the caller's TZ.
TZ=UTC
export TZ
test_require emacs
test_require gpg
test_require gpgconf
NOTMUCH_EL=
for d in /usr/share/emacs/site-lisp/elpa/notmuch-0.37*; do
    [ -f "$d/notmuch.el" ] && NOTMUCH_EL=$d
done
if [ -z "$NOTMUCH_EL" ]; then
    echo "1..0 # SKIP notmuch.el 0.37 (Debian's elpa-notmuch) is not installed"
    exit 0
fi
program=${MAILDEX_EMACS_PROGRAM:-maildex}
case $program in
notmuch)
    program=${NOTMUCH:-$(command -v notmuch || true)}
    if [ -z "$program" ] || ! [ -x "$program" ]; then
        echo "1..0 # SKIP notmuch is not installed"
        exit 0
    fi
    ;;
maildex) program=maildex ;;
esac
corpus=$srcdir/test/corpora/emacs
expected=$srcdir/test/expected/emacs
out=$TMP_DIRECTORY/out
mkdir -p "$out"

# The private HOME holds the only config, where notmuch and maildex both look last.
unset MAILDEX_CONFIG
cat > "$HOME/.notmuch-config" <<CONFIG
[database]
path=$MAIL_DIR

[user]
name=Maildex Tester
primary_email=tester@example.org
other_email=tester@work.example.com;

[new]
tags=unread;inbox;
ignore=.maildex;.notmuch;

[search]
exclude_tags=deleted;spam;

[maildir]
synchronize_flags=true
CONFIG
# The corpus (git keeps no empty directories: every folder gets its new/ and tmp/ back) and its
# throw-away keys, in a GnuPG home of the test's own whose agent is killed at the end.
crypto_corpus_setup T500

# The mock sendmail keeps what it is given, one file per message, and its arguments.
cat > "$TMP_DIRECTORY/sendmail" <<EOF
#!/bin/sh
n=\$(ls "$out" | grep -c '^sent-.*\.eml\$')
printf '%s\n' "\$*" > "$out/sent-\$n.args"
cat > "$out/sent-\$n.eml"
EOF
chmod +x "$TMP_DIRECTORY/sendmail"

"$program" new > "$TMP_DIRECTORY/new.log" 2>&1 || cat "$TMP_DIRECTORY/new.log"
# The commands notmuch.el runs that maildex does not have yet: `maildex help COMMAND` fails for a
# command not in its table. notmuch has them all (its `help` would start man).
missing=
if [ "$program" = maildex ]; then
    for c in config search count show tag reply address insert new; do
        maildex help "$c" > /dev/null 2>&1 || missing="$missing $c"
    done
fi
[ -z "$missing" ] || echo "# $program has no:$missing"

MAILDEX_EMACS_NOTMUCH_EL=$NOTMUCH_EL MAILDEX_EMACS_PROGRAM=$program MAILDEX_EMACS_MISSING=$missing \
    MAILDEX_EMACS_OUT=$out MAILDEX_EMACS_MAIL=$MAIL_DIR MAILDEX_EMACS_SENDMAIL=$TMP_DIRECTORY/sendmail \
    MAILDEX_EMACS_CORPUS=$corpus \
    timeout 90 emacs --batch -Q -l "$srcdir/test/emacs/maildex-test.el" -l "$srcdir/test/emacs/steps.el" \
    -f maildex-test-run < /dev/null > "$TMP_DIRECTORY/emacs.log" 2>&1
emacs_status=$?

if [ -n "${MAILDEX_EMACS_UPDATE:-}" ] && [ "$program" != maildex ]; then
    mkdir -p "$expected"
    rm -f "$expected"/*.out
    cp "$out"/*.out "$expected"/
fi

# Steps where maildex is known to differ from notmuch, by name, with the reason (doc/emacs.md). Such a
# step is reported as skipped while it differs and passes as soon as it does not.
known_differences=$(cat <<'EOF'
08-version	maildex --version prints "maildex 0.1.0", which notmuch.el does not read as a version (it wants "notmuch VERSION"): M-x notmuch-version says "unknown"
EOF
)

# One subtest per expected file, in their order; its title is the file's first line.
tab=$(printf '\t')
for want in "$expected"/*.out; do
    [ -f "$want" ] || continue
    name=$(basename "$want" .out)
    test_begin_subtest "$(head -n 1 "$want" | sed 's/^# //')"
    status=$(grep "^[a-z]*$tab$name$tab" "$out/results" 2>/dev/null | cut -f 1)
    case $status in
    skip)
        lacks=$(grep "^skip$tab$name$tab" "$out/results" | cut -f 3)
        case $lacks in
        *" "*) what=commands ;;
        *) what=command ;;
        esac
        test_skip_ "$(basename "$program") has no $(echo "$lacks" | sed "s/[^ ]*/'&'/g; s/ /, /g") $what yet"
        ;;
    run)
        known=
        [ "$program" != maildex ] || known=$(printf '%s\n' "$known_differences" | grep "^$name$tab" | cut -f 2)
        if [ -n "$known" ] && ! cmp -s "$want" "$out/$name.out"; then
            test_skip_ "known difference: $known"
        else
            test_expect_equal_file "$want" "$out/$name.out"
        fi
        ;;
    *) test_failure_ "emacs did not reach this step (exit status $emacs_status):" "$(tail -n 20 "$TMP_DIRECTORY/emacs.log")" ;;
    esac
done

test_begin_subtest "every step has an expected output, and emacs ran to the end"
extra=$(cut -f 2 "$out/results" 2>/dev/null | while read -r name; do
    [ -f "$expected/$name.out" ] || echo "$name"
done)
test_expect_equal "exit status $emacs_status${extra:+, steps without expected output: $extra}" "exit status 0"

test_done
