/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for notmuch's S-expression query syntax: the reader (lib/query/sexp-read.c) on sfsexp's rules,
 * and the conversion (lib/query/sexp.c) into the tree the infix parser makes, checked through its
 * S-expression rendering (maildex__qnode_to_string): every field, and/or/not, starts-with, regex,
 * of/matching, infix, named and saved queries, macros, ranges, notmuch's error messages, and hostile
 * input (deep nesting, unbalanced parentheses, huge atoms, macros that expand without end) that must not
 * crash, exhaust the stack or take more than linear time. */
#include "query/ast.h"
#include "query/sexp-read.h"
#include "test.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* ---- the reader ------------------------------------------------------------------------------------ */

static void render_sx(GString *b, const struct maildex__sx *sx)
{
    static const char *const quotes[] = {"b:", "d:", "s:"};

    for (bool first = true; sx; sx = sx->next, first = false) {
        if (!first)
            g_string_append_c(b, ' ');
        if (sx->kind == MAILDEX__SX_ATOM) {
            g_string_append_printf(b, "%s[%s]", quotes[sx->quote], sx->value);
        } else {
            g_string_append_c(b, '(');
            render_sx(b, sx->list);
            g_string_append_c(b, ')');
        }
    }
}

/* The expression read from text, rendered (atoms as b:[basic] d:[dquoted] s:[squoted]), or "BAD". */
static char *read_to_string(void *ctx, const char *text)
{
    struct maildex__sx *sx = (struct maildex__sx *) 1;
    enum maildex__sx_status st = maildex__sx_read(ctx, text, strlen(text), &sx);
    GString *b = g_string_new(NULL);
    char *out;

    if (st == MAILDEX__SX_OK && sx && sx->next == NULL) {
        render_sx(b, sx);
    } else {
        g_string_append(b, st == MAILDEX__SX_BAD && sx == NULL ? "BAD" : "bad status");
    }
    out = talloc_strdup(ctx, b->str);
    g_string_free(b, TRUE);
    return out;
}

struct rcase {
    const char *text;
    const char *want;
};

static void check_reads(const struct rcase *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *ctx = talloc_new(NULL);
        char *got = talloc_asprintf(ctx, "%s => %s", cases[i].text, read_to_string(ctx, cases[i].text));
        char *want = talloc_asprintf(ctx, "%s => %s", cases[i].text, cases[i].want);

        ASSERT_STR_EQ(got, want);
        talloc_free(ctx);
    }
}

