#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of the query language, `search` and `count` against the real notmuch: a generated
# Maildir (3,000 files, bench/gen) and the corpus of real odd and malformed messages are indexed by
# both, then every query below goes through both tools and must give
#   - the same `count` and `count --output=threads`,
#   - the same `search --output=messages --limit=50` newest first and oldest first,
#   - the same `search --format=json --limit=20` summaries newest first and oldest first, every field
#     but "thread" (thread ids are each tool's own numbering); "query" is compared as a set of id:
#     terms, since the order of the terms of a query carries no meaning,
# or, for a query that is an error, the same exit status. Everything is compared in order, ties
# included: notmuch (Xapian) sorts by date and lists messages of the same date in the order it made
# their documents, in both directions, and so must maildex; --limit must cut the list at the same
# place. One documented difference remains (doc/notmuch-differences.md, "search"): notmuch makes a
# message's document when another message first names it in its References (a "ghost"), maildex
# orders it by when it was indexed. The messages of the table below, after the queries, are such
# messages that share their date with another one; a run of equal dates holding one is compared as a
# set (only its size when --limit cut it), and a thread holding one without its subject or the order
# of its authors. Dates come from notmuch (`show`). Each query is one subtest named by the query.
#
# The config excludes tag:draft (search.exclude_tags), so exclusion is compared too, and defines
# query.flaggedplans for query:. Queries that hit a documented deviation (doc/query-syntax.md,
# "Differences from notmuch") are listed in the table below the queries with their reason and
# skipped, each by its exact text. index.header.List=List-Id makes the lists' List-Id a user-defined
# field, compared as any other.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup "draft;" '
[query]
flaggedplans=tag:flagged and plan

[index]
header.List=List-Id'

python3 "$srcdir/bench/gen" --count 3000 --seed 2 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
if [ -n "$REAL_CORPUS" ]; then
    copy_corpus "$REAL_CORPUS" "$MAIL_DIR/real"
else
    echo "# the real corpus was not found: only the generated Maildir is searched"
fi
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

