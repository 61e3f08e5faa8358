/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the structured printers (cli/sprinter-*.c): byte-exact escaping of all 256 byte values,
 * separators, the single trailing newline, text/text0 prefixes, misuse reported without a crash, and whole
 * outputs compared with real notmuch 0.37 output quoted in ../shared/notmuch-compat.md §2.3-2.8.
 * Expected escapes are computed here from the rules, not by calling the printers' own tables. */
#include "test.h"

#include "print/sprinter.h"

#include <stdint.h>
#include <stdlib.h>
#include <talloc.h>

typedef struct sprinter *(*create_fn)(const void *ctx, FILE *stream);

/* An in-memory stream whose contents end up in a talloc buffer (NUL-terminated, length kept). */
struct capture {
    FILE *f;
    char *buf;
    size_t len;
};

static FILE *capture_open(struct capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    return c->f;
}

static char *capture_close(void *ctx, struct capture *c, size_t *len)
{
    char *copy;

    fclose(c->f);
    copy = talloc_size(ctx, c->len + 1);
    memcpy(copy, c->buf, c->len);
    copy[c->len] = '\0';
    *len = c->len;
    free(c->buf);
    return copy;
}

/* Replays a compact description of a structure into a printer, so one description feeds every back end.
 * Tokens: "{" begin_map, "[" begin_list, "}" end, "kNAME" key, "sTEXT" string, "iN" integer,
 * "T"/"F" booleans, "N" null, "/" separator, "pNAME" set_prefix, "p" clear prefix, "0" NULL string. */
static void replay(struct sprinter *sp, const char *const *tok, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        switch (t[0]) {
        case '{': sp->begin_map(sp); break;
        case '[': sp->begin_list(sp); break;
        case '}': sp->end(sp); break;
        case 'k': sp->map_key(sp, t + 1); break;
        case 's': sp->string(sp, t + 1); break;
        case 'i': sp->integer(sp, strtoll(t + 1, NULL, 10)); break;
        case 'T': sp->boolean(sp, true); break;
        case 'F': sp->boolean(sp, false); break;
        case 'N': sp->null(sp); break;
        case '/': sp->separator(sp); break;
        case 'p': sp->set_prefix(sp, t[1] ? t + 1 : NULL); break;
        case '0': sp->string(sp, NULL); break;
        default: TEST__FAIL("bad token '%s'", t);
        }
    }
}

/* Runs tokens through a fresh printer; returns the output (on ctx) and its length. */
static char *render(void *ctx, create_fn create, const char *const *tok, size_t n, size_t *len)
{
    struct capture c;
    struct sprinter *sp;

    ASSERT(capture_open(&c));
    sp = create(ctx, c.f);
    ASSERT(sp);
    replay(sp, tok, n);
    ASSERT(sp->error == NULL);
    talloc_free(sp);
    return capture_close(ctx, &c, len);
}

#define RENDER(ctx, create, tokens, lenp) render(ctx, create, tokens, sizeof tokens / sizeof tokens[0], lenp)

/* Expected JSON form of one byte inside a string (compat §2.1), written out rule by rule. */
static size_t json_expect_byte(unsigned char b, char *out)
{
    static const char hex[] = "0123456789abcdef";

    switch (b) {
    case 0x22: return (size_t) sprintf(out, "\\\"");
    case 0x5c: return (size_t) sprintf(out, "\\\\");
    case 0x08: return (size_t) sprintf(out, "\\b");
    case 0x0c: return (size_t) sprintf(out, "\\f");
    case 0x0a: return (size_t) sprintf(out, "\\n");
    case 0x09: return (size_t) sprintf(out, "\\t");
    default: break;
    }
    if (b < 0x20)
        return (size_t) sprintf(out, "\\u00%c%c", hex[b >> 4], hex[b & 15]);
    out[0] = (char) b;
    return 1;
}

/* Expected sexp form of one byte inside a string. */
static size_t sexp_expect_byte(unsigned char b, char *out)
{
    switch (b) {
    case 0x22: return (size_t) sprintf(out, "\\\"");
    case 0x5c: return (size_t) sprintf(out, "\\\\");
    case 0x0a: return (size_t) sprintf(out, "\\n");
    default: break;
    }
    if (b < 0x20)
        return (size_t) sprintf(out, "\\%c%c%c", '0' + (b >> 6), '0' + ((b >> 3) & 7), '0' + (b & 7));
    out[0] = (char) b;
    return 1;
}

