#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The size limits of the house: no .c file of lib/ or cli/ over 800 lines, no function over 80.

A function's lines run from the line of its name to its closing brace (ctags' line and end fields).
The public header lib/maildex.h may be longer; other headers hold no functions worth a limit but are
held to the file limit too. Prints each file or function over its limit; exits 1 if there is any.
Usage: check-limits.py [SRCDIR]   (ctags: Debian's universal-ctags)"""
import os
import subprocess
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
MAX_FILE, MAX_FUNCTION = 800, 80
EXEMPT = {'lib/maildex.h'}


def main():
    files = []
    for root in ('lib', 'cli'):
        for dirpath, _, names in os.walk(os.path.join(SRC, root)):
            files += [os.path.relpath(os.path.join(dirpath, n), SRC) for n in names
                      if n.endswith(('.c', '.h')) and n != 'sql-embedded.c']
    problems = []
    for f in sorted(files):
        if f in EXEMPT:
            continue
        with open(os.path.join(SRC, f), encoding='utf-8', errors='replace') as fh:
            n = sum(1 for _ in fh)
        if n > MAX_FILE:
            problems.append('%s: %d lines (limit %d)' % (f, n, MAX_FILE))
    cfiles = [os.path.join(SRC, f) for f in sorted(files) if f.endswith('.c')]
    out = subprocess.run(['ctags', '-o', '-', '--fields=+ne', '--c-kinds=f', '--language-force=C'] + cfiles,
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split('\t')
        info = dict(x.split(':', 1) for x in fields[3:] if ':' in x)
        if 'line' in info and 'end' in info:
            n = int(info['end']) - int(info['line']) + 1
            if n > MAX_FUNCTION:
                problems.append('%s:%s: %s() is %d lines (limit %d)'
                                % (os.path.relpath(fields[1], SRC), info['line'], fields[0], n, MAX_FUNCTION))
    for p in problems:
        print(p)
    print('%d files checked, %d over a limit' % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
