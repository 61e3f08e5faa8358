#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of malformed queries against the real notmuch: unbalanced parentheses, unterminated
# quotes, stray operators, signs, quotes and apostrophes, empty groups, prefixes with nothing after
# them, words with `..`. A generated Maildir (300 files, bench/gen) is indexed by both tools, and every
# query below must give the same `count` in both, or the same exit status when it is an error. notmuch
# reads such queries as Xapian's QueryParser does: unclosed groups and quotes close at the end, a
# "parse error" makes it read the query again with every word a term, and an operator missing an
# operand is an error (doc/query-syntax.md, "Malformed queries"). Each query is one subtest; queries
# that hit a documented deviation are listed with their reason and skipped by their exact text.
#
# Then queries generated from fragments (a fixed seed, so the same ones every run) are compared the same
# way in one subtest; a generated query that matches one of the deviation patterns is skipped.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup ""

python3 "$srcdir/bench/gen" --count 300 --seed 3 "$MAIL_DIR" > /dev/null
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1

# One query a line (# comments).
cat > "$TMP_DIRECTORY/queries" <<'QUERIES'
# parentheses: unclosed ones close at the end; ')' without '(' reads the query again as plain words
((a)
(a
(tag:inbox
(a or b
not (a
((a) or b
a (b
a ( b
( a
tag:inbox (tag:unread
+a -- (from:sullivan
a)
a))
a )
a ) b
)
))
)(
))a
(a))
(a or b))
a) or (b
(a) b)
) and a
tag:inbox)
tag:inbox)) or a
a)) or tag:inbox
plan)
plan*)
subject:plan*)
from:sulli*)
to:user*)
"the plan")
the plan)
body:(plan
body:(plan))
to:(
body:(
a and b)
not a)
not a or b)
tag:(inbox
tag:(inbox)
thread:{ }
thread:{ * }
# parentheses that open nothing: at the end, empty, stuck to a word
(
((
a (
a ((
a ( (
()
( )
(())
a ()
() a
(*)
a(b
plan(a
(a)(b)
(a)b
# quotes: unclosed ones close at the end
subject:"unterminated
subject:"plan
"abc
"planning meeting
from:"x y
from:"raj sullivan
tag:"foo
tag:"inbox
id:"x
"a b" "c
a "b c
"a (b
subject:"(review or plan
subject:"(plan
from:"(raj
to:"x y
to:"user@work.example.com
to:"work.example com
body:"the plan
(body:"the plan
thread:"{a
“planning meeting
tag:“inbox
to:“user
# curly quotes are quotes
“plan”
“plan"
"plan”
plan”
tag:"inbox”
tag:"inbox” a
subject:“plan”
to:“user”
plan“x”
“a b” “c
# quotes that open nothing, and empty phrases
”
“”
“ ”
a ”
a “” b
tag:inbox and “
"
""
"""
a "
" a
a ""
"" a
"a""
"a"" b"
"'"
a "'"
tag:inbox and "'"
plan and "'"
to:""
body:""
subject:""
from:""
tag:""
planning"
plan"a
a"b
tag:inbox"
"tag:inbox
# operators without operands
and
a and
or b
a or or b
not
a not
xor
a and and b
and a
or
a or
a xor
xor a
not not a
a and not
a not not b
a and not not b
NOT
a AND
a aNd
AND a
tag:inbox and (
tag:inbox and ()
tag:inbox and ( )
tag:inbox and "
tag:inbox or "
tag:inbox and '
not "
not (
( and a
(and a)
(a and)
(or a)
a (or b)
and )
a and )
and)
a or xor tag:flagged
a or and tag:flagged
# operators that are fine, in any case
a not b
a NOT b
a And b
a oR b
NOT a
Not a
a AnD NoT b
a or not b
a xor not b
not (not a)
# Xapian forgets the error when a boolean-prefixed term follows in the same step, and starts again there
a or or tag:inbox
a and and tag:flagged
not not tag:flagged
a not not tag:flagged
a xor or tag:flagged
a and or tag:flagged
a not xor tag:flagged
or or tag:flagged
and or tag:flagged
not or tag:flagged
a or or +tag:flagged
a or or -tag:flagged
a or or is:flagged
a or or id:x
a or or folder:INBOX
a or or date:2023
a or or subject:plan*
a or or thread:{tag:flagged}
a or or thread:{tag:flagged} b
a or or tag:flagged b
a or or tag:flagged and b
a or or tag:flagged or or tag:unread
a or -tag:inbox
tag:unread or -tag:flagged
tag:flagged or -tag:unread
tag:unread xor -tag:flagged
not -tag:flagged
a and not -tag:flagged
-tag:inbox and tag:unread
-tag:inbox or tag:unread
-tag:inbox xor tag:flagged
a -and tag:flagged
a and -or tag:flagged
+AND tag:flagged
+AND xor tag:flagged
tag:inbox and (tag:unread or or tag:flagged)
(a or or tag:flagged)
a or or tag:flagged)
(-tag:inbox or tag:flagged)
(-tag:inbox or tag:flagged
# ... but not for other terms, or when the term is a range
a or or to:user
a or or date:2023..
a or or lastmod:1..
a or or "tag:flagged"
a or or (tag:flagged)
a or -b
a xor -b
not -a
a and not -b
tag:unread or -a
a or -"b c"
a or -(b)
# signs
-tag:inbox
-a -b
-a b
a -b
-a and b
a and -b
-a or b
a and (-b)
(-a)
a (-b)
tag:inbox and (-a)
a -(b)
-(a)
-(a b)
+a -b
-tag:inbox tag:unread
a and -b c
tag:inbox and -tag:unread tag:flagged
tag:inbox and -tag:unread -tag:flagged
a and -b -c
a and -b or c
a or +b
+a or +b
-a -b or c
(a or b) and -c
-a)
a -)
a - )
-)
(-)
+(a)
(a) -
-(
a -(
-
+
a -
- a
-a
+a
a +
--a
-not a
a -not b
a and -(
a and -
a and - b
-, +plan
-, + plan* the
-' planning plan
-' plan a
tag:inbox -'foo bar'
a -'plan meeting'
-'plan meeting' a
a -'plan meeting
a -,plan
and ' * -. ornot
a and ' -b
a or ' -b
(a)-tag:flagged
# prefixes with nothing after them, and punctuation before a prefix
tag:
subject:
from:
tag: a
from: a
tag:)
'tag:inbox
.tag:flagged
a,tag:flagged
# wildcards and stray stars
*
a *
* a
a*
**
* *
a or *
* or a
not *
a and *
* and a
*)
tag:inbox *
plan*and b
plan*xor plan pla*
# stray apostrophes
'
''
a '
'a
a'
"a'
or'
Plan,xor
meeting AND,
# words a stem preventer follows are not stemmed
plan<
plan=
plan[
plan{
plan\
plan/
plan@
plan-
plan.
plan'
body:plan"
body:plan*)
# thread subqueries
thread:{
thread:{a
thread:{tag:inbox
thread:}
thread:{}
thread:{a}}
thread:{tag:flagged}meeting
thread:{*}
# words with `..`: tried as ranges first
tag:inbox -date:2023..2024
tag:inbox -tag:a..b
tag:inbox +tag:a..b
-1..5
.5..2
tag:inbox -1..2
(date:2023..2024)
"date:2023..2024"
x "a..b"
'1..2'
a )date:2023..2024
) -tag:a..b
a,date:2023..2024
a -date:2023..2024
a ..b
a (..5
-. date:2023..2024 plan
date:2023..2024 date:2023
date:2023 date:2021
date:2020..2021 date:2023..2024
date:2020..2021 1600000000..1700000000
1600000000..1650000000 1650000000..1700000000
# whitespace is not the empty query
 
 * 
QUERIES

# Deviations (doc/query-syntax.md, "Differences from notmuch"): exact query text, tab, reason.
cat > "$TMP_DIRECTORY/deviations" <<'DEVIATIONS'
tag:(inbox	prefixed groups: maildex reads tag:( as a group (tag:inbox), notmuch (Xapian) the tag "(inbox"
tag:(inbox)	prefixed groups: maildex reads tag:(inbox) as tag:inbox, notmuch (Xapian) the tag "(inbox"
thread:{ }	unquoted thread:{...} may contain spaces in maildex (the subquery " " matches nothing); notmuch ends the value at the space: "missing }"
thread:{ * }	unquoted thread:{...} may contain spaces in maildex (the subquery " * " matches nothing); notmuch ends the value at the space: "missing }"
DEVIATIONS

# Patterns of generated queries that hit a documented deviation, with the reason.
cat > "$TMP_DIRECTORY/deviation-patterns" <<'PATTERNS'
\b(tag|is|id|mid|folder|path|from|subject|to|body):\(	prefixed groups: maildex applies the prefix to every word inside, Xapian reads boolean ones as values
(?i)\b(and|or|xor|not)[+#]	suffixes: Xapian keeps a trailing + or # on a word (c++) when the database lacks the word without it, so `xor+` may be no operator there
\w'\w	tokenisation: Xapian keeps an apostrophe between letters in one term; maildex's words split there
PATTERNS

cat > "$TMP_DIRECTORY/compare.py" <<'PYTHON'
import concurrent.futures, json, random, re, subprocess, sys

nm, md, queries, deviations, patterns, out = sys.argv[1:7]

def count(tool, q):
    p = subprocess.run([tool, "count", "--", q], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return "exit %d" % p.returncode if p.returncode else p.stdout.decode("utf-8", "surrogateescape").strip()

def both(q):
    return q, count(nm, q), count(md, q)

skip = dict(l.rstrip("\n").split("\t", 1) for l in open(deviations, encoding="utf-8") if l.strip())
pats = [l.rstrip("\n").split("\t", 1) for l in open(patterns, encoding="utf-8") if l.strip()]
table = [l.rstrip("\n") for l in open(queries, encoding="utf-8") if l.strip("\n") and not l.startswith("#")]

# Generated queries: fragments joined by a space or by nothing. Values of from:, subject: and date:
# always end at a space: notmuch's field processors parse them as queries of their own, which maildex
# does not (doc/query-syntax.md).
rng = random.Random(115)
words = ["a", "plan", "planning", "b", "the", "Plan", "meeting", "a-b", "x@y.z", "plan*", "pla*"]
prefixed = ["tag:inbox", "tag:unread", "tag:flagged", "is:flagged", "to:user", "body:plan", "folder:INBOX",
            'to:"user', 'tag:"flagged', "thread:{tag:flagged}", "date:2023..2024", "body:(plan", "to:(user"]
spaced = ["subject:plan*", "subject:plan", "from:sulli*", "date:2023"]
ops = ["and", "or", "not", "xor", "AND", "Not"]
punct = ["(", ")", '"', "-", "+", "'", "*", '""', "()", ".", ","]
def generate():
    q = ""
    for _ in range(rng.randint(1, 7)):
        r = rng.random()
        if r < .08:
            q += rng.choice(spaced) + " "
            continue
        q += rng.choice(words if r < .3 else prefixed if r < .5 else ops if r < .72 else punct)
        q += " " if rng.random() < .7 else ""
    return q.strip() if rng.random() < .8 else q
generated, skipped = [], 0
while len(generated) < 400:
    q = generate()
    if q in generated:
        continue
    if any(re.search(p, q) for p, _ in pats):
        skipped += 1
        continue
    generated.append(q)

todo = [q for q in table if q not in skip] + generated
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    got = {q: (a, b) for q, a, b in pool.map(both, todo)}
with open(out, "w", encoding="utf-8") as res:
    for q in table:
        if q in skip:
            res.write("skip\t%s\t%s\n" % (q, skip[q]))
        elif got[q][0] == got[q][1]:
            res.write("ok\t%s\t\n" % q)
        else:
            res.write("fail\t%s\t%s\n" % (q, json.dumps(["notmuch: %s" % got[q][0], "maildex: %s" % got[q][1]])))
    bad = ["%s: notmuch %s, maildex %s" % (json.dumps(q), got[q][0], got[q][1]) for q in generated
           if got[q][0] != got[q][1]]
    name = "%d generated queries (%d more skipped as deviations)" % (len(generated), skipped)
    res.write("%s\t%s\t%s\n" % ("fail" if bad else "ok", name, json.dumps(bad[:30])))
PYTHON

python3 "$TMP_DIRECTORY/compare.py" "$NOTMUCH" "$MAILDEX_BUILDDIR/cli/maildex" "$TMP_DIRECTORY/queries" \
    "$TMP_DIRECTORY/deviations" "$TMP_DIRECTORY/deviation-patterns" "$TMP_DIRECTORY/results"

tab=$(printf '\t')
while IFS="$tab" read -r status query detail; do
    test_begin_subtest "count '$query'"
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
