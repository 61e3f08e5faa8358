#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential test of `show` and `reply` against the real notmuch 0.37: a generated Maildir (bench/gen,
# 200 files) and every message of the corpus of real odd messages (test/corpora/real) are indexed by
# both, then for each message both tools print
#   - show of its thread in JSON and S-expressions (once per thread), show in text and raw, reply in
#     the default format and in JSON (compared after parsing JSON and S-expressions, byte for byte
#     otherwise);
#   - for the real messages also --body=false and --include-html (once per thread),
#     --entire-thread=false, --unthreaded, mbox, reply with --reply-to=sender and headers-only, and
#     every part N: show --part=N in JSON and in raw (the generated messages are alike: they are
#     compared whole);
# and whole queries over the generated Maildir (both sorts, --unthreaded, text, mbox, excluded mail).
# Every difference must belong to one of the deviations listed below with its reason; each subtest
# prints the ones it met. show.extra_headers is set, so extra headers are compared too.
. "$(dirname "$0")/test-lib.sh"
test_require python3
differential_setup "deleted;spam;" '
[show]
extra_headers=List-Id;X-Mailer;'

python3 "$srcdir/bench/gen" --count 200 --seed 11 "$MAIL_DIR/gen" > /dev/null
if [ -n "$REAL_CORPUS" ]; then
    copy_corpus "$REAL_CORPUS" "$MAIL_DIR/real"
else
    echo "# the real corpus was not found: only the generated Maildir is compared"
fi
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
# Some excluded mail for the whole-query comparisons.
for tool in "$NOTMUCH" maildex; do
    "$tool" tag +spam -- 'path:gen/** and (from:sullivan or from:jones)' > /dev/null 2>&1
done

# The deviations: a name the comparison assigns, and the reason. Nothing else may differ.
cat > "$TMP_DIRECTORY/deviations" <<'DEVIATIONS'
file-order	the order of a message's files: notmuch lists them by its directory documents' ids compared as decimal strings (ids that count messages too), maildex by its directory rows, made in the same order, compared as numbers; filename lists are compared as sets
first-file	a message with several files is shown from its first file, so where the orders differ the two show different copies: maildex --duplicate=N pointing at notmuch's first file must then print the same raw file, parts and reply (show's text and mbox name or read the first file, and are left out)
notmuch-crash	notmuch 0.37 segfaults on an empty message/rfc822 part (mime_node_child of a part gmime could not parse into a message); maildex shows the part with no headers and no body and exits 0
DEVIATIONS

cat > "$TMP_DIRECTORY/compare.py" <<'PYTHON'
import concurrent.futures, json, re, subprocess, sys

nm, md, out = sys.argv[1:4]