/* Each byte alone as a top-level string (no aggregate, so no newline) must match the expected table. */
static void check_every_byte(create_fn create, size_t (*expect)(unsigned char, char *))
{
    void *ctx = talloc_new(NULL);

    for (int b = 0; b < 256; b++) {
        char byte = (char) b, want[16];
        size_t wantlen, gotlen;
        struct capture c;
        struct sprinter *sp;
        char *got;

        want[0] = '"';
        wantlen = 1 + expect((unsigned char) b, want + 1);
        want[wantlen++] = '"';
        ASSERT(capture_open(&c));
        sp = create(ctx, c.f);
        sp->string_len(sp, &byte, 1);
        ASSERT(sp->error == NULL);
        talloc_free(sp);
        got = capture_close(ctx, &c, &gotlen);
        if (gotlen != wantlen || memcmp(got, want, wantlen) != 0)
            TEST__FAIL("byte 0x%02x: got \"%s\" expected \"%.*s\"", b, got, (int) wantlen, want);
    }
    talloc_free(ctx);
}

/* All 256 bytes in one call, twice over, exercises the run-copying path between escapes. */
static void check_all_bytes_at_once(create_fn create, size_t (*expect)(unsigned char, char *))
{
    void *ctx = talloc_new(NULL);
    char in[512], want[512 * 8];
    size_t wantlen = 0, gotlen;
    struct capture c;
    struct sprinter *sp;
    char *got;

    for (int i = 0; i < 512; i++)
        in[i] = (char) (i & 0xff);
    want[wantlen++] = '[';
    want[wantlen++] = '"';
    for (int i = 0; i < 512; i++)
        wantlen += expect((unsigned char) in[i], want + wantlen);
    memcpy(want + wantlen, "\"]\n", 3);
    wantlen += 3;
    ASSERT(capture_open(&c));
    sp = create(ctx, c.f);
    sp->begin_list(sp);
    sp->string_len(sp, in, sizeof in);
    sp->end(sp);
    ASSERT(sp->error == NULL);
    got = capture_close(ctx, &c, &gotlen);
    if (create == sprinter_sexp_create) /* the sexp list opens with '(' */
        want[0] = '(', want[wantlen - 2] = ')';
    ASSERT_MEM_EQ(got, gotlen, want, wantlen);
    talloc_free(ctx);
}

TEST(json_every_byte)
{
    check_every_byte(sprinter_json_create, json_expect_byte);
}

TEST(sexp_every_byte)
{
    check_every_byte(sprinter_sexp_create, sexp_expect_byte);
}

TEST(json_all_bytes_in_one_string)
{
    check_all_bytes_at_once(sprinter_json_create, json_expect_byte);
}

TEST(sexp_all_bytes_in_one_string)
{
    check_all_bytes_at_once(sprinter_sexp_create, sexp_expect_byte);
}

TEST(escape_spot_checks)
{
    /* A few forms quoted literally from compat §2.1, in case both tables above shared a mistake. */
    static const char *const tok[] = {"[", "s\t\r\x01\x1f\x7f\xe9\xff\"\\\n", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, tok, &len), "[\"\\t\\u000d\\u0001\\u001f\x7f\xe9\xff\\\"\\\\\\n\"]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tok, &len), "(\"\\011\\015\\001\\037\x7f\xe9\xff\\\"\\\\\\n\")\n");
    talloc_free(ctx);
}

TEST(null_strings)
{
    static const char *const tok[] = {"[", "0", "s", "}"};
    void *ctx = talloc_new(NULL);
    struct capture c;
    struct sprinter *sp;
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, tok, &len), "[\"\", \"\"]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tok, &len), "(\"\" \"\")\n");
    /* string_len with a NULL pointer prints "" rather than reading through it. */
    ASSERT(capture_open(&c));
    sp = sprinter_json_create(ctx, c.f);
    sp->string_len(sp, NULL, 5);
    ASSERT_STR_EQ(capture_close(ctx, &c, &len), "\"\"");
    ASSERT(capture_open(&c));
    sp = sprinter_sexp_create(ctx, c.f);
    sp->string_len(sp, NULL, 5);
    ASSERT_STR_EQ(capture_close(ctx, &c, &len), "\"\"");
    /* A NULL JSON key is the empty string too (sexp refuses it: sexp_other_bad_keys). */
    ASSERT(capture_open(&c));
    sp = sprinter_json_create(ctx, c.f);
    sp->begin_map(sp);
    sp->map_key(sp, NULL);
    sp->integer(sp, 1);
    sp->end(sp);
    ASSERT(sp->error == NULL);
    ASSERT_STR_EQ(capture_close(ctx, &c, &len), "{\"\": 1}\n");
    talloc_free(ctx);
}

