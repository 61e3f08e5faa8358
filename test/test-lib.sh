# SPDX-License-Identifier: GPL-3.0-or-later
# test-lib.sh: the shell test library, in the style of notmuch's test/test-lib.sh, speaking TAP.
#
# A test script sources this file, then runs subtests:
#     test_begin_subtest "what it checks"
#     output=$(maildex ...)
#     test_expect_equal "$output" "expected"
# or test_expect_equal_file EXPECTED OUTPUT, test_expect_code CODE CMD..., and ends with test_done.
# Each script gets its own directory test/tmp.<script>/ with HOME inside it, a mail root $MAIL_DIR and a
# config file $MAILDEX_CONFIG for the "Notmuch Test Suite" user, so scripts run alone or in parallel.

set -u
test_name=$(basename "$0" .sh)
: "${srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${MAILDEX_BUILDDIR:=$srcdir}"
TEST_DIRECTORY=$srcdir/test
TMP_DIRECTORY=$MAILDEX_BUILDDIR/test/tmp.$test_name
rm -rf "$TMP_DIRECTORY"
mkdir -p "$TMP_DIRECTORY"
HOME=$TMP_DIRECTORY/home
MAIL_DIR=$TMP_DIRECTORY/mail
MAILDEX_CONFIG=$TMP_DIRECTORY/maildex-config
mkdir -p "$HOME" "$MAIL_DIR"
PATH=$MAILDEX_BUILDDIR/cli:$PATH
# The parser module of the build under test, whatever the environment says (cli/maildex would load it
# anyway; T045 checks that it does without this).
MAILDEX_MIME_MODULE=$MAILDEX_BUILDDIR/lib/.libs/maildex-mime.so
unset NOTMUCH_CONFIG NOTMUCH_PROFILE XDG_CONFIG_HOME XDG_DATA_HOME MAILDEX_DATABASE NOTMUCH_DATABASE MAILDIR || true
# A watch's default log goes below $HOME (not the user's state directory), and its form is never the
# journal's because the suite runs under a systemd unit.
unset XDG_STATE_HOME JOURNAL_STREAM || true
export HOME MAIL_DIR MAILDEX_CONFIG PATH TMP_DIRECTORY MAILDEX_MIME_MODULE
export LC_ALL=${LC_ALL:-C.UTF-8} TZ=${TZ:-UTC}
# Scratch files (OUTPUT, EXPECTED) land in the test's own directory, never in the build tree.
cd "$TMP_DIRECTORY" || exit 99
cat > "$MAILDEX_CONFIG" <<CONFIG
[database]
path=$MAIL_DIR

[user]
name=Notmuch Test Suite
primary_email=test_suite@notmuchmail.org
other_email=test_suite_other@notmuchmail.org;test_suite@otherdomain.org;

[new]
tags=unread;inbox;
ignore=

[search]
exclude_tags=deleted;spam;

[maildir]
synchronize_flags=true
CONFIG

test_count=0
test_failures=0
test_subtest_name=

test_begin_subtest() {
    test_subtest_name=$1
}

test_ok_() {
    test_count=$((test_count + 1))
    echo "ok $test_count - $test_subtest_name"
}

