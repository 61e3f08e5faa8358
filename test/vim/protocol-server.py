#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A stand-in for `maildex server` (stdio), speaking its protocol (doc/protocol.md, version 1) by
running each request's argv as a `maildex` process: T600 drives the Vim plugin's server transport
through it, so the plugin's side of the protocol is tested before and besides the real server.

Request lines {"id", "argv", "stdin"|"stdin_base64"}, {"cancel"}, {"id", "subscribe"}; answers
`out ID LEN`, `end ID STATUS LEN` frames. Output is cut into frames of FRAME bytes (odd, so frames
end inside lines and inside UTF-8 sequences, as the real server's may), and requests run at once.
Readers run at once; every other command waits for the one before it, in the order read (the
protocol's rule). Usage: protocol-server.py MAILDEX [FRAME]
"""
import base64
import json
import queue
import subprocess
import sys
import threading

maildex = sys.argv[1]
frame = int(sys.argv[2]) if len(sys.argv) > 2 else 4093
out_lock = threading.Lock()
running = {}
readers = {"search", "show", "count", "address", "reply", "dump"}
writes = queue.Queue()


def send(header, payload=b""):
    with out_lock:
        sys.stdout.buffer.write(header.encode() + b" %d\n" % len(payload) + payload)
        sys.stdout.buffer.flush()


def run(rid, argv, stdin):
    proc = subprocess.Popen([maildex] + argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    running[rid] = proc
    err = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    reader.start()
    proc.stdin.write(stdin)
    proc.stdin.close()
    while True:
        chunk = proc.stdout.read(frame)
        if not chunk:
            break
        send("out %d" % rid, chunk)
    status = proc.wait()
    reader.join()
    running.pop(rid, None)
    if status < 0:
        send("end %d 130" % rid, b"maildex server: request %d cancelled\n" % rid)
    else:
        send("end %d %d" % (rid, status), err[0])


def writer():
    while True:
        run(*writes.get())


threading.Thread(target=writer, daemon=True).start()
for line in sys.stdin.buffer:
    try:
        request = json.loads(line)
    except ValueError:
        send("end 0 1", b"maildex server: bad request: not JSON\n")
        continue
    if "cancel" in request:
        proc = running.get(request["cancel"])
        if proc:
            proc.kill()
    elif "subscribe" in request:
        send("end %d 0" % request["id"])
    else:
        stdin = request.get("stdin", "").encode()
        if "stdin_base64" in request:
            stdin = base64.b64decode(request["stdin_base64"])
        job = (request["id"], request["argv"], stdin)
        if request["argv"][:1] and request["argv"][0] in readers:
            threading.Thread(target=run, args=job).start()
        else:
            writes.put(job)