TEST(nested_separators)
{
    static const char *const tok[] = {"{", "ka", "[", "i1", "{", "kb", "N", "kc", "sx", "}", "[", "}", "}",
                                      "kd", "{", "}", "ke", "T", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, tok, &len),
                  "{\"a\": [1, {\"b\": null, \"c\": \"x\"}, []], \"d\": {}, \"e\": true}\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tok, &len), "(:a (1 (:b nil :c \"x\") ()) :d () :e t)\n");
    talloc_free(ctx);
}

TEST(empty_aggregates)
{
    static const char *const map[] = {"{", "}"};
    static const char *const list[] = {"[", "}"};
    static const char *const both[] = {"[", "[", "}", "{", "}", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, map, &len), "{}\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, list, &len), "[]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, both, &len), "[[], {}]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, map, &len), "()\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, list, &len), "()\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, both, &len), "(() ())\n");
    talloc_free(ctx);
}

TEST(booleans_and_null)
{
    static const char *const tok[] = {"[", "T", "F", "N", "{", "kx", "F", "ky", "N", "}", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, tok, &len), "[true, false, null, {\"x\": false, \"y\": null}]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tok, &len), "(t nil nil (:x nil :y nil))\n");
    talloc_free(ctx);
}

TEST(integers)
{
    void *ctx = talloc_new(NULL);
    const int64_t values[] = {0, -1, 1704112200, INT64_MAX, INT64_MIN};
    const create_fn creates[] = {sprinter_json_create, sprinter_sexp_create};
    const char *const expected[] = {
        "[0, -1, 1704112200, 9223372036854775807, -9223372036854775808]\n",
        "(0 -1 1704112200 9223372036854775807 -9223372036854775808)\n",
    };

    for (size_t k = 0; k < 2; k++) {
        struct capture c;
        struct sprinter *sp;
        size_t len;

        ASSERT(capture_open(&c));
        sp = creates[k](ctx, c.f);
        sp->begin_list(sp);
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
            sp->integer(sp, values[i]);
        sp->end(sp);
        ASSERT_STR_EQ(capture_close(ctx, &c, &len), expected[k]);
    }
    talloc_free(ctx);
}

TEST(trailing_newline_once)
{
    /* Only the close that returns to depth 0 prints "\n"; a bare top-level scalar prints none; a second
     * top-level aggregate gets its own. */
    static const char *const deep[] = {"[", "[", "[", "}", "}", "}"};
    static const char *const two[] = {"{", "}", "[", "i1", "}"};
    static const char *const scalar[] = {"sx"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, deep, &len), "[[[]]]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, deep, &len), "((()))\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, two, &len), "{}\n[1]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, two, &len), "()\n(1)\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, scalar, &len), "\"x\"");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, scalar, &len), "\"x\"");
    talloc_free(ctx);
}

TEST(separator_between_results)
{
    /* search: separator() after each result; the pending separator replaces the next ", " / " " only, and
     * survives a first element (notmuch's behaviour: it is consumed by the next value that follows another). */
    static const char *const maps[] = {"[", "{", "ka", "i1", "}", "/", "{", "ka", "i2", "kb", "[", "i3", "i4",
                                       "}", "}", "/", "}"};
    static const char *const early[] = {"[", "/", "sa", "sb", "sc", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, maps, &len), "[{\"a\": 1},\n{\"a\": 2, \"b\": [3, 4]}]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, maps, &len), "((:a 1)\n(:a 2 :b (3 4)))\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, early, &len), "[\"a\",\n\"b\", \"c\"]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, early, &len), "(\"a\"\n\"b\" \"c\")\n");
    talloc_free(ctx);
}

TEST(text_prefixes)
{
    static const char *const tok[] = {"[", "pthread", "s0000000000000001", "/", "s0000000000000002", "/", "p",
                                      "i42", "/", "T", "F", "N", "{", "kkey", "}", "/", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;
    char *out = RENDER(ctx, sprinter_text_create, tok, &len);

    ASSERT_STR_EQ(out, "thread:0000000000000001\nthread:0000000000000002\n42\ntruefalse\n");
    talloc_free(ctx);
}

TEST(text_integer_has_no_prefix)
{
    /* As in notmuch: the prefix decorates strings only. */
    static const char *const tok[] = {"pid", "i7", "/", "smsg1@example.org", "/"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_text_create, tok, &len), "7\nid:msg1@example.org\n");
    talloc_free(ctx);
}

