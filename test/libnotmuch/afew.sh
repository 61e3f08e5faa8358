# SPDX-License-Identifier: GPL-3.0-or-later
# afew.sh: what the afew tests (T730, T750) share, sourced after setup.sh: the script is skipped
# without python3, afew or notmuch, and gets notmuch's and maildex's configs (differential_setup),
# excluding deleted and spam as afew users do.
test_require python3
test_require afew
differential_setup "deleted;spam;"

# afew_configs CONFIG...: afew's convention in each notmuch config: new mail is tagged new (afew's
# InboxFilter turns it into inbox), and the user is bench/gen's, whose sent mail SentMailsFilter and
# ArchiveSentMailsFilter find.
afew_configs() {
    printf 'primary_email=user@example.org\nother_email=user@work.example.com;\n' > "$TMP_DIRECTORY/user"
    sed -i -e 's/^tags=unread;inbox;$/tags=new;/' -e "/^primary_email=/{r $TMP_DIRECTORY/user
d}" "$@"
}

# afew_user_config: afew's own config (~/.config/afew/config) becomes standard input.
afew_user_config() {
    mkdir -p "$HOME/.config/afew"
    cat > "$HOME/.config/afew/config"
}

# afew_spam MAILDIR: one message in MAILDIR/INBOX/new that afew's SpamFilter tags spam.
afew_spam() {
    mkdir -p "$1/INBOX/new"
    cat > "$1/INBOX/new/spam-1" <<'EOF'
From: Winner <winner@prize.example>
To: Test User <user@example.org>
Subject: You have won
Date: Mon, 01 Jan 2024 10:00:00 +0000
Message-ID: <spam-1@prize.example>
X-Spam-Flag: YES

Claim your prize.
EOF
}

# afew_split_copies: the Message-IDs (without id:) of $NOTMUCH's messages whose copies disagree on
# List-Id, sorted. bench/gen files some list mail in INBOX too, without the list's header; afew's
# ListMailsFilter reads a message's first file, and which copy that is differs: notmuch's first file
# is the first of its file terms, ordered by Xapian document ids written as decimal strings (a
# directory made after 99 messages, "100", comes before one made after 3), maildex's the first by
# directory in the order its walk met them (doc/notmuch-differences.md, "libnotmuch").
afew_split_copies() {
    "$NOTMUCH" search --output=messages --duplicate=2 '*' 2>/dev/null | while read -r id; do
        "$NOTMUCH" search --output=files "$id" | while read -r f; do
            grep -i -m1 '^List-Id:' "$f" || echo none
        done | sort -u | awk -v id="$id" 'END { if (NR > 1) print id }'
    done | sed 's/^id://' | sort
}

# afew_first_copy_bad TOOL SPLIT: for each Message-ID in the file SPLIT, whether TOOL's store gives
# it the list tags of the copy TOOL reads first (its first file, as `search --output=files` lists
# them); prints the messages that have others.
afew_first_copy_bad() {
    while read -r id; do
        first=$("$1" search --output=files id:"$id" | head -n 1)
        list=$(grep -i -m1 '^List-Id:' "$first" | sed 's/.*<\([^.>]*\)\..*/\1/')
        has=$("$1" count --exclude=false id:"$id" and tag:lists)
        if [ -n "$list" ]; then
            [ "$has" = 1 ] && [ "$("$1" count --exclude=false id:"$id" and tag:lists/"$list")" = 1 ] ||
                echo "$id: $list"
        else
            [ "$has" = 0 ] || echo "$id: lists without List-Id"
        fi
    done < "$2"
}
