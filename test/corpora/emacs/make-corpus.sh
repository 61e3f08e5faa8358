#!/bin/sh
# make-corpus.sh: writes the Maildir of T500-emacs (mail/), the attachment it carries (minutes.pdf),
# a message that arrives while the test runs (later/), and the throw-away GnuPG keys that signed and
# encrypted two of its messages (test-keys.asc).
#
# It was run once and its output is checked in; run it again only to change the corpus, and then
# regenerate test/expected/emacs/ with the real notmuch (see README.md). The keys are new on every
# run, and so are the bytes of the signed and encrypted messages; everything else comes out the same.
# GnuPG runs with a frozen clock in 2001-2003, so keys and signatures are as old as the mail.
# Usage: test/corpora/emacs/make-corpus.sh [DIR] (default: the directory of this script)
set -eu
out=${1:-$(cd "$(dirname "$0")" && pwd)}
mail=$out/mail
rm -rf "$mail" "$out/later"
mkdir -p "$mail/cur" "$mail/new" "$mail/sent/cur" "$mail/lists/dev/cur" "$out/later"

GNUPGHOME=$(mktemp -d "${TMPDIR:-/tmp}/maildex-corpus-gpg.XXXXXX")
export GNUPGHOME
trap 'gpgconf --kill gpg-agent; rm -rf "$GNUPGHOME"' EXIT
gpg_at() {
    when=$1
    shift
    gpg --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
        --faked-system-time "$when!" "$@" 2>/dev/null
}
fingerprint() {
    gpg --batch --with-colons --list-keys "$1" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'
}

# Alice signs (and is the sender of both crypto messages); the tester reads the encrypted one.
gpg_at 20010101T000000 --quick-gen-key 'Alice Example <alice@example.org>' ed25519 sign,cert never
gpg_at 20010101T000000 --quick-add-key "$(fingerprint alice@example.org)" cv25519 encr never
gpg_at 20010101T000000 --quick-gen-key 'Maildex Tester <tester@example.org>' ed25519 sign,cert never
gpg_at 20010101T000000 --quick-add-key "$(fingerprint tester@example.org)" cv25519 encr never
gpg --batch --armor --export-secret-keys alice@example.org tester@example.org > "$out/test-keys.asc" 2>/dev/null

