#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of `address` against the real notmuch 0.37: a generated Maildir (400 files,
# bench/gen: quoted "Last, First" names, RFC 2047 names in three charsets, raw UTF-8 names, bare
# addresses, lists, Cc and Bcc) and every message of the corpus of real odd and malformed messages,
# indexed by both. Every --output (sender, recipients, both, with address, with count), every
# --deduplicate, both sorts, and JSON, S-expressions (read by the small reader below), text and
# text0; outputs are compared after parsing and byte for byte as follows.
#
#   - Printed as read (--deduplicate=no or mailbox, no count): the same items in the same order,
#     byte for byte, messages of the same date in the order notmuch made their documents. That is
#     the order they were indexed but for a message another one named in its References before it
#     arrived (a "ghost", doc/notmuch-differences.md, "search"): the runs of equal dates that hold
#     such a message (the ghost-order table below) are left out and compared on their own as
#     multisets.
#   - Printed after the whole pass (--output=count, --deduplicate=address): notmuch prints its hash
#     table, "the order of the results is unspecified" (notmuch-address(1)), so the items are
#     compared sorted, byte for byte. With --deduplicate=address notmuch prints, of the spellings of
#     one address, the most frequent; of equally frequent ones the first it read, in its database's
#     document order, which maildex follows but for "ghost" documents: there the pair printed by
#     each tool must be one of the most frequent pairs of that address, as notmuch's own
#     --deduplicate=mailbox --output=count reports them, with the same total.
#   - The same after a whole pass, byte for byte, in order, on a folder (addr/) of messages that no
#     message names in its References: both tools then read them in the same order (the order the
#     files were indexed), and their tables, the same GLib table with notmuch's hash, must come out
#     alike. Its addresses mix case, non-ASCII bytes (the hash adds each byte's unsigned value) and
#     equally frequent spellings.
#   - Errors: the same exit status, and for --output=count --deduplicate=no the same message.
# Each comparison is one subtest. Messages that hit a documented difference (doc/notmuch-differences.md,
# "address") are listed below by Message-ID with the reason, and left out of every comparison; each
# shows as a skipped subtest.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup "draft;"

python3 "$srcdir/bench/gen" --count 400 --seed 5 "$MAIL_DIR" > /dev/null
# addr/: 80 messages that name no other, for the whole-pass outputs compared in order.
python3 - "$MAIL_DIR/addr" <<'PYTHON'
import os, sys
root = sys.argv[1]
for d in ("cur", "new", "tmp"):
    os.makedirs(os.path.join(root, d))
names = ["Jörg Müller", "J. Müller", "", "Zoë", "Łukasz", "O'Brien, Pat", "日本"]
domains = ["exämple.de", "EXAMPLE.org", "example.org", "ÿ.net"]
def mailbox(name, address):
    if not name:
        return address
    return ('"%s" <%s>' if "," in name else "%s <%s>") % (name, address)