/* Each of these was checked against notmuch 0.37 (sfsexp 1.3) with NOTMUCH_DEBUG_QUERY. */
TEST(reader)
{
    static const struct rcase cases[] = {
        {"wizard", "b:[wizard]"},
        {"  wizard  ", "b:[wizard]"},
        {"()", "()"},
        {"( )", "()"},
        {"(tag inbox)", "(b:[tag] b:[inbox])"},
        {"(tag\nx)", "(b:[tag] b:[x])"},
        {"(tag\tx)", "(b:[tag] b:[x])"},
        {"(a (b (c)) d)", "(b:[a] (b:[b] (b:[c])) b:[d])"},
        /* only the first expression counts, whatever follows */
        {"(and a) (or b)", "(b:[and] b:[a])"},
        {"a b", "b:[a]"},
        {"(tag x))", "(b:[tag] b:[x])"},
        {"(tag x)garbage", "(b:[tag] b:[x])"},
        /* strings, and the escapes sfsexp resolves */
        {"\"arriv\"", "d:[arriv]"},
        {"(tag \"a\\\"b\")", "(b:[tag] d:[a\"b])"},
        {"(tag \"a\\\\b\")", "(b:[tag] d:[a\\b])"},
        {"(tag \"a\\nb\")", "(b:[tag] d:[a\\nb])"},
        {"(tag \"a\nb\")", "(b:[tag] d:[a\nb])"},
        {"(tag \")\")", "(b:[tag] d:[)])"},
        {"(tag \"\")", "(b:[tag] d:[])"},
        {"(tag a\\\"b)", "(b:[tag] b:[a\"b])"},
        {"(tag a\\(b)", "(b:[tag] b:[a(b])"},
        {"(tag a\\ b)", "(b:[tag] b:[a\\] b:[b])"},
        /* a quote, a parenthesis or a control character ends an atom */
        {"(subject a\"b\")", "(b:[subject] b:[a] d:[b])"},
        {"(tag a(b))", "(b:[tag] b:[a] (b:[b]))"},
        {"(tag a'b)", "(b:[tag] b:[a] s:[b])"},
        {"(tag a\x01" "b)", "(b:[tag] b:[a] b:[\x01" "b])"},
        {"(subject |a b|)", "(b:[subject] b:[|a] b:[b|])"},
        {"(subject a;b)", "(b:[subject] b:[a;b])"},
        {"(subject #t)", "(b:[subject] b:[#t])"},
        {"(tag #(a))", "(b:[tag] b:[#] (b:[a]))"},
        /* the quote */
        {"(tag 'inbox)", "(b:[tag] s:[inbox])"},
        {"(tag 'a'b)", "(b:[tag] s:[a] s:[b])"},
        {"(tag '\"x y\")", "(b:[tag] s:[\"x y\"])"},
        {"(tag '(a b))", "(b:[tag] s:[(a b)])"},
        {"(tag '(a \")\" (b)))", "(b:[tag] s:[(a \")\" (b))])"},
        {"'(tag x)", "s:[(tag x)]"},
        {"'", "s:[]"},
        {"' x", "s:[]"},
        /* comments */
        {"; note\n(tag x)", "(b:[tag] b:[x])"},
        {"(tag ; note\n x)", "(b:[tag] b:[x])"},
        /* no complete expression */
        {"", "BAD"},
        {"   ", "BAD"},
        {"; only a comment", "BAD"},
        {"(", "BAD"},
        {")", "BAD"},
        {")(", "BAD"},
        {"(tag x", "BAD"},
        {"(tag \"x", "BAD"},
        {"(tag \")\"", "BAD"},
        {"\"open", "BAD"},
        {"(tag '(a b)", "BAD"},
        {"(tag '", "BAD"},
    };

    check_reads(cases, sizeof cases / sizeof cases[0]);
}

/* ---- the conversion ---------------------------------------------------------------------------------- */

static const char *lookup(void *data, const char *name)
{
    (void) data;
    if (strcmp(name, "test") == 0)
        return "date:2009-11-18..2009-11-18 and tag:unread";
    if (strcmp(name, "loop") == 0)
        return "query:loop";
    return NULL;
}

/* Saved queries; "Deep" calls itself, "Twice" doubles its argument (2^n elements for n calls). */
static const char *squery(void *data, const char *name)
{
    static const struct {
        const char *name, *text;
    } saved[] = {
        {"TagSubject", "(and (tag inbox) (subject maildir))"},
        {"TagSubject0", "(macro () (and (tag inbox) (subject maildir)))"},
        {"TagSubject2", "(macro (tagname subj) (and (tag ,tagname) (subject ,subj)))"},
        {"ThingSubject", "(macro (thing) (and ,thing (subject maildir)))"},
        {"Inner", "(macro (x) (subject ,x))"},
        {"Outer", "(macro (x y) (and (tag ,x) (Inner ,y)))"},
        {"Inner2", "(macro (x) (subject ,y))"},
        {"Outer2", "(macro (x y) (and (tag ,x) (Inner2 ,y)))"},
        {"D", "(macro (tagname) (and (date 2009-11-17) (tag (rx ,tagname))))"},
        {"W", "(macro (tagname) (and (date 2009-11-17) (tag (starts-with ,tagname))))"},
        {"Rx", "(macro (thing) (tag (rx ,thing)))"},
        {"Bad", "(Bad"},
        {"Bad2", "((and) (tag inbox) (subject maildir))"},
        {"Bad3", "(macro a b)"},
        {"Bad4", "(macro ((a b)) a)"},
        {"Bad5", "(macro (a b) a)"},
        {"NoBody", "(macro (a b))"},
        {"Quoted", "(macro (\"a\") a)"},
        {"Atom", "wizard"},
        {"Empty", ""},
        {"Deep", "(and (tag x) (Deep))"},
        {"Ping", "(Pong)"},
        {"Pong", "(Ping)"},
        {"Twice", "(macro (x) (or ,x ,x))"},
    };

    (void) data;
    for (size_t i = 0; i < sizeof saved / sizeof saved[0]; i++)
        if (strcmp(saved[i].name, name) == 0)
            return saved[i].text;
    return NULL;
}

