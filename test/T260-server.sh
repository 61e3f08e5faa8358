#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `maildex server` (doc/protocol.md): every command answered byte for byte as the same command run as
# a process (stdout, stderr, status), large outputs in frames, readers that never wait for a writer,
# writers in the order sent, cancel, bad requests, the socket (its mode, a second server refused, a
# stale socket replaced), --watch's events, and the ends: stdin closed, SIGTERM, a client that stops
# reading.
. "$(dirname "$0")/test-lib.sh"
test_require python3
test_require sqlite3

CLIENT="python3 $TEST_DIRECTORY/server-client.py"
copy_corpus "$TEST_DIRECTORY/corpora/sample" "$MAIL_DIR"
# one message larger than a frame (the server frames what it reads from the command's pipe, 64 KiB)
python3 -c "
import sys
print('From: big@example.org\nTo: you@example.org\nSubject: big\nMessage-ID: <big@example.org>\nDate: Fri, 05 Jan 2024 11:00:00 +0000\n')
for i in range(4000): print('line %d of a message that does not fit in one frame of the server' % i)
" > "$MAIL_DIR/cur/big:2,S"
maildex new --quiet
N=$(maildex count '*')


test_begin_subtest "every kind of request is answered byte for byte as the process answers it"
cat > requests <<'EOF'
["count", "*"]
["count", "--output=threads", "tag:inbox"]
["count", "--lastmod", "*"]
["search", "*"]
["search", "--format=json", "--output=summary", "tag:inbox"]
["search", "--format=sexp", "--output=messages", "*"]
["search", "--format=text0", "--output=files", "*"]
["search", "--output=tags", "*"]
["search", "--format=json", "--limit=2", "--offset=1", "*"]
["show", "--format=json", "--entire-thread=true", "thread:{tag:flagged}"]
["show", "--format=sexp", "--body=false", "*"]
["show", "--format=text", "tag:attachment"]
["show", "--format=raw", "id:msg1@example.org"]
["show", "--format=mbox", "tag:inbox"]
["show", "--format=json", "--part=2", "tag:attachment"]
["reply", "--format=sexp", "id:msg1@example.org"]
["reply", "id:msg1@example.org"]
["address", "--output=sender", "--output=recipients", "--format=json", "*"]
["dump"]
["dump", "--include=tags", "--", "tag:inbox"]
["config", "get", "user.name"]
["config", "list"]
["help", "search"]
["search", "--help"]
["--version"]
["search", "from:"]
["search", "--format=json", "(tag:inbox"]
["search"]
["show", "--format=json", "--part=99", "*"]
["search", "--nosuchoption", "x"]
["search", "--format=nosuch", "x"]
["nosuchcommand"]
["search", "--format-version=99", "x"]
["reply", "*"]
["count", "--batch"]
{"argv": ["count", "--batch"], "stdin": "tag:inbox\n*\nfrom:erin\n"}
{"argv": ["search", "--output=messages", "--", "Bödý"]}
EOF
test_expect_equal "$($CLIENT compare "$(command -v maildex)" requests | tail -1)" "37 requests, 0 differences"

test_begin_subtest "writes through the server are the process's too: tag, tag --batch, restore, insert"
cat > writes <<'EOF'
["tag", "+via-server", "--", "tag:inbox"]
{"argv": ["tag", "--batch"], "stdin": "-via-server +batched -- id:msg1@example.org\n"}
["search", "--output=tags", "tag:via-server or tag:batched"]
{"argv": ["restore", "--accumulate"], "stdin": "+restored -- id:msg2@example.com\n"}
{"argv": ["insert", "--folder=sent", "--create-folder", "+sent"], "stdin": "From: me@example.org\nTo: you@example.org\nSubject: through the server\nMessage-ID: <via-server@example.org>\nDate: Fri, 05 Jan 2024 10:00:00 +0000\n\nhello\n"}
["tag", "-via-server", "-batched", "-restored", "--", "*"]
EOF
# Each write runs twice (server, then process): the second finds the first's work, which is the point
# for tag (idempotent) and makes insert's second copy a duplicate; compare tag and restore, then check
# the insert on its own.
$CLIENT compare --one-by-one "$(command -v maildex)" writes > compare.out
test_expect_equal "$(grep -c 'differs' compare.out) $(maildex search --output=files id:via-server@example.org | wc -l) $(maildex search --output=tags id:via-server@example.org | tr '\n' ' ')" \
    "0 2 inbox sent unread "

