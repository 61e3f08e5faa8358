#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of the S-expression query syntax (`--query=sexp`, notmuch-sexp-queries(7)) against
# the real notmuch: a generated Maildir (1,000 files, bench/gen) is indexed by both, then every query
# below goes through both tools and must give the same exit status and, when both succeed, the same
# `count`, `count --output=threads` and `search --output=messages` newest first and oldest first, in
# order (messages of the same date in the order they were indexed, as notmuch lists them). Each query
# is one subtest named by the query.
#
# The config excludes tag:draft (search.exclude_tags), so exclusion is compared too, and defines
# query.flagged for (query ...) and saved sexp queries and macros (squery.NAME) in the file.
# @ID@ stands for the Message-ID of the newest flagged message whose first six characters are not
# upper case (the same in both tools; a wildcard is lower-cased), @IDSTART@ for those six. Queries that hit a documented deviation (doc/query-syntax.md,
# "Differences from notmuch") are listed below the queries with their reason and skipped.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup "draft;" '
[query]
flagged=tag:flagged

[squery]
TagPlan=(and (tag flagged) plan)
TagWord=(macro (t w) (and (tag ,t) ,w))
Inner=(macro (x) (subject ,x))
Outer=(macro (x y) (and (tag ,x) (Inner ,y)))
About=(macro (name) (or (subject ,name) (from ,name)))'

python3 "$srcdir/bench/gen" --count 1000 --seed 5 "$MAIL_DIR" > "$TMP_DIRECTORY/gen.json"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

test_begin_subtest "both index the generated Maildir"
test_expect_equal "$(maildex count '*') $(maildex count '*' | sed 's/^[1-9][0-9]*$/some/')" \
    "$("$NOTMUCH" count '*') some"

cat > "$TMP_DIRECTORY/queries" <<'QUERIES'
# everything, nothing
()
(not)
(and)
(or)
(or ())
(not ())
*
# words outside fields: stemmed whatever their case, quoted ones exact
plan
Plan
plans
PLANNING
"plan"
"plans"
'plans
(and plan meeting)
(or plan meeting)
(not plan)
(not plan meeting)
(and plan (not meeting))
"planning meeting"
"the plan"
planning-meeting
user@example.org
(starts-with plan)
(starts-with Plan)
(starts-with deplo)
(starts-with plan-)
# subject: and from: (stemmed here, unlike the infix subject:plan)
(subject plan)
(subject Plan)
(subject "plan")
(subject plans review)
(subject (or plan review))
(subject "[ANN]")
(subject (starts-with relea))
(subject (rx "^\[rust\]"))
(subject (rx ^Re:))
(subject *)
(from sullivan)
(from "Raj Sullivan")
(from user@example.org)
(from (starts-with sulli))
(from (rx ^Raj))
(from sullivan jones)
(or (from sullivan) (from jones))
# to:, body:, attachment:, mimetype:
(to user@work.example.com)
(to dev@lists.example.org)
(to (starts-with dev))
(to *)
(not (to *))
(body planning)
(body "the plan")
(attachment pdf)
(attachment *)
(not (attachment *))
(mimetype application/pdf)
(mimetype (starts-with applic))
(mimetype text html)
# tag: and is:
(tag inbox)
(tag inbox unread)
(tag (or inbox flagged))
(tag (not unread))
(tag *)
(not (tag *))
(tag (starts-with un))
(tag (starts-with INB))
(is (rx "^(un|in)"))
(tag (rx flag))
(tag draft)
(is draft)
(tag "draft")
(tag Inbox)
# id: and mid:
(id @ID@)
(id @ID@ nonexistent@example.com)
(mid @ID@)
(id (starts-with @IDSTART@))
(mid (rx "@"))
(id *)
# thread: and (of ...)
(thread (of (from sullivan)))
(thread (matching (tag flagged)))
(and (thread (of (tag flagged))) (tag replied))
(thread (of (from sullivan) (tag inbox)))
(thread (of))
(thread (starts-with "0"))
(folder (of (id @ID@)))
(tag (of (id @ID@)))
(is (of (id @ID@)))
(subject (of (id @ID@)))
(from (of (id @ID@)))
(to (of (id @ID@)))
(subject (of (from sullivan)))
(from (of (subject review)))
(attachment (of (tag flagged)))
# folder: and path:
(folder INBOX)
(folder Drafts)
(folder lists/dev)
(folder lists/dev/)
(folder INBOX Sent)
(folder "")
(folder *)
(folder (starts-with lists))
(folder (rx "^lists/"))
(path INBOX/cur)
(path INBOX/cur/)
(path (starts-with lists))
(path (rx "new$"))
(property *)
(property (starts-with foo=))
# date: and lastmod:
(date 2023)
(date 2022-02-01 2022-03-31)
(date * 2019-07)
(date 2024-05-15 *)
(date "" 2019-07)
(date @1700000000 @1710000000)
(date 2020-03 !)
(date "jan 15 2021")
(date)
(and (date 2023) (tag inbox))
(lastmod)
(lastmod 0 *)
# infix, named and saved queries, macros
(infix "tag:inbox and plan")
(infix "thread:{from:sullivan}")
(and (infix "date:2023") (tag flagged))
(query flagged)
(and (query flagged) (not (tag inbox)) plan)
(TagPlan)
(TagWord inbox meeting)
(TagWord flagged (subject review))
(Outer inbox plan)
(About plan)
(About review)
# errors: the exit status
(
)
(foo)
((foo))
(subject (subject x))
(rx foo)
(body (rx foo))
(body *)
(id (of x))
(date hawaiian-pizza-day)
(lastmod apples)
(infix "from:/unbalanced")
(macro (a) a)
(TagWord)
QUERIES