for i in range(80):
    sender = "user%d@%s" % (i % 23, domains[i % 4])
    sender = sender.upper() if i % 5 == 0 else sender
    to = [mailbox(names[(i + 3) % len(names)], "x%d@Exämple.de" % (i % 7)),
          mailbox("Ü", "ue%d@exämple.de" % (i % 9))]
    with open(os.path.join(root, "cur", "a%03d:2,S" % i), "w", encoding="utf-8") as f:
        f.write("From: %s\nTo: %s\nCc: c%d@example.com\nSubject: a%d\n"
                "Date: Mon, 01 Jan 2024 %02d:%02d:00 +0000\nMessage-ID: <addr%d@example.net>\n\nbody\n"
                % (mailbox(names[i % len(names)], sender), ", ".join(to), i % 4, i, i // 60, i % 60, i))
PYTHON
if [ -n "$REAL_CORPUS" ]; then
    copy_corpus "$REAL_CORPUS" "$MAIL_DIR/real"
else
    echo "# the real corpus was not found: only the generated Maildir is compared"
fi
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

# Message-ID, tab, why: messages that notmuch orders among their equal dates as a ghost (above).
cat > "$TMP_DIRECTORY/ghost-order" <<'GHOSTS'
000-real-root@example.org	notmuch/threading/ghost-root: child, indexed first, names it, so notmuch's document for it is older than fake-root's, which has the same date and is indexed before it
GHOSTS

# Message-ID, tab, why it is left out.
cat > "$TMP_DIRECTORY/deviations" <<'DEVIATIONS'
F21768750C2E4303B37CA8EDCD498C67@dm3.entee.co.uk	copies of one message with different To headers (enmime's test files): notmuch reads From, as Date and Subject, from the copy it indexed first, but To/Cc/Bcc from the first copy in its list of file names (ordered by its directory's document id, then name), so the two may come from different copies; maildex reads all of a message's addresses from the copy that made the message, as both read its Date and Subject
DEVIATIONS

cat > "$TMP_DIRECTORY/compare.py" <<'PYTHON'
import collections, concurrent.futures, itertools, json, subprocess, sys

nm, md, deviations, ghost_order, out = sys.argv[1:6]
with open(deviations, encoding="utf-8") as f:
    skipped = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
with open(ghost_order, encoding="utf-8") as f:
    ghosts = [line.split("\t", 1)[0] for line in f if line.strip()]

def run(tool, *args):
    p = subprocess.run([tool] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr

# ---- notmuch's S-expressions: lists, plists (read as dicts), strings, integers, t and nil
class Keyword(str):
    pass

def sexp(data):
    pos = 0
    def blank():
        nonlocal pos
        while pos < len(data) and data[pos] in b" \n":
            pos += 1
    def value():
        nonlocal pos
        blank()
        c = data[pos:pos + 1]
        if c == b"(":
            pos += 1
            items = []
            while True:
                blank()
                if data[pos:pos + 1] == b")":
                    pos += 1
                    break
                items.append(value())
            if items and len(items) % 2 == 0 and all(isinstance(k, Keyword) for k in items[0::2]):
                return dict(zip(items[0::2], items[1::2]))
            return items
        if c == b'"':
            pos += 1
            text = bytearray()
            while data[pos:pos + 1] != b'"':
                if data[pos:pos + 1] == b"\\":
                    nxt = data[pos + 1:pos + 2]
                    if nxt == b"n":
                        text.append(10)
                        pos += 2
                    elif nxt in (b'"', b"\\"):
                        text += nxt
                        pos += 2
                    else:  # \ooo
                        text.append(int(data[pos + 1:pos + 4], 8))
                        pos += 4
                else:
                    text.append(data[pos])
                    pos += 1
            pos += 1
            return text.decode("utf-8", "surrogateescape")
        start = pos
        while pos < len(data) and data[pos:pos + 1] not in (b" ", b"\n", b"(", b")"):
            pos += 1
        atom = data[start:pos].decode()
        if atom.startswith(":"):
            return Keyword(atom[1:])
        return {"nil": None, "t": True}.get(atom, None) if atom in ("nil", "t") else int(atom)
    v = value()
    blank()
    if pos != len(data):
        raise ValueError("bytes after the top-level list")
    return [] if v is None else v

def parse(fmt, data):
    if fmt == "json":
        return json.loads(data.decode("utf-8", "surrogateescape"))
    if fmt == "sexp":
        return sexp(data)
    sep = b"\0" if fmt == "text0" else b"\n"
    if data and not data.endswith(sep):
        raise ValueError("no separator after the last item")
    return [i.decode("utf-8", "surrogateescape") for i in data.split(sep)[:-1]]

def raw_items(fmt, data):
    """The bytes of each item, for a comparison of unordered output byte for byte."""
    if fmt in ("text", "text0"):
        return sorted(data.split(b"\0" if fmt == "text0" else b"\n")[:-1])
    body = data.rstrip(b"\n")[1:-1]
    return sorted(item.rstrip(b",") for item in body.split(b"\n")) if body else []

def fold(address):
    return address.encode("utf-8", "surrogateescape").lower()  # ASCII only, as strcasecmp

# ---- the corpus: dates (from notmuch), the runs of equal dates that hold a ghost-ordered message
dates = {}
def walk(node):
    if isinstance(node, dict):
        dates[node["id"]] = node["timestamp"]
    elif isinstance(node, list):
        for child in node:
            walk(child)
walk(json.loads(run(nm, "show", "--format=json", "--body=false", "--entire-thread=false",
                    "--exclude=false", "*")[1]))
for mid, _ in skipped:
    dates.pop(mid, None)
ties = sorted({dates[g] for g in ghosts if g in dates and list(dates.values()).count(dates[g]) > 1})
every = " and ".join("not id:%s" % mid for mid, _ in skipped) or "*"
alone = every + (" and not (%s)" % " or ".join("date:@%d..@%d" % (d, d) for d in ties) if ties else "")

def address(*args):
    return [run(tool, "address", *args) for tool in (nm, md)]

def status(a, b):
    if a[0] != b[0]:
        return ["exit %d, maildex exit %d: %s" % (a[0], b[0], b[2].decode(errors="replace"))]
    return None

# ---- the comparisons: each returns a list of differences
def as_read(outputs, dedup, fmt, sort, exclude="true"):
    a, b = address(*["--output=" + o for o in outputs], "--deduplicate=" + dedup, "--format=" + fmt,
                   "--sort=" + sort, "--exclude=" + exclude, alone)
    diffs = status(a, b)
    if diffs is not None:
        return diffs
    x, y = parse(fmt, a[1]), parse(fmt, b[1])
    if x != y:
        n = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        return ["item %d of %d/%d: notmuch %r, maildex %r" % (n, len(x), len(y), x[n:n + 1], y[n:n + 1])]
    return [] if a[1] == b[1] else ["parsed alike, bytes differ"]

def tie_run(date):
    q = "date:@%d..@%d" % (date, date) + "".join(" and not id:" + mid for mid, _ in skipped)
    diffs = []
    for fmt in ("json", "text"):
        a, b = address("--output=sender", "--output=recipients", "--deduplicate=no", "--format=" + fmt,
                       "--exclude=false", q)
        d = status(a, b)
        if d is None and raw_items(fmt, a[1]) != raw_items(fmt, b[1]):
            d = ["%s: the multisets differ" % fmt]
        diffs += d or []
    return diffs

def pairs_of(headers):
    """notmuch's pairs of each address, with their counts: {folded address: [pair, ...]}"""
    rc, data, _ = run(nm, "address", *["--output=" + h for h in headers], "--output=count",
                      "--deduplicate=mailbox", "--format=json", every)
    by = collections.defaultdict(list)
    for p in json.loads(data):
        by[fold(p["address"])].append(p)
    return by

def renderings(fmt, data, known):
    """The items of an output; in text, an item of several lines (a name with a newline) is one
    item when it is one of the known renderings."""
    if fmt in ("json", "sexp"):
        return [json.dumps(i, sort_keys=True, ensure_ascii=False) for i in parse(fmt, data)]
    lines, items, i = parse(fmt, data), [], 0
    spans = sorted({r.count("\n") + 1 for r in known}, reverse=True)
    while i < len(lines):
        k = next((k for k in spans if "\n".join(lines[i:i + k]) in known), 1)
        items.append("\n".join(lines[i:i + k]))
        i += k
    return items

def popular(outputs, fmt, sort):
    headers = [o for o in outputs if o in ("sender", "recipients")]
    counted, bare = "count" in outputs, "address" in outputs
    # what may be printed for each address: any of its most frequent pairs, with the total
    accept, key_of = {}, {}
    for key, ps in pairs_of(headers).items():
        top, total = max(p["count"] for p in ps), sum(p["count"] for p in ps)
        for p in (p for p in ps if p["count"] == top):
            if fmt in ("json", "sexp"):
                item = {"name": p["name"], "address": p["address"], "name-addr": p["name-addr"]}
                if counted:
                    item["count"] = total
                r = json.dumps(item, sort_keys=True, ensure_ascii=False)
            else:
                r = ("%d\t" % total if counted else "") + (p["address"] if bare else p["name-addr"])
            accept.setdefault(key, set()).add(r)
            key_of[r] = key
    a, b = address(*["--output=" + o for o in outputs], "--deduplicate=address", "--format=" + fmt,
                   "--sort=" + sort, every)
    diffs = status(a, b)
    if diffs is not None:
        return diffs
    diffs = []
    for who, res in (("notmuch", a), ("maildex", b)):
        seen = collections.Counter()
        for r in renderings(fmt, res[1], key_of):
            if r not in key_of:
                diffs.append("%s printed %r, not a most frequent pair" % (who, r))
            else:
                seen[key_of[r]] += 1
        if set(seen) != set(accept) or any(n != 1 for n in seen.values()):
            diffs.append("%s: %d addresses printed, %d expected, once each" % (who, sum(seen.values()),
                                                                               len(accept)))
    return diffs[:10]

def counted(outputs, fmt, sort):
    a, b = address(*["--output=" + o for o in outputs], "--deduplicate=mailbox", "--format=" + fmt,
                   "--sort=" + sort, every)
    diffs = status(a, b)
    if diffs is not None:
        return diffs
    parse(fmt, b[1])  # well-formed
    x, y = raw_items(fmt, a[1]), raw_items(fmt, b[1])
    if x != y:
        return ["items differ (- notmuch, + maildex):"] + \
            ["- %r" % i for i in sorted(set(x) - set(y))][:5] + ["+ %r" % i for i in sorted(set(y) - set(x))][:5]
    return []

def in_order(outputs, dedup, fmt):
    a, b = address(*["--output=" + o for o in outputs], "--deduplicate=" + dedup, "--format=" + fmt,
                   "folder:addr")
    diffs = status(a, b)
    if diffs is not None:
        return diffs
    if a[1] != b[1]:
        x, y = a[1].split(b"\n"), b[1].split(b"\n")
        n = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        return ["line %d: notmuch %r, maildex %r" % (n + 1, x[n:n + 1], y[n:n + 1])]
    return []

def error(*args, message=False):
    a, b = address(*args)
    if a[0] != b[0] or a[0] == 0:
        return ["exit %d, maildex exit %d" % (a[0], b[0])]
    if message and a[2] != b[2]:
        return ["stderr %r, maildex %r" % (a[2], b[2])]
    return []

FORMATS = ("json", "sexp", "text", "text0")
SORTS = ("newest-first", "oldest-first")
jobs = []
for outputs in (["sender"], ["recipients"], ["sender", "recipients"], ["sender", "address"],
                ["recipients", "address"]):
    for dedup, fmt, sort in itertools.product(("no", "mailbox"), FORMATS, SORTS):
        jobs.append(("%s --deduplicate=%s --format=%s --sort=%s, in order" % (
            " ".join("--output=" + o for o in outputs), dedup, fmt, sort), as_read, (outputs, dedup, fmt, sort)))
for sort in SORTS:
    jobs.append(("--output=sender --output=recipients --deduplicate=no --format=json --exclude=false "
                 "--sort=%s, in order" % sort, as_read, (["sender", "recipients"], "no", "json", sort, "false")))
for d in ties:
    jobs.append(("the %d messages dated @%d, with a ghost-ordered one, as multisets" % (
                 list(dates.values()).count(d), d),
                 tie_run, (d,)))
for outputs in (["sender", "count"], ["recipients", "count"], ["sender", "recipients", "count"],
                ["sender", "recipients", "count", "address"]):
    for fmt, sort in itertools.product(("json", "sexp", "text"), SORTS):
        jobs.append(("%s --deduplicate=mailbox --format=%s --sort=%s, sorted" % (
            " ".join("--output=" + o for o in outputs), fmt, sort), counted, (outputs, fmt, sort)))
for outputs in (["sender"], ["recipients"], ["sender", "recipients"], ["sender", "recipients", "address"],
                ["sender", "recipients", "count"]):
    for fmt, sort in itertools.product(("json", "sexp", "text"), SORTS):
        jobs.append(("%s --deduplicate=address --format=%s --sort=%s, most frequent pairs" % (
            " ".join("--output=" + o for o in outputs), fmt, sort), popular, (outputs, fmt, sort)))
for outputs in (["sender", "count"], ["recipients", "count"], ["sender", "recipients", "count"],
                ["sender", "recipients"], ["sender", "recipients", "count", "address"]):
    for dedup, fmt in itertools.product(("mailbox", "address"), ("json", "sexp", "text")):
        if dedup == "mailbox" and "count" not in outputs:
            continue
        jobs.append(("%s --deduplicate=%s --format=%s on folder:addr, in order" % (
            " ".join("--output=" + o for o in outputs), dedup, fmt), in_order, (outputs, dedup, fmt)))
jobs += [
    ("error: --output=count --deduplicate=no", lambda: error("--output=count", "--deduplicate=no", "*",
                                                           message=True), ()),
    ("error: no query", lambda: error("--output=sender"), ()),
    ("error: a malformed query", lambda: error("from:a and"), ()),
    ("error: --format-version=0", lambda: error("--format-version=0", "*"), ()),
    ("error: --format-version=6", lambda: error("--format-version=6", "*"), ()),
    ("error: --output=bogus", lambda: error("--output=bogus", "*"), ()),
    ("error: --exclude=flag", lambda: error("--exclude=flag", "*"), ()),
]

def do(job):
    name, fn, args = job
    try:
        return name, fn(*args)
    except Exception as e:  # a parse failure is a difference, not a crash of the test
        return name, ["%s: %s" % (type(e).__name__, e)]

with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(do, jobs))
with open(out, "w", encoding="utf-8") as res:
    for mid, reason in skipped:
        res.write("skip\tid:%s\t%s\n" % (mid, reason))
    for name, diffs in results:
        res.write("%s\t%s\t%s\n" % ("fail" if diffs else "ok", name, json.dumps(diffs[:12])))
PYTHON

python3 "$TMP_DIRECTORY/compare.py" "$NOTMUCH" "$MAILDEX_BUILDDIR/cli/maildex" "$TMP_DIRECTORY/deviations" \
    "$TMP_DIRECTORY/ghost-order" "$TMP_DIRECTORY/results"

tab=$(printf '\t')
while IFS="$tab" read -r status name detail; do
    test_begin_subtest "$name"
    case $status in
    ok) test_ok_ ;;
    skip)
        test_count=$((test_count + 1))
        echo "ok $test_count - $name # SKIP documented deviation: $detail"
        ;;
    *) test_failure_ "$(printf '%s' "$detail" | python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)))')" ;;
    esac
done < "$TMP_DIRECTORY/results"

test_done