test_failure_() {
    test_count=$((test_count + 1))
    test_failures=$((test_failures + 1))
    echo "not ok $test_count - $test_subtest_name"
    shift 0
    [ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/#  /'
    return 0
}

# timeless: new's "Processed N files in T." with the time T (as new prints it: "almost no time",
# "1m 3s (50 files/sec.)") left out. How long a run took is the machine's, not the program's: a
# loaded machine or a ThreadSanitizer build takes seconds where the expected output says "almost no
# time". notmuch's suite drops the line (NOTMUCH_NEW); here the counts in it are still compared.
timeless() {
    sed -E 's/^(Processed [0-9]+ (file|total files) in )(almost no time|([0-9]+h )?([0-9]+m )?[0-9]+s \([0-9]+ files\/sec\.\))\.$/\1TIME./'
}

# test_expect_equal OUTPUT EXPECTED (new's processing time aside: timeless)
test_expect_equal() {
    if [ "$1" = "$2" ] ||
        [ "$(printf '%s\n' "$1" | timeless)" = "$(printf '%s\n' "$2" | timeless)" ]; then
        test_ok_
    else
        test_failure_ "$(printf 'expected:\n%s\ngot:\n%s' "$2" "$1")"
    fi
}

# test_expect_equal_file EXPECTED_FILE OUTPUT_FILE (byte for byte; a diff on failure)
test_expect_equal_file() {
    if cmp -s "$1" "$2"; then
        test_ok_
    else
        test_failure_ "$(diff -u "$1" "$2" | head -n 60)"
    fi
}

# test_expect_code CODE COMMAND...: the exit status of COMMAND must be CODE.
test_expect_code() {
    want=$1
    shift
    "$@" >/dev/null 2>&1
    got=$?
    if [ "$got" = "$want" ]; then
        test_ok_
    else
        test_failure_ "exit status $got, expected $want, from: $*"
    fi
}

# test_skip_ REASON: counts the current subtest as skipped.
test_skip_() {
    test_count=$((test_count + 1))
    echo "ok $test_count - $test_subtest_name # SKIP $1"
}

# For the tests of `watch` (T068, T071, T073): $WLOG is the watch's log, $watch_pid the watch itself.
# LOG_TIME: the time that leads each line of the log (grep's basic regex): ISO 8601, milliseconds,
# the local offset.
LOG_TIME='[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]\{3\}[+-][0-9][0-9]:[0-9][0-9]'
# wait_log REGEX [COUNT]: waits (up to 20 s) until COUNT (1) lines of $WLOG match REGEX.
wait_log() {
    n=0
    while [ "$(grep -c -- "$1" "$WLOG")" -lt "${2:-1}" ] && [ $n -lt 400 ]; do
        sleep 0.05
        n=$((n + 1))
    done
}

# sanitizer_build: true when maildex is built with AddressSanitizer or ThreadSanitizer, whose
# shadow memory and quarantine of freed blocks make the process's peak RSS theirs, not maildex's.
sanitizer_build() {
    ldd "$MAILDEX_BUILDDIR/cli/maildex" 2>/dev/null | grep -q 'libasan\|libtsan'
}

# wait_writer PID: waits (up to 20 s) until PID holds the store's write lock (maildex names its
# writer in the database's "-writer" file) or has ended: a bounded poll where a sleep would guess
# how long a loaded machine takes to get there.
wait_writer() {
    n=0
    until [ "$(cat "$MAIL_DIR/.maildex/maildex.db-writer" 2>/dev/null)" = "$1" ] || ! kill -0 "$1" 2>/dev/null ||
        [ $n -ge 1000 ]; do
        sleep 0.02
        n=$((n + 1))
    done
}

# indexed QUERY COUNT: waits until `maildex count QUERY` says COUNT (at most 60 s, so a loaded
# machine cannot fail it; how fast watch is belongs to bench/run's watch_latency phase); prints
# what it said last when it never did.
indexed() {
    tries=0
    while :; do
        got=$(maildex count "$1")
        [ "$got" = "$2" ] && return 0
        if [ $tries -ge 3000 ]; then
            echo "count $1: $got after 60 s, expected $2"
            return 1
        fi
        sleep 0.02
        tries=$((tries + 1))
    done
}

# deliver DIR ID: a message delivered as an MDA does, written in DIR/../tmp and moved into DIR.
deliver() {
    mkdir -p "$MAIL_DIR/$1" "$MAIL_DIR/$1/../tmp"
    printf 'From: Sender <s@example.org>\nTo: t@example.org\nSubject: about %s\nMessage-Id: <%s>\nDate: Fri, 05 Jan 2001 15:43:00 +0000\n\nbody of %s\n' \
        "$2" "$2" "$2" > "$MAIL_DIR/$1/../tmp/$2"
    mv "$MAIL_DIR/$1/../tmp/$2" "$MAIL_DIR/$1/$2"
}

# new_loop END: `maildex new` again and again until the time END (seconds since the epoch), its
# stderr appended to $TMP_DIRECTORY/new-err; how many ran and failed in $new_runs, $new_failures.
new_loop() {
    new_runs=0 new_failures=0
    while [ "$(date +%s)" -lt "$1" ]; do
        maildex new > /dev/null 2>> "$TMP_DIRECTORY/new-err" || new_failures=$((new_failures + 1))
        new_runs=$((new_runs + 1))
    done
}

# stop_watch: SIGTERM to the watch, and its exit status in $watch_status.
stop_watch() {
    kill -TERM "$watch_pid" 2>/dev/null
    wait "$watch_pid"
    watch_status=$?
}

# without_overrides COMMAND...: runs COMMAND without root's permission overrides (CAP_DAC_OVERRIDE,
# CAP_DAC_READ_SEARCH, CAP_FOWNER), so that a chmod means for root what it means for everybody (CI
# runs the suite as root). can_drop_overrides tells whether that is possible here.
without_overrides() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --bounding-set=-dac_override,-dac_read_search,-fowner "$@"
    else
        "$@"
    fi
}
can_drop_overrides() {
    [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null 2>&1
}

# test_expect_success COMMAND...: COMMAND must exit 0.
test_expect_success() {
    test_expect_code 0 "$@"
}

# Skips the rest of the script (plan only what ran) when a tool is missing.
test_require() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "1..0 # SKIP $1 is not installed"
        exit 0
    fi
}