N=$(maildex count '*')

test_begin_subtest "a large output comes in many frames and is whole"
printf '%s\n' '{"id":1,"argv":["show","--format=json","*"]}' > big.req
python3 - "$(command -v maildex)" <<'EOF' > big.check
import json, subprocess, sys
m = sys.argv[1]
p = subprocess.run([m, "server"], input=b'{"id":1,"argv":["show","--format=mbox","*"]}\n' * 1, capture_output=True)
frames, data, rest = 0, b"", p.stdout
while rest:
    head, rest = rest.split(b"\n", 1)
    words = head.split()
    n = int(words[-1])
    if words[0] == b"out":
        frames += 1
        data += rest[:n]
    rest = rest[n:]
direct = subprocess.run([m, "show", "--format=mbox", "*"], capture_output=True).stdout
print(data == direct, frames > 2)
EOF
test_expect_equal "$(cat big.check)" "True True"

test_begin_subtest "a reader is answered while a writer waits for the write lock, then the writer is cancelled"
# Another process holds the write lock until the fifo is written: sqlite3 holds it while its .shell
# waits. The reader's answer and the cancel both come while it is held (the lock is let go only
# once the client is done), so the order proves it, not a clock.
rm -f locked release && mkfifo release
( printf 'BEGIN IMMEDIATE;\n.shell touch locked; read x < release\nCOMMIT;\n' |
    sqlite3 "$MAIL_DIR/.maildex/maildex.db" ) &