TEST(text0_nul_terminates)
{
    static const char *const tok[] = {"[", "pid", "smsg3@example.net", "/", "smsg2@example.com", "/", "}"};
    static const char want[] = "id:msg3@example.net\0id:msg2@example.com\0";
    void *ctx = talloc_new(NULL);
    size_t len;
    char *out = RENDER(ctx, sprinter_text0_create, tok, &len);

    ASSERT_MEM_EQ(out, len, want, sizeof want - 1);
    talloc_free(ctx);
}

TEST(text_raw_bytes_and_prefix_copy)
{
    /* Text prints bytes untouched, NULs included, and keeps its own copy of the prefix. */
    void *ctx = talloc_new(NULL);
    struct capture c;
    struct sprinter *sp;
    char *prefix = talloc_strdup(ctx, "id");
    size_t len;
    char *out;

    ASSERT(capture_open(&c));
    sp = sprinter_text_create(ctx, c.f);
    ASSERT(sp->is_text_printer);
    sp->set_prefix(sp, prefix);
    talloc_free(prefix);
    sp->string_len(sp, "a\0\"\\\n\xff", 6);
    sp->separator(sp);
    out = capture_close(ctx, &c, &len);
    ASSERT_MEM_EQ(out, len, "id:a\0\"\\\n\xff\n", 10);
    talloc_free(ctx);
}

TEST(sexp_bad_plist_key)
{
    void *ctx = talloc_new(NULL);
    struct capture c;
    struct sprinter *sp;
    size_t len;
    char *out;

    ASSERT(capture_open(&c));
    sp = sprinter_sexp_create(ctx, c.f);
    ASSERT(!sp->is_text_printer);
    sp->begin_map(sp);
    sp->map_key(sp, "good_key-2");
    sp->integer(sp, 1);
    ASSERT(sp->error == NULL);
    sp->map_key(sp, "X-Bad Key");
    ASSERT(sp->error != NULL);
    ASSERT(strstr(sp->error, "internal error") != NULL);
    ASSERT(strstr(sp->error, "0x20") != NULL);
    /* Nothing more is printed, and misuse after the failure changes nothing. */
    sp->string(sp, "v");
    sp->end(sp);
    sp->end(sp);
    out = capture_close(ctx, &c, &len);
    ASSERT_STR_EQ(out, "(:good_key-2 1");
    talloc_free(ctx);
}

TEST(sexp_other_bad_keys)
{
    const char *const keys[] = {NULL, "a:b", "caf\xc3\xa9", "tab\there", "x.y"};
    void *ctx = talloc_new(NULL);

    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        struct capture c;
        struct sprinter *sp;
        size_t len;

        ASSERT(capture_open(&c));
        sp = sprinter_sexp_create(ctx, c.f);
        sp->begin_map(sp);
        sp->map_key(sp, keys[i]);
        ASSERT(sp->error != NULL);
        ASSERT_STR_EQ(capture_close(ctx, &c, &len), "(");
    }
    talloc_free(ctx);
}

TEST(json_accepts_any_key)
{
    static const char *const tok[] = {"{", "kX-Bad Key\t\"", "i1", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, tok, &len), "{\"X-Bad Key\\t\\\"\": 1}\n");
    talloc_free(ctx);
}

TEST(misuse_is_reported_not_fatal)
{
    /* end() with nothing open and map_key outside a map would dereference NULL in notmuch. */
    const create_fn creates[] = {sprinter_json_create, sprinter_sexp_create};
    void *ctx = talloc_new(NULL);

    for (size_t k = 0; k < 2; k++) {
        struct capture c;
        struct sprinter *sp;
        size_t len;

        ASSERT(capture_open(&c));
        sp = creates[k](ctx, c.f);
        sp->end(sp);
        ASSERT(sp->error != NULL);
        sp->begin_list(sp);
        ASSERT_STR_EQ(capture_close(ctx, &c, &len), "");

        ASSERT(capture_open(&c));
        sp = creates[k](ctx, c.f);
        sp->begin_list(sp);
        sp->map_key(sp, "a");
        ASSERT(sp->error != NULL);
        ASSERT_STR_EQ(capture_close(ctx, &c, &len), k == 0 ? "[" : "(");
    }
    talloc_free(ctx);
}

