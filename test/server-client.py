#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A client of `maildex server` (doc/protocol.md), for the tests (T260) and bench/server-load.

    server-client.py compare [--one-by-one] MAILDEX FILE
                                               run each request of FILE (one JSON argv per line, or
                                               {"argv": [...], "stdin": TEXT}) through `MAILDEX
                                               server` and as a process; print every difference in
                                               stdout, stderr or status; exit 1 if any
    server-client.py send MAILDEX [SERVER-ARGS...] < REQUESTS
                                               send the request lines as they are, print each
                                               request's answer as "ID STATUS" + stdout + stderr:
                                               first the lines that were not requests (id 0) in
                                               order, then by id; then events as "event JSON".
                                               Two lines are the client's, not sent: "#wait ID"
                                               holds the next line until request ID ended;
                                               "#added [N]" until N (1) events told of added
                                               mail (both give up after 120 s), so tests order
                                               on what happened, never on how long it took. With
                                               $SERVER_CLIENT_TRACE set, each "end ID STATUS"
                                               and "event JSON" is also appended to that file
                                               as it comes, for a test's shell to wait on
    server-client.py one SOCKET ARGV-JSON      one request over the socket; its stdout on stdout,
                                               its stderr on stderr, its status as the exit status

The frames: "out ID LEN\\n" + LEN bytes of the request's stdout, "end ID STATUS LEN\\n" + its stderr,
"event LEN\\n" + one JSON line.
"""
import json
import os
import socket
import subprocess
import sys
import threading


class Answers:
    """Reads frames from a binary stream and collects the answers by id."""

    def __init__(self, stream):
        self.stream = stream
        self.out = {}
        self.ended = {}
        self.events = []
        self.unnamed = []  # the ends of lines that were not requests (id 0), in order
        self.cond = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _readline(self):
        line = b""
        while not line.endswith(b"\n"):
            c = self.stream.read(1)
            if not c:
                return None
            line += c
        return line

    def _read(self):
        while True:
            header = self._readline()
            if header is None:
                break
            words = header.decode().split()
            n = int(words[-1])
            payload = b""
            while len(payload) < n:
                chunk = self.stream.read(n - len(payload))
                if not chunk:
                    break
                payload += chunk
            with self.cond:
                if words[0] == "out":
                    self.out.setdefault(int(words[1]), bytearray()).extend(payload)
                elif words[0] == "end" and words[1] == "0":
                    self.unnamed.append((int(words[2]), payload))
                elif words[0] == "end":
                    self.ended[int(words[1])] = (int(words[2]), payload)
                    self._trace("end %s %s" % (words[1], words[2]))
                elif words[0] == "event":
                    self.events.append(json.loads(payload))
                    self._trace("event %s" % json.dumps(self.events[-1], sort_keys=True))
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    @staticmethod
    def _trace(line):
        if os.environ.get("SERVER_CLIENT_TRACE"):
            with open(os.environ["SERVER_CLIENT_TRACE"], "a") as f:
                f.write(line + "\n")

    def wait(self, rid, timeout=120):
        with self.cond:
            self.cond.wait_for(lambda: rid in self.ended or self.closed, timeout)
            if rid not in self.ended:
                raise RuntimeError("no answer to request %d" % rid)
            status, err = self.ended[rid]
            return status, bytes(self.out.pop(rid, b"")), err

    def wait_event(self, timeout=10):
        with self.cond:
            self.cond.wait_for(lambda: self.events or self.closed, timeout)
            return self.events.pop(0) if self.events else None


def request_line(rid, req):
    if isinstance(req, list):
        req = {"argv": req}
    body = {"id": rid, "argv": req["argv"]}
    if "stdin" in req:
        body["stdin"] = req["stdin"]
    return (json.dumps(body) + "\n").encode()


def compare(maildex, path, one_by_one):
    requests = [json.loads(l) for l in open(path) if l.strip() and not l.startswith("#")]
    server = subprocess.Popen([maildex, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    answers = Answers(server.stdout)
    if not one_by_one:  # all at once: the readers run side by side
        for i, req in enumerate(requests, 1):
            server.stdin.write(request_line(i, req))
        server.stdin.flush()
    bad = 0
    for i, req in enumerate(requests, 1):
        if one_by_one:  # each after the one before ended, as a script of processes runs them
            server.stdin.write(request_line(i, req))
            server.stdin.flush()
        status, out, err = answers.wait(i)
        argv = req if isinstance(req, list) else req["argv"]
        stdin = (req.get("stdin", "") if isinstance(req, dict) else "").encode()
        proc = subprocess.run([maildex] + argv, input=stdin, capture_output=True)
        for what, a, b in (("status", status, proc.returncode), ("stdout", out, proc.stdout),
                           ("stderr", err, proc.stderr)):
            if a != b:
                bad += 1
                print("request %d %s: %s differs\n  server:  %r\n  process: %r"
                      % (i, json.dumps(argv), what, a[:2000] if isinstance(a, bytes) else a,
                         b[:2000] if isinstance(b, bytes) else b))
    server.stdin.close()
    rc = server.wait(timeout=60)
    if rc != 0:
        print("the server exited with status %d" % rc)
        bad += 1
    print("%d requests, %d differences" % (len(requests), bad))
    return 1 if bad else 0


def send(maildex, server_args):
    server = subprocess.Popen([maildex, "server"] + server_args, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    answers = Answers(server.stdout)
    ids = []
    for line in sys.stdin.buffer:
        if line.startswith(b"#wait "):
            rid = int(line.split()[1])
            with answers.cond:
                answers.cond.wait_for(lambda: rid in answers.ended or answers.closed, 120)
            continue
        if line.startswith(b"#added"):
            n = int(line.split()[1]) if len(line.split()) > 1 else 1
            with answers.cond:
                answers.cond.wait_for(lambda: sum(1 for e in answers.events if e.get("added")) >= n
                                      or answers.closed, 120)
            continue
        server.stdin.write(line)
        server.stdin.flush()
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and "id" in obj and "cancel" not in obj:
                ids.append(obj["id"])
        except ValueError:
            pass
    server.stdin.close()
    rc = server.wait(timeout=120)
    with answers.cond:
        answers.cond.wait_for(lambda: answers.closed, 10)
    for status, err in answers.unnamed:
        sys.stdout.buffer.write(b"0 %d\n" % status + err)
    for rid in sorted(set(ids) | set(answers.ended)):
        if rid in answers.ended:
            status, err = answers.ended[rid]
            sys.stdout.buffer.write(b"%d %d\n" % (rid, status) + bytes(answers.out.get(rid, b"")) + err)
    for e in answers.events:
        sys.stdout.write("event %s\n" % json.dumps(e, sort_keys=True))
    sys.stdout.write("server %d\n" % rc)
    return 0


def one(path, argv_json):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(request_line(1, json.loads(argv_json)))
    s.shutdown(socket.SHUT_WR)
    answers = Answers(s.makefile("rb"))
    status, out, err = answers.wait(1)
    sys.stdout.buffer.write(out)
    sys.stderr.buffer.write(err)
    return status


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "compare":
        one_by_one = sys.argv[2] == "--one-by-one"
        sys.exit(compare(sys.argv[2 + one_by_one], sys.argv[3 + one_by_one], one_by_one))
    elif mode == "send":
        sys.exit(send(sys.argv[2], sys.argv[3:]))
    elif mode == "one":
        sys.exit(one(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
