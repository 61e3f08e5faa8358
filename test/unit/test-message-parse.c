/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for lib/mime/parse.c and lib/mime/html-text.c: the notmuch-compatible extraction of ids,
 * parents, headers, body text, attachments and MIME types, and robustness on hostile input. The
 * messages are written inline so each test shows exactly the bytes it feeds in. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test.h"

#include "mime/html-text.h"
#include "mime/line-ends.h"
#include "mime/parse.h"

#include <gmime/gmime.h>

#include <errno.h>
#include <ftw.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------------------------- */

static void *test_ctx;

static struct maildex__parsed_message *parse_rc(const char *text, size_t len, int expected_rc)
{
    struct maildex__parsed_message *msg = NULL;
    char *error = NULL;
    int rc;

    if (test_ctx == NULL)
        test_ctx = talloc_new(NULL);
    rc = maildex__message_parse_buffer(test_ctx, text, len, NULL, &msg, &error);
    if (rc != expected_rc)
        TEST__FAIL("parse returned %d (%s), expected %d", rc, error ? error : "no error",
                   expected_rc);
    return msg;
}

static struct maildex__parsed_message *parse(const char *text)
{
    struct maildex__parsed_message *msg = parse_rc(text, strlen(text), MAILDEX__PARSE_OK);
    ASSERT(msg != NULL);
    return msg;
}

static void done(void)
{
    talloc_free(test_ctx);
    test_ctx = NULL;
}

static size_t count_refs(char **refs)
{
    size_t n = 0;
    while (refs[n])
        n++;
    return n;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* ---- the "Lunch plans" corpus (notmuch-compat.md 2.2) ---------------------------------------- */

static const char msg1[] =
    "From: Alice Example <alice@example.org>\n"
    "To: Bob <bob@example.com>\n"
    "Subject: Lunch plans\n"
    "Date: Mon, 01 Jan 2024 10:00:00 +0000\n"
    "Message-ID: <msg1@example.org>\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=utf-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "\n"
    "Shall we have lunch? Caf\xc3\xa9 at noon.\n";

static const char msg2[] =
    "From: Bob <bob@example.com>\n"
    "To: Alice Example <alice@example.org>\n"
    "Cc: \"Carol, C.\" <carol@example.net>\n"
    "Subject: Re: Lunch plans\n"
    "Date: Mon, 01 Jan 2024 11:00:00 +0000\n"
    "Message-ID: <msg2@example.com>\n"
    "In-Reply-To: <msg1@example.org>\n"
    "MIME-Version: 1.0\n"
    "Content-Type: multipart/alternative; boundary=\"alt\"\n"
    "\n"
    "--alt\n"
    "Content-Type: text/plain; charset=utf-8\n"
    "\n"
    "Sure, \"noon\" works.\n"
    "--alt\n"
    "Content-Type: text/html; charset=utf-8\n"
    "\n"
    "<p>Sure, <b>noon</b> works.</p>\n"
    "--alt--\n";

static const char msg3[] =
    "From: Carol <carol@example.net>\n"
    "To: Bob <bob@example.com>, Alice Example <alice@example.org>\n"
    "Subject: Re: Lunch plans\n"
    "Date: Mon, 01 Jan 2024 12:30:00 +0000\n"
    "Message-ID: <msg3@example.net>\n"
    "References: <msg1@example.org> <msg2@example.com>\n"
    "MIME-Version: 1.0\n"
    "Content-Type: multipart/mixed; boundary=\"mix\"\n"
    "\n"
    "--mix\n"
    "Content-Type: text/plain; charset=utf-8\n"
    "\n"
    "Menu attached.\n"
    "--mix\n"
    "Content-Type: application/pdf\n"
    "Content-Disposition: attachment; filename=\"menu.pdf\"\n"
    "Content-Transfer-Encoding: base64\n"
    "\n"
    "JVBERi0xLjQKMSAwIG9iaiA8PCAvVHlwZSAvQ2F0YWxvZyA+PiBlbmRvYmoKdHJhaWxlcgolJUVPRgo=\n"
    "--mix--\n";

TEST(lunch_plain_utf8)
{
    struct maildex__parsed_message *m = parse(msg1);

    ASSERT_STR_EQ(m->message_id, "msg1@example.org");
    ASSERT(m->parent_id == NULL);
    ASSERT_EQ(count_refs(m->references), 0);
    ASSERT_EQ(m->date, 1704103200);
    ASSERT_STR_EQ(m->date_header, "Mon, 01 Jan 2024 10:00:00 +0000");
    ASSERT_STR_EQ(m->from, "Alice Example <alice@example.org>");
    ASSERT_STR_EQ(m->from_name, "Alice Example");
    ASSERT_STR_EQ(m->to, "Bob <bob@example.com>");
    ASSERT_STR_EQ(m->cc, "");
    ASSERT_STR_EQ(m->subject, "Lunch plans");
    ASSERT_STR_EQ(m->body, "Shall we have lunch? Caf\xc3\xa9 at noon.\n");
    ASSERT_STR_EQ(m->mime_types, "text/plain");
    ASSERT_STR_EQ(m->attachment_names, "");
    ASSERT(!m->has_attachment);
    ASSERT(m->is_mail);
    ASSERT_STR_EQ(m->user_text, "");
    done();
}

TEST(lunch_alternative_html)
{
    struct maildex__parsed_message *m = parse(msg2);

    ASSERT_STR_EQ(m->message_id, "msg2@example.com");
    ASSERT_STR_EQ(m->parent_id, "msg1@example.org");
    ASSERT_EQ(count_refs(m->references), 1);
    ASSERT_STR_EQ(m->references[0], "msg1@example.org");
    ASSERT_EQ(m->date, 1704106800);
    ASSERT_STR_EQ(m->cc, "\"Carol, C.\" <carol@example.net>");
    ASSERT_STR_EQ(m->from_name, "Bob");
    ASSERT_STR_EQ(m->mime_types, "multipart/alternative text/plain text/html");
    /* The newline before a boundary belongs to the boundary; <p> becomes one line break; the parts
     * are joined by a part break (no phrase spans two parts). */
    ASSERT_STR_EQ(m->body, "Sure, \"noon\" works.\x1eSure, noon works.\n");
    ASSERT(!m->has_attachment);
    done();
}

TEST(lunch_pdf_attachment)
{
    struct maildex__parsed_message *m = parse(msg3);

    ASSERT_STR_EQ(m->message_id, "msg3@example.net");
    ASSERT_STR_EQ(m->parent_id, "msg2@example.com");
    ASSERT_EQ(count_refs(m->references), 2);
    ASSERT_STR_EQ(m->references[0], "msg1@example.org");
    ASSERT_STR_EQ(m->references[1], "msg2@example.com");
    ASSERT_EQ(m->date, 1704112200);
    ASSERT_STR_EQ(m->from_name, "Carol");
    ASSERT_STR_EQ(m->mime_types, "multipart/mixed text/plain application/pdf");
    ASSERT(m->has_attachment);
    ASSERT_STR_EQ(m->attachment_names, "menu.pdf");
    /* The PDF is not text: only the text/plain part reaches the body. */
    ASSERT_STR_EQ(m->body, "Menu attached.");
    done();
}

/* ---- headers -------------------------------------------------------------------------------- */

TEST(rfc2047_subjects)
{
    struct maildex__parsed_message *m;

    m = parse("From: a@example.org\nSubject: =?UTF-8?B?Q2Fmw6kgdG9kYXk=?=\n\nx\n");
    ASSERT_STR_EQ(m->subject, "Caf\xc3\xa9 today");
    m = parse("From: a@example.org\nSubject: =?iso-8859-1?q?Caf=E9_au_lait?=\n\nx\n");
    ASSERT_STR_EQ(m->subject, "Caf\xc3\xa9 au lait");
    m = parse("From: a@example.org\nSubject: =?ISO-8859-1?B?Y2Fm6Q==?= ok\n\nx\n");
    ASSERT_STR_EQ(m->subject, "caf\xc3\xa9 ok");
    /* Adjacent encoded words join without the blank between them. */
    m = parse("From: a@example.org\nSubject: =?utf-8?q?a?= =?utf-8?q?b?=\n\nx\n");
    ASSERT_STR_EQ(m->subject, "ab");
    done();
}

TEST(encoded_from_name)
{
    struct maildex__parsed_message *m =
        parse("From: =?utf-8?q?Ren=C3=A9_Dupont?= <rene@example.org>\nTo: x@example.org\n\nx\n");

    ASSERT_STR_EQ(m->from, "Ren\xc3\xa9 Dupont <rene@example.org>");
    ASSERT_STR_EQ(m->from_name, "Ren\xc3\xa9 Dupont");
    done();
}

TEST(raw_8bit_latin1_header)
{
    struct maildex__parsed_message *m =
        parse("From: Andr\xe9 <andre@example.org>\nSubject: caf\xe9 \xff\n\nx\n");

    ASSERT_STR_EQ(m->subject, "caf\xc3\xa9 \xc3\xbf");
    ASSERT_STR_EQ(m->from_name, "Andr\xc3\xa9");
    ASSERT(g_utf8_validate(m->from, -1, NULL));
    done();
}

TEST(from_name_rules)
{
    struct maildex__parsed_message *m;

    m = parse("From: bare@example.org\n\nx\n");
    ASSERT_STR_EQ(m->from_name, "bare@example.org");
    m = parse("From: \"\" <quoted-empty@example.org>\n\nx\n");
    ASSERT_STR_EQ(m->from_name, "quoted-empty@example.org");
    /* Exchange's "Last, First" is turned round only when the address confirms it. */
    m = parse("From: \"Doe, John\" <john.doe@example.com>\n\nx\n");
    ASSERT_STR_EQ(m->from_name, "John Doe");
    m = parse("From: \"Doe, John\" <jd@example.com>\n\nx\n");
    ASSERT_STR_EQ(m->from_name, "Doe, John");
    m = parse("From: \"Doe,  John\" <jd@example.com>\n\nx\n");
    ASSERT_STR_EQ(m->from_name, "Doe,  John");
    m = parse("Subject: no sender\n\nx\n");
    ASSERT_STR_EQ(m->from_name, "");
    done();
}

TEST(other_headers)
{
    struct maildex__parsed_message *m =
        parse("From: a@example.org\nTo: b@example.org\nCc: c@example.org\nBcc: d@example.org\n"
              "Reply-To: e@example.org\nList-Id: Dev list <dev.lists.example.org>\n\nx\n");

    ASSERT_STR_EQ(m->cc, "c@example.org");
    ASSERT_STR_EQ(m->bcc, "d@example.org");
    ASSERT_STR_EQ(m->reply_to, "e@example.org");
    ASSERT_STR_EQ(m->user_text, "");
    done();
}

/* index.header.PREFIX=Header: the headers asked for, present and decoded, in the tokenizer's field form
 * (control characters blanked so that a value cannot start another field); absent ones leave nothing. */
TEST(user_fields)
{
    static const maildex_pair_t fields[] = {
        {"List", "List-Id"}, {"Spam", "X-Spam"}, {"Nope", "X-Absent"}, {NULL, NULL}};
    static const char text[] = "From: a@example.org\nList-Id: Dev list <dev.lists.example.org>\n"
                               "X-Spam: =?utf-8?q?caf=C3=A9?=\x02x\n\nx\n";
    const struct maildex__parse_options opts = {.user_fields = fields};
    struct maildex__parsed_message *m = NULL;
    void *ctx = talloc_new(NULL);

    ASSERT_EQ(maildex__message_parse_buffer(ctx, text, sizeof text - 1, &opts, &m, NULL), MAILDEX__PARSE_OK);
    ASSERT_STR_EQ(m->user_text, "\x02List\x02" "Dev list <dev.lists.example.org>\x02Spam\x02" "caf\xc3\xa9 x");
    talloc_free(ctx);
    done();
}

/* A gzip-compressed file is read decompressed; its fallback id is the sha1 of the compressed bytes, as
 * notmuch's. */
TEST(gzip_file)
{
    static const char plain[] = "From: a@example.org\nSubject: packed\n\nsqueezed words\n";
    void *ctx = talloc_new(NULL);
    GByteArray *packed = g_byte_array_new();
    GMimeStream *mem = g_mime_stream_mem_new_with_byte_array(packed);
    GMimeStream *filtered = g_mime_stream_filter_new(mem);
    GMimeFilter *gzip = g_mime_filter_gzip_new(GMIME_FILTER_GZIP_MODE_ZIP, 6);
    struct maildex__parsed_message *m = NULL;
    char *sha1;

    g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
    g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), gzip);
    g_mime_stream_write(filtered, plain, sizeof plain - 1);
    g_mime_stream_flush(filtered);
    g_object_unref(filtered);
    g_object_unref(gzip);
    g_object_unref(mem);
    ASSERT(packed->len > 2 && packed->data[0] == 0x1f && packed->data[1] == 0x8b);
    ASSERT_EQ(maildex__message_parse_buffer(ctx, (const char *) packed->data, packed->len, NULL, &m, NULL),
              MAILDEX__PARSE_OK);
    ASSERT_STR_EQ(m->subject, "packed");
    ASSERT_STR_EQ(m->body, "squeezed words\n");
    sha1 = g_compute_checksum_for_data(G_CHECKSUM_SHA1, packed->data, packed->len);
    ASSERT(g_str_has_suffix(m->message_id, sha1));
    g_free(sha1);
    /* cut short: what came out is read, nothing crashes */
    ASSERT(maildex__message_parse_buffer(ctx, (const char *) packed->data, packed->len / 2, NULL, &m, NULL) !=
           MAILDEX__PARSE_ERROR);
    g_byte_array_free(packed, TRUE);
    talloc_free(ctx);
    done();
}