# A query and why it is skipped, tab-separated.
cat > "$TMP_DIRECTORY/deviations" <<'DEVIATIONS'
DEVIATIONS

cat > "$TMP_DIRECTORY/compare.py" <<'PYTHON'
import difflib, json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

nm, md, queries, deviations, results = sys.argv[1:6]

def run(tool, *args):
    p = subprocess.run([tool] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape")

rc, flagged = run(nm, "search", "--output=messages", "tag:flagged")
ids = [line[3:] for line in flagged.splitlines()]
mid = next((i for i in ids if i[:6] == i[:6].lower()), ids[0] if ids else "none")

def expand(q):
    return q.replace("@IDSTART@", mid[:6]).replace("@ID@", mid)

def results_of(tool, q):
    out = []
    for args in (["count"], ["count", "--output=threads"], ["search", "--output=messages"],
                 ["search", "--output=messages", "--sort=oldest-first"]):
        rc, text = run(tool, args[0], "--query=sexp", *args[1:], q)
        if rc:
            return ["exit %d" % rc]
        lines = text.splitlines()
        out.append("%s: %s" % (" ".join(args), lines[0] if args[0] == "count" else len(lines)))
        if args[0] == "search":
            out.extend(lines)
    return out

skip = {}
with open(deviations) as f:
    for line in f:
        if line.strip():
            q, reason = line.rstrip("\n").split("\t", 1)
            skip[q] = reason
with open(queries) as f:
    todo = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]

def compare(q):
    if q in skip:
        return "skip\t%s\t%s\n" % (q, skip[q])
    a, b = results_of(nm, expand(q)), results_of(md, expand(q))
    if a == b:
        return "ok\t%s\t\n" % q
    diff = list(difflib.unified_diff(a, b, lineterm="", n=0))[2:]
    return "fail\t%s\t%s\n" % (q, json.dumps(["(- notmuch, + maildex)"] + diff[:20]))

with ThreadPoolExecutor(max_workers=2) as pool, open(results, "w") as res:
    for line in pool.map(compare, todo):
        res.write(line)
PYTHON

python3 "$TMP_DIRECTORY/compare.py" "$NOTMUCH" "$MAILDEX_BUILDDIR/cli/maildex" "$TMP_DIRECTORY/queries" \
    "$TMP_DIRECTORY/deviations" "$TMP_DIRECTORY/results"

while IFS='	' read -r status query detail; do
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
