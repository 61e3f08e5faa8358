#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `show` streams: it prints one thread (or message) at a time and frees it before the next, so its peak
# memory does not grow with the number of messages shown. A generated Maildir of 10,000 files (bench/gen)
# is shown whole and its INBOX (about 1,000 messages) alone, in JSON, S-expressions, text and unthreaded,
# and the peak RSS (GNU time's %M) of showing ten times the messages may exceed the smaller run's only by
# SQLite's page cache (2 MB by default) and a margin, never in proportion.
. "$(dirname "$0")/test-lib.sh"
test_require python3
[ -x /usr/bin/time ] || { echo "1..0 # SKIP GNU time (/usr/bin/time) is not installed"; exit 0; }
# Under a sanitizer the peak RSS is not the program's: freed memory waits in a quarantine.
if sanitizer_build; then
    echo "1..0 # SKIP built with a sanitizer, whose shadow and quarantine are in the RSS"
    exit 0
fi

rmdir "$MAIL_DIR"
python3 "$srcdir/bench/gen" --count 10000 --seed 7 "$MAIL_DIR" > /dev/null
maildex new > /dev/null

few=$(maildex count 'path:INBOX/**')
all=$(maildex count '*')
test_begin_subtest "the two sets: about 1,000 and 10,000 messages"
test_expect_equal "$([ "$few" -ge 500 ] && [ "$few" -le 2000 ] && [ "$all" -ge $((few * 5)) ] && echo ok)" "ok"

# peak_kb ARGS...: the peak RSS in kB of `maildex show ARGS`, its output discarded.
peak_kb() {
    /usr/bin/time -f '%M' -o "$TMP_DIRECTORY/rss" maildex show "$@" > /dev/null 2>&1
    tail -n 1 "$TMP_DIRECTORY/rss"
}

for args in "--format=json" "--format=sexp --entire-thread=false" "--format=text" "--format=json --unthreaded"; do
    # shellcheck disable=SC2086
    small=$(peak_kb $args 'path:INBOX/**')
    # shellcheck disable=SC2086
    large=$(peak_kb $args '*')
    echo "# show $args: $few messages ${small:-?} kB, $all messages ${large:-?} kB"
    test_begin_subtest "show $args: peak RSS for $all messages within 4 MB of that for $few"
    if [ -n "$small" ] && [ -n "$large" ] && [ "$large" -le $((small + 4096)) ]; then
        test_ok_
    else
        test_failure_ "peak RSS ${small:-?} kB for $few messages, ${large:-?} kB for $all"
    fi
done

test_done
