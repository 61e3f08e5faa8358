#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""compare.py: the comparisons of test/T710-libnotmuch-differential.sh, one result line per subtest
("ok<TAB>name" or "fail<TAB>name<TAB>JSON list of diff lines"), which the shell turns into TAP.

    compare.py sections LABEL EXPECTED GOT   walk read outputs, section by section: the store, then
                                             each query (a section starts at a line "store" or
                                             "query ..."); a section missing on one side fails
    compare.py whole LABEL EXPECTED GOT      two files, whole
    compare.py twins LABEL C_OUT PY_OUT      walk.c's and walk.py's read outputs on one library:
                                             every infix query section that succeeded in both must
                                             print the same, but for the lines only one prints

Standard library only; the first 30 differing lines of a failure are kept."""

import difflib
import json
import sys


def sections(path):
    out, name = {}, None
    order = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line == "store" or line.startswith("query "):
                name = line
                if name in out:          # the same query twice: keep both, numbered
                    name = "%s (#%d)" % (line, sum(1 for n in order if n.startswith(line)) + 1)
                out[name] = []
                order.append(name)
            elif name is not None:
                out[name].append(line)
    return order, out


def result(name, expected, got):
    if expected == got:
        return "ok\t%s\n" % name
    diff = list(difflib.unified_diff(expected, got, "expected", "got", lineterm="", n=1))[2:32]
    return "fail\t%s\t%s\n" % (name, json.dumps(diff, ensure_ascii=False))


def cmd_sections(label, a, b):
    order_a, sa = sections(a)
    order_b, sb = sections(b)
    out = []
    for name in order_a + [n for n in order_b if n not in sa]:
        out.append(result("%s: %s" % (label, name), sa.get(name, ["(section missing)"]),
                          sb.get(name, ["(section missing)"])))
    return out


def cmd_whole(label, a, b):
    def lines(path):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read().splitlines()
    return [result(label, lines(a), lines(b))]


# Lines only walk.c prints (notmuch2 has no notmuch_thread_get_total_files) and the status words of
# a successful search, which walk.py does not print.
C_ONLY = ("  total files ",)


def cmd_twins(label, c_out, py_out):
    order, sc = sections(c_out)
    _, sp = sections(py_out)
    compared, out = 0, []
    for name in order:
        if not name.startswith("query infix ") or name not in sp:
            continue
        c = [l for l in sc[name] if not l.startswith(C_ONLY)]
        p = sp[name]
        # an error in either: its status words are compared across libraries, not here
        if any(l.startswith("  create:") or (l.startswith("  count ") and "(" in l) for l in c) or \
                any(l.startswith("  error:") for l in p):
            continue
        compared += 1
        if c != p:
            out.append(result("%s: %s" % (label, name), c, p))
    if not out:
        out.append("ok\t%s: %d query sections alike\n" % (label, compared))
    return out


def main(argv):
    cmds = {"sections": cmd_sections, "whole": cmd_whole, "twins": cmd_twins}
    if len(argv) != 5 or argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.writelines(cmds[argv[1]](*argv[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
