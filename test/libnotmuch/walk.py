#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""walk.py: walk.c's twin on the notmuch2 Python bindings (Debian's python3-notmuch2, whose cffi module
binds libnotmuch.so.5 when it is imported), for test/T710-libnotmuch-differential.sh: the same
commands, queries and changes, printed in the same shape, through the API a notmuch2 script uses.

    walk.py read CONFIG QUERIES    the store, then each query's threads and messages
    walk.py write CONFIG PREFIX    a fixed set of tag and property changes (tags PREFIX-*), statuses

QUERIES is walk.c's file (SYNTAX SORT EXCLUDE QUERY a line). notmuch2 creates every query with
notmuch_query_create, so it has no S-expression syntax: those queries print one line saying so, the
same on every library. Threads are named T{smallest message id} and results are printed in the
library's order, equal dates included, as walk.c does. What it must not print: anything two stores may
rightly differ in (thread ids, revisions, the database uuid, paths under the database directory)."""

import configparser
import sys

import notmuch2
from notmuch2 import _capi

DB = notmuch2.Database
EXCLUDE = {"flag": DB.EXCLUDE.FLAG, "true": DB.EXCLUDE.TRUE, "false": DB.EXCLUDE.FALSE, "all": DB.EXCLUDE.ALL}
SORT = {"newest": DB.SORT.NEWEST_FIRST, "oldest": DB.SORT.OLDEST_FIRST}
HEADERS = ["From", "To", "Subject", "Date", "References", "In-Reply-To"]
NAMES = {}


def status(e):
    """notmuch's words for the status of an error (the library's notmuch_status_to_string)."""
    code = getattr(e, "status", None)
    if code is None:
        return type(e).__name__
    return _capi.ffi.string(_capi.lib.notmuch_status_to_string(int(code))).decode()


def value(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def words(items):
    """Each item after a space, as walk.c prints lists."""
    return "".join(" " + str(i) for i in items)


def flags(m):
    return "".join(" " + name for name, on in (("match", m.matched), ("excluded", m.excluded),
                                                ("ghost", m.ghost)) if on)


def thread_name(tid):
    return NAMES.get(str(tid), "T?unknown")


def load_thread_names(db):
    for t in db.threads("*", omit_excluded=DB.EXCLUDE.FALSE):
        NAMES[str(t.threadid)] = "T{%s}" % min(str(m.messageid) for m in t)


def header(m, name):
    try:
        return value(m.header(name))
    except LookupError:
        return ""


def message_lines(m, root):
    out = ["message %s" % m.messageid, "  thread %s" % thread_name(m.threadid), "  date %d" % m.date,
           "  flags:" + flags(m)]
    out += ["  %s: %s" % (h, header(m, h)) for h in HEADERS]
    files = sorted(str(f)[len(root) + 1:] if str(f).startswith(root + "/") else str(f) for f in m.filenames())
    out.append("  files %d:%s" % (len(files), words(files)))
    out.append("  tags:" + words(m.tags))
    out.append("  properties:" + words("%s=%s" % (p.key, p.value) for p in m.properties.getall("")))
    return out


def tree_lines(messages, depth):
    out = []
    for m in messages:
        out.append("  %s%s%s" % ("  " * depth, m.messageid, flags(m)))
        out += tree_lines(m.replies(), depth + 1)
    return out


def thread_lines(t):
    return ["thread %s" % thread_name(t.threadid), "  total %d matched %d" % (len(t), t.matched),
            "  oldest %d newest %d" % (t.first, t.last), "  authors: " + value(str(t.authors)),
            "  subject: " + value(str(t.subject)), "  tags:" + words(t.tags),
            "  messages:" + words(str(m.messageid) for m in t), "  tree:"] + tree_lines(t.toplevel(), 0)


def expand(db, text):
    while "<thread-of:" in text:
        i = text.index("<thread-of:")
        j = text.find(">", i + 11)
        if j < 0:
            break
        try:
            tid = str(db.find(text[i + 11:j]).threadid)
        except LookupError:
            tid = "none"
        text = text[:i] + tid + text[j + 1:]
    return text


def run_query(db, line, exclude_tags, root):
    parts = line.split(" ", 3)
    if len(parts) < 3 or parts[1] not in SORT or parts[2] not in EXCLUDE:
        return ["  malformed: SYNTAX SORT EXCLUDE QUERY"]
    if parts[0] == "sexp":
        return ["  notmuch2 has no S-expression syntax"]
    text = expand(db, parts[3] if len(parts) > 3 else "")
    opts = {"omit_excluded": EXCLUDE[parts[2]], "sort": SORT[parts[1]], "exclude_tags": exclude_tags}
    out = []
    try:
        out.append("  count messages %d threads %d" % (db.count_messages(text, **opts),
                                                        db.count_threads(text, **opts)))
        out.append("  threads:")
        out += [line for t in db.threads(text, **opts) for line in thread_lines(t)]
        out.append("  messages:")
        out += [line for m in db.messages(text, **opts) for line in message_lines(m, root)]
    except notmuch2.NotmuchError as e:
        out.append("  error: %s" % status(e))
    return out


def store_lines(db, config):
    keys = ["database.path", "database.mail_root", "search.exclude_tags", "new.tags", "user.name",
            "user.primary_email", "user.other_email"]
    out = ["store", "  path: %s" % db.path]
    out += ["  config %s: %s" % (k, db.config.get(k, "(none)")) for k in keys]
    out.append("  all tags:" + words(db.tags))
    out.append("  messages %d threads %d" % (db.count_messages("*", omit_excluded=DB.EXCLUDE.FALSE),
                                             db.count_threads("*", omit_excluded=DB.EXCLUDE.FALSE)))
    return out


def cmd_read(config, queries):
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(config)
    exclude_tags = [t.strip() for t in cfg.get("search", "exclude_tags", fallback="").split(";") if t.strip()]
    with DB(config=config) as db:
        root = db.config.get("database.mail_root", str(db.path))
        load_thread_names(db)
        print("\n".join(store_lines(db, config)))
        with open(queries, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                print("query " + line)
                for out in run_query(db, line, exclude_tags, root):
                    print(out)
    return 0


def change(db, query, limit, fn, prefix, what):
    ids = [str(m.messageid) for m in db.messages(query, omit_excluded=DB.EXCLUDE.FALSE, sort=DB.SORT.NEWEST_FIRST)]
    ids = ids[:limit]
    print("change %s: %s (%d messages)" % (what, query, len(ids)))
    for n, mid in enumerate(ids):
        try:
            fn(db.find(mid), prefix, n)
        except notmuch2.NotmuchError as e:
            print("  %s: %s" % (mid, status(e)))


def properties(m, prefix, n):
    props = m.properties
    props.add(prefix + ".key", "v1")
    props.add(prefix + ".key", "v%d" % n)
    props.add(prefix + ".other", "x")
    if n == 0:
        props.remove(prefix + ".key", "v1")
    if n == 1:
        del props[prefix + ".other"]
    if n == 2:
        for key in {p.key for p in props.getall(prefix + ".")}:
            del props[key]


def reset(m, prefix, n):
    with m.frozen():
        m.tags.clear()
        m.tags.add(prefix + "-reset")
        m.tags.add("inbox")


def frozen_flags(m, prefix, n):
    # walk.c's frozen_flags: the flags give unread back, then alot's way of tagging
    with m.frozen():
        m.tags.discard("unread")
        m.tags.from_maildir_flags()
        m.tags.add("flagged")
        m.tags.add(prefix + "-frozen")
        m.tags.to_maildir_flags()


def misuse(m, prefix, n):
    for what, fn in (("add a 201-byte tag", lambda: m.tags.add("x" * 201)),
                     ("remove a tag never set", lambda: m.tags.discard("no-such-tag")),
                     ("a property key with '='", lambda: m.properties.add("bad=key", "v"))):
        try:
            fn()
            print("  %s: ok" % what)
        except (notmuch2.NotmuchError, ValueError) as e:
            print("  %s: %s" % (what, status(e)))
    try:
        print("  get a missing property: %s" % m.properties["no.such.key"])
    except KeyError:
        print("  get a missing property: KeyError")


def mark_read(m, prefix, n):
    m.tags.discard("unread")
    m.tags.add(prefix + "-read")


def cmd_write(config, prefix):
    with DB(config=config, mode=DB.MODE.READ_WRITE) as db:
        before = db.revision()
        with db.atomic():
            change(db, "from:user@example.org", 1000, lambda m, p, n: m.tags.add(p + "-mine"), prefix, "add a tag")
            change(db, "tag:unread and date:2020..2021", 1000, mark_read, prefix, "remove and add")
            change(db, "*", 5, properties, prefix, "properties")
            change(db, "tag:replied", 3, reset, prefix, "freeze, remove all, add, thaw")
            change(db, "tag:unread and not tag:flagged", 3, frozen_flags, prefix, "freeze, add, sync flags, thaw")
            change(db, "to:user@work.example.com", 2, lambda m, p, n: m.tags.add("deleted"), prefix, "exclude")
            change(db, "*", 1, misuse, prefix, "misuse")
        try:
            db.find("no-such-id@example.org")
            print("find(missing): found")
        except LookupError:
            print("find(missing): LookupError")
        oldest = next(iter(db.messages("*", sort=DB.SORT.OLDEST_FIRST)))
        print("get(oldest's file): %s" % db.get(oldest.path).messageid)
        print("revision grew: %s" % ("yes" if db.revision().rev > before.rev else "no"))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "read":
        return cmd_read(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "write":
        return cmd_write(argv[2], argv[3])
    sys.stderr.write("usage: walk.py read CONFIG QUERIES | walk.py write CONFIG PREFIX\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
