#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Soak tests (issue 33, "Done when"; doc/reliability.md, section 10): hours of use compressed into
# minutes, to find what no single test finds.
# - `maildex server` over stdio under SERVER_REQUESTS (100,000) mixed requests (search, count, show,
#   tag, address, dump) on a store of 3,000 generated messages (bench/gen): every request answered
#   with status 0, and the server's RSS at the end within 2 MB of its RSS after the first 10,000.
# - `new` in a loop, `tag` in two loops and `watch`, all at once for SOAK_SECONDS (600) beside a
#   renamer that behaves as mbsync or offlineimap does: new/ -> cur/ adding ":2,", flags S, F and R
#   flipped by renaming, ",U=NNN" added or changed, mail delivered through tmp/ -> new/, a few
#   messages deleted and some moved to another folder under a new name. Every message that is left
#   keeps its hand-made tag `keep`, the deleted ones are gone, the moved ones are in their new
#   folder with their tags, no `new` failed, watch exits 0, every file the index names is there and
#   the store is consistent.
# Both run only in the slow tier (MAILDEX_SLOW_TESTS=1); otherwise every subtest is skipped, so the
# suite stays fast and always counts the same subtests. Every wait is a bounded poll or the end of
# a process, never a guessed sleep; the numbers measured are printed as "# " lines.
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require sqlite3

SERVER_REQUESTS=${SERVER_REQUESTS:-100000}
SERVER_WARMUP=${SERVER_WARMUP:-10000}
SOAK_SECONDS=${SOAK_SECONDS:-600}
SOAK_MESSAGES=${SOAK_MESSAGES:-1500}
WLOG=$TMP_DIRECTORY/watch.log