# A one-page PDF, valid down to its cross-reference table.
pdf() {
    objs='<</Type/Catalog/Pages 2 0 R>>
<</Type/Pages/Kids[3 0 R]/Count 1>>
<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>
STREAM
<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>'
    content='BT /F1 18 Tf 20 40 Td (Minutes) Tj ET'
    body='%PDF-1.4
'
    offsets=
    n=0
    while IFS= read -r obj; do
        n=$((n + 1))
        offsets="$offsets $(printf '%s' "$body" | wc -c)"
        if [ "$obj" = STREAM ]; then
            obj=$(printf '<</Length %d>>\nstream\n%s\nendstream' ${#content} "$content")
        fi
        body=$(printf '%s%d 0 obj\n%s\nendobj\n_' "$body" "$n" "$obj")
        body=${body%_}
    done <<EOF
$objs
EOF
    xref=$(printf '%s' "$body" | wc -c)
    printf '%sxref\n0 %d\n0000000000 65535 f \n' "$body" $((n + 1))
    for o in $offsets; do
        printf '%010d 00000 n \n' "$o"
    done
    printf 'trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n' $((n + 1)) "$xref"
}
pdf > "$out/minutes.pdf"

# signed_text FILE: the text of FILE as PGP/MIME signs a part: CRLF line ends, and without the last
# line end, which belongs to the boundary that follows (RFC 3156, section 5).
signed_text() { sed 's/$/\r/' "$1" | head -c -2; }

# --- Thread 1: "Garden party on Saturday", four messages, quoting two levels deep ---
cat > "$mail/cur/1000000001.garden1:2,S" <<'EOF'
From: Alice Example <alice@example.org>
To: Maildex Tester <tester@example.org>
Cc: Bob Builder <bob@example.com>
Subject: Garden party on Saturday
Date: Sat, 10 Mar 2001 09:15:00 +0000
Message-ID: <garden-1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Hi both,

shall we have the garden party on Saturday afternoon?
I can bring the salads.

Alice
EOF
cat > "$mail/cur/1000000002.garden2:2,S" <<'EOF'
From: Bob Builder <bob@example.com>
To: Alice Example <alice@example.org>
Cc: Maildex Tester <tester@example.org>
Subject: Re: Garden party on Saturday
Date: Sat, 10 Mar 2001 11:40:00 +0000
Message-ID: <garden-2@example.com>
In-Reply-To: <garden-1@example.org>
References: <garden-1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Alice Example <alice@example.org> writes:

> shall we have the garden party on Saturday afternoon?
> I can bring the salads.

Yes! I will bring the grill.

Bob
EOF
cat > "$mail/new/1000000003.garden3" <<'EOF'
From: Carol <carol@example.net>
To: Bob Builder <bob@example.com>, Alice Example <alice@example.org>
Cc: Maildex Tester <tester@example.org>
Subject: Re: Garden party on Saturday
Date: Sun, 11 Mar 2001 08:05:00 +0000
Message-ID: <garden-3@example.net>
In-Reply-To: <garden-2@example.com>
References: <garden-1@example.org> <garden-2@example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

On Sat, 10 Mar 2001, Bob Builder wrote:
> Alice Example <alice@example.org> writes:
>> shall we have the garden party on Saturday afternoon?
>
> Yes! I will bring the grill.

Count me in. What time?

-- 
Carol
Elm Street Gardening Club
EOF
cat > "$mail/sent/cur/1000000004.garden4:2,S" <<'EOF'
From: Maildex Tester <tester@example.org>
To: Carol <carol@example.net>
Cc: Alice Example <alice@example.org>, Bob Builder <bob@example.com>
Subject: Re: Garden party on Saturday
Date: Sun, 11 Mar 2001 10:30:00 +0000
Message-ID: <garden-4@example.org>
In-Reply-To: <garden-3@example.net>
References: <garden-1@example.org> <garden-2@example.com> <garden-3@example.net>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Carol <carol@example.net> writes:

> On Sat, 10 Mar 2001, Bob Builder wrote:
>> Alice Example <alice@example.org> writes:
>>> shall we have the garden party on Saturday afternoon?
>>> I can bring the salads.
>>
>> Yes! I will bring the grill.
>
> Count me in. What time?
>
> Carol

Three o'clock.
EOF

# --- Thread 2: non-ASCII names and subject (RFC 2047, UTF-8 and ISO-8859-1) ---
cat > "$mail/cur/1000000005.resume1:2,S" <<'EOF'
From: =?UTF-8?Q?Fran=C3=A7ois_Lef=C3=A8vre?= <francois@example.fr>
To: Maildex Tester <tester@example.org>
Cc: =?UTF-8?B?5bGx55Sw5aSq6YOO?= <taro@example.jp>
Subject: =?UTF-8?B?UsOpc3Vtw6kgZsO8ciBkYXMgQ2Fmw6kg4oCUIOaXpeacrOiqng==?=
Date: Tue, 14 May 2002 16:20:00 +0200
Message-ID: <resume-1@example.fr>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Bonjour,

voil=C3=A0 mon r=C3=A9sum=C3=A9 pour le caf=C3=A9.
=E3=82=88=E3=82=8D=E3=81=97=E3=81=8F=E3=81=8A=E9=A1=98=E3=81=84=E3=81=97=E3=
=81=BE=E3=81=99.

Fran=C3=A7ois
EOF
cat > "$mail/new/1000000006.resume2" <<'EOF'
From: =?ISO-8859-1?Q?J=FCrgen_Gro=DF?= <juergen@example.de>
To: =?UTF-8?Q?Fran=C3=A7ois_Lef=C3=A8vre?= <francois@example.fr>
Cc: Maildex Tester <tester@example.org>
Subject: Re: =?UTF-8?B?UsOpc3Vtw6kgZsO8ciBkYXMgQ2Fmw6kg4oCUIOaXpeacrOiqng==?=
Date: Wed, 15 May 2002 07:45:00 +0200
Message-ID: <resume-2@example.de>
In-Reply-To: <resume-1@example.fr>
References: <resume-1@example.fr>
MIME-Version: 1.0
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Fran=E7ois Lef=E8vre <francois@example.fr> schrieb:
> voil=E0 mon r=E9sum=E9 pour le caf=E9.

Sch=F6n, danke! Wir melden uns.

Gr=FC=DFe, J=FCrgen
EOF

# --- Thread 3: text with an HTML alternative ---
cat > "$mail/new/1000000007.news" <<'EOF'
From: Example News <news@example.com>
To: Maildex Tester <tester@example.org>
Subject: Spring newsletter
Date: Mon, 01 Apr 2002 06:00:00 +0000
Message-ID: <news-2002-04@example.com>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="=-alt-2002"

--=-alt-2002
Content-Type: text/plain; charset=us-ascii

Spring is here: the plain text edition.
--=-alt-2002
Content-Type: text/html; charset=us-ascii

<html><body><p>Spring is here: the <b>HTML</b> edition.</p></body></html>
--=-alt-2002--
EOF

# --- Thread 4: a PDF attachment, and a flagged reply ---
{
    cat <<'EOF'
From: Bob Builder <bob@example.com>
To: Maildex Tester <tester@example.org>, Alice Example <alice@example.org>
Subject: Minutes of the meeting
Date: Thu, 05 Sep 2002 14:00:00 +0000
Message-ID: <minutes-1@example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="=-mixed-minutes"

--=-mixed-minutes
Content-Type: text/plain; charset=us-ascii

The minutes are attached.
--=-mixed-minutes
Content-Type: application/pdf
Content-Disposition: attachment; filename="minutes.pdf"
Content-Transfer-Encoding: base64

EOF
    base64 "$out/minutes.pdf"
    echo '--=-mixed-minutes--'
} > "$mail/cur/1000000008.minutes1:2,S"
cat > "$mail/cur/1000000009.minutes2:2,FS" <<'EOF'
From: Alice Example <alice@example.org>
To: Bob Builder <bob@example.com>
Cc: Maildex Tester <tester@example.org>
Subject: Re: Minutes of the meeting
Date: Fri, 06 Sep 2002 09:30:00 +0000
Message-ID: <minutes-2@example.org>
In-Reply-To: <minutes-1@example.com>
References: <minutes-1@example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Thanks, Bob. Flagged for the next meeting.
EOF

# --- Thread 5: a PGP/MIME signed message ---
part=$(mktemp)
cat > "$part" <<'EOF'
Content-Type: text/plain; charset=us-ascii

This message is signed with Alice's test key.
EOF
signed_text "$part" > "$part.crlf"
sig=$(gpg_at 20030315T101500 --armor --detach-sign --digest-algo SHA256 \
    --local-user alice@example.org "$part.crlf" && cat "$part.crlf.asc")
{
    cat <<'EOF'
From: Alice Example <alice@example.org>
To: Maildex Tester <tester@example.org>
Subject: Signed release notes
Date: Sat, 15 Mar 2003 10:15:00 +0000
Message-ID: <signed-1@example.org>
MIME-Version: 1.0
Content-Type: multipart/signed; boundary="=-signed-2003"; micalg=pgp-sha256;
 protocol="application/pgp-signature"

--=-signed-2003
EOF
    cat "$part"
    cat <<'EOF'
--=-signed-2003
Content-Type: application/pgp-signature; name="signature.asc"

EOF
    printf '%s\n' "$sig"
    echo '--=-signed-2003--'
} > "$mail/cur/1000000010.signed:2,S"

# --- Thread 6: a PGP/MIME encrypted message, to the tester ---
cat > "$part" <<'EOF'
Content-Type: text/plain; charset=us-ascii

The door code is 4711.
EOF
crypt=$(gpg_at 20030316T080000 --armor --trust-model always --encrypt \
    --recipient tester@example.org --output - "$part")
{
    cat <<'EOF'
From: Alice Example <alice@example.org>
To: Maildex Tester <tester@example.org>
Subject: The door code
Date: Sun, 16 Mar 2003 08:00:00 +0000
Message-ID: <encrypted-1@example.org>
MIME-Version: 1.0
Content-Type: multipart/encrypted; boundary="=-encrypted-2003";
 protocol="application/pgp-encrypted"

--=-encrypted-2003
Content-Type: application/pgp-encrypted

Version: 1
--=-encrypted-2003
Content-Type: application/octet-stream; name="encrypted.asc"

EOF
    printf '%s\n' "$crypt"
    echo '--=-encrypted-2003--'
} > "$mail/new/1000000011.encrypted"
rm -f "$part" "$part.crlf" "$part.crlf.asc"

# --- Thread 7: a mailing-list thread in a folder of its own, replied to ---
cat > "$mail/lists/dev/cur/1000000012.dev1:2,RS" <<'EOF'
From: Dave Developer <dave@lists.example.org>
To: dev@lists.example.org
Subject: [dev] The build is broken
Date: Mon, 06 Jan 2003 12:00:00 +0000
Message-ID: <dev-1@lists.example.org>
List-Id: Developers <dev.lists.example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

make check fails on the build machine since this morning.
EOF
cat > "$mail/lists/dev/cur/1000000013.dev2:2,S" <<'EOF'
From: Erin <erin@lists.example.org>
To: dev@lists.example.org
Subject: Re: [dev] The build is broken
Date: Mon, 06 Jan 2003 13:30:00 +0000
Message-ID: <dev-2@lists.example.org>
In-Reply-To: <dev-1@lists.example.org>
References: <dev-1@lists.example.org>
List-Id: Developers <dev.lists.example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

> make check fails on the build machine since this morning.

Fixed in the next commit: a missing file in the tarball.
EOF

# --- Delivered during the test, into lists/dev/new, before notmuch-hello polls (G) ---
cat > "$out/later/1000000014.dev3" <<'EOF'
From: Dave Developer <dave@lists.example.org>
To: dev@lists.example.org
Subject: Re: [dev] The build is broken
Date: Tue, 07 Jan 2003 09:00:00 +0000
Message-ID: <dev-3@lists.example.org>
In-Reply-To: <dev-2@lists.example.org>
References: <dev-1@lists.example.org> <dev-2@lists.example.org>
List-Id: Developers <dev.lists.example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Confirmed: the build machine is green again.
EOF

# A thread that branches (T600's tree): two answers to the first message, the first answered twice
# in a row, as notmuch-tree draws with ├, │ and ╰.
mkdir -p "$out/later/shed"
cat > "$out/later/shed/1000000015.shed1" <<'EOF'
From: Alice Example <alice@example.org>
To: Maildex Tester <tester@example.org>, Bob Builder <bob@example.com>
Subject: Which colour for the shed?
Date: Mon, 05 Jan 2004 10:00:00 +0000
Message-ID: <shed-1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Green or blue? I have both tins.
EOF
cat > "$out/later/shed/1000000016.shed2" <<'EOF'
From: Bob Builder <bob@example.com>
To: Alice Example <alice@example.org>
Subject: Re: Which colour for the shed?
Date: Mon, 05 Jan 2004 11:00:00 +0000
Message-ID: <shed-2@example.com>
In-Reply-To: <shed-1@example.org>
References: <shed-1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Blue, to match the door.
EOF
cat > "$out/later/shed/1000000017.shed3" <<'EOF'
From: Carol <carol@example.net>
To: Bob Builder <bob@example.com>
Subject: Re: Which colour for the shed?
Date: Mon, 05 Jan 2004 12:00:00 +0000
Message-ID: <shed-3@example.net>
In-Reply-To: <shed-2@example.com>
References: <shed-1@example.org> <shed-2@example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

The door is green.
EOF
cat > "$out/later/shed/1000000018.shed4" <<'EOF'
From: Alice Example <alice@example.org>
To: Carol <carol@example.net>
Subject: Re: Which colour for the shed?
Date: Mon, 05 Jan 2004 13:00:00 +0000
Message-ID: <shed-4@example.org>
In-Reply-To: <shed-3@example.net>
References: <shed-1@example.org> <shed-2@example.com> <shed-3@example.net>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Then green it is.
EOF
cat > "$out/later/shed/1000000019.shed5" <<'EOF'
From: Dave Developer <dave@lists.example.org>
To: Alice Example <alice@example.org>
Subject: Green (was: Which colour for the shed?)
Date: Mon, 05 Jan 2004 14:00:00 +0000
Message-ID: <shed-5@lists.example.org>
In-Reply-To: <shed-1@example.org>
References: <shed-1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Green. I will bring brushes.
EOF