TEST(separator_inside_a_map_entry)
{
    /* A separator between a key and its value: JSON keeps it for the next entry (key and value are one
     * member), sexp spends it on the value (a plist's key is an element of its own). */
    static const char *const tok[] = {"[", "{", "ka", "/", "i1", "kb", "i2", "}", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, tok, &len), "[{\"a\": 1,\n\"b\": 2}]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tok, &len), "((:a\n1 :b 2))\n");
    talloc_free(ctx);
}

TEST(misuse_messages)
{
    /* The words of each internal error, per back end, as callers print them. */
    const create_fn creates[] = {sprinter_json_create, sprinter_sexp_create};
    const char *const end_msg[] = {
        "internal error: end() with no open map or list in the JSON printer",
        "internal error: end() with no open map or list in the sexp printer",
    };
    const char *const key_msg[] = {
        "internal error: map key outside a map in the JSON printer",
        "internal error: plist key outside a map in the sexp printer",
    };
    void *ctx = talloc_new(NULL);

    for (size_t k = 0; k < 2; k++) {
        struct sprinter *sp = creates[k](ctx, stdout);

        sp->end(sp);
        ASSERT_STR_EQ(sp->error, end_msg[k]);
        sp = creates[k](ctx, stdout);
        sp->map_key(sp, "a");
        ASSERT_STR_EQ(sp->error, key_msg[k]);
    }
    talloc_free(ctx);
}

TEST(sexp_bad_key_messages)
{
    void *ctx = talloc_new(NULL);
    FILE *devnull = fopen("/dev/null", "w");
    struct sprinter *sp;

    ASSERT(devnull);
    sp = sprinter_sexp_create(ctx, devnull);
    sp->begin_map(sp);
    sp->map_key(sp, NULL);
    ASSERT_STR_EQ(sp->error, "internal error: NULL plist key in the sexp printer");
    sp = sprinter_sexp_create(ctx, devnull);
    sp->begin_map(sp);
    sp->map_key(sp, "ok-\x01");
    ASSERT_STR_EQ(sp->error, "internal error: illegal byte 0x01 in plist key after 'ok-' in the sexp printer");
    fclose(devnull);
    talloc_free(ctx);
}

TEST(deep_nesting)
{
    /* Deeper than the initial stack, so it must grow. */
    const create_fn creates[] = {sprinter_json_create, sprinter_sexp_create};
    const char opens[] = "[(", closes[] = "])";
    void *ctx = talloc_new(NULL);

    for (size_t k = 0; k < 2; k++) {
        char want[2 * 1000 + 2];
        struct capture c;
        struct sprinter *sp;
        size_t len;

        ASSERT(capture_open(&c));
        sp = creates[k](ctx, c.f);
        for (int i = 0; i < 1000; i++)
            sp->begin_list(sp);
        for (int i = 0; i < 1000; i++)
            sp->end(sp);
        ASSERT(sp->error == NULL);
        memset(want, opens[k], 1000);
        memset(want + 1000, closes[k], 1000);
        memcpy(want + 2000, "\n", 2);
        ASSERT_STR_EQ(capture_close(ctx, &c, &len), want);
    }
    talloc_free(ctx);
}

/* compat §2.3: one thread summary, as search prints it (separator after each result). */
static const char *const summary_newest[] = {
    "[", "{", "kthread", "s0000000000000001", "ktimestamp", "i1704112200", "kdate_relative", "s2024-01-01",
    "kmatched", "i3", "ktotal", "i3", "kauthors", "sAlice Example, Bob, Carol", "ksubject", "sLunch plans",
    "kquery", "[", "sid:msg1@example.org id:msg2@example.com id:msg3@example.net", "N", "}",
    "ktags", "[", "sattachment", "sinbox", "sunread", "}", "}", "/", "}",
};

TEST(compat_search_summary_json)
{
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, summary_newest, &len),
                  "[{\"thread\": \"0000000000000001\", \"timestamp\": 1704112200, \"date_relative\": \"2024-01-01\", "
                  "\"matched\": 3, \"total\": 3, \"authors\": \"Alice Example, Bob, Carol\", \"subject\": \"Lunch "
                  "plans\", \"query\": [\"id:msg1@example.org id:msg2@example.com id:msg3@example.net\", null], "
                  "\"tags\": [\"attachment\", \"inbox\", \"unread\"]}]\n");
    talloc_free(ctx);
}