# server_soak: drives `maildex server` with $SERVER_REQUESTS requests, at most 16 in flight; after
# the warm-up and at the end it lets every request in flight end, then reads the server's VmRSS.
# Prints "# " lines and last "answered ok warmup_kb end_kb server_status".
server_soak() {
    python3 - "$(command -v maildex)" "$SERVER_REQUESTS" "$SERVER_WARMUP" <<'PY'
import json, random, subprocess, sys, threading, time
maildex, total, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
run = lambda *a: subprocess.run([maildex] + list(a), capture_output=True, check=True).stdout.split()
ids = [m.decode() for m in run("search", "--output=messages", "--limit=400", "*")]
threads = [t.decode() for t in run("search", "--output=threads", "--limit=200", "*")]
words = ["release", "patch", "meeting", "thanks", "question", "build", "review", "update"]
rng = random.Random(33)
def argv():
    m, t, w = rng.choice(ids), rng.choice(threads), rng.choice(words)
    return rng.choice([
        ["search", "--format=json", "--output=summary", "--limit=20", "tag:inbox and " + w],
        ["search", "--output=messages", "--limit=50", w], ["search", "--output=tags", "*"],
        ["search", "--format=sexp", "--output=files", "--limit=10", w],
        ["count", "tag:unread"], ["count", "--output=threads", w], ["count", "--batch"],
        ["show", "--format=json", m], ["show", "--format=sexp", "--entire-thread=true", t],
        ["show", "--format=text", m],
        ["tag", "+soak", "--", m], ["tag", "-soak", "--", m], ["tag", "+soak", "-inbox", "--", t],
        ["tag", "-soak", "+inbox", "--", t],
        ["address", "--output=sender", "--format=json", w],
        ["address", "--output=recipients", "--deduplicate=address", t],
        ["dump", "--", m], ["dump", "--format=batch-tag", "--", t]])
lines = [json.dumps({"id": i, "argv": argv()}).encode() + b"\n" for i in range(1, total + 1)]
p = subprocess.Popen([maildex, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
cond, state = threading.Condition(), {"answered": 0, "ok": 0, "bad": []}
def rss():
    with open("/proc/%d/status" % p.pid) as f:
        return int(next(l for l in f if l.startswith("VmRSS:")).split()[1])
def sample(sent):  # every request sent has ended: the server holds only what it keeps
    with cond:
        cond.wait_for(lambda: state["answered"] == sent)
    return rss()
def send():
    samples = []
    for i, line in enumerate(lines, 1):
        with cond:
            cond.wait_for(lambda: i - 1 - state["answered"] < 16)
        p.stdin.write(line)
        p.stdin.flush()
        if i % warmup == 0:
            samples.append((i, sample(i)))
    state["samples"] = samples
    p.stdin.close()
start = time.time()
writer = threading.Thread(target=send)
writer.start()
out = p.stdout
while True:
    head = out.readline()
    if not head:
        break
    words_ = head.split()
    out.read(int(words_[-1]))
    if words_[0] == b"end":
        with cond:
            state["answered"] += 1
            if words_[2] == b"0":
                state["ok"] += 1
            elif len(state["bad"]) < 5:
                state["bad"].append(head.decode().strip())
            cond.notify_all()
writer.join()
status = p.wait()
seconds = time.time() - start
s = state["samples"]
print("# server: %d requests in %.0f s (%.0f a second), %d answered, %d with status 0 %s"
      % (total, seconds, total / seconds, state["answered"], state["ok"], " ".join(state["bad"])))
print("# server VmRSS (kB) after N requests: " + ", ".join("%d: %d" % x for x in s))
print("# server VmRSS from %d to %d requests: %d kB to %d kB, %+d kB"
      % (s[0][0], s[-1][0], s[0][1], s[-1][1], s[-1][1] - s[0][1]))
print(state["answered"], state["ok"], s[0][1], s[-1][1], status)
PY
}

if [ "${MAILDEX_SLOW_TESTS:-}" = 1 ]; then
    rmdir "$MAIL_DIR"
    python3 "$srcdir/bench/gen" --count 3000 --seed 33 "$MAIL_DIR" > /dev/null
    maildex new --quiet
    server_soak > "$TMP_DIRECTORY/server-soak"
    sed -n '/^#/p' "$TMP_DIRECTORY/server-soak"
    set -- $(tail -n 1 "$TMP_DIRECTORY/server-soak") x x x x x

    test_begin_subtest "server: $SERVER_REQUESTS mixed requests, every one answered with status 0"
    test_expect_equal "$1 $2" "$SERVER_REQUESTS $SERVER_REQUESTS"

    test_begin_subtest "... its RSS after them within 2 MB of its RSS after the first $SERVER_WARMUP"
    if [ "$3" -gt 0 ] 2>/dev/null && [ "$4" -le $(($3 + 2048)) ]; then
        test_ok_
    else
        test_failure_ "VmRSS $3 kB after $SERVER_WARMUP requests, $4 kB after $SERVER_REQUESTS"
    fi

    test_begin_subtest "... and it exits 0 once its stdin ends, the store consistent"
    test_expect_equal "$5|$(maildex_store_check)" "0|ok"
    rm -rf "$MAIL_DIR"
    mkdir "$MAIL_DIR"
else
    for t in "server: $SERVER_REQUESTS mixed requests, every one answered with status 0" \
        "... its RSS after them within 2 MB of its RSS after the first $SERVER_WARMUP" \
        "... and it exits 0 once its stdin ends, the store consistent"; do
        test_begin_subtest "$t"
        test_skip_ "the slow tier (MAILDEX_SLOW_TESTS=1): minutes of server requests"
    done
fi


# ---- new, tag and watch beside a sync tool ---------------------------------------------------------

# make_tree N: N messages soak-I@x in INBOX, Archive and lists/dev, named as mbsync names them
# (TIME.I_0.soakhost[,U=UID]:2,FLAGS in cur/, no info in new/ for one in seven).
make_tree() {
    python3 - "$MAIL_DIR" "$1" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
folders = ["INBOX", "Archive", "lists/dev"]
for f in folders:
    for d in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(root, f, d), exist_ok=True)
for i in range(n):
    base = "%d.%d_0.soakhost" % (1700000000 + i, i)
    if i % 7 == 0:
        path = os.path.join(folders[i % 3], "new", base)
    else:
        uid = ",U=%d" % (i + 1) if i % 2 else ""
        path = os.path.join(folders[i % 3], "cur", base + uid + ":2," + ["", "S", "FS", "RS"][i % 4])
    with open(os.path.join(root, path), "w") as f:
        f.write("From: Sender %d <s%d@example.org>\nTo: user@example.org\nSubject: soak %d\n"
                "Message-Id: <soak-%d@x>\nDate: Fri, 05 Jan 2001 15:43:00 +0000\n\nbody %d\n" % (i, i % 50, i, i, i))
PY
}

# renamer SECONDS N RECORD: a sync tool for SECONDS; what it did goes to RECORD as JSON (see doc above).
renamer() {
    python3 - "$MAIL_DIR" "$1" "$2" "$3" <<'PY'
import json, os, random, sys, time
root, seconds, n, record = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(72)
ops = dict.fromkeys(["deliver", "new-to-cur", "flag", "uid", "move", "delete", "lost-race"], 0)
deleted, moved, delivered = [], {}, []
def files(folders, sub):
    return [(f, sub, name) for f in folders for name in os.listdir(os.path.join(root, f, sub))]
def number(name):
    return int(name.split(".")[1].split("_")[0])
def split(name):  # base (with ",U=" if any), flags
    base, _, info = name.partition(":2,")
    return base, info
def move(f, sub, name, f2, sub2, name2, op):
    try:
        os.rename(os.path.join(root, f, sub, name), os.path.join(root, f2, sub2, name2))
        ops[op] += 1
        return True
    except FileNotFoundError:  # tag renamed it meanwhile for its flags
        ops["lost-race"] += 1
        return False
end, nxt, serial = time.time() + seconds, n, 0
while time.time() < end:
    serial += 1
    op = rng.choices(["deliver", "new-to-cur", "flag", "uid", "move", "delete"], [5, 10, 50, 15, 3, 1])[0]
    cur = files(["INBOX", "Archive", "lists/dev"], "cur")
    if op == "deliver":
        f, name = rng.choice(["INBOX", "lists/dev"]), "%d.%d_0.soakhost" % (1800000000 + nxt, nxt)
        with open(os.path.join(root, f, "tmp", name), "w") as out:
            out.write("From: New <new@example.org>\nTo: user@example.org\nSubject: delivered %d\n"
                      "Message-Id: <soak-%d@x>\nDate: Fri, 05 Jan 2001 16:00:00 +0000\n\nnew %d\n" % (nxt, nxt, nxt))
        move(f, "tmp", name, f, "new", name, op)
        delivered.append(nxt)
        nxt += 1
    elif op == "new-to-cur":
        new = files(["INBOX", "Archive", "lists/dev"], "new")
        if new:
            f, sub, name = rng.choice(new)
            move(f, sub, name, f, "cur", name + ":2,", op)
    elif op == "flag" and cur:
        f, sub, name = rng.choice(cur)
        base, flags = split(name)
        flags = "".join(sorted(set(flags) ^ {rng.choice("SFR")}))
        move(f, sub, name, f, sub, base + ":2," + flags, op)
    elif op == "uid" and cur:
        f, sub, name = rng.choice(cur)
        base, flags = split(name)
        move(f, sub, name, f, sub, "%s,U=%d:2,%s" % (base.split(",U=")[0], 100000 + serial, flags), op)
    elif op == "move" and len(moved) < 150:
        inbox = [c for c in cur if c[0] == "INBOX"]
        if inbox:
            f, sub, name = rng.choice(inbox)
            i, flags = number(name), split(name)[1]
            name2 = "%d.%d_%d.soakhost,U=%d:2,%s" % (1900000000 + serial, i, serial, serial, flags)
            if move(f, sub, name, "Archive", "cur", name2, op):
                moved[i] = "Archive"
    elif op == "delete" and len(deleted) < 40:
        mine = [c for c in cur if c[0] != "Archive"]
        if mine:
            f, sub, name = rng.choice(mine)
            try:
                os.unlink(os.path.join(root, f, sub, name))
                ops[op] += 1
                deleted.append(number(name))
            except FileNotFoundError:
                ops["lost-race"] += 1
    time.sleep(0.05)
with open(record, "w") as out:
    json.dump({"ops": ops, "deleted": deleted, "moved": moved, "delivered": delivered}, out)
PY
}

# soak_check RECORD DUMP N: what the store (maildex_store_dump's lines) should hold after the renamer's
# RECORD, N messages tagged keep at the start. Prints "# " lines, then one line of results.
soak_check() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
rec, n = json.load(open(sys.argv[1])), int(sys.argv[3])
store = {}
for line in open(sys.argv[2], encoding="utf-8"):
    mid, tags, files, _ = line.rstrip("\n").split("\t")
    store[mid] = (tags.split(), files.split())
ident = lambda i: "soak-%d@x" % i
deleted = set(rec["deleted"])
kept = [i for i in range(n) if i not in deleted]
lost = [i for i in kept if "keep" not in store.get(ident(i), ([], []))[0]]
gone = [i for i in deleted if ident(i) not in store]
moved = [i for i in map(int, rec["moved"]) if i not in deleted]
moved_ok = [i for i in moved if ident(i) in store and all(f.startswith("Archive/") for f in store[ident(i)][1])
            and (i >= n or "keep" in store[ident(i)][0])]
delivered = [i for i in rec["delivered"] if i not in deleted and ident(i) in store]
expected = n + len(rec["delivered"]) - len(deleted)
# A file in cur/ carries the flags its tags say (synchronize_flags), once new has run last.
flags = {"S": lambda t: "unread" not in t, "F": lambda t: "flagged" in t, "R": lambda t: "replied" in t}
disagree = [m for m, (t, fs) in store.items() if len(fs) == 1 and "/cur/" in fs[0]
            and any((c in fs[0].split(":2,")[1]) != want(t) for c, want in flags.items())]
print("# renamer: %s" % ", ".join("%s %d" % kv for kv in rec["ops"].items()))
print("# %d of %d messages kept their keep tag; %d of %d deleted gone; %d of %d moved in Archive with their"
      " tags; %d of %d delivered indexed; %d messages (%d expected); flags and tags disagree on %d"
      % (len(kept) - len(lost), len(kept), len(gone), len(deleted), len(moved_ok), len(moved),
         len(delivered), len(rec["delivered"]) - len(set(rec["delivered"]) & deleted), len(store), expected,
         len(disagree)))
if lost:
    print("# lost keep: " + " ".join(map(ident, lost[:10])))
if disagree:
    print("# flags disagree: " + " ".join(disagree[:10]))
print(len(lost), len(deleted) - len(gone), len(moved) - len(moved_ok), len(store) - expected, len(disagree))
PY
}