TEST(date_missing_or_bad)
{
    struct maildex__parsed_message *m;

    m = parse("From: a@example.org\n\nx\n");
    ASSERT_EQ(m->date, 0);
    ASSERT(m->date_header == NULL);
    m = parse("From: a@example.org\nDate: not a date at all\n\nx\n");
    ASSERT_EQ(m->date, 0);
    ASSERT_STR_EQ(m->date_header, "not a date at all");
    m = parse("From: a@example.org\nDate: Tue, 02 Jan 2024 01:00:00 +0100\n\nx\n");
    ASSERT_EQ(m->date, 1704153600);
    /* Before the epoch: notmuch stores 0. */
    m = parse("From: a@example.org\nDate: Mon, 01 Jan 1900 00:00:00 +0000\n\nx\n");
    ASSERT_EQ(m->date, 0);
    done();
}

/* ---- Message-IDs and threading -------------------------------------------------------------- */

TEST(missing_message_id_sha1)
{
    static const char text[] = "Subject: no id\n\nbody\n";
    struct maildex__parsed_message *m = parse(text);
    char *sha1 = g_compute_checksum_for_string(G_CHECKSUM_SHA1, text, -1);
    char *expected = g_strdup_printf("notmuch-sha1-%s", sha1);

    /* Independently known: `printf 'Subject: no id\n\nbody\n' | sha1sum`. */
    ASSERT_STR_EQ(m->message_id, "notmuch-sha1-c7a800dd6963fdc815c692936e32ff0ec3cd56c9");
    ASSERT_STR_EQ(m->message_id, expected);
    g_free(sha1);
    g_free(expected);
    done();
}

TEST(empty_message_id_sha1)
{
    struct maildex__parsed_message *m = parse("Subject: x\nMessage-ID:   \n\nbody\n");

    ASSERT(strncmp(m->message_id, "notmuch-sha1-", 13) == 0);
    ASSERT_EQ(strlen(m->message_id), 13 + 40);
    done();
}