static const struct maildex__query_options options = {.lookup = lookup, .squery = squery};

static char *parse_to_string(void *ctx, const char *query)
{
    struct maildex__qnode *n = (struct maildex__qnode *) 1;
    char *error = (char *) 1;
    int rc = maildex__query_parse_sexp(ctx, query, &options, &n, &error);

    if (rc == MAILDEX__QUERY_OK)
        return error == NULL && n ? maildex__qnode_to_string(ctx, n) : talloc_strdup(ctx, "bad ok result");
    if (rc == MAILDEX__QUERY_BAD)
        return n == NULL && error ? talloc_asprintf(ctx, "error: %s", error) : talloc_strdup(ctx, "bad error result");
    return talloc_asprintf(ctx, "rc %d", rc);
}

struct qcase {
    const char *query;
    const char *want; /* the rendered tree, or "error: <message>" */
};

static void check_cases(const struct qcase *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *ctx = talloc_new(NULL);
        char *got = talloc_asprintf(ctx, "%s => %s", cases[i].query, parse_to_string(ctx, cases[i].query));
        char *want = talloc_asprintf(ctx, "%s => %s", cases[i].query, cases[i].want);

        ASSERT_STR_EQ(got, want);
        talloc_free(ctx);
    }
}

#define CHECK_CASES(cases) check_cases(cases, sizeof cases / sizeof cases[0])

TEST(operators)
{
    static const struct qcase cases[] = {
        {"()", "(all)"},
        {"(and)", "(all)"},
        {"(not)", "(all)"},
        {"(or)", "(none)"},
        {"(or ())", "(all)"},
        {"(not ())", "(not (all))"},
        {"(and a b)", "(and (text \"a\") (text \"b\"))"},
        {"(or a b)", "(or (text \"a\") (text \"b\"))"},
        {"(not a b)", "(and (not (text \"a\")) (not (text \"b\")))"},
        {"(and a (and b c))", "(and (text \"a\") (text \"b\") (text \"c\"))"},
        {"(and (or) a)", "(and (none) (text \"a\"))"},
    };

    CHECK_CASES(cases);
}

