/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for lib/mime/message-id.c: Message-IDs, References and In-Reply-To read as notmuch 0.37 reads
 * them. The strict cases are notmuch's own test/T710-message-id.sh, ported line for line (that test
 * runs notmuch's helper, not ours); the others pin notmuch's quirks, checked against notmuch 0.37.
 * This program links mime/message-id.c alone, without gmime. */
#include "test.h"

#include "mime/message-id.h"

#include <stdlib.h>
#include <talloc.h>

static size_t count_ids(char **ids)
{
    size_t n = 0;
    while (ids[n])
        n++;
    return n;
}

/* The id of the whole value s, as message-id-parse prints it: the id, or "BAD". */
static const char *strict(void *ctx, const char *s)
{
    char *id = maildex__message_id_parse_strict(ctx, s);
    return id ? id : "BAD";
}

/* ---- T710-message-id.sh --------------------------------------------------------------------- */

TEST(t710_good_message_ids)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(strict(ctx, "<018b1a8f2d1df62e804ce88b65401304832dfbbf.1346614915.git.jani@nikula.org>"),
                  "018b1a8f2d1df62e804ce88b65401304832dfbbf.1346614915.git.jani@nikula.org");
    ASSERT_STR_EQ(strict(ctx, "<1530507300.raoomurnbf.astroid@strange.none>"),
                  "1530507300.raoomurnbf.astroid@strange.none");
    ASSERT_STR_EQ(strict(ctx, "<1258787708-21121-2-git-send-email-keithp@keithp.com>"),
                  "1258787708-21121-2-git-send-email-keithp@keithp.com");
    talloc_free(ctx);
}

TEST(t710_leading_and_trailing_space_is_ok)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(strict(ctx, "   <018b1a8f2d1df62e804ce88b65401304832dfbbf.1346614915.git.jani@nikula.org>"),
                  "018b1a8f2d1df62e804ce88b65401304832dfbbf.1346614915.git.jani@nikula.org");
    ASSERT_STR_EQ(strict(ctx, "<1530507300.raoomurnbf.astroid@strange.none>    "),
                  "1530507300.raoomurnbf.astroid@strange.none");
    ASSERT_STR_EQ(strict(ctx, "    <1258787708-21121-2-git-send-email-keithp@keithp.com>"),
                  "1258787708-21121-2-git-send-email-keithp@keithp.com");
    talloc_free(ctx);
}

TEST(t710_delimiters_are_required)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(strict(ctx, "018b1a8f2d1df62e804ce88b65401304832dfbbf.1346614915.git.jani@nikula.org>"), "BAD");
    ASSERT_STR_EQ(strict(ctx, "<1530507300.raoomurnbf.astroid@strange.none"), "BAD");
    ASSERT_STR_EQ(strict(ctx, "1258787708-21121-2-git-send-email-keithp@keithp.com"), "BAD");
    talloc_free(ctx);
}

TEST(t710_embedded_whitespace_is_forbidden)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(strict(ctx, "<018b1a8f2d1df62e804ce88b65401304832dfbbf.1346614915 .git.jani@nikula.org>"), "BAD");
    ASSERT_STR_EQ(strict(ctx, "<1530507300.raoomurnbf.astroid\t@strange.none>"), "BAD");
    /* A form feed, as in notmuch's test file. */
    ASSERT_STR_EQ(strict(ctx, "<1258787708-21121-\f2-git-send-email-keithp@keithp.com>"), "BAD");
    talloc_free(ctx);
}

TEST(t710_folded_real_life_bad_in_reply_to)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(strict(ctx, "<22597.31869.380767.339702@chiark.greenend.org.uk> (Ian Jackson's message "
                              "of \"Mon, 5 Dec 2016 14:41:01 +0000\")"), "BAD");
    ASSERT_STR_EQ(strict(ctx, "<20170625141242.loaalhis2eodo66n@gaara.hadrons.org>  "
                              "<149719990964.27883.13021127452105787770.reportbug@seneca.home.org>"), "BAD");
    ASSERT_STR_EQ(strict(ctx, "Your message of Tue, 09 Dec 2014 13:21:11 +0100. <1900758.CgLNVPbY9N@liber>"),
                  "BAD");
    talloc_free(ctx);
}