# generate_message [key=value]...: writes one message into $MAIL_DIR, as notmuch's helper does.
# Keys: id, subject, from, to, date, body, dir (relative to $MAIL_DIR, default cur), filename,
# in_reply_to, references, header (an extra raw header line). Prints the file's path (call it
# directly, not in $(...): the message counter lives in this shell).
gen_msg_cnt=0
generate_message() {
    gen_msg_cnt=$((gen_msg_cnt + 1))
    id="msg-$(printf %03d $gen_msg_cnt)@maildex-test-suite"
    subject="Test message #$gen_msg_cnt"
    from="Maildex Test Suite <test_suite@notmuchmail.org>"
    to="Maildex Test Suite <test_suite@notmuchmail.org>"
    date="Fri, 05 Jan 2001 15:43:$(printf %02d $((57 - gen_msg_cnt % 50))) +0000"
    body="This is just a test message (#$gen_msg_cnt)"
    dir=cur
    filename="msg-$(printf %03d $gen_msg_cnt)"
    in_reply_to=
    references=
    header=
    for kv in "$@"; do
        key=${kv%%=*}
        eval "$key=\${kv#*=}"
    done
    mkdir -p "$MAIL_DIR/$dir"
    file="$MAIL_DIR/$dir/$filename"
    {
        echo "From: $from"
        echo "To: $to"
        echo "Message-Id: <$id>"
        echo "Subject: $subject"
        echo "Date: $date"
        [ -n "$in_reply_to" ] && echo "In-Reply-To: <$in_reply_to>"
        [ -n "$references" ] && echo "References: $references"
        [ -n "$header" ] && echo "$header"
        echo
        echo "$body"
    } > "$file"
    gen_msg_id=$id
    echo "$file"
}

# copy_maildir SRC: the mail of SRC into $MAIL_DIR; git keeps no empty directories, so every folder
# gets its new/ and tmp/ back.
copy_maildir() {
    cp -R "$1/." "$MAIL_DIR"
    find "$MAIL_DIR" -type d -name cur | while read -r d; do
        mkdir -p "${d%/cur}/new" "${d%/cur}/tmp"
    done
}

# tester_config: prints the config of the user of test/corpora/emacs (Maildex Tester), whose mail
# root is $MAIL_DIR, for notmuch and maildex alike.
tester_config() {
    cat <<CONFIG
[database]
path=$MAIL_DIR

[user]
name=Maildex Tester
primary_email=tester@example.org
other_email=tester@work.example.com;

[new]
tags=unread;inbox;
ignore=.maildex;.notmuch;
# Each tool indexes on its own: maildex's first new must not copy notmuch's tags (T780 tests that).
import_notmuch=false

[search]
exclude_tags=deleted;spam;

[maildir]
synchronize_flags=true
CONFIG
}

