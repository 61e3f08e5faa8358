#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SIGTERM and SIGINT during `maildex new`: the batch in hand is committed, the run says so and exits
# non-zero, and the next run finishes the job.
. "$(dirname "$0")/test-lib.sh"
test_require python3

python3 "$srcdir/bench/gen" --count 2500 --seed 59 "$MAIL_DIR.gen" >/dev/null
rmdir "$MAIL_DIR" && mv "$MAIL_DIR.gen" "$MAIL_DIR"

# Starts new --verbose, sends the signal once `lines` files were applied, waits for it.
signalled_new() {
    log=$TMP_DIRECTORY/signal.log
    : > "$log"
    maildex new --verbose > "$log" 2> "$log.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && [ "$(wc -l < "$log")" -lt "$2" ]; do sleep 0.005; done
    kill -"$1" "$pid" 2>/dev/null
    wait "$pid"
    status=$?
}

for sig in TERM INT; do
    signalled_new $sig 400
    test_begin_subtest "SIG$sig: exit status 1 and a message saying the work is saved"
    test_expect_equal "$status $(cat "$log.err")" "1 maildex new: interrupted: what was indexed so far is saved"

    test_begin_subtest "SIG$sig: what was applied before the signal is committed"
    n=$(maildex count '*')
    if [ "$n" -gt 0 ] && [ "$n" -lt 2500 ]; then test_ok_; else test_failure_ "count after SIG$sig: $n"; fi
done

test_begin_subtest "the next run finishes the job"
maildex new >/dev/null 2>&1
test_expect_equal "$(maildex count --output=files '*')" "2500"

test_done