TEST(compat_search_summary_sexp)
{
    static const char *const oldest[] = {
        "[", "{", "kthread", "s0000000000000001", "ktimestamp", "i1704103200", "kdate_relative", "s2024-01-01",
        "kmatched", "i3", "ktotal", "i3", "kauthors", "sAlice Example, Bob, Carol", "ksubject", "sLunch plans",
        "kquery", "[", "sid:msg1@example.org id:msg2@example.com id:msg3@example.net", "N", "}",
        "ktags", "[", "sattachment", "sinbox", "sunread", "}", "}", "/", "}",
    };
    static const char *const carol[] = {
        "[", "{", "kthread", "s0000000000000001", "ktimestamp", "i1704112200", "kdate_relative", "s2024-01-01",
        "kmatched", "i1", "ktotal", "i3", "kauthors", "sCarol| Alice Example, Bob", "ksubject", "sLunch plans",
        "kquery", "[", "sid:msg3@example.net", "sid:msg1@example.org id:msg2@example.com", "}",
        "ktags", "[", "sattachment", "sinbox", "sunread", "}", "}", "/", "}",
    };
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, oldest, &len),
                  "((:thread \"0000000000000001\" :timestamp 1704103200 :date_relative \"2024-01-01\" :matched 3 "
                  ":total 3 :authors \"Alice Example, Bob, Carol\" :subject \"Lunch plans\" :query "
                  "(\"id:msg1@example.org id:msg2@example.com id:msg3@example.net\" nil) :tags (\"attachment\" "
                  "\"inbox\" \"unread\")))\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, carol, &len),
                  "((:thread \"0000000000000001\" :timestamp 1704112200 :date_relative \"2024-01-01\" :matched 1 "
                  ":total 3 :authors \"Carol| Alice Example, Bob\" :subject \"Lunch plans\" :query "
                  "(\"id:msg3@example.net\" \"id:msg1@example.org id:msg2@example.com\") :tags (\"attachment\" "
                  "\"inbox\" \"unread\")))\n");
    talloc_free(ctx);
}

TEST(compat_search_outputs)
{
    /* compat §2.4, structured and text forms. */
    static const char *const threads[] = {"[", "pthread", "s0000000000000001", "/", "}"};
    static const char *const messages[] = {"[", "pid", "smsg3@example.net", "/", "smsg2@example.com", "/",
                                           "smsg1@example.org", "/", "}"};
    static const char *const files[] = {"[", "s/home/user/mail/new/3", "/", "s/home/user/mail/cur/2:2,", "/",
                                        "s/home/user/mail/cur/1:2,S", "/", "}"};
    static const char *const tags[] = {"[", "sattachment", "/", "sinbox", "/", "sunread", "/", "}"};
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, threads, &len), "(\"0000000000000001\")\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_json_create, messages, &len),
                  "[\"msg3@example.net\",\n\"msg2@example.com\",\n\"msg1@example.org\"]\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, files, &len),
                  "(\"/home/user/mail/new/3\"\n\"/home/user/mail/cur/2:2,\"\n\"/home/user/mail/cur/1:2,S\")\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tags, &len), "(\"attachment\"\n\"inbox\"\n\"unread\")\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_text_create, threads, &len), "thread:0000000000000001\n");
    ASSERT_STR_EQ(RENDER(ctx, sprinter_text_create, messages, &len),
                  "id:msg3@example.net\nid:msg2@example.com\nid:msg1@example.org\n");
    talloc_free(ctx);
}

TEST(compat_address_sexp)
{
    /* compat §2.8. */
    static const char *const tok[] = {
        "[",
        "{", "kname", "sBob", "kaddress", "sbob@example.com", "kname-addr", "sBob <bob@example.com>", "}", "/",
        "{", "kname", "sCarol", "kaddress", "scarol@example.net", "kname-addr", "sCarol <carol@example.net>", "}",
        "/",
        "{", "kname", "sAlice Example", "kaddress", "salice@example.org", "kname-addr",
        "sAlice Example <alice@example.org>", "}", "/",
        "}",
    };
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, tok, &len),
                  "((:name \"Bob\" :address \"bob@example.com\" :name-addr \"Bob <bob@example.com>\")\n"
                  "(:name \"Carol\" :address \"carol@example.net\" :name-addr \"Carol <carol@example.net>\")\n"
                  "(:name \"Alice Example\" :address \"alice@example.org\" :name-addr \"Alice Example "
                  "<alice@example.org>\"))\n");
    talloc_free(ctx);
}

