#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The options each command parses, read from the C sources, for test/T012-docs.sh to hold the man
pages and the completions against.

  docs-options.py SRCDIR tables   one line per option: COMMAND TYPE --NAME [KEYWORD,...]
  docs-options.py SRCDIR pages    each option a command's page does not describe (with its keywords,
                                  when they differ from the table's), each page option the command
                                  does not have; nothing when all agree

The commands are cli/main.c's table; a command's options are the rows {OPT_TYPE, "name", ...} of the
file that defines its cmd_NAME(), plus the ones cli_start() (cli/base/start.c) gives every command
(--query only to those flagged CMD_QUERY). A keyword table is found by its name in that file, else in
any file of cli/. A page's options are the headings of its OPTIONS section, and the shared ones the
headings of doc/maildex.1.scd's COMMON OPTIONS."""
import glob
import os
import re
import sys

SRC = sys.argv[1]
ROW = re.compile(r'\{(OPT_[A-Z]+),\s*"([a-z0-9-]+)",\s*[^,]+,\s*(\w+)')
KEYWORDS = re.compile(r'(\w+)\[\]\s*=\s*\{(.*?)\};', re.S)


def read(path):
    with open(os.path.join(SRC, path), encoding='utf-8') as f:
        return f.read()


def keyword_tables():
    """name -> {file: [keywords]} for every `struct keyword NAME[] = {...}` of cli/."""
    tables = {}
    for path in glob.glob(os.path.join(SRC, 'cli', '**', '*.c'), recursive=True):
        text = read(path)
        for name, body in KEYWORDS.findall(text):
            if 'struct keyword' in text[max(0, text.find(name + '[]') - 80):text.find(name + '[]')]:
                tables.setdefault(name, {})[os.path.relpath(path, SRC)] = re.findall(r'\{"([^"]+)",', body)
    return tables


def rows(path, tables):
    out = []
    for kind, name, kw in ROW.findall(read(path)):
        if kind in ('OPT_END', 'OPT_INHERIT'):
            continue
        words = []
        if kw != 'NULL':
            found = tables.get(kw, {})
            words = found.get(path) or next(iter(found.values()), [])
        out.append((kind[4:].lower(), '--' + name, words))
    return out


def commands():
    """(name, file, flags) of every row of cli/main.c's table."""
    out = []
    for name, fn, flags in re.findall(r'\{"([a-z-]+)", (cmd_\w+), ([A-Z_ |]+)\}', read('cli/main.c')):
        for path in glob.glob(os.path.join(SRC, 'cli', '*.c')):
            if re.search(r'^int %s\(' % fn, read(path), re.M):
                out.append((name, os.path.relpath(path, SRC), flags))
    return out


def tables_of():
    kw = keyword_tables()
    shared = rows('cli/base/start.c', kw)
    out = {}
    for name, path, flags in commands():
        opts = [r for r in shared if r[1] != '--query' or 'CMD_QUERY' in flags]
        out[name] = opts + rows(path, kw)
    return out


def plain(text):
    """A heading without scdoc's markup (enough for headings: bold, underline, escapes)."""
    text = re.sub(r'\\(.)', r'\1', text.replace('*', ''))
    return re.sub(r'(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])', '', text)


def headings(path, section):
    """--name -> the heading's values ([] for none) for each option a section's headings give."""
    out, inside = {}, False
    for line in read(path).split('\n'):
        if line.startswith('# '):
            inside = line[2:] == section
        elif inside and line[:1] not in ('', '\t') and plain(line).startswith('--'):
            for name, value in re.findall(r'(--[a-z0-9][a-z0-9-]*)(\[?=[^ ,\]]*)?', plain(line)):
                value = value.lstrip('[=')
                out.setdefault(name, value.split('|') if re.fullmatch(r'[a-z0-9|-]+', value) else [])
    return out


def check_pages():
    problems = []
    common = headings('doc/maildex.1.scd', 'COMMON OPTIONS')
    for cmd, opts in tables_of().items():
        page = 'doc/man/maildex-%s.1.scd' % cmd
        if not os.path.exists(os.path.join(SRC, page)):
            problems.append('%s: no page %s' % (cmd, page))
            continue
        described = headings(page, 'OPTIONS')
        names = set()
        for kind, name, words in opts:
            negated = '--no-' + name[2:]
            got = described.get(name, described.get(negated) if kind == 'bool' else None)
            if got is None:
                got = common.get(name)
            names.update((name, negated))
            if got is None:
                problems.append('%s: %s is not on %s' % (cmd, name, page))
            elif words and sorted(got) != sorted(words):
                problems.append('%s: %s takes %s, %s says %s' % (cmd, name, '|'.join(words), page, '|'.join(got)))
        for name in described:
            if name not in names:
                problems.append('%s: %s describes %s, which %s does not take' % (cmd, page, name, cmd))
    return problems


def main():
    if sys.argv[2] == 'tables':
        for cmd, opts in tables_of().items():
            for kind, name, words in opts:
                print(cmd, kind, name, ','.join(words))
        return 0
    problems = check_pages()
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
