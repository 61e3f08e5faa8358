#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# notmuch.el, unchanged, on the program under test: Debian's elpa-notmuch is loaded in `emacs --batch
# -Q` with `notmuch-command` set to the program, in a private HOME whose ~/.notmuch-config is the only
# config, on the corpus of test/corpora/emacs (threads, non-ASCII names and subjects, an HTML
# alternative, a PDF attachment, a signed and an encrypted message). test/emacs/steps.el acts as a
# person's keystrokes would (notmuch-hello, search both ways, tagging, tree, unthreaded, show, reply,
# sending through a mock sendmail with the Fcc through `insert`, address completion); each step is one
# subtest, and what it saw must equal test/expected/emacs/NAME.out line for line. Text in
# *Notmuch errors* fails the step that caused it. notmuch.el runs the program through a wrapper that
# logs each argv, and a last subtest fails if a row of notmuch-compat.md §1.2 (every way notmuch.el
# 0.37 calls notmuch) was never reached.
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
tester_config > "$HOME/.notmuch-config"
# The corpus and its throw-away keys, in a GnuPG home of the test's own whose agent is killed at the
# end.
crypto_corpus_setup T500

# The mock sendmail keeps what it is given, one file per message, and its arguments.
cat > "$TMP_DIRECTORY/sendmail" <<EOF
#!/bin/sh
n=\$(ls "$out" | grep -c '^sent-.*\.eml\$')
printf '%s\n' "\$*" > "$out/sent-\$n.args"
cat > "$out/sent-\$n.eml"
EOF
chmod +x "$TMP_DIRECTORY/sendmail"

tab=$(printf '\t')
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

# notmuch.el runs the program through a wrapper that adds each argv as one line to argv.log, the
# arguments separated by tabs, so that the test knows which of notmuch.el's entry points the steps
# reached. The steps' own checks run the program itself and are not logged.
real_program=$(command -v "$program")
cat > "$TMP_DIRECTORY/logged-program" <<EOF
#!/bin/sh
(IFS='$tab'; printf '%s\\n' "\$*") >> "$out/argv.log"
exec "$real_program" "\$@"
EOF
chmod +x "$TMP_DIRECTORY/logged-program"

MAILDEX_EMACS_NOTMUCH_EL=$NOTMUCH_EL MAILDEX_EMACS_PROGRAM=$real_program MAILDEX_EMACS_MISSING=$missing \
    MAILDEX_EMACS_COMMAND=$TMP_DIRECTORY/logged-program \
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

# notmuch.el's entry points, the rows of the table in notmuch-compat.md §1.2, each as an extended
# regular expression over an argv notmuch.el ran (argv.log, the arguments joined by spaces). A row
# is reached when one of the logged argvs matches; a row with several patterns needs each of them.
entry_points=$(cat <<'EOF'
1	^config get user\.primary_email$
2	^config get user\.name$
2	^config get user\.other_email$
3	^search --format=sexp --format-version=5 --sort=oldest-first .
3	^search --format=sexp --format-version=5 --sort=newest-first .
4	^search --output=tags \*$
5	^search --output=tags --exclude=false \*$
5	^search --output=tags --exclude=false tag:
6	^count --exclude=false$
6	^count [^-]
7	^count --exclude=true --batch$
7	^count --exclude=false --batch$
8	^show --format=sexp --format-version=5 (--decrypt=true )?(--duplicate=[0-9]+ )?(--part=0 )?(--entire-thread=false )?--exclude=false ' thread:[0-9a-f]{16} .*'$
9	^show --format=raw --part=[0-9]+ (--decrypt=true )?id:[^ ]+$
10	^tag --batch$
11	^show --format=raw (--duplicate=[0-9]+ )?id:[^ ]+$
12	^show --format=mbox --exclude=false id:[^ ]+ OR id:
13	^show --body=false --format=sexp --format-version=5 --sort=(oldest|newest)-first --entire-thread .
13	^show --body=false --format=sexp --format-version=5 --sort=(oldest|newest)-first --unthreaded .
14	^reply --format=sexp --format-version=5 (--duplicate=[0-9]+ )?(--decrypt=true )?--reply-to=(all|sender) .
15	^address --format=sexp --format-version=5 --output=(sender|recipients) --deduplicate=address .
16	^insert --folder=sent$
16	^insert --create-folder --folder=drafts \+draft$
17	^new$
18	^--version$
19	^search --output=tags --exclude=false id:[^ ]+$
EOF
)
test_begin_subtest "every entry point of notmuch.el in notmuch-compat.md §1.2 was reached"
touch "$out/argv.log"
unreached=$(printf '%s\n' "$entry_points" | while IFS="$tab" read -r row pattern; do
    tr "$tab" ' ' < "$out/argv.log" | grep -Eq -- "$pattern" || echo "row $row, never ran: $pattern"
done)
test_expect_equal "$unreached" ""

test_begin_subtest "every step has an expected output, and emacs ran to the end"
extra=$(cut -f 2 "$out/results" 2>/dev/null | while read -r name; do
    [ -f "$expected/$name.out" ] || echo "$name"
done)
test_expect_equal "exit status $emacs_status${extra:+, steps without expected output: $extra}" "exit status 0"

test_done
