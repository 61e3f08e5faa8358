/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex__show_headers_file (lib/mime/header.c), what notmuch_message_get_header reads from a file:
 * the header block alone parsed from memory for a plain file (LF or CRLF, with or without a body),
 * the whole file as show parses it for a gzip file or a one-message mbox, and the same decoded values
 * either way. The files are written inline so each test shows the bytes it feeds in. */
#include "mime/parse.h"
#include "mime/tree.h"
#include "test.h"

#include <glib.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* Writes len bytes of text to a file named name in a scratch directory; returns its path on ctx. */
static char *write_mail(void *ctx, const char *name, const char *text, size_t len)
{
    char *path = talloc_asprintf(ctx, "%s/%s", test_scratch_dir(name), name);
    FILE *f = fopen(path, "wb");

    ASSERT(f != NULL);
    ASSERT_EQ(fwrite(text, 1, len, f), len);
    ASSERT_EQ(fclose(f), 0);
    return path;
}

/* The value of name among the pairs, NULL when absent. */
static const char *value(char **pairs, const char *name)
{
    for (char **p = pairs; p && *p; p += 2)
        if (strcasecmp(p[0], name) == 0)
            return p[1];
    return NULL;
}

/* The headers of text written to a file, checked against what every variant below must give. */
static void check_headers(const char *name, const char *text, size_t len)
{
    void *ctx = talloc_new(NULL);
    char *path = write_mail(ctx, name, text, len), **pairs = NULL, *error = NULL;

    ASSERT_EQ(maildex__show_headers_file(ctx, path, &pairs, &error), MAILDEX__PARSE_OK);
    ASSERT_STR_EQ(value(pairs, "To"), "Bob <bob@example.com>");
    ASSERT_STR_EQ(value(pairs, "subject"), "Caf\xc3\xa9 plans");
    ASSERT_STR_EQ(value(pairs, "Received"), "from a by b from c by d");
    ASSERT_STR_EQ(value(pairs, "Date"), "Mon, 01 Jan 2024 10:00:00 +0000");
    ASSERT(value(pairs, "X-In-Body") == NULL);
    talloc_free(ctx);
}

#define HEAD(eol)                                                                            \
    "From: Alice <alice@example.org>" eol "To: Bob <bob@example.com>" eol                    \
    "Subject: =?utf-8?q?Caf=C3=A9?= plans" eol "Received: from a by b" eol                   \
    "Received: from c" eol " by d" eol "Date: Mon, 01 Jan 2024 10:00:00 +0000" eol           \
    "Message-ID: <h@example.org>" eol

TEST(plain_lf_crlf_and_headers_only)
{
    static const char lf[] = HEAD("\n") "\nX-In-Body: not a header\n";
    static const char crlf[] = HEAD("\r\n") "\r\nX-In-Body: not a header\r\n";
    static const char only[] = HEAD("\n");

    check_headers("lf", lf, sizeof lf - 1);
    check_headers("crlf", crlf, sizeof crlf - 1);
    check_headers("only", only, sizeof only - 1);
}

TEST(long_header_block)
{
    GString *text = g_string_new(HEAD("\n"));

    for (int i = 0; i < 2000; i++) /* past the first read's 8 KiB */
        g_string_append_printf(text, "X-Filler-%d: %d\n", i, i);
    g_string_append(text, "\nX-In-Body: not a header\n");
    check_headers("long", text->str, text->len);
    g_string_free(text, TRUE);
}

TEST(mbox_and_gzip_take_the_whole_parse)
{
    static const char mbox[] = "From alice@example.org Mon Jan  1 10:00:00 2024\n" HEAD("\n") "\nbody\n";
    static const char plain[] = HEAD("\n") "\nX-In-Body: not a header\n";
    GByteArray *packed = g_byte_array_new();
    GMimeStream *mem, *filtered;
    GMimeFilter *gzip;

    maildex__message_parse_init();
    mem = g_mime_stream_mem_new_with_byte_array(packed);
    filtered = g_mime_stream_filter_new(mem);
    gzip = g_mime_filter_gzip_new(GMIME_FILTER_GZIP_MODE_ZIP, 6);
    g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
    g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), gzip);
    g_mime_stream_write(filtered, plain, sizeof plain - 1);
    g_mime_stream_flush(filtered);
    g_object_unref(filtered);
    g_object_unref(gzip);
    g_object_unref(mem);
    check_headers("mbox", mbox, sizeof mbox - 1);
    check_headers("gzip", (const char *) packed->data, packed->len);
    g_byte_array_free(packed, TRUE);
}

TEST(not_mail_and_missing)
{
    void *ctx = talloc_new(NULL);
    char **pairs = NULL, *error = NULL;
    char *path = write_mail(ctx, "empty", "", 0);

    ASSERT(maildex__show_headers_file(ctx, path, &pairs, &error) != MAILDEX__PARSE_OK || value(pairs, "To") == NULL);
    error = NULL;
    ASSERT(maildex__show_headers_file(ctx, "/nonexistent/mail", &pairs, &error) != MAILDEX__PARSE_OK);
    ASSERT(error != NULL);
    talloc_free(ctx);
}

TEST_MAIN(TEST_ENTRY(plain_lf_crlf_and_headers_only) TEST_ENTRY(long_header_block)
              TEST_ENTRY(mbox_and_gzip_take_the_whole_parse) TEST_ENTRY(not_mail_and_missing))