TEST(message_id_normalised)
{
    struct maildex__parsed_message *m;

    m = parse("Subject: x\nMessage-ID: <bad\"utf8 x@example.com>\n\nbody\n");
    ASSERT_STR_EQ(m->message_id, "bad\"utf8x@example.com");
    /* notmuch's quirk, checked against notmuch 0.37: of k blanks in a row, k/2 survive. */
    m = parse("Subject: x\nMessage-ID: (comment) <  spaced\tid@example.com  >\n\nbody\n");
    ASSERT_STR_EQ(m->message_id, "spacedid@example.com ");
    m = parse("Subject: x\nMessage-ID: <a  b   c@x>\n\nbody\n");
    ASSERT_STR_EQ(m->message_id, "a b c@x");
    m = parse("Subject: x\nMessage-ID:\n <folded@example.com>\n\nbody\n");
    ASSERT_STR_EQ(m->message_id, "folded@example.com");
    /* No angle brackets at all: notmuch keeps the header text as the id. */
    m = parse("Subject: x\nMessage-ID: plain@example.com\n\nbody\n");
    ASSERT_STR_EQ(m->message_id, "plain@example.com");
    done();
}

TEST(parent_in_reply_to_only)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nMessage-ID: <c@x>\nIn-Reply-To: <p@x>\n\nb\n");

    ASSERT_STR_EQ(m->parent_id, "p@x");
    ASSERT_EQ(count_refs(m->references), 1);
    done();
}

TEST(parent_references_only)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nMessage-ID: <c@x>\nReferences: <r1@x>\n <r2@x>  <r3@x>\n\nb\n");

    ASSERT_STR_EQ(m->parent_id, "r3@x");
    ASSERT_EQ(count_refs(m->references), 3);
    ASSERT_STR_EQ(m->references[0], "r1@x");
    ASSERT_STR_EQ(m->references[2], "r3@x");
    done();
}

TEST(parent_both_prefers_sane_in_reply_to)
{
    struct maildex__parsed_message *m = parse(
        "Subject: x\nMessage-ID: <c@x>\nReferences: <r1@x> <r2@x>\nIn-Reply-To: <r1@x>\n\nb\n");

    ASSERT_STR_EQ(m->parent_id, "r1@x");
    /* Distinct ids only. */
    ASSERT_EQ(count_refs(m->references), 2);
    done();
}

TEST(parent_garbage_in_reply_to)
{
    struct maildex__parsed_message *m;

    /* Not a single clean <id>: References wins. */
    m = parse("Subject: x\nMessage-ID: <c@x>\nReferences: <r1@x> <r2@x>\n"
              "In-Reply-To: <i@x> (Alice's message of Monday)\n\nb\n");
    ASSERT_STR_EQ(m->parent_id, "r2@x");
    ASSERT_EQ(count_refs(m->references), 3);
    ASSERT_STR_EQ(m->references[2], "i@x");
    /* Only garbage and no References: the last id found in In-Reply-To. */
    m = parse("Subject: x\nMessage-ID: <c@x>\nIn-Reply-To: mumble <a@x> and <b@x>\n\nb\n");
    ASSERT_STR_EQ(m->parent_id, "b@x");
    /* No id anywhere. */
    m = parse("Subject: x\nMessage-ID: <c@x>\nIn-Reply-To: mumble\n\nb\n");
    ASSERT(m->parent_id == NULL);
    ASSERT_EQ(count_refs(m->references), 0);
    done();
}

TEST(parent_self_reference_ignored)
{
    struct maildex__parsed_message *m;

    m = parse("Subject: x\nMessage-ID: <c@x>\nReferences: <p@x> <c@x>\n\nb\n");
    ASSERT_STR_EQ(m->parent_id, "p@x");
    ASSERT_EQ(count_refs(m->references), 1);
    m = parse("Subject: x\nMessage-ID: <c@x>\nIn-Reply-To: <c@x>\nReferences: <p@x>\n\nb\n");
    ASSERT_STR_EQ(m->parent_id, "p@x");
    m = parse("Subject: x\nMessage-ID: <c@x>\nIn-Reply-To: <c@x>\n\nb\n");
    ASSERT(m->parent_id == NULL);
    ASSERT_EQ(count_refs(m->references), 0);
    done();
}

/* ---- bodies --------------------------------------------------------------------------------- */

TEST(quoted_printable_body)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: text/plain; charset=utf-8\n"
              "Content-Transfer-Encoding: quoted-printable\n\n"
              "Caf=C3=A9 and a soft=\n break\n");

    ASSERT_STR_EQ(m->body, "Caf\xc3\xa9 and a soft break\n");
    done();
}

TEST(base64_body)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: text/plain; charset=iso-8859-1\n"
              "Content-Transfer-Encoding: base64\n\nY2Fm6Q==\n");

    ASSERT_STR_EQ(m->body, "caf\xc3\xa9");
    done();
}

TEST(latin1_body_converted)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: text/plain; charset=ISO-8859-1\n\nna\xefve caf\xe9\n");

    ASSERT_STR_EQ(m->body, "na\xc3\xafve caf\xc3\xa9\n");
    done();
}

TEST(invalid_utf8_dropped)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: text/plain; charset=utf-8\n\nbad \xff\xfe bytes\n");

    ASSERT_STR_EQ(m->body, "bad  bytes\n");
    done();
}

TEST(undeclared_8bit_body_decoded)
{
    struct maildex__parsed_message *m = parse("Subject: x\n\ncaf\xe9\n");

    ASSERT_STR_EQ(m->body, "caf\xc3\xa9\n");
    done();
}

TEST(nul_bytes_and_crlf)
{
    static const char text[] = "Subject: x\r\n\r\nbefore\0after\r\nline two\r\n";
    struct maildex__parsed_message *m = parse_rc(text, sizeof text - 1, MAILDEX__PARSE_OK);

    ASSERT(m != NULL);
    ASSERT_STR_EQ(m->subject, "x");
    ASSERT_STR_EQ(m->body, "beforeafter\nline two\n");
    done();
}

/* ---- line endings (doc/quirks.md) ---------------------------------------------------------- */

/* The same message with `eol` after every header line, `sep` as the empty line before the body and
 * `beol` after every body line; g_free the result. */
static char *with_line_ends(const char *eol, const char *sep, const char *beol)
{
    return g_strconcat("From: Alice <alice@example.org>", eol, "To: bob@example.org", eol,
                       "Subject: line ends", eol, "Message-ID: <eol@example.org>", eol,
                       "Date: Mon, 1 Jan 2024 10:00:00 +0000", eol, sep, "walrus one", beol,
                       "narwhal two", beol, NULL);
}

static void assert_line_ends_parsed(const char *eol, const char *sep, const char *beol)
{
    char *text = with_line_ends(eol, sep, beol);
    struct maildex__parsed_message *m = parse(text);

    g_free(text);
    ASSERT_STR_EQ(m->from, "Alice <alice@example.org>");
    ASSERT_STR_EQ(m->to, "bob@example.org");
    ASSERT_STR_EQ(m->subject, "line ends");
    ASSERT_STR_EQ(m->message_id, "eol@example.org");
    ASSERT_EQ(m->date, 1704103200);
    ASSERT_STR_EQ(m->body, "walrus one\nnarwhal two\n");
    done();
}

TEST(line_ends_lf_and_crlf)
{
    assert_line_ends_parsed("\n", "\n", "\n");
    assert_line_ends_parsed("\r\n", "\r\n", "\r\n");
    /* An LF file whose empty line is CRLF: gmime copes alone. */
    assert_line_ends_parsed("\n", "\r\n", "\n");
}

TEST(line_ends_cr_cr_lf)
{
    /* A CRLF file converted once more: gmime (and notmuch) read the headers but no body. */
    assert_line_ends_parsed("\r\r\n", "\r\r\n", "\r\r\n");
    /* Only the empty line converted twice. */
    assert_line_ends_parsed("\r\n", "\r\r\n", "\r\n");
}

TEST(line_ends_cr_only)
{
    /* gmime (and notmuch) read one From header holding the whole file. */
    assert_line_ends_parsed("\r", "\r", "\r");
}

