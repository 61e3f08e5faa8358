#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that doc/ARCHITECTURE.md names only files that exist, and names every file of lib/ and cli/.

A path is a word starting with lib/, cli/, sql/, test/, bench/, editors/, hooks/ or doc/, inside
`backquotes` or in a ``` block. It must be a file or folder of the tree (git's list of files), or
match some with a shell glob (`cli/cmd-*.c`), or be a file Makefile.am builds (`cli/maildex`,
`lib/sql-embedded.c`): Makefile.am names it. Every .c and .h file of lib/ and cli/ must be named, so
that the per-folder tables keep up with the tree. A path that is not meant to exist yet (a folder
still to come) is written without backquotes.

Prints each path that does not exist and each source file the document does not name; exits 1 if
there is any. Usage: check-doc-paths.py [SRCDIR]   (needs git: a release tarball holds only part of
the tree)"""
import fnmatch
import os
import re
import subprocess
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
DOC = 'doc/ARCHITECTURE.md'
ROOTS = r'(?:lib|cli|sql|test|bench|editors|hooks|doc)/[\w.*?/+-]*'
PATH = re.compile(r'(?<![\w./$-])' + ROOTS)


def read(path):
    with open(os.path.join(SRC, path), encoding='utf-8') as f:
        return f.read()


def named_paths(text):
    """Every path in a ``` block or in `backquotes`, with the line it is on."""
    out, fenced = [], False
    for number, line in enumerate(text.split('\n'), 1):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        spans = [line] if fenced else re.findall(r'`([^`]+)`', line)
        for span in spans:
            out += [(number, p.rstrip('.,:;')) for p in PATH.findall(span)]
    return out


def main():
    files = subprocess.run(['git', '-C', SRC, 'ls-files'], check=True, capture_output=True,
                           text=True).stdout.split('\n')
    files = [f for f in files if f]
    folders = {os.path.dirname(f) for f in files}
    folders |= {d[:i] for d in folders for i in range(len(d)) if d[i] == '/'}
    # Makefile.am names what it builds after $(builddir)/ too: no look-behind there
    built = set(re.findall(ROOTS, read('Makefile.am')))
    problems, named = [], set()
    for number, path in named_paths(read(DOC)):
        bare = path.rstrip('/')
        if any(c in bare for c in '*?'):
            matches = fnmatch.filter(files, bare)
        else:
            matches = [bare] if bare in files or bare in folders or bare in built else []
        if not matches:
            problems.append('%s:%d: %s does not exist' % (DOC, number, path))
        named.update(matches)
    for f in files:
        if f.startswith(('lib/', 'cli/')) and f.endswith(('.c', '.h')) and f not in named:
            problems.append('%s: not named in %s' % (f, DOC))
    for p in problems:
        print(p)
    print('%d paths named, %d problems' % (len(named), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