TEST(strict_edges)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(strict(ctx, ""), "BAD");
    ASSERT_STR_EQ(strict(ctx, "<>"), ""); /* notmuch's answer too: an empty id, not BAD */
    ASSERT_STR_EQ(strict(ctx, "\r\n\t<a@b>\r\n"), "a@b");
    ASSERT_STR_EQ(strict(ctx, "<a@b>>"), "BAD");
    ASSERT_STR_EQ(strict(ctx, "<a<b@c>"), "a<b@c");
    talloc_free(ctx);
}

/* ---- one id of a list (_notmuch_message_id_parse) ------------------------------------------- */

TEST(parse_quirks)
{
    void *ctx = talloc_new(NULL);
    const char *next;

    ASSERT_STR_EQ(maildex__message_id_parse(ctx, "<bad\"utf8 x@example.com>", &next), "bad\"utf8x@example.com");
    ASSERT_STR_EQ(next, "");
    /* Comments (nested, with escapes) and unstructured text before the '<' are skipped. */
    ASSERT_STR_EQ(maildex__message_id_parse(ctx, " (a (b) \\) c) text <id@x> rest", &next), "id@x");
    ASSERT_STR_EQ(next, " rest");
    /* Blanks and comments just inside the '<' too. */
    ASSERT_STR_EQ(maildex__message_id_parse(ctx, "< (c) id@x>", &next), "id@x");
    /* Of k blanks in a row, k/2 survive; a trailing one may survive too. */
    ASSERT_STR_EQ(maildex__message_id_parse(ctx, "<a  b   c@x>", &next), "a b c@x");
    ASSERT_STR_EQ(maildex__message_id_parse(ctx, "<  spaced\tid@example.com  >", &next),
                  "spacedid@example.com ");
    /* A one-character id is rejected, an unterminated one accepted. */
    ASSERT(maildex__message_id_parse(ctx, "<a> <bc>", &next) == NULL);
    ASSERT_STR_EQ(next, " <bc>");
    ASSERT_STR_EQ(maildex__message_id_parse(ctx, next, &next), "bc");
    ASSERT_STR_EQ(maildex__message_id_parse(ctx, "<unterminated@x", &next), "unterminated@x");
    ASSERT_STR_EQ(next, "");
    ASSERT(maildex__message_id_parse(ctx, "<>", &next) == NULL);
    ASSERT_STR_EQ(next, "");
    ASSERT(maildex__message_id_parse(ctx, "no id here", &next) == NULL);
    ASSERT_STR_EQ(next, "");
    ASSERT(maildex__message_id_parse(ctx, "(unclosed <a@b>", &next) == NULL);
    ASSERT_STR_EQ(next, "");
    talloc_free(ctx);
}

TEST(parse_is_linear_in_blanks)
{
    /* notmuch removes each blank with memmove: a million blanks is 10^12 byte moves there. */
    size_t k = 1000000;
    char *s = malloc(k + 8);
    void *ctx = talloc_new(NULL);
    const char *next;
    char *id;

    ASSERT(s != NULL);
    s[0] = '<';
    s[1] = 'a';
    memset(s + 2, ' ', k);
    memcpy(s + 2 + k, "b>", 3);
    id = maildex__message_id_parse(ctx, s, &next);
    ASSERT(id != NULL);
    ASSERT_EQ(strlen(id), 2 + k / 2);
    ASSERT_EQ(id[k / 2 + 1], 'b');
    free(s);
    talloc_free(ctx);
}

/* ---- References and In-Reply-To ------------------------------------------------------------- */