locker=$!
i=0; while [ ! -e locked ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
printf '%s\n' '{"id":1,"argv":["tag","+waited","--","*"]}' '{"id":2,"argv":["count","*"]}' '#wait 2' \
    '{"cancel":1}' | $CLIENT send "$(command -v maildex)" > waited.out
echo > release
wait $locker
test_expect_equal "$(head -c 200 waited.out | head -4 | sed 's/[0-9]* cancelled/N cancelled/') $(maildex count tag:waited)" \
    "1 130
maildex server: request N cancelled
2 0
$N 0"

test_begin_subtest "300 readers sent at once: all answered (at most 64 run at a time, the rest wait)"
i=1
while [ $i -le 300 ]; do
    printf '{"id":%d,"argv":["count","*"]}\n' $i
    i=$((i + 1))
done | $CLIENT send "$(command -v maildex)" > many.out
test_expect_equal "$(grep -c '^[0-9]* 0$' many.out) $(grep -c "^$N\$" many.out) $(tail -1 many.out)" "300 300 server 0"

test_begin_subtest "writers run one at a time in the order sent; readers after them see their work"
{
    i=1
    while [ $i -le 20 ]; do
        printf '{"id":%d,"argv":["tag","+order-%d","--","id:msg1@example.org"]}\n' $i $i
        i=$((i + 1))
    done
    printf '%s\n' '{"id":21,"argv":["tag","-order-1","-order-2","--","*"]}'
} | $CLIENT send "$(command -v maildex)" > order.out
test_expect_equal "$(maildex search --output=tags id:msg1@example.org | grep -c '^order-') $(grep -c '^[0-9]* 0$' order.out)" "18 21"

test_begin_subtest "bad requests are answered with an error and the server goes on"
printf '%s\n' 'not json' '{"argv":["count","*"]}' '{"id":3,"argv":"count"}' '{"id":4,"argv":[1,2]}' '{"id":5,"argv":[]}' \
    '{"id":6,"argv":["server"]}' '{"id":7,"argv":["watch"]}' '{"id":8,"argv":["count","*"]}' |
    $CLIENT send "$(command -v maildex)" > bad.out
test_expect_equal "$(cat bad.out)" "0 1
maildex server: bad request: not a JSON object: expected a value at byte 0
0 1
maildex server: bad request: no \"id\" (a positive integer)
3 1
maildex server: bad request 3: no argv array
4 1
maildex server: bad request 4: argv must be an array of strings
5 1
maildex server: bad request 5: argv is empty
6 1
maildex server: runs only as a process of its own, not inside 'maildex server'
7 1
maildex watch: runs only as a process of its own, not inside 'maildex server'
8 0
$N
server 0"

test_begin_subtest "a line over 256 MiB is refused whole: its tail never runs, the next request is answered"
python3 -c '
import sys
o = sys.stdout.buffer
o.write(b"{\"id\":1,\"argv\":[\"count\",\"")
o.write(b"x" * (256 << 20))
o.write(b"\"]}{\"id\":2,\"argv\":[\"tag\",\"+overlong\",\"--\",\"*\"]}\n")
o.write(b"{\"id\":3,\"argv\":[\"count\",\"tag:overlong\"]}\n")' |
    $CLIENT send "$(command -v maildex)" > overlong.out
test_expect_equal "$(cat overlong.out) $(maildex count tag:overlong)" "0 1
maildex server: bad request: a line longer than 268435456 bytes, ignored up to its end
3 0
0
server 0 0"

test_begin_subtest "stdin_base64 that is not base64 is refused; valid base64 reaches the command"
printf '%s\n' '{"id":1,"argv":["tag","--batch"],"stdin_base64":"K2I2NCAtLSAq!!"}' \
    '{"id":2,"argv":["tag","--batch"],"stdin_base64":"K2I2NCAtLSAq"}' \
    '{"id":3,"argv":["tag","--batch"],"stdin_base64":"K2I2NCAtLSA"}' |
    $CLIENT send "$(command -v maildex)" > b64.out
test_expect_equal "$(cat b64.out) $(maildex count tag:b64)" "1 1
maildex server: bad request 1: stdin_base64 is not base64 (RFC 4648)
2 0
3 1
maildex server: bad request 3: stdin_base64 is not base64 (RFC 4648)
server 0 $N"

test_begin_subtest "requests are read as JSON: escapes, surrogate pairs, NUL, bad UTF-8, nesting, numbers"
{
    printf '%s\n' '{"id":1,"argv":["count","from:\u0042ob or subject:\"caf\u00e9\" or \ud83d\ude00"],"x":[1,-2.5e3,{"a":null,"b":false}]}'
    printf '%s\n' '{"id":2,"argv":["count","\u0000"]}'
    printf '{"id":3,"argv":["count","\377"]}\n'
    printf '%s\n' '{"id":4,"argv":["count","\ud83d"]}'
    printf '%s\n' '{"id":5,"argv":["count","*"],"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}'
    printf '%s\n' '{"id":6.5,"argv":["count","*"]}' '{"id":7,"argv":["count","*"],}' '{"id":8,"argv":["count","*"]} x'
    printf '%s\n' '{"id":9,"argv":["count","*"],"big":123456789012345678901234567890}'
} | $CLIENT send "$(command -v maildex)" > json.out
test_expect_equal "$(cat json.out)" "0 1
maildex server: bad request: not a JSON object: text that is not UTF-8 at byte 25
0 1
maildex server: bad request: not a JSON object: a high surrogate without its low one at byte 31
0 1
maildex server: bad request: not a JSON object: nesting too deep at byte 100
0 1
maildex server: bad request: no \"id\" (a positive integer)
0 1
maildex server: bad request: not a JSON object: expected a member name at byte 29
0 1
maildex server: bad request: not a JSON object: text after the value at byte 30
1 0
$(maildex count 'from:Bob or subject:"café" or 😀')
2 1
maildex server: bad request 2: an argument holds a NUL character
9 0
$N
server 0"

test_begin_subtest "stdin closed: the requests in hand are answered, then the server exits 0"
printf '%s\n' '{"id":1,"argv":["tag","+last","--","*"]}' '{"id":2,"argv":["search","--output=files","*"]}' |
    $CLIENT send "$(command -v maildex)" > eof.out
test_expect_equal "$(grep -c '^[12] 0$' eof.out) $(tail -1 eof.out) $(maildex count tag:last)" "2 server 0 $N"

test_begin_subtest "stdin that cannot be waited on (/dev/null, a file) is refused, not a crash"
printf '%s\n' '{"id":1,"argv":["count","*"]}' > requests.txt
output="$(maildex server </dev/null 2>&1; echo "status $?")
$(maildex server <requests.txt 2>&1; echo "status $?")"
test_expect_equal "$output" "maildex server: standard input must be a pipe, a socket or a terminal
status 1
maildex server: standard input must be a pipe, a socket or a terminal
status 1"

test_begin_subtest "answers may go to a file or to /dev/null"
n=$(maildex count '*')
output="$(cat requests.txt | maildex server >server.out 2>&1; echo "status $?")
$(cat requests.txt | maildex server >/dev/null 2>&1; echo "status $?")
$(cat server.out)"
test_expect_equal "$output" "status 0
status 0
out 1 $((${#n} + 1))
$n
end 1 0 0"

test_begin_subtest "a client that stops reading does not stop the server from ending"
printf '%s\n' '{"id":1,"argv":["show","--format=mbox","*"]}' > stalled.req
( sleep 1; cat stalled.req ) | (timeout 10 maildex server; echo "server $?" > stalled.status) | head -c 10 > /dev/null
test_expect_equal "$(cat stalled.status)" "server 0"

SOCK_DIR=$TMP_DIRECTORY/run
mkdir -m 700 "$SOCK_DIR"
export XDG_RUNTIME_DIR=$SOCK_DIR

test_begin_subtest "--listen: the socket in \$XDG_RUNTIME_DIR/maildex, mode 0600 in a 0700 directory"
maildex server --listen 2> server.err &
server_pid=$!
n=0
while [ ! -S "$SOCK_DIR/maildex/socket" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
test_expect_equal "$(stat -c %a "$SOCK_DIR/maildex" "$SOCK_DIR/maildex/socket" | tr '\n' ' ')$($CLIENT one "$SOCK_DIR/maildex/socket" '["count","*"]')" \
    "700 600 $N"

test_begin_subtest "four clients at once over the socket, each answered as the process answers"
maildex search --format=json --output=summary '*' > expected-summary
pids=
for i in 1 2 3 4; do
    $CLIENT one "$SOCK_DIR/maildex/socket" '["search","--format=json","--output=summary","*"]' > "client-$i" &
    pids="$pids $!"
done
wait_clients=0
for pid in $pids; do wait "$pid" || wait_clients=1; done
test_expect_equal "$(for i in 1 2 3 4; do cmp -s expected-summary "client-$i" && echo same; done | tr '\n' ' ')$wait_clients" \
    "same same same same 0"

test_begin_subtest "a second server on the same socket is refused"
test_expect_equal "$(maildex server --listen 2>&1; echo "status $?")" \
    "maildex server: another server is listening on '$SOCK_DIR/maildex/socket'
status 1"

test_begin_subtest "SIGTERM: the server exits 0 and removes its socket"
kill -TERM $server_pid
wait $server_pid
test_expect_equal "$? $([ -e "$SOCK_DIR/maildex/socket" ] && echo left || echo removed)" "0 removed"

test_begin_subtest "a socket left by a server that died is replaced"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$SOCK_DIR/maildex/socket"
maildex server --listen 2> server.err &
server_pid=$!
sleep 0.5
test_expect_equal "$($CLIENT one "$SOCK_DIR/maildex/socket" '["count","*"]')" "$N"
kill -TERM $server_pid
wait $server_pid

test_begin_subtest "a socket directory others can enter is refused"
chmod 755 "$SOCK_DIR/maildex"
test_expect_equal "$(maildex server --listen 2>&1; echo "status $?")" \
    "maildex server: directory '$SOCK_DIR/maildex' must belong to you and be closed to others (chmod 700) to hold the socket
status 1"
chmod 700 "$SOCK_DIR/maildex"

test_begin_subtest "--watch: a subscribed client hears of mail delivered, which it can then find"
deliver_script=$TMP_DIRECTORY/deliver.sh
cat > "$deliver_script" <<EOF
sleep 1
printf 'From: s@example.org\nSubject: landed\nMessage-Id: <landed@x>\nDate: Fri, 05 Jan 2001 15:43:00 +0000\n\nbody\n' > "$TMP_DIRECTORY/tmp-landed"
mv "$TMP_DIRECTORY/tmp-landed" "$MAIL_DIR/new/landed"
EOF
mkdir -p "$MAIL_DIR/new"
{
    printf '%s\n' '{"id":1,"subscribe":true}'
    sh "$deliver_script"
    printf '%s\n' '#added' '{"id":2,"argv":["search","--output=messages","id:landed@x"]}'
} | $CLIENT send "$(command -v maildex)" --watch > watch.out 2> watch.err
test_expect_equal "$(grep -c '^event .*"added": 1' watch.out) $(sed -n '/^2 0$/{n;p}' watch.out)" "1 id:landed@x"

test_done