TEST(line_ends_mixed)
{
    static const char text[] = "From: Alice <alice@example.org>\r\nTo: bob@example.org\n"
                               "Subject: line ends\rMessage-ID: <eol@example.org>\r\n"
                               "Date: Mon, 1 Jan 2024 10:00:00 +0000\r\n\r\n"
                               "walrus one\rnarwhal two\nokapi three\r\n";
    struct maildex__parsed_message *m = parse(text);

    /* Without the repair the Message-ID runs into the subject. */
    ASSERT_STR_EQ(m->subject, "line ends");
    ASSERT_STR_EQ(m->message_id, "eol@example.org");
    ASSERT_STR_EQ(m->body, "walrus one\nnarwhal two\nokapi three\n");
    done();
}

TEST(line_ends_cr_in_value_is_text)
{
    struct maildex__parsed_message *m;

    /* A CR inside a value of an LF file ends no line: gmime drops it, as notmuch's does. */
    m = parse("From: a@example.org\nSubject: one\rtwo three\nMessage-ID: <v@x>\n\nbody\rtext\n");
    ASSERT_STR_EQ(m->subject, "onetwo three");
    ASSERT_STR_EQ(m->message_id, "v@x");
    ASSERT_STR_EQ(m->body, "body\rtext\n");
    /* A CR before a folded line does end one. */
    m = parse("From: a@example.org\nSubject: one\r two\rMessage-ID: <v@x>\n\nbody\n");
    ASSERT_STR_EQ(m->subject, "one two");
    ASSERT_STR_EQ(m->message_id, "v@x");
    done();
}

/* The whole-buffer rules the streaming repair replaced (parse.c before line-ends.c), kept here as
 * the reference it must match however the bytes are split. */
static bool ref_cr_ends_line(const char *p, size_t n, size_t i)
{
    size_t j = i + 1;

    if (j == n || p[j] == '\r' || p[j] == ' ' || p[j] == '\t')
        return true;
    while (j < n && p[j] > ' ' && p[j] < 0x7f && p[j] != ':')
        j++;
    return j > i + 1 && j < n && p[j] == ':';
}

static bool ref_needs_repair(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n') && ref_cr_ends_line(p, n, i))
            return true;
        if (p[i] == '\n') {
            size_t j = i + 1 < n && p[i + 1] == '\r' ? i + 2 : i + 1;
            if (j < n && p[j] == '\n')
                return false;
        }
    }
    return false;
}

static GString *ref_repair(const char *p, size_t n)
{
    GString *out = g_string_new(NULL);

    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        if (p[i] != '\r') {
            g_string_append_c(out, p[i]);
            continue;
        }
        while (j < n && p[j] == '\r')
            j++;
        if (j < n && p[j] == '\n') {
            g_string_append_c(out, '\n');
        } else {
            for (size_t k = i; k < j; k++)
                g_string_append_c(out, '\n');
            j--;
        }
        i = j;
    }
    return out;
}

/* The repairing stream's output over p split at cut, read step bytes at a time. */
static GString *streamed_repair(const char *p, size_t n, size_t cut, size_t step)
{
    GMimeStream *cat = g_mime_stream_cat_new();
    GMimeStream *a = g_mime_stream_mem_new_with_buffer(p, cut);
    GMimeStream *b = g_mime_stream_mem_new_with_buffer(p + cut, n - cut);
    GMimeStream *repair;
    GString *out = g_string_new(NULL);
    char buf[8];
    ssize_t got;

    g_mime_stream_cat_add_source(GMIME_STREAM_CAT(cat), a);
    g_mime_stream_cat_add_source(GMIME_STREAM_CAT(cat), b);
    repair = maildex__line_ends_stream_new(cat);
    while ((got = g_mime_stream_read(repair, buf, step)) > 0)
        g_string_append_len(out, buf, got);
    g_object_unref(repair);
    g_object_unref(cat);
    g_object_unref(a);
    g_object_unref(b);
    return out;
}

TEST(line_ends_in_pieces_as_whole)
{
    static const char *const cases[] = {
        "", "\r", "\r\r", "\n\r", "A: b\r", "A: b\r\r\n\r\r\nbody\r\r\n", "From: a\rSubject: b\r\rbody\r",
        "Subject: a\rb\n\nbody\r", "X: y\r\n\r\nbody\r\rmore\r", "A: b\n\r\nC: d\r", "A: b\r \tc\r\r",
        "A: x\rname-without-colon\n\nb", "A: x\r\r\r\nB: y\r\n\r\n", "A: 1\n\nB: 2\rC: 3\r",
        "A: 1\r\n\r\r\rB\r", "A: v\r\x01\n\n", "A:\r:\r\r\n\n",
    };
    maildex__message_parse_init();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *p = cases[c];
        size_t n = strlen(p);
        bool need = ref_needs_repair(p, n);
        GString *whole = ref_repair(p, n);

        for (size_t cut = 0; cut <= n; cut++) {
            struct maildex__line_scan scan = {0};
            int decided = maildex__line_scan_feed(&scan, p, cut);
            GString *got;

            if (decided < 0)
                decided = maildex__line_scan_feed(&scan, p + cut, n - cut);
            if ((decided >= 0 ? decided == 1 : maildex__line_scan_end(&scan)) != need)
                TEST__FAIL("case %zu cut at %zu: the decision differs from the whole buffer's", c, cut);
            got = streamed_repair(p, n, cut, 1 + cut % 5);
            ASSERT_MEM_EQ(got->str, got->len, whole->str, whole->len);
            g_string_free(got, TRUE);
        }
        g_string_free(whole, TRUE);
    }
}

TEST(line_ends_cr_only_multipart)
{
    static const char text[] =
        "From: a@example.org\rSubject: parts\rMIME-Version: 1.0\r"
        "Content-Type: multipart/mixed; boundary=\"B\"\r\r--B\rContent-Type: text/plain\r\r"
        "first part\r--B\rContent-Type: text/plain\rContent-Disposition: attachment; "
        "filename=\"a.txt\"\r\rattached\r--B--\r";
    struct maildex__parsed_message *m = parse(text);

    ASSERT_STR_EQ(m->body, "first part");
    ASSERT_STR_EQ(m->attachment_names, "a.txt");
    ASSERT_STR_EQ(m->mime_types, "multipart/mixed text/plain text/plain");
    done();
}

TEST(line_ends_sha1_of_the_file_as_is)
{
    static const char text[] = "From: a@example.org\rSubject: no id\r\rbody\r";
    struct maildex__parsed_message *m = parse(text);
    char *sha1 = g_compute_checksum_for_string(G_CHECKSUM_SHA1, text, -1);
    char *expected = g_strconcat("notmuch-sha1-", sha1, NULL);

    ASSERT_STR_EQ(m->subject, "no id");
    ASSERT_STR_EQ(m->message_id, expected);
    g_free(sha1);
    g_free(expected);
    done();
}

TEST(line_ends_long_cr_runs_fast)
{
    size_t n = 4 * 1024 * 1024;
    char *text = g_malloc(n + 64);
    double start = now_seconds();
    struct maildex__parsed_message *m;
    size_t len;

    /* Millions of bare CRs, in the header section and in the body, are each read once. */
    len = (size_t) sprintf(text, "Subject: crs\r");
    memset(text + len, '\r', n / 2);
    len += n / 2;
    len += (size_t) sprintf(text + len, "word");
    memset(text + len, '\r', n / 2);
    len += n / 2;
    m = parse_rc(text, len, MAILDEX__PARSE_OK);
    ASSERT_LT((int64_t) (now_seconds() - start), 15);
    ASSERT(m != NULL);
    ASSERT_STR_EQ(m->subject, "crs");
    ASSERT(strstr(m->body, "word") != NULL);
    g_free(text);
    done();
}

