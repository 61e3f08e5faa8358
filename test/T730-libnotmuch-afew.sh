#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# afew on maildex (issue 28, "Done when": the legacy Python module loads maildex's library and afew's
# own `afew --tag --new` runs on a maildex store). Debian's afew (on the legacy ctypes bindings,
# python3-notmuch) tags the same new mail twice: on notmuch's database through Debian's libnotmuch,
# and on maildex's store through `maildex exec`. Its usual filter chain is enabled (SpamFilter,
# KillThreadsFilter, ListMailsFilter, ArchiveSentMailsFilter, InboxFilter) with a query filter and a
# header filter; the mail (bench/gen, plus a spam message) is indexed with new.tags=new, as afew
# users set it, and one thread is killed beforehand. Afterwards every message must carry the same
# tags in both stores (`dump`, sorted). A smoke test of tags only: the afew differential with
# MailMover rules is T750. Until this build has the library, the maildex half
# is skipped and the notmuch half checks that afew ran and tagged.
. "$(dirname "$0")/test-lib.sh"
. "$srcdir/test/libnotmuch/setup.sh"
. "$srcdir/test/libnotmuch/afew.sh"
afew_configs "$NOTMUCH_CONFIG" "$MAILDEX_CONFIG"

afew_user_config <<'EOF'
[SpamFilter]
[KillThreadsFilter]
[ListMailsFilter]
[ArchiveSentMailsFilter]
[Filter.0]
message = work mail
query = from:work.example.com
tags = +work
[HeaderMatchingFilter.0]
message = the mail agent
header = User-Agent
pattern = ^(?P<agent>[a-z]+)
tags = +agent/{agent}
[InboxFilter]
EOF

python3 "$srcdir/bench/gen" --count 150 --seed 9 "$MAIL_DIR" > /dev/null
afew_spam "$MAIL_DIR"
"$NOTMUCH" new > /dev/null 2>&1
maildex new > /dev/null 2>&1
# A killed thread: afew's KillThreadsFilter kills the rest of it.
killed=$("$NOTMUCH" search --output=messages --sort=oldest-first --limit=1 'thread:{from:user@example.org}' | sed 's/^id://')
"$NOTMUCH" tag +killed -- id:"$killed" > /dev/null 2>&1
maildex tag +killed -- id:"$killed" > /dev/null 2>&1

# A message whose copies disagree on List-Id gets its list tags from the copy each library reads
# first (afew.sh): those are left out of the comparison and checked on their own.
afew_split_copies > "$TMP_DIRECTORY/split"
tags() { "$1" dump 2>/dev/null | grep -v '^#' | grep -v -F -f "$TMP_DIRECTORY/split" -e '@@none@@' | sort; }

on_debian afew --tag --new > "$TMP_DIRECTORY/afew.notmuch" 2>&1
echo "exit $?" >> "$TMP_DIRECTORY/afew.notmuch"
tags "$NOTMUCH" > "$TMP_DIRECTORY/tags.notmuch"

test_begin_subtest "notmuch: afew --tag --new runs and exits 0"
test_expect_equal "$(tail -n 1 "$TMP_DIRECTORY/afew.notmuch")" "exit 0"

test_begin_subtest "notmuch: afew tagged: no new mail left; spam, lists, killed, work, agents, inbox"
summary() {
    for q in tag:new tag:spam tag:lists tag:lists/dev tag:killed tag:work tag:agent/mutt tag:inbox; do
        n=$("$1" count --exclude=false "$q")
        if [ "$q" = tag:new ]; then echo "$q $n"; else echo "$q $([ "$n" -gt 0 ] && echo some || echo none)"; fi
    done
}
test_expect_equal "$(summary "$NOTMUCH" | tr '\n' ' ')" \
    "tag:new 0 tag:spam some tag:lists some tag:lists/dev some tag:killed some tag:work some tag:agent/mutt some tag:inbox some "

test_begin_subtest "maildex: afew --tag --new through maildex exec runs and exits 0"
if abi_have_lib; then
    with_asan maildex exec afew --tag --new > "$TMP_DIRECTORY/afew.maildex" 2>&1
    echo "exit $?" >> "$TMP_DIRECTORY/afew.maildex"
    test_expect_equal_file "$TMP_DIRECTORY/afew.notmuch" "$TMP_DIRECTORY/afew.maildex"
    tags maildex > "$TMP_DIRECTORY/tags.maildex"
    test_begin_subtest "maildex: every message has the tags afew gives it on notmuch"
    test_expect_equal_file "$TMP_DIRECTORY/tags.notmuch" "$TMP_DIRECTORY/tags.maildex"
    test_begin_subtest "maildex: a message whose copies disagree on List-Id is tagged by its first copy"
    afew_first_copy_bad maildex "$TMP_DIRECTORY/split" > "$TMP_DIRECTORY/split.bad"
    test_expect_equal "$(cat "$TMP_DIRECTORY/split.bad")" ""
else
    test_skip_ "$abi_skip_reason"
    test_begin_subtest "maildex: every message has the tags afew gives it on notmuch"
    test_skip_ "$abi_skip_reason"
    test_begin_subtest "maildex: a message whose copies disagree on List-Id is tagged by its first copy"
    test_skip_ "$abi_skip_reason"
fi

test_done