/* compat §2.5: the whole 3-message thread as show prints it (one line). */
static const char *const show_thread[] = {
    "[", "[",
    "[", "{", "kid", "smsg1@example.org", "kmatch", "T", "kexcluded", "F", "kfilename", "[",
    "s/home/user/mail/cur/1:2,S", "}", "ktimestamp", "i1704103200", "kdate_relative", "s2024-01-01", "ktags", "[",
    "sinbox", "}", "kduplicate", "i1", "kbody", "[", "{", "kid", "i1", "kcontent-type", "stext/plain", "kcontent",
    "sShall we have lunch? Caf\xc3\xa9 at noon.\n", "}", "}", "kcrypto", "{", "}", "kheaders", "{", "kSubject",
    "sLunch plans", "kFrom", "sAlice Example <alice@example.org>", "kTo", "sBob <bob@example.com>", "kDate",
    "sMon, 01 Jan 2024 10:00:00 +0000", "}", "}",
    "[",
    "[", "{", "kid", "smsg2@example.com", "kmatch", "T", "kexcluded", "F", "kfilename", "[",
    "s/home/user/mail/cur/2:2,", "}", "ktimestamp", "i1704106800", "kdate_relative", "s2024-01-01", "ktags", "[",
    "sinbox", "sunread", "}", "kduplicate", "i1", "kbody", "[", "{", "kid", "i1", "kcontent-type",
    "smultipart/alternative", "kcontent", "[", "{", "kid", "i2", "kcontent-type", "stext/plain", "kcontent",
    "sSure, \"noon\" works.", "}", "{", "kid", "i3", "kcontent-type", "stext/html", "kcontent-charset", "sutf-8",
    "kcontent-length", "i31", "}", "}", "}", "}", "kcrypto", "{", "}", "kheaders", "{", "kSubject",
    "sRe: Lunch plans", "kFrom", "sBob <bob@example.com>", "kTo", "sAlice Example <alice@example.org>", "kCc",
    "s\"Carol, C.\" <carol@example.net>", "kDate", "sMon, 01 Jan 2024 11:00:00 +0000", "}", "}",
    "[",
    "[", "{", "kid", "smsg3@example.net", "kmatch", "T", "kexcluded", "F", "kfilename", "[",
    "s/home/user/mail/new/3", "}", "ktimestamp", "i1704112200", "kdate_relative", "s2024-01-01", "ktags", "[",
    "sattachment", "sinbox", "sunread", "}", "kduplicate", "i1", "kbody", "[", "{", "kid", "i1", "kcontent-type",
    "smultipart/mixed", "kcontent", "[", "{", "kid", "i2", "kcontent-type", "stext/plain", "kcontent",
    "sMenu attached.", "}", "{", "kid", "i3", "kcontent-type", "sapplication/pdf", "kcontent-disposition",
    "sattachment", "kfilename", "smenu.pdf", "kcontent-transfer-encoding", "sbase64", "kcontent-length", "i72", "}",
    "}", "}", "}", "kcrypto", "{", "}", "kheaders", "{", "kSubject", "sRe: Lunch plans", "kFrom",
    "sCarol <carol@example.net>", "kTo", "sBob <bob@example.com>, Alice Example <alice@example.org>", "kDate",
    "sMon, 01 Jan 2024 12:30:00 +0000", "}", "}",
    "[", "}",
    "}", "}", "}", "}", "}", "}", "}",
};