# gpg_test_keys NAME: $GNUPGHOME becomes a GnuPG home of the test's own (short, for the agent's
# socket) holding the throw-away keys of test/corpora/emacs, trusted ultimately so that user ids are
# shown, with its agent started. The script kills the agent and removes the home in its EXIT trap
# (`gpgconf --kill gpg-agent; rm -rf "$GNUPGHOME"`).
gpg_test_keys() {
    GNUPGHOME=$(mktemp -d "${TMPDIR:-/tmp}/maildex-$1.XXXXXX")
    export GNUPGHOME
    gpgconf --launch gpg-agent
    gpg --batch --quiet --import "$srcdir/test/corpora/emacs/test-keys.asc" 2>/dev/null
    gpg --batch --with-colons --list-keys 2>/dev/null |
        awk -F: '$1 == "pub" { want = 1 } $1 == "fpr" && want { print $10 ":6:"; want = 0 }' |
        gpg --batch --quiet --import-ownertrust 2>/dev/null
}

# The three-message thread of notmuch-compat.md 2.2, written into $MAIL_DIR and indexed.
add_lunch_corpus() {
    mkdir -p "$MAIL_DIR/cur" "$MAIL_DIR/new"
    cat > "$MAIL_DIR/cur/1:2,S" <<'EOF'
From: Alice Example <alice@example.org>
To: Bob <bob@example.com>
Subject: Lunch plans
Date: Mon, 01 Jan 2024 10:00:00 +0000
Message-ID: <msg1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Shall we get lunch at the Café tomorrow?
EOF
    cat > "$MAIL_DIR/cur/2:2," <<'EOF'
From: Bob <bob@example.com>
To: Alice Example <alice@example.org>
Cc: "Carol, C." <carol@example.net>
Subject: Re: Lunch plans
Date: Mon, 01 Jan 2024 11:00:00 +0000
Message-ID: <msg2@example.com>
In-Reply-To: <msg1@example.org>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=us-ascii

Sure works for me, planning ahead.
--alt
Content-Type: text/html; charset=us-ascii

<p>Sure works for me, planning ahead.</p>
--alt--
EOF
    cat > "$MAIL_DIR/new/3" <<'EOF'
From: Carol <carol@example.net>
To: Alice Example <alice@example.org>
Subject: Re: Lunch plans
Date: Mon, 01 Jan 2024 12:30:00 +0000
Message-ID: <msg3@example.net>
References: <msg1@example.org> <msg2@example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mix"

--mix
Content-Type: text/plain; charset=us-ascii

Here is the menu.
--mix
Content-Type: application/pdf
Content-Disposition: attachment; filename="menu.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQKJSBmYWtlCg==
--mix--
EOF
    maildex new > /dev/null
}

# copy_corpus SRC DST: copies the real corpus (not its MANIFEST.tsv, SOURCES.md, LICENSES) writable,
# creating each directory's entries in name order before going down. Both tools read a directory
# they have not seen before in inode order, which then mostly follows name order, so the first file
# of a duplicate set - whose headers give the message its date, From and Subject - is the same for
# both and stable from run to run.
copy_corpus() {
    python3 - "$1" "$2" <<'PYTHON'
import os, shutil, sys
src, dst = (os.fsencode(a) for a in sys.argv[1:3])
def copy(s, d, top):
    os.makedirs(d, exist_ok=True)
    below = []
    for name in sorted(os.listdir(s)):
        if top and name in (b"MANIFEST.tsv", b"SOURCES.md", b"LICENSES"):
            continue
        sp, dp = os.path.join(s, name), os.path.join(d, name)
        if os.path.isdir(sp):
            os.mkdir(dp)
            below.append((sp, dp))
        else:
            shutil.copyfile(sp, dp)
    for sp, dp in below:
        copy(sp, dp, False)
copy(src, dst, True)
PYTHON
}