TEST(html_body_entities_and_script)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: text/html; charset=utf-8\n\n"
              "<html><head><style>p { color: red }</style>"
              "<script type=\"text/javascript\">var secret = \"<b>\";</script></head>"
              "<body><p title='a > b'>Fish &amp; chips &eacute;t&#233; &#x263A; &lt;tag&gt;</p>"
              "<!-- hidden comment --><table><tr><td>one</td><td>two</td></tr></table>"
              "a < b &bogus; &amp</body></html>\n");

    ASSERT(strstr(m->body, "secret") == NULL);
    ASSERT(strstr(m->body, "color") == NULL);
    ASSERT(strstr(m->body, "hidden") == NULL);
    ASSERT(strstr(m->body, "Fish & chips \xc3\xa9t\xc3\xa9 \xe2\x98\xba <tag>") != NULL);
    ASSERT(strstr(m->body, "one two") != NULL);
    ASSERT(strstr(m->body, "a < b &bogus; &amp") != NULL);
    done();
}

TEST(html_to_text_direct)
{
    void *ctx = talloc_new(NULL);
    size_t len;
    char *t;

    t = maildex__html_to_text(ctx, "x<br>y<BR/>z", 12, &len);
    ASSERT_STR_EQ(t, "x\ny\nz");
    ASSERT_EQ(len, 5);
    t = maildex__html_to_text(ctx, "<SCRIPT>a</scriptx>b</SCRIPT >c", 32, NULL);
    ASSERT_STR_EQ(t, "c");
    t = maildex__html_to_text(ctx, "<a href=\"x>y\">link</a> &#0; &#xD800; &#99999999;", 49, NULL);
    ASSERT_STR_EQ(t, "link   ");
    /* Unterminated constructs swallow the rest but never fail. */
    t = maildex__html_to_text(ctx, "ok<!-- open", 11, NULL);
    ASSERT_STR_EQ(t, "ok");
    t = maildex__html_to_text(ctx, "ok<style>open", 13, NULL);
    ASSERT_STR_EQ(t, "ok");
    t = maildex__html_to_text(ctx, "a\0b", 3, &len);
    ASSERT_STR_EQ(t, "ab");
    t = maildex__html_to_text(ctx, "", 0, &len);
    ASSERT_STR_EQ(t, "");
    talloc_free(ctx);
}

TEST(uuencode_block_dropped)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\n\nhere it is\nbegin 644 file.bin\n"
              "M86)C9&5F9VAI:FML;6YO<'%R<W1U=G=X>7I!0D-$149'2$E*2TQ-3D]045)3\n"
              "M5%565UA96F%B8V1E9F=H:6IK;&UN;W!Q<G-T=79W>'EZ04)#1$5&1TA)2DM,\n"
              "`\nend\nthanks\n");

    ASSERT(strstr(m->body, "M86") == NULL);
    ASSERT(strstr(m->body, "here it is") != NULL);
    ASSERT(strstr(m->body, "thanks") != NULL);
    done();
}

TEST(nested_message_rfc822)
{
    struct maildex__parsed_message *m =
        parse("Subject: fwd\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
              "Content-Type: text/plain\n\nsee below\n--b\n"
              "Content-Type: message/rfc822\n\n"
              "Subject: inner\nContent-Type: text/plain\n\ninner text\n--b--\n");

    ASSERT_STR_EQ(m->subject, "fwd");
    ASSERT_STR_EQ(m->mime_types, "multipart/mixed text/plain message/rfc822 text/plain");
    ASSERT(strstr(m->body, "see below") != NULL);
    ASSERT(strstr(m->body, "inner text") != NULL);
    done();
}

TEST(signed_and_encrypted_parts)
{
    struct maildex__parsed_message *m =
        parse("Subject: s\nContent-Type: multipart/signed; boundary=s; "
              "protocol=\"application/pgp-signature\"\n\n--s\n"
              "Content-Type: text/plain\n\nsigned text\n--s\n"
              "Content-Type: application/pgp-signature\n\nSIGNATUREDATA\n--s--\n");

    ASSERT_STR_EQ(m->mime_types, "multipart/signed text/plain application/pgp-signature");
    ASSERT_STR_EQ(m->body, "signed text");
    m = parse("Subject: e\nContent-Type: multipart/encrypted; boundary=e; "
              "protocol=\"application/pgp-encrypted\"\n\n--e\n"
              "Content-Type: application/pgp-encrypted\n\nVersion: 1\n--e\n"
              "Content-Type: text/plain\n\nsecret words\n--e--\n");
    ASSERT_STR_EQ(m->mime_types, "multipart/encrypted application/pgp-encrypted text/plain");
    ASSERT_STR_EQ(m->body, "");
    done();
}

TEST(attachment_text_not_in_body)
{
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
              "Content-Type: text/plain\n\nvisible\n--b\n"
              "Content-Type: text/plain; name=\"notes.txt\"\nContent-Disposition: ATTACHMENT\n\n"
              "hidden words\n--b\n"
              "Content-Type: image/png\nContent-Disposition: attachment; filename=pic.png\n\n"
              "xx\n--b--\n");

    ASSERT(m->has_attachment);
    ASSERT_STR_EQ(m->attachment_names, "notes.txt pic.png");
    ASSERT_STR_EQ(m->body, "visible");
    done();
}

/* ---- what is mail --------------------------------------------------------------------------- */

TEST(mislabelled_text_part_indexed)
{
    /* notmuch indexes every leaf that is not an attachment; of a part not declared text/... we keep
     * the UTF-8 text (doc/quirks.md) and leave out binary content. */
    struct maildex__parsed_message *m =
        parse("Subject: x\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
              "Content-Type: application/octet-stream\n\nmislabelled words\n--b\n"
              "Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n"
              "iVBORw0KGgoAAAANSUhEUgAAAAE=\n--b--\n");

    ASSERT_STR_EQ(m->body, "mislabelled words");
    done();
}

TEST(mime_type_8bit_is_valid_utf8)
{
    /* Found by fuzz-message: gmime keeps raw bytes in the type, and mime_types must be UTF-8. */
    struct maildex__parsed_message *m;

    m = parse_rc("Content-Type:/\xf6\x8b\x97\x97", 18, MAILDEX__PARSE_NOT_MAIL);
    ASSERT(m != NULL);
    ASSERT(g_utf8_validate(m->mime_types, -1, NULL));
    done();
}

TEST(non_mail_file)
{
    struct maildex__parsed_message *m = NULL;
    char *error = NULL;
    void *ctx = talloc_new(NULL);
    int rc;

    rc = maildex__message_parse_buffer(ctx, "X-Foo: bar\nDate: yes\n\nnot mail\n", 31, NULL, &m, &error);
    ASSERT_EQ(rc, MAILDEX__PARSE_NOT_MAIL);
    ASSERT(m != NULL);
    ASSERT(!m->is_mail);
    ASSERT_STR_EQ(error, "not a mail file: no From, Subject or To header");
    rc = maildex__message_parse_buffer(ctx, "", 0, NULL, &m, &error);
    ASSERT_EQ(rc, MAILDEX__PARSE_NOT_MAIL);
    ASSERT(!m->is_mail);
    /* An mbox holding several messages is not one mail (notmuch's rule). */
    rc = maildex__message_parse_buffer(ctx,
                                       "From a@x Mon Jan  1 00:00:00 2024\nSubject: one\n\n1\n\n"
                                       "From b@x Mon Jan  1 00:00:00 2024\nSubject: two\n\n2\n",
                                       98, NULL, &m, &error);
    ASSERT_EQ(rc, MAILDEX__PARSE_NOT_MAIL);
    ASSERT_STR_EQ(error, "not a mail file: mbox with more than one message");
    talloc_free(ctx);
}

TEST(single_message_mbox)
{
    struct maildex__parsed_message *m =
        parse("From a@x Mon Jan  1 00:00:00 2024\nSubject: only\nMessage-ID: <m@x>\n\nbody\n");

    ASSERT_STR_EQ(m->subject, "only");
    ASSERT_STR_EQ(m->message_id, "m@x");
    done();
}