def run(tool, args):
    p = subprocess.run([tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout

# ---- an S-expression reader: lists, strings with notmuch's escapes, atoms; plists become maps
TOKEN = re.compile(rb'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))', re.S)
def unescape(s):
    return re.sub(rb'\\([0-7]{3}|.)', lambda m: bytes([int(m.group(1), 8)]) if len(m.group(1)) == 3
                  else {b"n": b"\n"}.get(m.group(1), m.group(1)), s, flags=re.S).decode("utf-8", "surrogateescape")
def sexp(data):
    stack, top = [[]], None
    for m in TOKEN.finditer(data):
        if m.group(1):
            stack.append([])
        elif m.group(2):
            lst = stack.pop()
            if lst and len(lst) % 2 == 0 and all(isinstance(k, tuple) for k in lst[::2]):
                lst = {k[1]: v for k, v in zip(lst[::2], lst[1::2])}
            stack[-1].append(lst)
        elif m.group(3) is not None:
            stack[-1].append(unescape(m.group(3)))
        else:
            a = m.group(4).decode()
            stack[-1].append(("kw", a[1:]) if a.startswith(":") else
                             {"t": True, "nil": None}.get(a, int(a) if re.fullmatch(r"-?\d+", a) else a))
    if len(stack) != 1 or len(stack[0]) != 1:
        raise ValueError("not one S-expression")
    return stack[0][0]

def parse(fmt, data):
    if fmt == "json":
        return json.loads(data.decode("utf-8", "surrogateescape"))
    if fmt == "sexp":
        return sexp(data)
    return data

def sort_filenames(x):
    if isinstance(x, dict):
        return {k: sorted(v) if k == "filename" and isinstance(v, list) else sort_filenames(v) for k, v in x.items()}
    if isinstance(x, list):
        return [sort_filenames(v) for v in x]
    return x

def mask(x):
    """A message shown from a different copy (first_differs) reduced to its id: its copies are
    compared on their own, byte for byte."""
    if isinstance(x, dict):
        if x.get("id") in first_differs and "filename" in x:
            return {"id": x["id"]}
        return {k: mask(v) for k, v in x.items()}
    if isinstance(x, list):
        return [mask(v) for v in x]
    return x

# ---- the messages, their files in each tool, and the copies each shows first
def files_by_id(tool):
    rc, data = run(tool, ["show", "--format=json", "--body=false", "--entire-thread=false", "--exclude=false", "*"])
    found = {}
    def walk(x):
        if isinstance(x, dict):
            found[x["id"]] = x["filename"]
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(data))
    return found
nm_files, md_files = files_by_id(nm), files_by_id(md)
ids = sorted(nm_files)
first_differs = {i for i in ids if len(nm_files[i]) > 1 and nm_files[i][0] != md_files[i][0]}
problems = []
for i in first_differs:  # the copy notmuch shows is the one maildex shows with --duplicate
    k = md_files[i].index(nm_files[i][0]) + 1
    q = 'id:"%s"' % i.replace('"', '""')
    if run(nm, ["show", "--format=raw", q]) != run(md, ["show", "--format=raw", "--duplicate=%d" % k, q]):
        problems.append("first-file: %s: maildex --duplicate=%d does not print notmuch's first file" % (i, k))

def without_duplicate(x):
    if isinstance(x, dict):
        return {k: 1 if k == "duplicate" else without_duplicate(v) for k, v in x.items()}
    if isinstance(x, list):
        return [without_duplicate(v) for v in x]
    return x

def same_copy(args, fmt, i, a):
    """One message (a part, a raw file, a reply) shown from a different copy: maildex pointed at
    notmuch's first file with --duplicate must print what notmuch printed (but the duplicate number).
    reply's template names no file and is compared too; the text of show is left out (its message line
    names the first file)."""
    if fmt == "text":
        return "first-file"
    k = md_files[i].index(nm_files[i][0]) + 1
    b = run(md, args[:1] + ["--duplicate=%d" % k] + args[1:])
    same = lambda x: sort_filenames(without_duplicate(parse(fmt, x)))
    if a[0] == b[0] and (a[1] == b[1] or (fmt in ("json", "sexp") and a[1] and b[1] and same(a[1]) == same(b[1]))):
        return "first-file"
    return "differs from notmuch's copy even with --duplicate=%d: %s" % (k, " ".join(args))

def compare(args, fmt, involved=None):
    """Runs both; returns None when they agree, else the deviation name or a problem text."""
    a, b = run(nm, args), run(md, args)
    if a == b:
        return None
    if a[0] < 0 or a[0] >= 128:
        try:
            parse(fmt, b[1])
            return "notmuch-crash" if b[0] == 0 else "maildex exit %d where notmuch crashed" % b[0]
        except ValueError as e:
            return "maildex printed no valid %s where notmuch crashed: %s" % (fmt, e)
    single = args[0] == "reply" or fmt == "raw" or any(x.startswith("--part=") for x in args)
    if single and set(involved) <= first_differs and len(involved) == 1:
        return same_copy(args, fmt, next(iter(involved)), a)
    if a[0] != b[0]:
        return "exit %d (notmuch) vs %d (maildex)" % (a[0], b[0])
    try:
        pa, pb = parse(fmt, a[1]), parse(fmt, b[1])
    except ValueError as e:
        return "output does not parse (%s): %s" % (e, " ".join(args))
    if pa == pb:
        return None
    if fmt in ("json", "sexp") and sort_filenames(pa) == sort_filenames(pb):
        return "file-order"
    if fmt in ("json", "sexp") and sort_filenames(mask(pa)) == sort_filenames(mask(pb)):
        return "first-file"
    if fmt not in ("json", "sexp") and set(involved) & first_differs and len(involved) == 1:
        return "first-file"
    return "differs: %s" % " ".join(args)

def query(i):
    return 'id:"%s"' % i.replace('"', '""')

def thread_ids(i):
    rc, data = run(nm, ["search", "--output=messages", "--exclude=false", "--format=json", "thread:{%s}" % query(i)])
    return set(json.loads(data)) if rc == 0 else {i}

def parts(i):
    rc, data = run(md, ["show", "--format=json", "--part=0", query(i)])
    n = 0
    def walk(p):
        nonlocal n
        n += 1
        c = p.get("content")
        for q in c if isinstance(c, list) else []:
            for b in q["body"] if "headers" in q and "id" not in q else [q]:
                walk(b)
    for b in json.loads(data).get("body", []):
        walk(b)
    return n

seen_threads, seen_lock = set(), __import__("threading").Lock()

def first_of_thread(thread):
    """Whether this is the first message of its thread to be compared: a thread's own outputs (the
    same for each of its messages) are compared once."""
    with seen_lock:
        key = frozenset(thread)
        new = key not in seen_threads
        seen_threads.add(key)
        return new

def per_message(i):
    q, thread = query(i), thread_ids(i)
    real = "/gen/" not in nm_files[i][0]
    checks = [(["show", "--format=text", q], "text", {i}), (["show", "--format=raw", q], "raw", {i}),
              (["reply", q], "text", {i}), (["reply", "--format=json", q], "json", {i})]
    if first_of_thread(thread):
        checks += [(["show", "--format=json", q], "json", thread), (["show", "--format=sexp", q], "sexp", thread)]
        if real:
            checks += [(["show", "--format=sexp", "--body=false", q], "sexp", thread),
                       (["show", "--format=json", "--include-html", q], "json", thread)]
    # The generated messages are alike: the options and every part are compared on the real ones.
    if not real:
        return [(args, compare(args, fmt, inv)) for args, fmt, inv in checks]
    checks += [(["show", "--format=json", "--entire-thread=false", q], "json", thread),
               (["show", "--format=sexp", "--unthreaded", q], "sexp", {i}),
               (["show", "--format=mbox", q], "mbox", {i}),
               (["reply", "--format=sexp", "--reply-to=sender", q], "sexp", {i}),
               (["reply", "--format=headers-only", q], "text", {i})]
    for n in range(1, parts(i) + 2):
        checks.append((["show", "--format=json", "--part=%d" % n, q], "json", {i}))
        checks.append((["show", "--format=raw", "--part=%d" % n, q], "raw", {i}))
    return [(args, compare(args, fmt, inv)) for args, fmt, inv in checks]

# Whole queries; the text and mbox ones leave out the messages shown from different copies.
others = "path:gen/** and not (%s)" % (" or ".join(query(i) for i in sorted(first_differs)) or "id:none")
whole = [(["show", "--format=json", "--body=false", "path:gen/**"], "json"),
         (["show", "--format=sexp", "--body=false", "--sort=oldest-first", "path:gen/**"], "sexp"),
         (["show", "--format=json", "--body=false", "--exclude=false", "--entire-thread=false", "path:gen/**"], "json"),
         (["show", "--format=sexp", "--body=false", "--unthreaded", "path:gen/**"], "sexp"),
         (["show", "--format=json", "--body=false", "--entire-thread=false", "from:sullivan"], "json"),
         (["show", "--format=text", "--body=false", others], "text"),
         (["show", "--format=mbox", others + " and tag:unread"], "mbox")]

results = {"messages": len(ids), "checks": 0, "deviations": {}, "problems": problems}
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    outcome = [r for rs in pool.map(per_message, ids) for r in rs]
outcome += [(args, compare(args, fmt, ())) for args, fmt in whole]
for args, why in outcome:
    results["checks"] += 1
    if why is None:
        continue
    if why in ("file-order", "first-file", "notmuch-crash"):
        results["deviations"].setdefault(why, []).append(" ".join(args))
    else:
        problems.append(why)
json.dump(results, open(out, "w"), indent=1)
PYTHON

python3 "$TMP_DIRECTORY/compare.py" "$NOTMUCH" "$MAILDEX_BUILDDIR/cli/maildex" "$TMP_DIRECTORY/results.json"

test_begin_subtest "every message compared: show, parts, raw, mbox, reply"
summary=$(python3 - "$TMP_DIRECTORY/results.json" "$TMP_DIRECTORY/deviations" <<'PYTHON'
import json, sys
r = json.load(open(sys.argv[1]))
known = dict(line.rstrip("\n").split("\t", 1) for line in open(sys.argv[2]) if "\t" in line)
print("%d messages, %d checks" % (r["messages"], r["checks"]))
for name, items in sorted(r["deviations"].items()):
    print("# %s (%d): %s" % (name, len(items), known.get(name, "UNLISTED")))
    for it in items[:3]:
        print("#   e.g. %s" % it)
for p in r["problems"]:
    print("PROBLEM: %s" % p)
PYTHON
)
echo "$summary" | grep '^#'
echo "# $(echo "$summary" | sed -n 1p) (a check is one command run by both tools)"
problems=$(echo "$summary" | grep -c '^PROBLEM\|UNLISTED')
messages=$(echo "$summary" | sed -n 's/^\([0-9]*\) messages.*/\1/p')
if [ "$problems" -eq 0 ] && [ "${messages:-0}" -ge 200 ]; then
    test_ok_
else
    test_failure_ "$(echo "$summary" | grep -v '^#' | head -n 40)"
fi

# The whole real corpus in one show, where notmuch 0.37 crashes (the empty message/rfc822 part): maildex
# exits 0 and prints valid JSON and S-expressions (under ASan and UBSan in the sanitizer build).
for format in json sexp text; do
    test_begin_subtest "show --format=$format --entire-thread=true of every real message exits 0"
    if [ -z "$REAL_CORPUS" ]; then
        test_skip_ "the real corpus was not found"
        continue
    fi
    maildex show --format=$format --entire-thread=true 'path:real/**' > "$TMP_DIRECTORY/all.$format" 2> "$TMP_DIRECTORY/all.err"
    rc=$?
    case $format in
    json) valid=$(python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape")); print("valid")' "$TMP_DIRECTORY/all.$format" 2>&1) ;;
    sexp) valid=$(sed -n '1{s/^(.*)$/valid/p}' "$TMP_DIRECTORY/all.$format") ;;
    text) valid=$(grep -c "$(printf '^\fmessage{')" "$TMP_DIRECTORY/all.$format" | sed 's/^[1-9][0-9]*$/valid/') ;;
    esac
    # Like notmuch's --decrypt=auto, show says of each encrypted part it has no session key for that
    # it could not decrypt it (T146); nothing else may come out on stderr.
    test_expect_equal "$rc|$(grep -vx 'Failed to decrypt part: no error explanation given' "$TMP_DIRECTORY/all.err")|$valid" "0||valid"
done

test_done