TEST(terms)
{
    static const struct qcase cases[] = {
        /* a basic word is stemmed in any case; a quoted one is exact; anything else is a phrase */
        {"wizard", "(text \"wizard\")"},
        {"Wizard", "(text \"wizard\")"},
        {"\"arriv\"", "(text \"arriv\" quoted)"},
        {"'arriv", "(text \"arriv\" quoted)"},
        {"\"quick fox\"", "(text \"quick fox\" phrase quoted)"},
        {"quick-fox", "(text \"quick fox\" phrase quoted)"},
        {"quick@fox", "(text \"quick fox\" phrase quoted)"},
        {"\"\"", "(none)"},
        {"\"--\"", "(none)"},
        {"sübjéct", "(text \"sübjéct\")"},
        {"notmuch_mail", "(text \"notmuch_mail\")"},
        /* from: and subject: words are stemmed too */
        {"(subject Maildir)", "(subject \"maildir\" stem)"},
        {"(subject \"Maildir\")", "(subject \"maildir\" quoted)"},
        {"(from \"Search By From Name <test@example.com>\")",
         "(from \"search by from name test example com\" phrase quoted)"},
        {"(subject utf8-sübjéct)", "(subject \"utf8 sübjéct\" phrase quoted)"},
        {"(subject quick \"brown fox\")", "(and (subject \"quick\" stem) (subject \"brown fox\" phrase quoted))"},
        {"(to searchbyto)", "(to \"searchbyto\")"},
        {"(body \"body search phrase\")", "(body \"body search phrase\" phrase quoted)"},
        {"(attachment notmuch-help.patch)", "(attachment \"notmuch help patch\" phrase quoted)"},
        {"(mimetype text html)", "(and (mimetype \"text\") (mimetype \"html\"))"},
        /* boolean fields take atoms as written; folder: and path: lose trailing slashes */
        {"(tag inbox unread)", "(and (tag \"inbox\") (tag \"unread\"))"},
        {"(is Inbox)", "(tag \"Inbox\")"},
        {"(tag \"*\")", "(tag \"*\")"},
        {"(id a@b c@d)", "(or (id \"a@b\") (id \"c@d\"))"},
        {"(mid a@b)", "(id \"a@b\")"},
        {"(thread 0000000000000001)", "(thread \"0000000000000001\")"},
        {"(folder bad bad/news/ things/bad)",
         "(or (folder \"bad\") (folder \"bad/news\") (folder \"things/bad\"))"},
        {"(folder \"\")", "(folder \"\")"},
        {"(path bad/news//)", "(path \"bad/news\")"},
        {"(property foo=bar)", "(property \"foo=bar\")"},
        /* fields combine with and, or (one value per message) as notmuch's table says, and keep
         * their field through operators */
        {"(tag)", "(all)"},
        {"(folder)", "(none)"},
        {"(subject (or utf8 subjectsearchtest))", "(or (subject \"utf8\" stem) (subject \"subjectsearchtest\" stem))"},
        {"(tag (not (starts-with in)))", "(not (tag \"in\" wildcard))"},
    };

    CHECK_CASES(cases);
}

TEST(modifiers)
{
    static const struct qcase cases[] = {
        /* outside a field: the body's words, the only words notmuch indexes without a prefix */
        {"(starts-with prelim)", "(body \"prelim\" wildcard)"},
        {"(starts-with FreeB)", "(body \"freeb\" wildcard)"},
        {"(starts-with \"\")", "(body \"\" wildcard)"},
        {"*", "(body \"\" wildcard)"},
        {"(starts-with a-b)", "(none)"},
        {"(subject (starts-with FreeB))", "(subject \"freeb\" wildcard)"},
        {"(to *)", "(to \"\" wildcard)"},
        {"(not (to *))", "(not (to \"\" wildcard))"},
        {"(tag *)", "(tag \"\" wildcard)"},
        {"(tag (starts-with Searchby))", "(tag \"searchby\" wildcard)"},
        {"(thread (starts-with \"00\"))", "(thread \"00\" wildcard)"},
        {"(folder (starts-with bad))", "(folder \"bad\" wildcard)"},
        {"(property (starts-with foo=))", "(property \"foo=\" wildcard)"},
        {"(id (starts-with 877))", "(id \"877\" wildcard)"},
        {"(from (rx cworth))", "(from \"cworth\" regex)"},
        {"(is (regex ^si))", "(tag \"^si\" regex)"},
        {"(thread (rx 7$))", "(thread \"7$\" regex)"},
        {"(property (rx foo=.*))", "(property \"foo=.*\" regex)"},
        {"(folder (rx ^bar$))", "(folder \"^bar$\" regex)"},
        {"(id (rx yoom))", "(id \"yoom\" regex)"},
        {"(thread (of (from keithp) (subject Maildir)))",
         "(thread-of (and (from \"keithp\" stem) (subject \"maildir\" stem)))"},
        {"(thread (matching keithp))", "(thread-of (text \"keithp\"))"},
        {"(thread (of))", "(thread-of (all))"},
        {"(folder (of (id x@y)))", "(same-folder (id \"x@y\"))"},
        {"(is (of (id x@y)))", "(same-tag (id \"x@y\"))"},
        {"(from (of (id x@y)))", "(same-from (id \"x@y\"))"},
        {"(infix \"to:searchbyto\")", "(to \"searchbyto\")"},
        {"(infix \"date:2009-11-18..2009-11-18 and tag:unread\")",
         "(and (date \"2009-11-18..2009-11-18\") (tag \"unread\"))"},
        {"(query test)", "(and (date \"2009-11-18..2009-11-18\") (tag \"unread\"))"},
        {"(and (query test) (subject Maildir))",
         "(and (date \"2009-11-18..2009-11-18\") (tag \"unread\") (subject \"maildir\" stem))"},
    };

    CHECK_CASES(cases);
}

