#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of `new` against the real notmuch: one mail root holding a generated Maildir of
# 5,200 files (over 5,000 messages, bench/gen) and the corpus of real odd and malformed messages is indexed by both, each
# store is read back through its own command line (count and search only: no database peeking), and
# the two readings must be identical — message, file and thread counts, the message ids, the file
# paths and which message owns each, the thread partition, the tag list and the tags of every
# message, the non-mail notes and the summary line of `new`. Then bench/gen --sync plays one mbsync
# pass (new mail, flag renames, new/ -> cur/, moves between folders, deletions), both run `new`
# again, and everything is compared again. A failure prints the first 20 differing lines.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup ""

# dump.py TOOL OUTDIR: reads a whole store through TOOL's command line into sorted text files, one
# per comparison. Strings are written as JSON (ASCII-escaped), so odd bytes and spaces compare
# exactly and print readably. About twenty processes per store, none per message.
cat > "$TMP_DIRECTORY/dump.py" <<'PYTHON'
import json, os, subprocess, sys

tool, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)

def run(*args):
    p = subprocess.run([tool] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.stderr.write("%s %s: exit %d: %s\n" % (tool, " ".join(args), p.returncode,
                                                    p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "surrogateescape")

def search(*args):
    text = run("search", "--format=json", *args)
    return json.loads(text) if text.strip() else []

def q(s):
    return json.dumps(s, ensure_ascii=True)

def write(name, lines):
    with open(os.path.join(out, name), "w") as f:
        f.writelines(line + "\n" for line in lines)

def boolean_term(prefix, value):
    return prefix + ':"' + value.replace('"', '""') + '"'

def parse_ids(s):
    """The ids of a summary's "query" string: id:X terms joined by spaces; X is quoted as "..."
    (with "" for a quote) when it needs quoting."""
    ids, i = [], 0
    while i < len(s):
        if s[i] == " ":
            i += 1
            continue
        if not s.startswith("id:", i):
            raise ValueError("unexpected query text: %r" % s[i:i + 60])
        i += 3
        if s[i:i + 1] == '"':
            i += 1
            v = ""
            while True:
                j = s.index('"', i)
                v += s[i:j]
                if s[j + 1:j + 2] == '"':
                    v += '"'
                    i = j + 2
                else:
                    i = j + 1
                    break
        else:
            j = s.find(" ", i)
            j = len(s) if j < 0 else j
            v = s[i:j]
            i = j
        ids.append(v)
    return ids

write("message-count", [run("count", "*").strip()])
write("file-count", [run("count", "--output=files", "*").strip()])
write("thread-count", [run("count", "--output=threads", "*").strip()])
ids = search("--output=messages", "*")
write("message-ids", sorted(q(m) for m in ids))
write("file-paths", sorted(q(f) for f in search("--output=files", "*")))

threads = []
for t in search("--output=summary", "*"):
    members = []
    for part in t["query"]:
        members += parse_ids(part or "")
    threads.append(" ".join(sorted(q(m) for m in members)))
write("thread-partition", sorted(threads))

# Which message owns which files: the messages with at least N files and the Nth file of each
# come in the same order, so pairing the two lists for N = 1, 2, ... gives every message's files.
owned = {}
for n in range(1, 1000):
    ms = search("--output=messages", "--duplicate=%d" % n, "*")
    if not ms:
        break
    fs = search("--output=files", "--duplicate=%d" % n, "*")
    if len(ms) != len(fs):
        owned.setdefault("(error)", []).append("--duplicate=%d: %d messages, %d files"
                                               % (n, len(ms), len(fs)))
    for m, f in zip(ms, fs):
        owned.setdefault(m, []).append(f)
write("message-files", sorted(q(m) + "\t" + " ".join(sorted(q(f) for f in fs))
                              for m, fs in owned.items()))

tags = search("--output=tags", "*")
write("tag-list", [q(t) for t in tags])
tagged = {m: [] for m in ids}
for t in tags:
    for m in search("--output=messages", boolean_term("tag", t)):
        tagged.setdefault(m, []).append(t)
write("message-tags", sorted(q(m) + "\t" + " ".join(sorted(ts)) for m, ts in tagged.items()))
PYTHON

# run_new TOOL PASS: runs TOOL new, keeps its sorted non-mail notes and its last line (the summary,
# which carries no timings), and dumps the store.
run_new() {
    tool=$1 name=$2 pass=$3
    out=$TMP_DIRECTORY/$name.$pass
    mkdir -p "$out"
    "$tool" new > "$out/new.stdout" 2> "$out/new.stderr"
    echo "exit $?" > "$out/new-exit"
    grep '^Note: Ignoring non-mail file' "$out/new.stderr" | sort > "$out/non-mail-notes"
    tail -n 1 "$out/new.stdout" > "$out/new-summary"
    python3 "$TMP_DIRECTORY/dump.py" "$tool" "$out" 2> "$out/dump.stderr"
}

# compare PASS WHAT DESCRIPTION: one subtest; on failure the first 20 differing lines.
compare() {
    test_begin_subtest "$1: $3"
    a=$TMP_DIRECTORY/notmuch.$1/$2 b=$TMP_DIRECTORY/maildex.$1/$2
    if cmp -s "$a" "$b"; then
        test_ok_
    else
        test_failure_ "$(printf '%s\n' "--- notmuch  +++ maildex  ($2; $(wc -l < "$a") vs $(wc -l < "$b") lines)";
                         diff "$a" "$b" | grep '^[<>]' | head -n 20)"
    fi
}

compare_all() {
    compare "$1" new-exit "new exits alike"
    compare "$1" new-summary "new prints the same summary line"
    compare "$1" non-mail-notes "the same files are noted as non-mail"
    compare "$1" message-count "message count"
    compare "$1" file-count "file count"
    compare "$1" thread-count "thread count"
    compare "$1" message-ids "the set of message ids"
    compare "$1" file-paths "the set of file paths"
    compare "$1" message-files "the files of every message"
    compare "$1" thread-partition "thread partition (the message ids of each thread)"
    compare "$1" tag-list "the tag list"
    compare "$1" message-tags "the tags of every message"
}

python3 "$srcdir/bench/gen" --count 5200 --seed 1 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
if [ -n "$REAL_CORPUS" ]; then
    copy_corpus "$REAL_CORPUS" "$MAIL_DIR/real"
else
    echo "# the real corpus was not found: only the generated Maildir is compared"
fi

# Directory mtimes from before the runs, so that both record every directory's mtime (neither records
# one equal to the time it looks): then which directories the second pass rescans, and so which
# non-mail files it notes again, depends on the sync pass alone, not on when each tool ran.
age_directories
run_new "$NOTMUCH" notmuch 1
run_new maildex maildex 1
compare_all 1

test_begin_subtest "the store holds at least 5,000 messages"
test_expect_equal "$(test "$(cat "$TMP_DIRECTORY/maildex.1/message-count")" -ge 5000 && echo yes)" "yes"

python3 "$srcdir/bench/gen" --sync --seed 7 "$MAIL_DIR" > "$TMP_DIRECTORY/sync.json"
echo "# sync pass: $(cat "$TMP_DIRECTORY/sync.json")"
run_new "$NOTMUCH" notmuch 2
run_new maildex maildex 2

# A deliberate difference, excluded narrowly: notmuch 0.37 never records the mtime of a directory in
# which it indexed no file (its directory document is only created when a message file is added), so
# it reads such a directory again on every run and repeats its "Ignoring non-mail file" notes
# (real/notmuch/insert/ holds only an mbox). maildex records every scanned directory and re-reads
# only changed ones. So notmuch's second-pass notes for directories without an indexed file are
# dropped before the comparison (and listed here).
python3 - "$TMP_DIRECTORY/notmuch.2" <<'PYTHON'
import json, os, sys
d = sys.argv[1]
with open(os.path.join(d, "file-paths")) as f:
    dirs = {os.path.dirname(json.loads(line)) for line in f}
prefix = "Note: Ignoring non-mail file: "
kept = []
with open(os.path.join(d, "non-mail-notes"), encoding="utf-8", errors="surrogateescape") as f:
    for line in f:
        path = line.rstrip("\n")[len(prefix):] if line.startswith(prefix) else None
        if path is not None and os.path.dirname(path) not in dirs:
            print("# notmuch re-read a directory without indexed files: " + line.rstrip("\n"))
        else:
            kept.append(line)
with open(os.path.join(d, "non-mail-notes"), "w", encoding="utf-8", errors="surrogateescape") as f:
    f.writelines(kept)
PYTHON
compare_all 2

test_done