# For the differential tests: skips the script when the real notmuch is missing; sets REAL_CORPUS to
# the corpus of real odd messages ($MAILDEX_REAL_CORPUS, else test/corpora/real); and writes the
# same config for notmuch and maildex ($NOTMUCH_CONFIG, $MAILDEX_CONFIG), with
# the search.exclude_tags and extra lines the script passes.
differential_setup() {
    NOTMUCH=${NOTMUCH:-$(command -v notmuch || true)}
    if [ -z "$NOTMUCH" ] || ! [ -x "$NOTMUCH" ]; then
        echo "1..0 # SKIP notmuch is not installed"
        exit 0
    fi
    REAL_CORPUS=
    for d in "${MAILDEX_REAL_CORPUS:-}" "$srcdir/test/corpora/real"; do
        if [ -n "$d" ] && [ -d "$d" ]; then
            REAL_CORPUS=$d
            break
        fi
    done
    NOTMUCH_CONFIG=$TMP_DIRECTORY/notmuch-config
    export NOTMUCH NOTMUCH_CONFIG
    for cfg in "$NOTMUCH_CONFIG" "$MAILDEX_CONFIG"; do
        cat > "$cfg" <<CONFIG
[database]
path=$MAIL_DIR

[user]
name=Notmuch Test Suite
primary_email=test_suite@notmuchmail.org

[new]
tags=unread;inbox;
ignore=.maildex;.notmuch;
# Each tool indexes on its own: maildex's first new must not copy notmuch's tags (T780 tests that).
import_notmuch=false

[search]
exclude_tags=$1

[maildir]
synchronize_flags=true
${2:-}
CONFIG
    done
}

# The crypto tests' setup (after differential_setup): test/corpora/emacs in the mail root, and its keys
# in a GnuPG home of the test's own (short, for the agent's socket; NAME names it), trusted ultimately
# so that the user id is shown; GNUPGHOME is exported, NOKEYS is a home with no key at all, and both
# agents are killed at the end.
crypto_corpus_setup() {
    copy_maildir "$srcdir/test/corpora/emacs/mail"
    gpg_test_keys "$1"
    NOKEYS=$(mktemp -d "${TMPDIR:-/tmp}/maildex-${1}n.XXXXXX")
    trap 'gpgconf --kill gpg-agent; GNUPGHOME=$NOKEYS gpgconf --kill gpg-agent; rm -rf "$GNUPGHOME" "$NOKEYS"' EXIT
}

# Prints the store as sorted lines "message-id<TAB>tags<TAB>files<TAB>thread-size", read straight
# from the database, so tests of `new` do not depend on the search commands.
maildex_store_dump() {
    sqlite3 -separator '	' "${1:-$MAIL_DIR/.maildex/maildex.db}" "
      SELECT m.message_id,
             (SELECT group_concat(name, ' ') FROM (SELECT t.name FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE mt.message = m.id ORDER BY t.name)),
             (SELECT group_concat(p, ' ') FROM (SELECT CASE d.path WHEN '' THEN f.name ELSE d.path || '/' || f.name END AS p FROM files f JOIN directories d ON d.id = f.directory WHERE f.message = m.id ORDER BY p)),
             (SELECT count(*) FROM messages m2 WHERE m2.thread = m.thread)
      FROM messages m ORDER BY m.message_id"
}