TEST(ranges)
{
    static const struct qcase cases[] = {
        {"(date)", "(all)"},
        {"(date 2009-11-18)", "(date \"2009-11-18\" quoted)"},
        {"(date 2009-11-18 2009-11-18)", "(date \"2009-11-18\" quoted)"},
        {"(date 2009-11-17 2009-11-18)", "(date \"2009-11-17..2009-11-18\")"},
        {"(date 2009-11-18 \"\")", "(date \"2009-11-18..\")"},
        {"(date 2009-11-18 *)", "(date \"2009-11-18..\")"},
        {"(date * 2009-11-17)", "(date \"..2009-11-17\")"},
        {"(date \"\" \"\")", "(date \"..\")"},
        {"(date yesterday !)", "(date \"yesterday..!\")"},
        {"(date \"jan 2 2024\" *)", "(date \"jan 2 2024..\")"},
        {"(date 2009..2010 2011)", "error: Didn't understand date specification '2009..2010'"},
        {"(lastmod)", "(all)"},
        {"(lastmod 5)", "(lastmod \"5..5\")"},
        {"(lastmod 5 7)", "(lastmod \"5..7\")"},
        {"(lastmod 5 \"\")", "(lastmod \"5..9223372036854775807\")"},
        {"(lastmod * 7)", "(lastmod \"0..7\")"},
        {"(lastmod \" 12abc\")", "(lastmod \"12..12\")"},
        {"(lastmod -3 +4)", "(lastmod \"-3..4\")"},
    };

    CHECK_CASES(cases);
}

TEST(saved_queries_and_macros)
{
    static const struct qcase cases[] = {
        {"(TagSubject)", "(and (tag \"inbox\") (subject \"maildir\" stem))"},
        {"(TagSubject ignored args)", "(and (tag \"inbox\") (subject \"maildir\" stem))"},
        {"(TagSubject0)", "(and (tag \"inbox\") (subject \"maildir\" stem))"},
        {"(TagSubject2 inbox maildir)", "(and (tag \"inbox\") (subject \"maildir\" stem))"},
        {"(ThingSubject (tag inbox))", "(and (tag \"inbox\") (subject \"maildir\" stem))"},
        {"(Outer inbox maildir)", "(and (tag \"inbox\") (subject \"maildir\" stem))"},
        {"(D inbo)", "(and (date \"2009-11-17\" quoted) (tag \"inbo\" regex))"},
        {"(W inbo)", "(and (date \"2009-11-17\" quoted) (tag \"inbo\" wildcard))"},
        {"(Atom)", "(text \"wizard\")"},
        /* an empty one is no saved query */
        {"(Empty)", "error: unknown prefix 'Empty'"},
        {"(Unknown foo bar)", "error: unknown prefix 'Unknown'"},
        {"(Bad foo bar)", "error: invalid saved s-expression query: '(Bad'"},
        {"(Bad2)", "error: unexpected list in field/operation position"},
        {"(Bad3)", "error: missing (possibly empty) list of arguments to macro"},
        {"(Bad4 1)", "error: macro parameters must be unquoted atoms"},
        {"(Quoted 1)", "error: macro parameters must be unquoted atoms"},
        {"(Bad5 1)", "error: too few arguments to macro"},
        {"(Bad5 1 2 3)", "error: too many arguments to macro"},
        {"(NoBody)", "error: missing body of macro"},
        {"(Rx (1 2))", "error: 'rx' expects single atom as argument"},
        {"(subject (rx ,unknown))", "error: undefined parameter 'unknown'"},
        {"(Outer2 inbox maildir)", "error: undefined parameter 'y'"},
        {"(subject (TagSubject))", "error: nested field: 'tag' inside 'subject'"},
        {"(macro (a) (and ,b (subject maildir)))", "error: macro definition not permitted here"},
        /* (of ...) does not see the macro's parameters */
        {"(ThingSubject (thread (of ,thing)))", "error: undefined parameter 'thing'"},
        /* without end: notmuch's stack overflows, here the nesting or the expansion stops */
        {"(Deep)", "error: query nested too deeply (more than 100 levels)"},
        {"(Ping)", "error: query nested too deeply (more than 100 levels)"},
    };

    CHECK_CASES(cases);
}