TEST(nul_bytes_in_headers)
{
    static const char text[] = "From: a\0b@example.org\nSubject: left\0right\nTo: \0\n\nbody\n";
    struct maildex__parsed_message *m = parse_rc(text, sizeof text - 1, MAILDEX__PARSE_OK);

    ASSERT(m != NULL);
    ASSERT(m->is_mail);
    ASSERT(strncmp(m->subject, "left", 4) == 0);
    ASSERT(strchr(m->from, 'a') != NULL);
    ASSERT_STR_EQ(m->body, "body\n");
    done();
}

TEST(binary_garbage)
{
    char garbage[65536];
    unsigned state = 12345;

    for (size_t i = 0; i < sizeof garbage; i++) {
        state = state * 1103515245u + 12345u;
        garbage[i] = (char) (state >> 16);
    }
    for (int round = 0; round < 8; round++) {
        struct maildex__parsed_message *m = NULL;
        char *error = NULL;
        void *ctx = talloc_new(NULL);
        int rc;
        if (round > 0)
            memcpy(garbage, "Subject: x\nContent-Type: multipart/mixed; boundary=\"\"\n\n", 56);
        rc = maildex__message_parse_buffer(ctx, garbage, sizeof garbage >> round, NULL, &m, &error);
        ASSERT(rc == MAILDEX__PARSE_OK || rc == MAILDEX__PARSE_NOT_MAIL);
        ASSERT(g_utf8_validate(m->body, -1, NULL));
        ASSERT(g_utf8_validate(m->subject, -1, NULL));
        talloc_free(ctx);
    }
}

/* ---- files ---------------------------------------------------------------------------------- */

TEST(file_read_and_errors)
{
    const char *dir = test_scratch_dir("files");
    char *path = g_strdup_printf("%s/msg", dir), *missing = g_strdup_printf("%s/none", dir);
    struct maildex__parsed_message *m = NULL;
    char *error = NULL;
    void *ctx = talloc_new(NULL);
    int rc;

    ASSERT(g_file_set_contents(path, msg3, sizeof msg3 - 1, NULL));
    rc = maildex__message_parse_file(ctx, path, NULL, &m, &error);
    ASSERT_EQ(rc, MAILDEX__PARSE_OK);
    ASSERT_STR_EQ(m->message_id, "msg3@example.net");
    ASSERT_STR_EQ(m->attachment_names, "menu.pdf");
    rc = maildex__message_parse_file(ctx, missing, NULL, &m, &error);
    ASSERT_EQ(rc, MAILDEX__PARSE_ERROR);
    ASSERT(m == NULL);
    ASSERT_STR_EQ(error, "cannot open: No such file or directory");
    rc = maildex__message_parse_file(ctx, dir, NULL, &m, &error);
    ASSERT_EQ(rc, MAILDEX__PARSE_ERROR);
    ASSERT_STR_EQ(error, "not a regular file");
    g_free(path);
    g_free(missing);
    talloc_free(ctx);
}

TEST(fifo_refused_without_blocking)
{
    const char *dir = test_scratch_dir("fifo");
    char *path = g_strdup_printf("%s/fifo", dir);
    struct maildex__parsed_message *m = NULL;
    char *error = NULL;
    void *ctx = talloc_new(NULL);
    double start;
    int rc;

    ASSERT_EQ(mkfifo(path, 0600), 0);
    start = now_seconds();
    /* A blocking open would hang here forever: no writer ever comes. */
    rc = maildex__message_parse_file(ctx, path, NULL, &m, &error);
    ASSERT_LT((int64_t) ((now_seconds() - start) * 1000), 1000);
    ASSERT_EQ(rc, MAILDEX__PARSE_ERROR);
    ASSERT(m == NULL);
    ASSERT_STR_EQ(error, "not a regular file");
    g_free(path);
    talloc_free(ctx);
}

/* ---- limits --------------------------------------------------------------------------------- */

static char *nested_multipart(int levels, const char *leaf_text)
{
    GString *s = g_string_new("Subject: deep\nMessage-ID: <deep@x>\n");

    for (int i = 0; i < levels; i++)
        g_string_append_printf(s, "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i,
                               i);
    g_string_append_printf(s, "Content-Type: text/plain\n\n%s\n", leaf_text);
    for (int i = levels - 1; i >= 0; i--)
        g_string_append_printf(s, "--b%d--\n", i);
    return g_string_free(s, FALSE);
}

static size_t count_word(const char *haystack, const char *word)
{
    size_t n = 0;
    for (const char *p = strstr(haystack, word); p; p = strstr(p + 1, word))
        n++;
    return n;
}

/* A text over MAILDEX__BODY_TEXT_MAX (issue 33): its start is indexed, decoding stops at the limit (a
 * UTF-8 character is not split), a text part after it is left out with its file name recorded as an
 * attachment's, and the message says so. */
TEST(text_beyond_limit_left_out)
{
    GString *text = g_string_new("From: a@example.org\nMessage-ID: <big@x>\nMIME-Version: 1.0\n"
                                 "Content-Type: multipart/mixed; boundary=B\n\n--B\n"
                                 "Content-Type: text/plain\n\nfirstpart\n--B\n"
                                 "Content-Type: text/plain; charset=utf-8\n\n");
    struct maildex__parsed_message *m;

    while (text->len < MAILDEX__BODY_TEXT_MAX + 4096)
        g_string_append(text, "\xc3\xa9t\xc3\xa9 word\n");
    g_string_append(text, "lastword\n--B\nContent-Type: text/plain\nContent-Disposition: inline; "
                          "filename=after.txt\n\nafterword\n--B--\n");
    m = parse_rc(text->str, text->len, MAILDEX__PARSE_OK);
    ASSERT(strncmp(m->body, "firstpart", 9) == 0);
    ASSERT(strlen(m->body) <= MAILDEX__BODY_TEXT_MAX);
    ASSERT(strlen(m->body) > MAILDEX__BODY_TEXT_MAX - 16);
    ASSERT(g_utf8_validate(m->body, -1, NULL));
    ASSERT(strstr(m->body, "lastword") == NULL && strstr(m->body, "afterword") == NULL);
    ASSERT_STR_EQ(m->attachment_names, "after.txt");
    ASSERT_STR_EQ(m->warning, "text beyond its first 8 MiB not indexed (2 text parts cut or left out)");
    g_string_free(text, TRUE);
    m = parse("From: a@example.org\nMessage-ID: <small@x>\n\nsmall\n");
    ASSERT(m->warning == NULL);
    done();
}

TEST(nesting_within_limit_indexed)
{
    char *text = nested_multipart(10, "leafword");
    struct maildex__parsed_message *m = parse(text);

    ASSERT_STR_EQ(m->body, "leafword");
    ASSERT_EQ(count_word(m->mime_types, "multipart/mixed"), 10);
    g_free(text);
    done();
}

TEST(nesting_to_gmime_limit_indexed)
{
    /* gmime 3.2 builds 1,024 nested multiparts; the walk follows them all, as notmuch does. */
    char *text = nested_multipart(1024, "leafword");
    struct maildex__parsed_message *m = parse(text);

    ASSERT_STR_EQ(m->body, "leafword");
    ASSERT_EQ(count_word(m->mime_types, "multipart/mixed"), 1024);
    g_free(text);
    done();
}

TEST(nesting_beyond_limit_fast)
{
    char *text = nested_multipart(3000, "leafword");
    double start = now_seconds();
    struct maildex__parsed_message *m = parse(text);

    ASSERT_LT((int64_t) (now_seconds() - start), 5);
    ASSERT_STR_EQ(m->message_id, "deep@x");
    /* Below gmime's limit (and the walk's, MAILDEX__MESSAGE_MAX_DEPTH) nothing is reached. */
    ASSERT_STR_EQ(m->body, "");
    ASSERT_LT(count_word(m->mime_types, "multipart/mixed"), MAILDEX__MESSAGE_MAX_DEPTH + 2);
    g_free(text);
    done();
}