TEST(references_order_distinct_self_excluded)
{
    void *ctx = talloc_new(NULL);
    char **ids, *parent;

    ASSERT(maildex__references_parse(ctx, "c@x", "<r1@x>\t<r2@x> <c@x> <r1@x> <r3@x>", "<r2@x> <i@x>",
                                     &ids, &parent));
    ASSERT_EQ(count_ids(ids), 4);
    ASSERT_STR_EQ(ids[0], "r1@x");
    ASSERT_STR_EQ(ids[1], "r2@x");
    ASSERT_STR_EQ(ids[2], "r3@x");
    ASSERT_STR_EQ(ids[3], "i@x");
    /* In-Reply-To is not one clean id: the last References id. */
    ASSERT_STR_EQ(parent, "r3@x");
    talloc_free(ctx);
}

TEST(references_parent_rules)
{
    void *ctx = talloc_new(NULL);
    char **ids, *parent;

    /* A clean In-Reply-To wins over References. */
    ASSERT(maildex__references_parse(ctx, "c@x", "<r1@x> <r2@x>", " <r1@x> ", &ids, &parent));
    ASSERT_STR_EQ(parent, "r1@x");
    ASSERT_EQ(count_ids(ids), 2);
    /* notmuch returns the last id found even when it was a repeat. */
    ASSERT(maildex__references_parse(ctx, "c@x", "<r1@x> <r2@x> <r1@x>", NULL, &ids, &parent));
    ASSERT_STR_EQ(parent, "r1@x");
    ASSERT_EQ(count_ids(ids), 2);
    /* Only garbage around ids in In-Reply-To: its last id. */
    ASSERT(maildex__references_parse(ctx, "c@x", NULL, "mumble <a@x> and <b@x>", &ids, &parent));
    ASSERT_STR_EQ(parent, "b@x");
    /* The message itself is never its parent. */
    ASSERT(maildex__references_parse(ctx, "c@x", "<p@x>", "<c@x>", &ids, &parent));
    ASSERT_STR_EQ(parent, "p@x");
    ASSERT_EQ(count_ids(ids), 1);
    ASSERT(maildex__references_parse(ctx, "c@x", "", "<c@x>", &ids, &parent));
    ASSERT(parent == NULL);
    ASSERT_EQ(count_ids(ids), 0);
    ASSERT(maildex__references_parse(ctx, "c@x", NULL, NULL, &ids, &parent));
    ASSERT(parent == NULL);
    ASSERT(ids != NULL && ids[0] == NULL);
    talloc_free(ctx);
}

TEST(references_many)
{
    /* The list grows past its first allocations and keeps its order. */
    void *ctx = talloc_new(NULL);
    char *refs = talloc_strdup(ctx, ""), **ids, *parent;

    for (int i = 0; i < 1000; i++)
        refs = talloc_asprintf_append(refs, "<id%d@x> <id%d@x>\n", i, i / 2);
    ASSERT(refs != NULL);
    ASSERT(maildex__references_parse(ctx, "self@x", refs, NULL, &ids, &parent));
    ASSERT_EQ(count_ids(ids), 1000);
    ASSERT_STR_EQ(ids[0], "id0@x");
    ASSERT_STR_EQ(ids[999], "id999@x");
    ASSERT_STR_EQ(parent, "id499@x");
    talloc_free(ctx);
}

TEST_MAIN(TEST_ENTRY(t710_good_message_ids)
    TEST_ENTRY(t710_leading_and_trailing_space_is_ok)
    TEST_ENTRY(t710_delimiters_are_required)
    TEST_ENTRY(t710_embedded_whitespace_is_forbidden)
    TEST_ENTRY(t710_folded_real_life_bad_in_reply_to)
    TEST_ENTRY(strict_edges)
    TEST_ENTRY(parse_quirks)
    TEST_ENTRY(parse_is_linear_in_blanks)
    TEST_ENTRY(references_order_distinct_self_excluded)
    TEST_ENTRY(references_parent_rules)
    TEST_ENTRY(references_many))