# soak_loops SECONDS N: `new` in a loop in the foreground and two loops of `tag` in the background,
# flipping unread and flagged (so renaming files for S and F) on random messages; counts in
# $new_runs, $new_failures, $tag_runs.
soak_loops() {
    end=$(($(date +%s) + $1))
    tag_pids=
    for k in 1 2; do
        (
            runs=0
            while [ "$(date +%s)" -lt "$end" ]; do
                r=$(((runs * 7919 + k * 104729) % $2))
                maildex tag -unread +flagged -- id:soak-$r@x || echo "tag failed" >&2
                maildex tag +unread -flagged -- id:soak-$r@x || echo "tag failed" >&2
                runs=$((runs + 2))
            done
            echo "$runs" > "$TMP_DIRECTORY/tag-runs-$k"
        ) 2>> "$TMP_DIRECTORY/tag-err" &
        tag_pids="$tag_pids $!"
    done
    new_loop "$end"
    wait $tag_pids
    tag_runs=$(($(cat "$TMP_DIRECTORY/tag-runs-1") + $(cat "$TMP_DIRECTORY/tag-runs-2")))
}

if [ "${MAILDEX_SLOW_TESTS:-}" = 1 ]; then
    make_tree "$SOAK_MESSAGES"
    maildex new > /dev/null 2>&1
    maildex tag +keep -- '*'
    : > "$TMP_DIRECTORY/tag-err"
    : > "$TMP_DIRECTORY/new-err"
    : > "$WLOG"
    maildex watch --foreground --no-hooks 2>> "$WLOG" &
    watch_pid=$!
    wait_log 'watching [0-9]* director'
    started=$(date +%s)
    renamer "$SOAK_SECONDS" "$SOAK_MESSAGES" "$TMP_DIRECTORY/record.json" &
    renamer_pid=$!
    soak_loops "$SOAK_SECONDS" "$SOAK_MESSAGES"
    wait $renamer_pid
    stop_watch
    maildex new > "$TMP_DIRECTORY/last-new" 2>&1
    last_new=$?
    echo "# $(($(date +%s) - started)) s: $new_runs new runs ($new_failures failed), $tag_runs tag runs;" \
        "watch: $(awk '/ added, / { n++; a += $(NF-10); d += $(NF-8); r += $(NF-6) }
            END { printf "%d rounds, %d added, %d removed, %d renamed", n, a, d, r }' "$WLOG")"
    maildex_store_dump > "$TMP_DIRECTORY/dump"
    soak_check "$TMP_DIRECTORY/record.json" "$TMP_DIRECTORY/dump" "$SOAK_MESSAGES" > "$TMP_DIRECTORY/check"
    sed -n '/^#/p' "$TMP_DIRECTORY/check"
    set -- $(tail -n 1 "$TMP_DIRECTORY/check") x x x x x

    test_begin_subtest "sync tool, new, tag and watch for $SOAK_SECONDS s: every message left keeps its tag"
    test_expect_equal "$1" 0

    test_begin_subtest "... the deleted messages are gone, the moved ones in their new folder with their tags"
    test_expect_equal "$2 $3" "0 0"

    test_begin_subtest "... every message delivered is indexed, and only those (none twice)"
    test_expect_equal "$4" 0

    test_begin_subtest "... every file in cur/ has the flags its message's tags say"
    test_expect_equal "$5" 0

    test_begin_subtest "... no new failed or wrote to stderr, no tag failed, watch exits 0 and no round failed"
    test_expect_equal "$new_failures|$last_new|$(cat "$TMP_DIRECTORY/new-err" "$TMP_DIRECTORY/tag-err" | head -n 5)|$watch_status|$(grep -E 'failed|Error' "$WLOG" | head -n 5)" \
        "0|0||0|"

    test_begin_subtest "... every file the index names is there, and the store is consistent"
    maildex search --output=files '*' | while read -r f; do [ -e "$f" ] || echo "missing: $f"; done > "$TMP_DIRECTORY/missing"
    test_expect_equal "$(head -n 5 "$TMP_DIRECTORY/missing")$(maildex_store_check)" "ok"
else
    for t in "sync tool, new, tag and watch for $SOAK_SECONDS s: every message left keeps its tag" \
        "... the deleted messages are gone, the moved ones in their new folder with their tags" \
        "... every message delivered is indexed, and only those (none twice)" \
        "... every file in cur/ has the flags its message's tags say" \
        "... no new failed or wrote to stderr, no tag failed, watch exits 0 and no round failed" \
        "... every file the index names is there, and the store is consistent"; do
        test_begin_subtest "$t"
        test_skip_ "the slow tier (MAILDEX_SLOW_TESTS=1): a sync tool for $SOAK_SECONDS s"
    done
fi

test_done