TEST(compat_show_sexp)
{
    /* The doc wraps the one-line output at message boundaries with "\n "; the real line has " " there. */
    static const char want[] =
        "((((:id \"msg1@example.org\" :match t :excluded nil :filename (\"/home/user/mail/cur/1:2,S\") :timestamp "
        "1704103200 :date_relative \"2024-01-01\" :tags (\"inbox\") :duplicate 1 :body ((:id 1 :content-type "
        "\"text/plain\" :content \"Shall we have lunch? Caf\xc3\xa9 at noon.\\n\")) :crypto () :headers (:Subject "
        "\"Lunch plans\" :From \"Alice Example <alice@example.org>\" :To \"Bob <bob@example.com>\" :Date \"Mon, 01 "
        "Jan 2024 10:00:00 +0000\"))"
        " (((:id \"msg2@example.com\" :match t :excluded nil :filename (\"/home/user/mail/cur/2:2,\") :timestamp "
        "1704106800 :date_relative \"2024-01-01\" :tags (\"inbox\" \"unread\") :duplicate 1 :body ((:id 1 "
        ":content-type \"multipart/alternative\" :content ((:id 2 :content-type \"text/plain\" :content \"Sure, "
        "\\\"noon\\\" works.\") (:id 3 :content-type \"text/html\" :content-charset \"utf-8\" :content-length 31)))) "
        ":crypto () :headers (:Subject \"Re: Lunch plans\" :From \"Bob <bob@example.com>\" :To \"Alice Example "
        "<alice@example.org>\" :Cc \"\\\"Carol, C.\\\" <carol@example.net>\" :Date \"Mon, 01 Jan 2024 11:00:00 "
        "+0000\"))"
        " (((:id \"msg3@example.net\" :match t :excluded nil :filename (\"/home/user/mail/new/3\") :timestamp "
        "1704112200 :date_relative \"2024-01-01\" :tags (\"attachment\" \"inbox\" \"unread\") :duplicate 1 :body "
        "((:id 1 :content-type \"multipart/mixed\" :content ((:id 2 :content-type \"text/plain\" :content \"Menu "
        "attached.\") (:id 3 :content-type \"application/pdf\" :content-disposition \"attachment\" :filename "
        "\"menu.pdf\" :content-transfer-encoding \"base64\" :content-length 72)))) :crypto () :headers (:Subject "
        "\"Re: Lunch plans\" :From \"Carol <carol@example.net>\" :To \"Bob <bob@example.com>, Alice Example "
        "<alice@example.org>\" :Date \"Mon, 01 Jan 2024 12:30:00 +0000\"))"
        " ())))))))\n";
    void *ctx = talloc_new(NULL);
    size_t len;

    ASSERT_STR_EQ(RENDER(ctx, sprinter_sexp_create, show_thread, &len), want);
    talloc_free(ctx);
}

TEST(compat_show_json_ends)
{
    /* The doc quotes only the JSON's start and end. */
    static const char head[] = "[[[{\"id\": \"msg1@example.org\", \"match\": true, \"excluded\": false, "
                               "\"filename\": [\"/home/user/mail/cur/1:2,S\"], ";
    static const char tail[] = "\"Date\": \"Mon, 01 Jan 2024 12:30:00 +0000\"}}, []]]]]]]]\n";
    void *ctx = talloc_new(NULL);
    size_t len;
    char *out = RENDER(ctx, sprinter_json_create, show_thread, &len);

    ASSERT(len > sizeof head + sizeof tail);
    ASSERT_MEM_EQ(out, sizeof head - 1, head, sizeof head - 1);
    ASSERT_STR_EQ(out + len - (sizeof tail - 1), tail);
    ASSERT(strchr(out, '\n') == out + len - 1);
    talloc_free(ctx);
}

TEST_MAIN(
    TEST_ENTRY(json_every_byte)
    TEST_ENTRY(sexp_every_byte)
    TEST_ENTRY(json_all_bytes_in_one_string)
    TEST_ENTRY(sexp_all_bytes_in_one_string)
    TEST_ENTRY(escape_spot_checks)
    TEST_ENTRY(null_strings)
    TEST_ENTRY(nested_separators)
    TEST_ENTRY(empty_aggregates)
    TEST_ENTRY(booleans_and_null)
    TEST_ENTRY(integers)
    TEST_ENTRY(trailing_newline_once)
    TEST_ENTRY(separator_between_results)
    TEST_ENTRY(text_prefixes)
    TEST_ENTRY(text_integer_has_no_prefix)
    TEST_ENTRY(text0_nul_terminates)
    TEST_ENTRY(text_raw_bytes_and_prefix_copy)
    TEST_ENTRY(sexp_bad_plist_key)
    TEST_ENTRY(sexp_other_bad_keys)
    TEST_ENTRY(json_accepts_any_key)
    TEST_ENTRY(misuse_is_reported_not_fatal)
    TEST_ENTRY(separator_inside_a_map_entry)
    TEST_ENTRY(misuse_messages)
    TEST_ENTRY(sexp_bad_key_messages)
    TEST_ENTRY(deep_nesting)
    TEST_ENTRY(compat_search_summary_json)
    TEST_ENTRY(compat_search_summary_sexp)
    TEST_ENTRY(compat_search_outputs)
    TEST_ENTRY(compat_address_sexp)
    TEST_ENTRY(compat_show_sexp)
    TEST_ENTRY(compat_show_json_ends)
)