TEST(huge_header_line_fast)
{
    size_t n = 2 * 1024 * 1024;
    GString *s = g_string_new("From: a@example.org\nSubject: ");
    double start = now_seconds();
    struct maildex__parsed_message *m;

    for (size_t i = 0; i < n / 8; i++)
        g_string_append(s, "abcdefg ");
    g_string_append(s, "\nReferences: ");
    for (size_t i = 0; i < 20000; i++)
        g_string_append_printf(s, "<r%zu@x> ", i % 5000);
    g_string_append(s, "\nMessage-ID: <");
    for (size_t i = 0; i < 100000; i++)
        g_string_append(s, " \t");
    g_string_append(s, "id@x>\n\nbody\n");
    m = parse(s->str);
    /* About 0.1 s unsanitised; the bound only catches quadratic behaviour, under ASan too. */
    ASSERT_LT((int64_t) (now_seconds() - start), 15);
    ASSERT_EQ(strlen(m->subject), n - 1);
    ASSERT_EQ(count_refs(m->references), 5000);
    ASSERT_STR_EQ(m->parent_id, "r4999@x");
    ASSERT_STR_EQ(m->message_id, "id@x");
    ASSERT_STR_EQ(m->body, "body\n");
    g_string_free(s, TRUE);
    done();
}

/* ---- threads -------------------------------------------------------------------------------- */

static gpointer parse_many(gpointer data)
{
    (void) data;
    for (int i = 0; i < 200; i++) {
        void *ctx = talloc_new(NULL);
        struct maildex__parsed_message *m = NULL;
        const char *text = i % 3 == 0 ? msg1 : i % 3 == 1 ? msg2 : msg3;
        int rc = maildex__message_parse_buffer(ctx, text, strlen(text), NULL, &m, NULL);
        bool ok = rc == MAILDEX__PARSE_OK && strstr(m->message_id, "@example.") != NULL;
        talloc_free(ctx);
        if (!ok)
            return GINT_TO_POINTER(1);
    }
    return NULL;
}

TEST(parallel_parsing)
{
    GThread *threads[4];
    int failures = 0;

    for (int i = 0; i < 4; i++)
        threads[i] = g_thread_new("parse", parse_many, NULL);
    for (int i = 0; i < 4; i++)
        failures += GPOINTER_TO_INT(g_thread_join(threads[i]));
    ASSERT_EQ(failures, 0);
}

/* ---- the real corpus ------------------------------------------------------------------------ */

static int corpus_files, corpus_failures, corpus_mail;

static int parse_corpus_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    struct maildex__parsed_message *m = NULL;
    char *error = NULL;
    void *ctx;
    int rc;

    (void) sb;
    if (type != FTW_F || strcmp(base, "MANIFEST.tsv") == 0 || strcmp(base, "SOURCES.md") == 0 ||
        strstr(path, "/LICENSES") != NULL)
        return 0;
    ctx = talloc_new(NULL);
    rc = maildex__message_parse_file(ctx, path, NULL, &m, &error);
    corpus_files++;
    if (rc == MAILDEX__PARSE_ERROR || m == NULL || !g_utf8_validate(m->body, -1, NULL) ||
        !g_utf8_validate(m->subject, -1, NULL) || !g_utf8_validate(m->from, -1, NULL) ||
        *m->message_id == '\0') {
        printf("# %s: %s\n", path, error ? error : "bad result");
        corpus_failures++;
    } else if (rc == MAILDEX__PARSE_OK) {
        corpus_mail++;
    }
    talloc_free(ctx);
    return 0;
}

/* ---- mailboxes for `address` ---------------------------------------------------------------------- */

/* A stored mailbox list (mime/addresses.h) as "name|address|name-addr;" per mailbox. */
static char *mailboxes(const char *data, size_t len)
{
    char *out = talloc_strdup(test_ctx, "");
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\0')
            out = talloc_asprintf_append(out, "%c", ++n % 3 == 0 ? ';' : '|');
        else
            out = talloc_asprintf_append(out, "%c", data[i]);
    }
    ASSERT_EQ(n % 3, 0);
    return out;
}

TEST(mailboxes_of_from_and_recipients)
{
    struct maildex__parsed_message *m = parse(
        "From: =?ISO-8859-1?Q?Fran=E7ois_Lef=E8vre?= <francois@example.net>\n"
        "To: Bob <bob@example.com>, \"Carol, C.\" <carol@example.net>\n"
        "Cc: team: Ann <ann@example.com>, dan@example.com;\n"
        "Bcc: undisclosed-recipients:;, Dr. Who <who@example.com>\n"
        "Subject: s\n\nbody\n");

    /* Names decoded; a name with a special character keeps gmime's quoted rendering; group members
     * in place of their group, an empty group nothing; To, Cc, Bcc one after the other. */
    ASSERT_STR_EQ(mailboxes(m->senders, m->senders_len), "François Lefèvre|francois@example.net|;");
    ASSERT_STR_EQ(mailboxes(m->recipients, m->recipients_len),
                  "Bob|bob@example.com|;"
                  "Carol, C.|carol@example.net|\"Carol, C.\" <carol@example.net>;"
                  "Ann|ann@example.com|;"
                  "|dan@example.com|;"
                  "Dr. Who|who@example.com|\"Dr. Who\" <who@example.com>;");
    done();
}

/* The header is decoded before it is parsed, as notmuch does, and gmime's rendering keeps its own
 * rules for quotes and backslashes (a backslash doubled, a quote left alone). */
TEST(mailboxes_decoded_then_parsed)
{
    struct maildex__parsed_message *m = parse(
        "From: =?utf-8?q?Doe=2C_John?= <john@example.com>\n"
        "To: \"Back\\\\slash\" <bs@example.com>, \"Quote \\\"Q\\\" Person\" <q@example.com>\n"
        "Subject: s\n\nbody\n");

    ASSERT_STR_EQ(mailboxes(m->senders, m->senders_len),
                  "Doe, John|john@example.com|\"Doe, John\" <john@example.com>;");
    ASSERT_STR_EQ(mailboxes(m->recipients, m->recipients_len),
                  "Back\\slash|bs@example.com|Back\\\\slash <bs@example.com>;"
                  "Quote \"Q\" Person|q@example.com|;");
    done();
}

/* mime/addresses.c skips gmime's rendering for plain names and addresses, taking it to be
 * `name <address>`: gmime must agree for every kind of plain pair, and a pair that is not plain must
 * keep gmime's own rendering. */
TEST(mailboxes_plain_pairs_render_as_gmime_renders_them)
{
    static const char *const names[] = {"", "Bob", "Jean-Luc Picard", "O'Neil", "Jörg Müller", "日本 語",
                                        "A B C D", "x1 2y"};
    static const char *const addrs[] = {"bob@example.com", "first.last+tag@sub.example.co.uk",
                                        "a_b-c@x-y.example", "X.Y@EXAMPLE.ORG"};

    maildex__message_parse_init();
    if (test_ctx == NULL) /* the text below is made before the first parse makes it */
        test_ctx = talloc_new(NULL);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (size_t j = 0; j < sizeof addrs / sizeof addrs[0]; j++) {
            InternetAddress *ia = internet_address_mailbox_new(names[i], addrs[j]);
            char *got = internet_address_to_string(ia, NULL, FALSE);
            char *plain = *names[i] ? g_strdup_printf("%s <%s>", names[i], addrs[j]) : g_strdup(addrs[j]);
            char *text = talloc_asprintf(test_ctx, "From: %s%s%s%s\nSubject: s\n\nbody\n", names[i],
                                         *names[i] ? " <" : "", addrs[j], *names[i] ? ">" : "");
            struct maildex__parsed_message *m = parse(text);
            ASSERT_STR_EQ(got, plain);
            ASSERT_STR_EQ(mailboxes(m->senders, m->senders_len),
                          talloc_asprintf(test_ctx, "%s|%s|;", names[i], addrs[j]));
            g_free(plain);
            g_free(got);
            g_object_unref(ia);
        }
    }
    /* Not plain: a comma, a dot, doubled spaces in a quoted name, an address with a quoted local part. */
    ASSERT_STR_EQ(mailboxes(parse("From: \"Doe,  J.\" <\"j d\"@example.com>\nSubject: s\n\nb\n")->senders,
                            parse("From: \"Doe,  J.\" <\"j d\"@example.com>\nSubject: s\n\nb\n")->senders_len),
                  "Doe,  J.|\"j d\"@example.com|\"Doe,  J.\" <\"j d\"@example.com>;");
    done();
}

