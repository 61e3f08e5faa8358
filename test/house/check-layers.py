#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that every arrow of lib/ and cli/ points down the order their READMEs state.

An arrow is an #include "..." or a use of a name that one .c file defines (not static) and another
file names: a call, or a variable. The order comes from two kinds of blocks in the READMEs:

  lib/README.md and cli/README.md: a block after the line `<!-- layers -->`, one folder a line, top
  first (cli/README.md's folders come before lib/README.md's: the program stands on the library);
  each folder's README.md: a block after `<!-- files -->`, one group of files a line, top first
  (shell globs). A header named in a line is placed there (a header of types that files below its
  .c share sits below them); a header named nowhere goes with the .c file of its name. Files of one group
  do one job and may call each other; every other arrow must point to a later group of the same
  folder or to a folder further down. `lib/maildex.h`, the public API, may be included by anything.
  A line `<!-- upward-ok: NAME ... -->` in a folder's README names functions of that folder that any
  file of it may call whatever its group (the handle's error helpers).

Prints each arrow that points up, and each file no block places; exits 1 if there is any.
Usage: check-layers.py [SRCDIR]   (ctags: Debian's universal-ctags)"""
import collections
import fnmatch
import os
import re
import subprocess
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
ROOTS = ('cli', 'lib')
PUBLIC = 'lib/maildex.h'


def read(path):
    with open(os.path.join(SRC, path), encoding='utf-8', errors='replace') as f:
        return f.read()


def block(text, marker):
    """The indented lines after `<!-- marker -->` (stopping at the first line that is not)."""
    lines = text.split('\n')
    for i, line in enumerate(lines):
        if line.strip() == '<!-- %s -->' % marker:
            out = []
            for l in lines[i + 1:]:
                if not l.strip():
                    if out:
                        break
                    continue
                if not l.startswith('    '):
                    break
                out.append(re.sub(r'\s*\(.*\)\s*$', '', l).split())
            return out
    return None


def sources():
    out = []
    for root in ROOTS:
        for dirpath, _, names in os.walk(os.path.join(SRC, root)):
            for n in names:
                if n.endswith(('.c', '.h')) and n != 'sql-embedded.c':
                    out.append(os.path.relpath(os.path.join(dirpath, n), SRC))
    return sorted(out)


def definitions(files):
    """(name -> [files], file -> names): the functions and variables each .c file defines with
    external linkage, and every name a file defines itself at any scope (a local or a static of the
    same name as another file's function is not a use of it)."""
    paths = [os.path.join(SRC, f) for f in files]
    out = subprocess.run(['ctags', '-o', '-', '--fields=+Kf', '--c-kinds=fvlpzmstgue', '--language-force=C'] + paths,
                         capture_output=True, text=True, check=True).stdout
    defs, own = collections.defaultdict(list), collections.defaultdict(set)
    for line in out.splitlines():
        fields = line.split('\t')
        f = os.path.relpath(fields[1], SRC)
        own[f].add(fields[0])
        kind = next((x for x in fields[3:] if x in ('function', 'variable')), None)
        if f.endswith('.c') and kind and 'file:' not in fields and f not in defs[fields[0]]:
            defs[fields[0]].append(f)
    return defs, own


def resolve(defs, f, n):
    """The file whose definition of n that f's use reaches. A name two files define is a link-time
    choice (the program supplies its own parser loader): a use reaches the one under its own root."""
    cands = defs.get(n, [])
    root = f.split('/')[0]
    same = [g for g in cands if g.split('/')[0] == root]
    return (same or cands or [None])[0]


def strip(src):
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    src = re.sub(r'//[^\n]*', ' ', src)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', src)


def arrows(files, defs, own):
    name = re.compile(r'[A-Za-z_]\w*')
    for f in files:
        text = read(f)
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            inc = m.group(1)
            for cand in (os.path.join(os.path.dirname(f), inc), os.path.join('lib', inc), os.path.join('cli', inc)):
                cand = os.path.normpath(cand)
                if cand in files:
                    if cand != f:
                        yield f, cand, 'includes'
                    break
        code = strip(text)
        if f.endswith('.h'):  # a header's uses are its macros'; its prototypes are declarations
            code = ' '.join(m.group(0) for m in re.finditer(r'^#\s*define(?:[^\n]*\\\n)*[^\n]*', code, re.M))
        for n in sorted(set(name.findall(code)) - own[f]):
            g = resolve(defs, f, n)
            if g and g != f:
                yield f, g, n


def main():
    files = sources()
    folders = []
    for root in ROOTS:
        layers = block(read(root + '/README.md'), 'layers')
        if layers is None:
            sys.exit('%s/README.md: no <!-- layers --> block' % root)
        folders += [l[0] for l in layers]
    rank = {d: i for i, d in enumerate(folders)}
    place, upward_ok, problems = {}, {}, []
    for d in folders:
        readme = d + '/README.md'
        if not os.path.isdir(os.path.join(SRC, d)):
            continue  # a layer the READMEs reserve for a folder still to come
        if not os.path.exists(os.path.join(SRC, readme)):
            problems.append('%s: missing (each folder says what it owns and what it may call)' % readme)
            continue
        text = read(readme)
        groups = block(text, 'files')
        if groups is None:
            problems.append('%s: no <!-- files --> block' % readme)
            continue
        m = re.search(r'<!-- upward-ok: ([^>]*) -->', text)
        upward_ok[d] = set(m.group(1).split()) if m else set()
        here = [f for f in files if os.path.dirname(f) == d]
        # a file named by a pattern goes there; a header named nowhere goes with the .c of its name
        for by_stem in (False, True):
            for gi, globs in enumerate(groups):
                for f in here:
                    base = os.path.basename(f)
                    if by_stem:
                        base = os.path.splitext(base)[0] + '.c'
                    if any(fnmatch.fnmatch(base, g) for g in globs):
                        place.setdefault(f, (rank[d], gi))
    for f in files:
        if f != PUBLIC and f not in place and os.path.dirname(f) in rank:
            problems.append('%s: in no group of %s/README.md' % (f, os.path.dirname(f)))
        elif f != PUBLIC and os.path.dirname(f) not in rank:
            problems.append('%s: its folder is in no <!-- layers --> block' % f)
    defs, own = definitions(files)
    up = collections.defaultdict(list)
    for a, b, why in arrows(files, defs, own):
        if b == PUBLIC or a not in place or b not in place:
            continue
        if place[b] >= place[a]:  # the same group, a later one, or a folder further down
            continue
        if os.path.dirname(a) == os.path.dirname(b) and why in upward_ok.get(os.path.dirname(b), ()):
            continue
        up[(a, b)].append(why)
    for (a, b), whys in sorted(up.items()):
        problems.append('%s -> %s points up: %s' % (a, b, ', '.join(whys[:8]) + (' ...' if len(whys) > 8 else '')))
    for p in problems:
        print(p)
    print('%d files, %d arrows pointing up or unplaced files' % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