TEST(errors)
{
    static const struct qcase cases[] = {
        {"(", "error: invalid s-expression: '('"},
        {"", "error: invalid s-expression: ''"},
        {")", "error: invalid s-expression: ')'"},
        {"(foo)", "error: unknown prefix 'foo'"},
        {"(FooBar)", "error: unknown prefix 'FooBar'"},
        {"((foo))", "error: unexpected list in field/operation position"},
        {"(subject (subject foo))", "error: nested field: 'subject' inside 'subject'"},
        {"(to (date))", "error: nested field: 'date' inside 'to'"},
        {"(to (lastmod 1))", "error: nested field: 'lastmod' inside 'to'"},
        {"(starts-with)", "error: 'starts-with' expects single atom as argument"},
        {"(starts-with (stuff))", "error: 'starts-with' expects single atom as argument"},
        {"(starts-with a b c)", "error: 'starts-with' expects single atom as argument"},
        {"(body (starts-with foo))", "error: 'body' does not support wildcard queries"},
        {"(body *)", "error: 'body' does not support wildcard queries"},
        {"(rx foo)", "error: illegal 'rx' outside field"},
        {"(body (regex foo))", "error: 'regex' not supported in field 'body'"},
        {"(to (rx foo))", "error: 'rx' not supported in field 'to'"},
        {"(id (of ego))", "error: 'of' unsupported inside 'id'"},
        {"(path (matching ego))", "error: 'matching' unsupported inside 'path'"},
        {"(of ego)", "error: illegal 'of' outside field"},
        {"(query)", "error: 'query' expects single atom as argument"},
        {"(to (query))", "error: 'query' not supported inside 'to'"},
        {"(subject (infix \"tag:inbox\"))", "error: 'infix' not supported inside 'subject'"},
        {"(infix \"from:/unbalanced\")", "error: Syntax error in infix query: from:/unbalanced"},
        {"(infix \"thread:{unbalanced\")", "error: Syntax error in infix query: thread:{unbalanced"},
        {"(date (to))", "error: expected atom as first argument of 'date'"},
        {"(date today (to))", "error: expected atom as second argument of 'date'"},
        {"(date yesterday and tommorow)", "error: 'date' expects maximum of two arguments"},
        {"(lastmod apples)", "error: bad 'from' revision: 'apples'"},
        {"(lastmod 0 apples)", "error: bad 'to' revision: 'apples'"},
        {"(lastmod 99999999999999999999)", "error: bad 'from' revision: '99999999999999999999'"},
    };

    CHECK_CASES(cases);
}

static const char *shadowing(void *data, const char *name)
{
    (void) data;
    return strcmp(name, "tag") == 0 ? "(subject shadowed)" : NULL;
}

/* A saved query takes the place of a prefix of the same name, as in notmuch (which looks for saved
 * queries first; `config set` keeps lower-case names for notmuch's own). */