/* No header, an empty one, or one without an address: empty lists, zero bytes. */
TEST(mailboxes_absent)
{
    struct maildex__parsed_message *m = parse("Subject: no addresses\nTo:\n\nbody\n");

    ASSERT_EQ(m->senders_len, 0);
    ASSERT_EQ(m->recipients_len, 0);
    ASSERT(m->senders != NULL && m->recipients != NULL);
    done();
}

TEST(real_corpus)
{
    char *root = g_strdup_printf("%s/test/corpora/real", test_srcdir);

    corpus_files = corpus_failures = corpus_mail = 0;
    ASSERT_EQ(nftw(root, parse_corpus_file, 16, FTW_PHYS), 0);
    g_free(root);
    ASSERT_EQ(corpus_failures, 0);
    ASSERT(corpus_files >= 400);
    printf("# real corpus: %d files, %d mail\n", corpus_files, corpus_mail);
    /* 37 files have no From/Subject/To header where gmime looks (leading blank line, headerless
     * MIME fragments) or are an mbox of several messages; notmuch skips those too. */
    ASSERT(corpus_mail >= 360);
}

TEST(crypto_structure_tags)
{
    struct maildex__parsed_message *m;

    m = parse("From: a@x\nSubject: s\nContent-Type: multipart/signed; boundary=b; "
              "protocol=\"application/pgp-signature\"; micalg=pgp-sha256\n\n--b\n"
              "Content-Type: text/plain\n\nsigned text\n--b\n"
              "Content-Type: application/pgp-signature\n\nSIG\n--b--\n");
    ASSERT(m->is_signed && !m->is_encrypted);
    ASSERT(strstr(m->body, "signed text") != NULL);
    ASSERT(strstr(m->body, "SIG") == NULL); /* the signature is not text */
    m = parse("From: a@x\nSubject: s\nContent-Type: multipart/encrypted; boundary=b; "
              "protocol=\"application/pgp-encrypted\"\n\n--b\n"
              "Content-Type: application/pgp-encrypted\n\nVersion: 1\n--b\n"
              "Content-Type: application/octet-stream\n\nCIPHER\n--b--\n");
    ASSERT(m->is_encrypted && !m->is_signed);
    m = parse("From: a@x\nSubject: s\nContent-Type: application/pkcs7-mime; "
              "smime-type=signed-data; name=smime.p7m\nContent-Transfer-Encoding: base64\n\nAAAA\n");
    /* notmuch tags S/MIME signed data "signed" only when gpgsm can verify it (and so unwrap it) */
    ASSERT(!m->is_signed && !m->is_encrypted);
    m = parse("From: a@x\nSubject: s\nContent-Type: application/pkcs7-mime; "
              "smime-type=enveloped-data; name=smime.p7m\nContent-Transfer-Encoding: base64\n\nAAAA\n");
    ASSERT(m->is_encrypted && !m->is_signed);
    m = parse("From: a@x\nSubject: plain\n\nnothing special\n");
    ASSERT(!m->is_encrypted && !m->is_signed);
    done();
}

TEST(mixed_up_mangled_pgp_is_encrypted)
{
    struct maildex__parsed_message *m;

    /* The shape notmuch repairs (its corpus's mangling/mixed-up.eml): indexed as encrypted. */
    m = parse("From: a@x\nSubject: s\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
              "Content-Type: text/plain\n\n\n--b\nContent-Type: application/pgp-encrypted\n"
              "Content-Transfer-Encoding: base64\n\nVmVyc2lvbjogMQ0K\n--b\n"
              "Content-Type: application/octet-stream\n\nCIPHER\n--b--\n");
    ASSERT(m->is_encrypted);
    ASSERT_STR_EQ(m->mime_types, "multipart/encrypted application/pgp-encrypted "
                                 "application/octet-stream");
    /* A non-empty first part is ordinary mixed content. */
    m = parse("From: a@x\nSubject: s\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
              "Content-Type: text/plain\n\nhello\n--b\nContent-Type: application/pgp-encrypted\n"
              "\nVersion: 1\n--b\nContent-Type: application/octet-stream\n\nCIPHER\n--b--\n");
    ASSERT(!m->is_encrypted);
    done();
}

TEST_MAIN(TEST_ENTRY(crypto_structure_tags) TEST_ENTRY(mixed_up_mangled_pgp_is_encrypted)
    TEST_ENTRY(lunch_plain_utf8)
    TEST_ENTRY(lunch_alternative_html)
    TEST_ENTRY(lunch_pdf_attachment)
    TEST_ENTRY(rfc2047_subjects)
    TEST_ENTRY(encoded_from_name)
    TEST_ENTRY(raw_8bit_latin1_header)
    TEST_ENTRY(from_name_rules)
    TEST_ENTRY(other_headers)
    TEST_ENTRY(user_fields)
    TEST_ENTRY(gzip_file)
    TEST_ENTRY(date_missing_or_bad)
    TEST_ENTRY(missing_message_id_sha1)
    TEST_ENTRY(empty_message_id_sha1)
    TEST_ENTRY(message_id_normalised)
    TEST_ENTRY(parent_in_reply_to_only)
    TEST_ENTRY(parent_references_only)
    TEST_ENTRY(parent_both_prefers_sane_in_reply_to)
    TEST_ENTRY(parent_garbage_in_reply_to)
    TEST_ENTRY(parent_self_reference_ignored)
    TEST_ENTRY(quoted_printable_body)
    TEST_ENTRY(base64_body)
    TEST_ENTRY(latin1_body_converted)
    TEST_ENTRY(invalid_utf8_dropped)
    TEST_ENTRY(undeclared_8bit_body_decoded)
    TEST_ENTRY(nul_bytes_and_crlf)
    TEST_ENTRY(line_ends_lf_and_crlf)
    TEST_ENTRY(line_ends_cr_cr_lf)
    TEST_ENTRY(line_ends_cr_only)
    TEST_ENTRY(line_ends_mixed)
    TEST_ENTRY(line_ends_cr_in_value_is_text)
    TEST_ENTRY(line_ends_in_pieces_as_whole)
    TEST_ENTRY(line_ends_cr_only_multipart)
    TEST_ENTRY(line_ends_sha1_of_the_file_as_is)
    TEST_ENTRY(line_ends_long_cr_runs_fast)
    TEST_ENTRY(html_body_entities_and_script)
    TEST_ENTRY(html_to_text_direct)
    TEST_ENTRY(uuencode_block_dropped)
    TEST_ENTRY(nested_message_rfc822)
    TEST_ENTRY(signed_and_encrypted_parts)
    TEST_ENTRY(attachment_text_not_in_body)
    TEST_ENTRY(mislabelled_text_part_indexed)
    TEST_ENTRY(mime_type_8bit_is_valid_utf8)
    TEST_ENTRY(non_mail_file)
    TEST_ENTRY(single_message_mbox)
    TEST_ENTRY(nul_bytes_in_headers)
    TEST_ENTRY(binary_garbage)
    TEST_ENTRY(file_read_and_errors)
    TEST_ENTRY(fifo_refused_without_blocking)
    TEST_ENTRY(text_beyond_limit_left_out)
    TEST_ENTRY(nesting_within_limit_indexed)
    TEST_ENTRY(nesting_to_gmime_limit_indexed)
    TEST_ENTRY(nesting_beyond_limit_fast)
    TEST_ENTRY(huge_header_line_fast)
    TEST_ENTRY(parallel_parsing)
    TEST_ENTRY(mailboxes_of_from_and_recipients)
    TEST_ENTRY(mailboxes_decoded_then_parsed)
    TEST_ENTRY(mailboxes_plain_pairs_render_as_gmime_renders_them)
    TEST_ENTRY(mailboxes_absent)
    TEST_ENTRY(real_corpus)
)