# Prints "ok" when the store is consistent, else the broken invariants: SQLite's integrity check,
# then rows pointing at nothing (files, tags, text) and stored counts and copies (a message's tag ids
# and file count, which thread summaries read) that disagree with the rows.
maildex_store_check() {
    sqlite3 "${1:-$MAIL_DIR/.maildex/maildex.db}" "PRAGMA integrity_check" 2>&1 | grep -v '^ok$'
    sqlite3 -separator ' ' "${1:-$MAIL_DIR/.maildex/maildex.db}" "
      SELECT 'file without message', count(*) FROM files f WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = f.message)
      UNION ALL SELECT 'file without directory', count(*) FROM files f WHERE NOT EXISTS (SELECT 1 FROM directories d WHERE d.id = f.directory)
      UNION ALL SELECT 'message without file', count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.message = m.id)
      UNION ALL SELECT 'tag without message', count(*) FROM message_tags mt WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = mt.message)
      UNION ALL SELECT 'text without message', count(*) FROM texts t WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = t.id)
      UNION ALL SELECT 'message without text', count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM texts t WHERE t.id = m.id)
      UNION ALL SELECT 'addresses without message', count(*) FROM addresses a WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = a.id)
      UNION ALL SELECT 'message without addresses', count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM addresses a WHERE a.id = m.id)
      UNION ALL SELECT 'indexed From without message', count(*) FROM indexed_from i WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = i.id)
      UNION ALL SELECT 'wrong tag count', count(*) FROM tags t WHERE messages != (SELECT count(*) FROM message_tags mt WHERE mt.tag = t.id)
      UNION ALL SELECT 'wrong thread count', count(*) FROM threads t WHERE messages != (SELECT count(*) FROM messages m WHERE m.thread = t.id)
      UNION ALL SELECT 'property without message', count(*) FROM properties p WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = p.message)
      UNION ALL SELECT 'wrong property count', (SELECT count(*) FROM (SELECT key, value, count(*) AS n FROM properties GROUP BY key, value EXCEPT SELECT key, value, messages FROM property_counts)) + (SELECT count(*) FROM (SELECT key, value, messages FROM property_counts EXCEPT SELECT key, value, count(*) FROM properties GROUP BY key, value))
      UNION ALL SELECT 'wrong message count', (SELECT value FROM meta WHERE key = 'messages') != (SELECT count(*) FROM messages)
      UNION ALL SELECT 'wrong member tags', count(*) FROM messages m WHERE m.tag_ids IS NOT (SELECT group_concat(tag) FROM message_tags mt WHERE mt.message = m.id)
      UNION ALL SELECT 'wrong member file count', count(*) FROM messages m WHERE m.nfiles != (SELECT count(*) FROM files f WHERE f.message = m.id)" 2>&1 |
        grep -v ' 0$'
    echo ok
}

# Prints each thread as one sorted line of its Message-IDs (the thread partition), lines sorted.
maildex_thread_dump() {
    sqlite3 "${1:-$MAIL_DIR/.maildex/maildex.db}" "
      SELECT group_concat(message_id, ' ') FROM (SELECT thread, message_id FROM messages ORDER BY thread, message_id) GROUP BY thread" | sort
}

# Prints the text each message was indexed from, as Python reprs "name<TAB>[from, to, body, attachment,
# mimetype]" sorted by name (the Message-ID up to its "@"): what FTS5 tokenized, read straight from
# the texts table (a packed body unpacked as lib/sqlext/text-pack.c stores it: a 4-byte length, zlib).
# Two messages with equal lines were indexed alike, word for word and position for position.
maildex_text_dump() {
    python3 - "${1:-$MAIL_DIR/.maildex/maildex.db}" <<'PY'
import sqlite3, sys, zlib
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
rows = []
for row in db.execute('SELECT m.message_id, t."from", t."to", t.body, t.attachment, t.mimetype '
                      "FROM texts t JOIN messages m ON m.id = t.id"):
    row = list(row)
    if isinstance(row[3], bytes):
        row[3] = zlib.decompress(row[3][4:]).decode("utf-8", "surrogateescape")
    rows.append("%s\t%r" % (row[0].split("@")[0], row[1:]))
print("\n".join(sorted(rows)))
PY
}

# Makes every directory under $MAIL_DIR look unchanged since two seconds ago, so that `new` may
# record their mtimes (it never trusts an mtime in the current second).
age_directories() {
    find "$MAIL_DIR" -type d -exec touch -d '2 seconds ago' {} +
}

# Sanitizers, named as notmuch's.
maildex_search_sanitize() { sed -E 's/^thread:[0-9a-f]{16}/thread:XXX/'; }
maildex_date_sanitize() { sed -E 's/"date_relative": "[^"]*"/"date_relative": "DATE"/g'; }

test_done() {
    echo "1..$test_count"
    cd /
    [ -n "${MAILDEX_TEST_KEEP:-}" ] || rm -rf "$TMP_DIRECTORY"
    [ "$test_failures" -eq 0 ]
    exit $?
}