# The queries, one a line (# comments). Thread ids differ between the tools, so @thread:Q@ stands
# for the id, in each tool, of the newest thread matching Q. <empty> is the empty query.
cat > "$TMP_DIRECTORY/queries" <<'QUERIES'
# everything
*
<empty>
# free words: stemmed lower case, exact capitalised, non-ASCII, numbers
plan
plans
planning
Plan
meeting
deploy
café
Café
cafe
Inbox
c++
Straße
日本語
notmuch
release
# several words, implicit AND
plan meeting
# phrases and punctuation-joined words
"planning meeting"
"the plan"
"lunch plans"
a-b-c
user@example.org
# wildcards
plan*
deplo*
from:sulli*
subject:relea*
# from:
from:sullivan
from:"Raj Sullivan"
from:user@example.org
from:carl
from:cworth@cworth.org
from:sullivan from:jones
from:/^Raj/
# to:
to:user@work.example.com
to:user
to:dev@lists.example.org
# subject:
subject:released
subject:"[ANN]"
subject:PATCH
subject:plan
subject:(review plan)
subject:"(as be)"
subject:"(review or plan)"
subject:"(plans -lunch)"
from:"(raj sullivan)"
from:"(raj or carl)"
subject:notmuch
subject:/^\[rust\]/
subject:"/^Re: .*plan/"
# body:
body:planning
body:"the plan"
body:notmuch
# tag: and is:
tag:inbox
tag:unread
tag:flagged
tag:attachment
tag:draft
is:draft
tag:signed
is:unread
tag:INBOX
tag:inb*
tag:inbox tag:flagged
tag:unread from:sullivan tag:flagged
tag:"/^(un|in)/"
tag:/flag/
tag:(inbox flagged)
is:inbox tag:unread
# id: and mid:
id:20091117190054.GU3165@dottiness.seas.harvard.edu
id:nonexistent@example.com
id:20091117190054*
mid:20091118002059.067214ed@hikari
mid:/harvard\.edu$/
# thread:
thread:@thread:from:carl@
thread:@thread:folder:lists/dev@ and tag:unread
thread:0000000000000001x
thread:{from:carl} and not from:carl
thread:"{subject:notmuch}"
thread:{tag:flagged} and tag:replied
# folder: and path:
folder:INBOX
folder:Drafts
folder:lists/dev
folder:lists
folder:inbox
folder:cur
folder:""
folder:real/mu/testdir
folder:INBOX folder:Sent
folder:/^lists\//
folder:"/^(Sent|Drafts)$/"
path:INBOX/new
path:lists/**
path:real/**
# a ghost-ordered message and the one of its date (the ghost-order table below)
path:real/notmuch/threading/ghost-root/**
path:**
path:""
path:"/^lists\/(dev|rust)\/new$/"
# date:
date:2023
date:2022-02-01..2022-03-31
date:..2019-07
date:2024-05-15..
date:@1700000000..@1710000000
1700000000..1710000000
date:2020-03..!
date:01/15/2021..02/15/2021
date:jan_2021
date:"jan 15 2021"
date:jan_15_2021..2021-02
date:"jan 15 2021"..2021-02
date:"jan 15 2021..feb 2021"
date:"2021"..2021-02
date:1960..1971
date:1700000000..
date:2023-06-01_12:00..2023-06-02_12:00
date:2024-01-01T11:00..
date:1970-01-01
date:..
date:..1971
date:@0..@0
..1700000000
wait...
date:2023 date:2021
# attachment: and mimetype:
attachment:pdf
attachment:csv
attachment:broken.pdf
mimetype:application/pdf
mimetype:text/html
mimetype:image/png
mimetype:multipart/alternative
mimetype:multipart/signed
# property: (none is set)
property:foo=bar
property:"index.decryption=success"
# query: (a named query from the config file)
query:flaggedplans
query:flaggedplans or tag:passed
# an undefined named query matches nothing
query:undefined
query:undefined or tag:passed
# the messages without a From word or a Subject word
from:""
subject:""
# a user-defined field (index.header.List=List-Id): words, stems, phrases, prefixes, combined
List:dev
List:users
List:lists.example.org
List:"Rust users"
List:announc*
List:kernel and plan
not List:dev and tag:inbox
dev.lists.example.org
# operators
tag:inbox and tag:unread
tag:inbox AND NOT tag:unread
tag:inbox or tag:flagged
tag:flagged OR tag:replied and from:sullivan
tag:inbox xor tag:unread
not tag:unread
tag:inbox -tag:unread
-tag:inbox
+tag:flagged plan
(tag:flagged or tag:replied) and (folder:INBOX or folder:Archive)
((plan or meeting) and not deploy) and date:2023
tag:inbox and not (from:sullivan or from:jones)
' tag:flagged '
tag:inbox and (
plan and or
QUERIES

# Queries that hit a documented deviation (doc/query-syntax.md, "Differences from notmuch"), by
# their exact text, with the reason; they are skipped, nothing else is.
cat > "$TMP_DIRECTORY/deviations" <<'DEVIATIONS'
cafe	accents are folded: maildex's cafe also finds café (notmuch: cafe does not match café)
Inbox	capitalised words do not match tags: in notmuch an unprefixed capitalised word also matches the tag of that name (Inbox finds every tag:inbox message)
c++	tokenisation: unicode61 drops the "+" signs, so maildex's c++ is the word c (Xapian keeps c++ as one term)
subject:(review plan)	prefixed groups: maildex applies subject: to every word inside, notmuch (Xapian) only to the first (subject:review and plan anywhere)
tag:(inbox flagged)	prefixed groups: maildex reads tag:inbox and tag:flagged, notmuch (Xapian) the tag "(inbox", which matches nothing
from:""	what from: indexes: maildex the From header's text, notmuch the mailboxes gmime parses out of it, so "From: MAILER DAEMON <>" has words in maildex and none in notmuch
subject:""	long words: a subject that is one word of more than 64 bytes has no term in Xapian (notmuch), and that word in maildex
DEVIATIONS

# Message-ID, tab, why: messages that notmuch orders among their equal dates as a ghost (above).
cat > "$TMP_DIRECTORY/ghost-order" <<'GHOSTS'
000-real-root@example.org	notmuch/threading/ghost-root: child, indexed first, names it, so notmuch's document for it is older than fake-root's, which has the same date and is indexed before it
GHOSTS

cat > "$TMP_DIRECTORY/compare.py" <<'PYTHON'
import concurrent.futures, difflib, json, subprocess, sys

nm, md, queries, deviations, ghost_order, out = sys.argv[1:7]
LIMIT_MESSAGES, LIMIT_SUMMARY = 50, 20

def run(tool, *args, stdin=None):
    # a query starting with "-" would read as an option: a leading space changes nothing else
    args = [a if not a.startswith("-") or a.startswith("--") else " " + a for a in args]
    p = subprocess.run([tool] + args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape")

# Message dates, from notmuch (exclusions off, every message); the dates of the ghost-ordered ones.
dates = {}
def walk(node):
    if isinstance(node, dict):
        dates[node["id"]] = node["timestamp"]
    elif isinstance(node, list):
        for child in node:
            walk(child)
walk(json.loads(run(nm, "show", "--format=json", "--body=false", "--entire-thread=false",
                    "--exclude=false", "*")[1]))
with open(ghost_order, encoding="utf-8") as f:
    ghosts = {line.split("\t", 1)[0] for line in f if line.strip()}
ghost_dates = {dates[g] for g in ghosts if g in dates}

def ghost_runs(items, date, holds, limit):
    """items with each run of equal dates that holds a ghost-ordered message sorted, and reduced to
    its size when it is the last and the limit may have cut it; every other item in place."""
    out, i = [], 0
    while i < len(items):
        j = i + 1
        while j < len(items) and date(items[j]) == date(items[i]):
            j += 1
        run = items[i:j]
        if date(items[i]) in ghost_dates and any(holds(x) for x in run):
            if j == len(items) and len(items) >= limit:
                run = ["(%d at date %s, cut by the limit)" % (len(run), date(items[i]))]
            else:
                run = sorted(run, key=lambda x: json.dumps(x, sort_keys=True, ensure_ascii=False))
        out.extend(run)
        i = j
    return out

def thread_of(tool, q):
    rc, text = run(tool, "search", "--output=threads", "--limit=1", q)
    return text.strip().replace("thread:", "") or "none"

def expand(tool, q):
    while "@thread:" in q:
        i = q.index("@thread:")
        j = q.index("@", i + 1)
        q = q[:i] + thread_of(tool, q[i + 8:j]) + q[j + 1:]
    return "" if q == "<empty>" else q

def messages(tool, q, sort):
    rc, text = run(tool, "search", "--format=json", "--output=messages", "--sort=" + sort,
                   "--limit=%d" % LIMIT_MESSAGES, q)
    if rc:
        return ["exit %d" % rc]
    items = ghost_runs(json.loads(text), lambda m: dates.get(m), lambda m: m in ghosts, LIMIT_MESSAGES)
    return [json.dumps(m, ensure_ascii=False) for m in items]

def summary(tool, q, sort):
    rc, text = run(tool, "search", "--format=json", "--sort=" + sort, "--limit=%d" % LIMIT_SUMMARY, q)
    if rc:
        return ["exit %d" % rc]
    threads = json.loads(text)
    for t in threads:
        t.pop("thread", None)
        t["query"] = [None if x is None else sorted(x.split(" ")) for x in t.get("query", [None, None])]
        if any(x and ("id:" + g) in x for x in t["query"] for g in ghosts):
            t["subject"] = "(not compared: a ghost-ordered message)"
            t["authors"] = [sorted(part.split(", ")) for part in t.get("authors", "").split("| ")]
    holds = lambda t: t["subject"].startswith("(not compared")
    threads = ghost_runs(threads, lambda t: t.get("timestamp"), holds, LIMIT_SUMMARY)
    # one line per field, so that a diff names the field that differs
    lines = []
    for n, t in enumerate(threads):
        if isinstance(t, str):
            lines.append("[%d] %s" % (n, t))
            continue
        for key, value in sorted(t.items()):
            lines.append("[%d] %s: %s" % (n, key, json.dumps(value, ensure_ascii=False)))
    return lines

def count(tool, q, *opts):
    rc, text = run(tool, "count", *opts, q)
    return ["exit %d" % rc] if rc else [text.strip()]

def searches(q):
    qn, qm = expand(nm, q), expand(md, q)
    got = {"q": (qn, qm)}
    for name, fn in (("messages newest-first --limit=50", lambda t, x: messages(t, x, "newest-first")),
                     ("messages oldest-first --limit=50", lambda t, x: messages(t, x, "oldest-first")),
                     ("summary newest-first --limit=20", lambda t, x: summary(t, x, "newest-first")),
                     ("summary oldest-first --limit=20", lambda t, x: summary(t, x, "oldest-first"))):
        got[name] = (fn(nm, qn), fn(md, qm))
    return got

skip = {}
with open(deviations, encoding="utf-8") as f:
    for line in f:
        if line.strip() and not line.startswith("#"):
            q, reason = line.rstrip("\n").split("\t", 1)
            skip[q] = reason
with open(queries, encoding="utf-8") as f:
    all_queries = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
todo = [q for q in all_queries if q not in skip]

# The searches, several queries at a time; then the counts of every query that is not an error in
# either tool in one `count --batch` per tool and output (an error would end a batch).
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
    got = dict(zip(todo, pool.map(searches, todo)))
def is_error(lines):
    return lines[:1] != [] and lines[0].startswith("exit ")  # data lines start with " ( or [
def failed(q):
    return any(is_error(side) for side in got[q]["messages newest-first --limit=50"])
good = [q for q in todo if not failed(q)]
for name, opts in (("count", ()), ("count --output=threads", ("--output=threads",))):
    for side, tool in ((0, nm), (1, md)):
        batch = "".join(got[q]["q"][side] + "\n" for q in good).encode("utf-8")
        rc, text = run(tool, "count", "--batch", *opts, stdin=batch)
        values = text.split("\n")[:len(good)]
        if rc or len(values) != len(good):
            values = [count(tool, got[q]["q"][side], *opts)[0] for q in good]
        for q, v in zip(good, values):
            got[q].setdefault(name, [None, None])[side] = [v.strip()]
    for q in todo:
        if q not in good:
            got[q][name] = [count(tool, got[q]["q"][side], *opts) for side, tool in ((0, nm), (1, md))]

ORDER = ["count", "count --output=threads", "messages newest-first --limit=50",
         "messages oldest-first --limit=50", "summary newest-first --limit=20",
         "summary oldest-first --limit=20"]
with open(out, "w", encoding="utf-8") as res:
    for q in all_queries:
        if q in skip:
            res.write("skip\t%s\t%s\n" % (q, skip[q]))
            continue
        diffs = []
        for name in ORDER:
            a, b = got[q][name]
            if a != b:
                diffs.append("%s differs (- notmuch, + maildex):" % name)
                diffs.extend(list(difflib.unified_diff(a, b, lineterm="", n=0))[3:])
            # both are errors: the exit statuses were compared, the rest says the same again
            if is_error(a) and is_error(b):
                break
        if diffs:
            res.write("fail\t%s\t%s\n" % (q, json.dumps(diffs[:20])))
        else:
            res.write("ok\t%s\t\n" % q)
PYTHON

python3 "$TMP_DIRECTORY/compare.py" "$NOTMUCH" "$MAILDEX_BUILDDIR/cli/maildex" "$TMP_DIRECTORY/queries" \
    "$TMP_DIRECTORY/deviations" "$TMP_DIRECTORY/ghost-order" "$TMP_DIRECTORY/results"

tab=$(printf '\t')
while IFS="$tab" read -r status query detail; do
    test_begin_subtest "$query"
    case $status in
    ok) test_ok_ ;;
    skip)
        test_count=$((test_count + 1))
        echo "ok $test_count - $query # SKIP documented deviation: $detail"
        ;;
    *) test_failure_ "$(printf '%s' "$detail" | python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)))')" ;;
    esac
done < "$TMP_DIRECTORY/results"

test_done