TEST(saved_query_shadows_prefix)
{
    static const struct maildex__query_options shadow = {.squery = shadowing};
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error;

    ASSERT_EQ(maildex__query_parse_sexp(ctx, "(or (tag x) (from y))", &shadow, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_STR_EQ(maildex__qnode_to_string(ctx, n), "(or (subject \"shadowed\" stem) (from \"y\" stem))");
    talloc_free(ctx);
}

/* The infix sexp: prefix reads its value here, and a failure says where. */
TEST(infix_sexp_prefix)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error;

    ASSERT_EQ(maildex__query_parse(ctx, "sexp:\"(or \"\"php\"\" \"\"wizard\"\")\"", &options, &n, &error),
              MAILDEX__QUERY_OK);
    ASSERT_STR_EQ(maildex__qnode_to_string(ctx, n), "(or (text \"php\" quoted) (text \"wizard\" quoted))");
    ASSERT_EQ(maildex__query_parse(ctx, "tag:x sexp:\"(List *)\"", &options, &n, &error), MAILDEX__QUERY_BAD);
    ASSERT_STR_EQ(error, "syntax error at position 6: in sexp:\"(List *)\": unknown prefix 'List'");
    /* sexp: terms are grouped as other boolean prefixes are */
    ASSERT_EQ(maildex__query_parse(ctx, "sexp:a tag:x sexp:b", &options, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_STR_EQ(maildex__qnode_to_string(ctx, n), "(and (or (text \"a\") (text \"b\")) (tag \"x\"))");
    talloc_free(ctx);
}

/* ---- hostile input ------------------------------------------------------------------------------------ */

static char *repeat(void *ctx, const char *s, size_t times, const char *tail)
{
    size_t n = strlen(s);
    char *out = talloc_array(ctx, char, n * times + strlen(tail) + 1);

    for (size_t i = 0; i < times; i++)
        memcpy(out + i * n, s, n);
    strcpy(out + n * times, tail);
    return out;
}

TEST(deep_nesting)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    struct maildex__sx *sx;
    char *error, *text;

    /* the reader takes any depth without recursing; the conversion stops at the limit */
    text = talloc_asprintf(ctx, "%s%s", repeat(ctx, "(and ", 200000, "a"), repeat(ctx, ")", 200000, ""));
    ASSERT_EQ(maildex__sx_read(ctx, text, strlen(text), &sx), MAILDEX__SX_OK);
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_BAD);
    ASSERT_STR_EQ(error, "query nested too deeply (more than 100 levels)");
    /* 99 levels are fine */
    text = talloc_asprintf(ctx, "%s%s", repeat(ctx, "(not ", 99, "a"), repeat(ctx, ")", 99, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_OK);
    /* unbalanced, either way */
    ASSERT_EQ(maildex__query_parse_sexp(ctx, repeat(ctx, "(", 1000000, ""), &options, &n, &error),
              MAILDEX__QUERY_BAD);
    ASSERT(strncmp(error, "invalid s-expression: '((((", 27) == 0);
    ASSERT_EQ(maildex__query_parse_sexp(ctx, repeat(ctx, ")", 1000000, ""), &options, &n, &error),
              MAILDEX__QUERY_BAD);
    /* lists and the infix query inside them share the one limit: 50 + 60 levels are too many */
    text = talloc_asprintf(ctx, "%s(infix \"%sa%s\")%s", repeat(ctx, "(not ", 50, ""),
                           repeat(ctx, "thread:{", 60, ""), repeat(ctx, "}", 60, ""), repeat(ctx, ")", 50, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_BAD);
    ASSERT(strncmp(error, "Syntax error in infix query: thread:{", 37) == 0);
    text = talloc_asprintf(ctx, "%s(infix \"%sa%s\")%s", repeat(ctx, "(not ", 20, ""),
                           repeat(ctx, "thread:{", 60, ""), repeat(ctx, "}", 60, ""), repeat(ctx, ")", 20, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_OK);
    talloc_free(ctx);
}

TEST(huge_input)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error, *text;

    /* an atom of 5 MB, in a string and bare */
    text = talloc_asprintf(ctx, "(subject \"%s\")", repeat(ctx, "x", 5000000, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_EQ(strlen(n->value), 5000000);
    text = talloc_asprintf(ctx, "(tag %s)", repeat(ctx, "y", 5000000, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_OK);
    /* 200,000 atoms in one list */
    text = talloc_asprintf(ctx, "(id %s)", repeat(ctx, "a@b ", 200000, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_EQ(n->kind, MAILDEX__Q_OR);
    ASSERT_EQ(n->nchildren, 200000);
    /* a string never closed, a million escapes */
    ASSERT_EQ(maildex__query_parse_sexp(ctx, repeat(ctx, "\\\"", 1000000, ""), &options, &n, &error),
              MAILDEX__QUERY_OK); /* an atom of a million quotes */
    ASSERT_EQ(maildex__query_parse_sexp(ctx, talloc_asprintf(ctx, "(\"%s", repeat(ctx, "\\\"", 1000000, "")),
                                        &options, &n, &error),
              MAILDEX__QUERY_BAD);
    talloc_free(ctx);
}

/* A macro doubling its argument, called 40 deep, would make 2^40 elements: the expansion stops. */
TEST(expansion_is_bounded)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error;
    char *text = talloc_asprintf(ctx, "%sa%s", repeat(ctx, "(Twice ", 40, ""), repeat(ctx, ")", 40, ""));

    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_BAD);
    ASSERT_STR_EQ(error, "saved queries expand to more than 100000 elements");
    /* ten calls deep are 1024 terms */
    text = talloc_asprintf(ctx, "%sa%s", repeat(ctx, "(Twice ", 10, ""), repeat(ctx, ")", 10, ""));
    ASSERT_EQ(maildex__query_parse_sexp(ctx, text, &options, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_EQ(n->kind, MAILDEX__Q_OR);
    ASSERT_EQ(n->nchildren, 1024);
    talloc_free(ctx);
}

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random texts from sexp-like fragments and raw bytes: every result is a tree or an error. */
TEST(fuzz)
{
    static const char *const frags[] = {"(", ")", "\"", "'", "\\", ";", "\n", " ", "and", "or", "not", "tag",
                                        "subject", "from", "thread", "folder", "path", "id", "property", "date",
                                        "lastmod", "of", "matching", "starts-with", "rx", "infix", "query", "*",
                                        ",x", "macro", "TagSubject2", "Twice", "Deep", "Ping", "Bad", "a", "Bob",
                                        "x@y", "é", "\"\"", "sexp:", "test", "tag:x", "..", "2024", "-"};
    char buf[256];

    for (int iter = 0; iter < 20000; iter++) {
        void *ctx = talloc_new(NULL);
        struct maildex__qnode *n;
        char *error;
        size_t len = 0, want = rng() % 64;
        int rc;

        if (iter % 2) {
            for (; len < want; len++)
                buf[len] = (char) (rng() % 255 + 1);
        } else {
            while (len < want) {
                const char *f = frags[rng() % (sizeof frags / sizeof frags[0])];
                size_t fl = strlen(f);

                if (len + fl >= sizeof buf)
                    break;
                memcpy(buf + len, f, fl);
                len += fl;
            }
        }
        buf[len] = '\0';
        rc = maildex__query_parse_sexp(ctx, buf, &options, &n, &error);
        if (rc == MAILDEX__QUERY_OK) {
            ASSERT(n != NULL);
            ASSERT(maildex__qnode_to_string(ctx, n) != NULL);
        } else {
            ASSERT_EQ(rc, MAILDEX__QUERY_BAD);
            ASSERT(n == NULL && error != NULL && error[0] != '\0');
        }
        talloc_free(ctx);
    }
}

TEST_MAIN(TEST_ENTRY(reader) TEST_ENTRY(operators) TEST_ENTRY(terms) TEST_ENTRY(modifiers) TEST_ENTRY(ranges)
              TEST_ENTRY(saved_queries_and_macros) TEST_ENTRY(errors) TEST_ENTRY(infix_sexp_prefix)
                  TEST_ENTRY(saved_query_shadows_prefix) TEST_ENTRY(deep_nesting) TEST_ENTRY(huge_input) TEST_ENTRY(expansion_is_bounded)
                      TEST_ENTRY(fuzz))
