/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for lib/query/parse.c: the notmuch query language to AST, checked through the S-expression
 * rendering (maildex__qnode_to_string). Covers compat reference §1.2, §1.3 and §3.3-3.5: prefixes,
 * operators and precedence, same-prefix OR grouping, quoting, regexes, wildcards, thread subqueries,
 * named queries, syntax errors, and inputs that must not crash or exhaust the stack. */
#include "query/ast.h"
#include "test.h"

#include <stdlib.h>
#include <talloc.h>

struct qcase {
    const char *query;
    const char *want; /* the S-expression, or "error: <message>" */
};

/* Named queries for query: tests; "chainN" refers to chain(N+1) so deep expansions can be built. */
static const char *lookup(void *data, const char *name)
{
    static char buf[64];

    (void) data;
    if (strcmp(name, "lunch") == 0)
        return "subject:lunch and tag:inbox";
    if (strcmp(name, "unread") == 0)
        return "tag:unread";
    if (strcmp(name, "a") == 0)
        return "tag:x or query:b";
    if (strcmp(name, "b") == 0)
        return "query:a";
    if (strcmp(name, "self") == 0)
        return "tag:x query:self";
    if (strcmp(name, "broken") == 0)
        return "tag:x and";
    if (strcmp(name, "empty") == 0)
        return "";
    if (strncmp(name, "chain", 5) == 0) {
        snprintf(buf, sizeof buf, "query:chain%d", atoi(name + 5) + 1);
        return buf;
    }
    return NULL;
}

static const struct maildex__query_options options = {.lookup = lookup};

static char *parse_to_string(void *ctx, const char *query)
{
    struct maildex__qnode *n = (struct maildex__qnode *) 1;
    char *error = (char *) 1;
    int rc = maildex__query_parse(ctx, query, &options, &n, &error);

    if (rc == MAILDEX__QUERY_OK)
        return error == NULL && n ? maildex__qnode_to_string(ctx, n) : talloc_strdup(ctx, "bad ok result");
    if (rc == MAILDEX__QUERY_BAD)
        return n == NULL && error ? talloc_asprintf(ctx, "error: %s", error) : talloc_strdup(ctx, "bad error result");
    return talloc_asprintf(ctx, "rc %d", rc);
}

/* Each case is compared as "query => result" so a failure names the query. */
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

TEST(prefixes)
{
    static const struct qcase cases[] = {
        {"from:bob", "(from \"bob\")"},
        {"to:carols", "(to \"carols\")"},
        {"subject:lunch", "(subject \"lunch\")"},
        {"body:lunches", "(body \"lunches\")"},
        {"attachment:menu.pdf", "(attachment \"menu.pdf\" phrase)"},
        {"mimetype:application/pdf", "(mimetype \"application/pdf\" phrase)"},
        {"tag:inbox", "(tag \"inbox\")"},
        {"is:unread", "(tag \"unread\")"},
        {"id:msg1@example.org", "(id \"msg1@example.org\")"},
        {"mid:msg1@example.org", "(id \"msg1@example.org\")"},
        {"thread:0000000000000001", "(thread \"0000000000000001\")"},
        {"folder:sent", "(folder \"sent\")"},
        {"path:sent/**", "(path \"sent/**\")"},
        {"path:\"\"", "(path \"\" quoted)"},
        {"property:\"foo=bar baz\"", "(property \"foo=bar baz\" quoted)"},
        {"date:2024", "(date \"2024\")"},
        {"date:2024-01-01..2024-02", "(date \"2024-01-01..2024-02\")"},
        {"date:\"jan 2 2024\"", "(date \"jan 2 2024\" quoted)"},
        {"date:yesterday..!", "(date \"yesterday..!\")"},
        {"lastmod:..3", "(lastmod \"..3\")"},
        {"query:unread", "(tag \"unread\")"},
        /* Prefixes are case-sensitive; unknown ones are just text. */
        {"TAG:inbox", "(text \"TAG:inbox\" phrase cap)"},
        {"x-label:foo", "(text \"x-label:foo\" phrase)"},
        /* A prefix with nothing after it is the word itself. */
        {"tag:", "(text \"tag\")"},
    };

    CHECK_CASES(cases);
}

TEST(free_text)
{
    static const struct qcase cases[] = {
        {"lunch", "(text \"lunch\")"},
        {"Plan plan", "(and (text \"Plan\" cap) (text \"plan\"))"},
        {"Café café", "(and (text \"Café\" cap) (text \"café\"))"},
        {"\"sure works\"", "(text \"sure works\" phrase quoted)"},
        {"\"plan\"", "(text \"plan\" quoted)"},
        {"a-b-c a.b.c a/b/c", "(and (text \"a-b-c\" phrase) (text \"a.b.c\" phrase) (text \"a/b/c\" phrase))"},
        {"alice@example.org", "(text \"alice@example.org\" phrase)"},
        {"hello, world!", "(and (text \"hello\") (text \"world\"))"},
        {"lun*", "(text \"lun\" wildcard)"},
        {"foo-ba*", "(text \"foo-ba\" phrase wildcard)"},
        {"1234..5678", "(date \"@1234..@5678\")"},
    };

    CHECK_CASES(cases);
}

/* notmuch's unprefixed range of seconds. Its open start includes undated messages (date 0), where an
 * open date: start does not, so the start is always written out; any other word with `..` is Xapian's
 * "Unknown range operation". */
TEST(legacy_range)
{
    static const struct qcase cases[] = {
        {"1234..5678", "(date \"@1234..@5678\")"},
        {"..100", "(date \"@0..@100\")"},
        {"100..", "(date \"@100..\")"},
        {"0..0", "(date \"@0..@0\")"},
        {"1.2..3.5", "(date \"@2..@3\")"},
        {"99999999999999999999..", "(date \"@1000000000000000..\")"},
        {"plan ..100", "(and (text \"plan\") (date \"@0..@100\"))"},
        /* `..` alone is nothing, as a lone `'` is */
        {"..", "(none)"},
        {"plan ..", "(text \"plan\")"},
        {"date:\"jan 15 2021\"..", "(date \"jan 15 2021\" quoted)"},
        {"date:\"jan 15 2021\"..2021", "(and (date \"jan 15 2021\" quoted) (date \"@0..@2021\"))"},
        {"a..b", "error: syntax error at position 0: unknown range operation 'a..b' (a word with '..' is a range of "
                 "seconds since the epoch)"},
        {"plan wait...", "error: syntax error at position 5: unknown range operation 'wait...' (a word with '..' is "
                         "a range of seconds since the epoch)"},
        {"...", "error: syntax error at position 0: unknown range operation '...' (a word with '..' is a range of "
                "seconds since the epoch)"},
        {"1..2x", "error: syntax error at position 0: unknown range operation '1..2x' (a word with '..' is a range "
                  "of seconds since the epoch)"},
        {"date:\"jan 15 2021\"..2021-02",
         "error: syntax error at position 18: unknown range operation '..2021-02' (a word with '..' is a range of "
         "seconds since the epoch)"},
        {"date:\"jan 15 2021\"..!", "error: syntax error at position 18: unknown range operation '..!' (a word "
                                      "with '..' is a range of seconds since the epoch)"},
        /* prefixed values are not ranges of seconds */
        {"tag:a..b", "(tag \"a..b\")"},
        {"subject:a..b", "(subject \"a..b\" phrase)"},
    };

    CHECK_CASES(cases);
}

/* Xapian finds a range before it looks at quotes: a quoted date: value whose text up to the first space
 * holds `..` is a range whose sides keep their quotes; otherwise the quoted value is one date. */
TEST(quoted_date_range)
{
    static const struct qcase cases[] = {
        {"date:\"2021\"..2022", "(date \"\\\"2021\\\"..2022\")"},
        {"date:\"2021..2022\"", "(date \"\\\"2021..2022\\\"\")"},
        {"(date:\"2021\"..2022)", "(date \"\\\"2021\\\"..2022\")"},
        {"date:\"jan_15_2021\"..2021-02", "(date \"\\\"jan_15_2021\\\"..2021-02\")"},
        {"date:\"jan 15 2021..feb 2021\"", "(date \"jan 15 2021..feb 2021\" quoted)"},
        {"date:\"jan 15 2021..\"", "(date \"jan 15 2021..\" quoted)"},
        /* only date: */
        {"tag:\"a..b\"", "(tag \"a..b\" quoted)"},
    };

    CHECK_CASES(cases);
}

/* notmuch's from: and subject: field processors parse a quoted value in parentheses as a query with their
 * prefix as the default, stemming the words that get it (notmuch-search-terms(7): subject:"(pizza free)"). */
TEST(prefixed_paren_query)
{
    static const struct qcase cases[] = {
        {"subject:\"(review or plan)\"", "(or (subject \"review\" stem) (subject \"plan\" stem))"},
        {"subject:\"(pizza free)\"", "(and (subject \"pizza\" stem) (subject \"free\" stem))"},
        {"from:\"(raj sullivan)\"", "(and (from \"raj\" stem) (from \"sullivan\" stem))"},
        {"subject:\"(review or (plan lunch))\"",
         "(or (subject \"review\" stem) (and (subject \"plan\" stem) (subject \"lunch\" stem)))"},
        {"subject:\"(review from:carol)\"", "(and (subject \"review\" stem) (from \"carol\"))"},
        {"subject:\"(review -plan)\"", "(and (subject \"review\" stem) (not (subject \"plan\" stem)))"},
        {"subject:\"(lunc* Plan \"\"plan for\"\")\"",
         "(and (subject \"lunc\" wildcard) (subject \"Plan\" cap) (subject \"plan for\" phrase quoted))"},
        {"subject:\"(review plan )\"", "(and (subject \"review\" stem) (subject \"plan\" stem))"},
        {"subject:\"(review) (plan)\"", "(and (subject \"review\" stem) (subject \"plan\" stem))"},
        /* grouped with other from:/subject: terms like any field-processor term */
        {"subject:\"(a b)\" subject:c", "(or (and (subject \"a\" stem) (subject \"b\" stem)) (subject \"c\"))"},
        /* not a query: not both parentheses at the very ends, nothing inside, or not from:/subject: */
        {"subject:\" (review plan)\"", "(subject \" (review plan)\" phrase quoted)"},
        {"subject:\"(review plan) x\"", "(subject \"(review plan) x\" phrase quoted)"},
        {"subject:\"(review\"", "(subject \"(review\" quoted)"},
        {"subject:\"()\"", "(subject \"()\" quoted)"},
        {"to:\"(bob or raj)\"", "(to \"(bob or raj)\" phrase quoted)"},
        {"tag:\"(inbox or unread)\"", "(tag \"(inbox or unread)\" quoted)"},
        /* the inside must parse */
        {"subject:\"(review and)\"", "error: syntax error at position 20: expected a term after 'and'"},
        /* an unmatched ')' makes Xapian read the query again without operators */
        {"subject:\"(review\" plan)", "(and (subject \"(review\" quoted) (text \"plan\"))"},
    };

    CHECK_CASES(cases);
}

TEST(all_and_none)
{
    static const struct qcase cases[] = {
        {"", "(all)"},
        {"*", "(all)"},
        /* notmuch's rule is for exactly "" and "*"; anything else goes to Xapian, which drops a lone `*` */
        {"  *  ", "(none)"},
        {"   ", "(none)"},
        {"* tag:x", "(tag \"x\")"},
        {"* and tag:x", "error: syntax error at position 2: expected a term before 'and'"},
        {"tag:x or *", "error: syntax error at position 10: expected a term after 'or'"},
        {"'", "(none)"},
        {"-", "(none)"},
        {"tag:inbox '", "(tag \"inbox\")"},
        {"\"\" a", "(text \"a\")"},
        /* an empty phrase makes Xapian read the query again, where to: before a quote is a word */
        {"to:\"\"", "(text \"to\")"},
    };

    CHECK_CASES(cases);
}

/* compat §3.3: explicit operators and their precedence (OR < XOR < AND/NOT). */
TEST(operators_and_precedence)
{
    static const struct qcase cases[] = {
        {"a and b", "(and (text \"a\") (text \"b\"))"},
        {"a AND b Or c", "(or (and (text \"a\") (text \"b\")) (text \"c\"))"},
        {"tag:x or tag:flagged and from:jorg", "(or (tag \"x\") (and (tag \"flagged\") (from \"jorg\")))"},
        {"a xor b", "(xor (text \"a\") (text \"b\"))"},
        {"a xor b or c xor d", "(or (xor (text \"a\") (text \"b\")) (xor (text \"c\") (text \"d\")))"},
        {"a or b xor c and d", "(or (text \"a\") (xor (text \"b\") (and (text \"c\") (text \"d\"))))"},
        {"a XoR b AND c", "(xor (text \"a\") (and (text \"b\") (text \"c\")))"},
        {"a not b", "(and (text \"a\") (not (text \"b\")))"},
        {"a AND NOT b", "(and (text \"a\") (not (text \"b\")))"},
        {"a and not b or c", "(or (and (text \"a\") (not (text \"b\"))) (text \"c\"))"},
        {"not tag:x", "(not (tag \"x\"))"},
        {"NOT a OR b", "(or (not (text \"a\")) (text \"b\"))"},
        {"a or not b", "(or (text \"a\") (not (text \"b\")))"},
        {"not (not a)", "(not (not (text \"a\")))"},
        {"a b or c", "(or (and (text \"a\") (text \"b\")) (text \"c\"))"},
        {"a or b c", "(or (text \"a\") (and (text \"b\") (text \"c\")))"},
        {"a and b c", "(and (text \"a\") (text \"b\") (text \"c\"))"},
        {"(a or b) c", "(and (or (text \"a\") (text \"b\")) (text \"c\"))"},
        {"a or (b or c)", "(or (text \"a\") (text \"b\") (text \"c\"))"},
        {"((a))", "(text \"a\")"},
        /* love/hate */
        {"tag:inbox -tag:unread", "(and (tag \"inbox\") (not (tag \"unread\")))"},
        {"+a +b", "(and (text \"a\") (text \"b\"))"},
        {"-(a b) c", "(and (not (and (text \"a\") (text \"b\"))) (text \"c\"))"},
        {"a and -b", "(and (text \"a\") (not (text \"b\")))"},
        /* after `and`, `-` takes the whole run */
        {"a and -b c", "(and (text \"a\") (not (and (text \"b\") (text \"c\"))))"},
        {"tag:i and -tag:u -tag:f", "(and (tag \"i\") (not (and (tag \"u\") (not (tag \"f\")))))"},
        /* notmuch: "-<term> does not work at the start of an expression": only excluded terms is a parse
         * error, and Xapian's second reading drops the sign */
        {"-tag:inbox", "(tag \"inbox\")"},
        {"a - b", "(and (text \"a\") (text \"b\"))"},
    };

    CHECK_CASES(cases);
}

/* The Xapian rule notmuch users depend on (compat §1.3, §3.3). */
TEST(same_prefix_grouping)
{
    static const struct qcase cases[] = {
        {"tag:inbox tag:unread", "(or (tag \"inbox\") (tag \"unread\"))"},
        {"tag:unread from:bob tag:inbox", "(and (or (tag \"unread\") (tag \"inbox\")) (from \"bob\"))"},
        {"id:a id:b", "(or (id \"a\") (id \"b\"))"},
        {"id:a id:b id:c", "(or (id \"a\") (id \"b\") (id \"c\"))"},
        {"is:inbox tag:unread", "(and (tag \"inbox\") (tag \"unread\"))"},
        {"id:a mid:b", "(and (id \"a\") (id \"b\"))"},
        {"from:bob from:alice", "(or (from \"bob\") (from \"alice\"))"},
        {"subject:a subject:b", "(or (subject \"a\") (subject \"b\"))"},
        {"date:2023 date:2024", "(or (date \"2023\") (date \"2024\"))"},
        {"lastmod:..3 lastmod:5..", "(or (lastmod \"..3\") (lastmod \"5..\"))"},
        {"thread:A thread:{from:x}", "(or (thread \"A\") (thread-of (from \"x\")))"},
        {"folder:a path:b folder:c property:k=v",
         "(and (or (folder \"a\") (folder \"c\")) (path \"b\") (property \"k=v\"))"},
        {"to:a to:b", "(and (to \"a\") (to \"b\"))"},
        {"body:a body:b attachment:c attachment:d mimetype:e mimetype:f",
         "(and (body \"a\") (body \"b\") (attachment \"c\") (attachment \"d\") (mimetype \"e\") (mimetype \"f\"))"},
        {"foo tag:a bar tag:b", "(and (text \"foo\") (or (tag \"a\") (tag \"b\")) (text \"bar\"))"},
        /* an explicit operator ends the run */
        {"tag:a and tag:b", "(and (tag \"a\") (tag \"b\"))"},
        {"tag:a tag:b and tag:c", "(and (or (tag \"a\") (tag \"b\")) (tag \"c\"))"},
        /* hated terms are not grouped */
        {"tag:a tag:b -tag:c -tag:d", "(and (or (tag \"a\") (tag \"b\")) (not (tag \"c\")) (not (tag \"d\")))"},
        {"query:unread query:lunch",
         "(or (tag \"unread\") (and (subject \"lunch\") (tag \"inbox\")))"},
        /* terms inheriting a group's prefix are ANDed: subject:(plans lunch) == subject:plans and subject:lunch */
        {"subject:(plans lunch)", "(and (subject \"plans\") (subject \"lunch\"))"},
        {"subject:(a from:b from:c)", "(and (subject \"a\") (or (from \"b\") (from \"c\")))"},
    };

    CHECK_CASES(cases);
}

TEST(quoting)
{
    static const struct qcase cases[] = {
        {"subject:\"lunch plans\"", "(subject \"lunch plans\" phrase quoted)"},
        {"from:\"alice example\"", "(from \"alice example\" phrase quoted)"},
        {"from:alice-example", "(from \"alice-example\" phrase)"},
        {"tag:\"foo bar\"", "(tag \"foo bar\" quoted)"},
        {"tag:\"\"\"quoted tag\"\"\"", "(tag \"\\\"quoted tag\\\"\" quoted)"},
        {"id:\"bad\"\"utf8x@example.com\"", "(id \"bad\\\"utf8x@example.com\" quoted)"},
        {"tag:\"a(b)\" tag:c", "(or (tag \"a(b)\" quoted) (tag \"c\"))"},
        {"(tag:inbox)", "(tag \"inbox\")"},
        {"subject:(\"pizza free\" lunch)", "(and (subject \"pizza free\" phrase quoted) (subject \"lunch\"))"},
        {"tag:(a \"b c\")", "(and (tag \"a\") (tag \"b c\" quoted))"},
        {"tag:\"a\tb\\\"", "(tag \"a\\x09b\\\\\" quoted)"},
        {"from:Bob", "(from \"Bob\" cap)"},
        {"+tag:a +tag:b", "(or (tag \"a\") (tag \"b\"))"},
    };

    CHECK_CASES(cases);
}

TEST(wildcards_and_regexes)
{
    static const struct qcase cases[] = {
        {"subject:lun*", "(subject \"lun\" wildcard)"},
        {"from:bob*", "(from \"bob\" wildcard)"},
        {"from:\"bob*\"", "(from \"bob\" wildcard quoted)"},
        {"to:car*", "(to \"car\" wildcard)"},
        {"tag:inb*", "(tag \"inb*\")"},
        {"id:msg1*", "(id \"msg1*\")"},
        {"tag:/^in/", "(tag \"^in\" regex)"},
        {"is:/^un/", "(tag \"^un\" regex)"},
        {"mid:/msg[12]/", "(id \"msg[12]\" regex)"},
        {"id:/msg/", "(id \"/msg/\")"},
        {"subject:/^Re:/", "(subject \"^Re:\" regex)"},
        {"from:/bo/", "(from \"bo\" regex)"},
        {"path:/^sent/", "(path \"^sent\" regex)"},
        {"folder:\"/^.*/(Junk|Spam)$/\"", "(folder \"^.*/(Junk|Spam)$\" regex quoted)"},
        {"tag:/^(a|b)$/ tag:c", "(or (tag \"^(a|b)$\" regex) (tag \"c\"))"},
        {"(tag:/x/)", "(tag \"x\" regex)"},
    };

    CHECK_CASES(cases);
}

TEST(thread_subqueries)
{
    static const struct qcase cases[] = {
        {"thread:{from:carol}", "(thread-of (from \"carol\"))"},
        {"thread:\"{from:carol}\"", "(thread-of (from \"carol\"))"},
        {"thread:{from:keithp} and thread:{to:keithp}",
         "(and (thread-of (from \"keithp\")) (thread-of (to \"keithp\")))"},
        {"thread:{from:carol and tag:x}", "(thread-of (and (from \"carol\") (tag \"x\")))"},
        {"thread:\"{subject:\"\"lunch plans\"\"}\"", "(thread-of (subject \"lunch plans\" phrase quoted))"},
        {"thread:{thread:{tag:a}}", "(thread-of (thread-of (tag \"a\")))"},
        {"thread:{}", "(thread-of (all))"},
        {"tag:x thread:{id:a id:b}", "(and (tag \"x\") (thread-of (or (id \"a\") (id \"b\"))))"},
    };

    CHECK_CASES(cases);
}

/* Queries notmuch.el builds (compat §1.2 rows 8, 10, 15 and §1.3). */
TEST(emacs_queries)
{
    static const struct qcase cases[] = {
        {"(id:a id:b) or (id:d)", "(or (id \"a\") (id \"b\") (id \"d\"))"},
        {"' thread:0000000000000001 and ( tag:inbox ) '",
         "(and (thread \"0000000000000001\") (tag \"inbox\"))"},
        {"' thread:0000000000000001 '", "(thread \"0000000000000001\")"},
        {"(to:a@x or to:b@y) and (foo)", "(and (or (to \"a@x\" phrase) (to \"b@y\" phrase)) (text \"foo\"))"},
        {"(from:a@x or from:b@y) and (tag:inbox)", "(and (or (from \"a@x\" phrase) (from \"b@y\" phrase)) (tag \"inbox\"))"},
        {"id:\"foo bar\"@x", "(and (id \"foo bar\" quoted) (text \"x\"))"},
        {"( id:\"x\"\"y@z\" ) OR ( thread:00000000000000ab )",
         "(or (id \"x\\\"y@z\" quoted) (thread \"00000000000000ab\"))"},
        {"tag:inbox AND tag:unread", "(and (tag \"inbox\") (tag \"unread\"))"},
    };

    CHECK_CASES(cases);
}

TEST(named_queries)
{
    static const struct qcase cases[] = {
        {"query:lunch", "(and (subject \"lunch\") (tag \"inbox\"))"},
        {"query:lunch or tag:x", "(or (and (subject \"lunch\") (tag \"inbox\")) (tag \"x\"))"},
        /* notmuch: an empty or missing stored text is Xapian's empty query, which matches nothing */
        {"query:empty", "(none)"},
        {"query:nope", "(none)"},
        {"tag:x query:nope", "(and (tag \"x\") (none))"},
        {"query:a", "error: named query cycle at position 0: query:a -> query:b -> query:a"},
        {"tag:y (query:self)", "error: named query cycle at position 7: query:self -> query:self"},
        {"query:broken", "error: in query:broken: syntax error at position 9: expected a term after 'and'"},
    };

    void *ctx = talloc_new(NULL);
    char *got;

    CHECK_CASES(cases);
    /* A chain of 100 expansions hits the depth limit; each level says where it was. */
    got = parse_to_string(ctx, "query:chain0");
    ASSERT(strncmp(got, "error: in query:chain0: in query:chain1: in query:chain2: ", 58) == 0);
    ASSERT(strstr(got, " in query:chain98: in query:chain99: syntax error at position 0: query nested too deeply "
                       "(more than 100 levels)") != NULL);
    ASSERT(strstr(got, "chain100") == NULL);
    talloc_free(ctx);
}

TEST(named_query_without_lookup)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error;

    ASSERT_EQ(maildex__query_parse(ctx, "query:lunch", NULL, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_STR_EQ(maildex__qnode_to_string(ctx, n), "(none)");
    /* error may be NULL when the caller only wants the status */
    ASSERT_EQ(maildex__query_parse(ctx, "and", NULL, &n, NULL), MAILDEX__QUERY_BAD);
    talloc_free(ctx);
}

TEST(syntax_errors)
{
    static const struct qcase cases[] = {
        {"tag:inbox and ", "error: syntax error at position 14: expected a term after 'and'"},
        {"tag:inbox and (", "error: syntax error at position 15: expected a term after 'and'"},
        {"and", "error: syntax error at position 0: expected a term before 'and'"},
        {"or tag:x", "error: syntax error at position 0: expected a term before 'or'"},
        {"OR", "error: syntax error at position 0: expected a term before 'OR'"},
        {"xor", "error: syntax error at position 0: expected a term before 'xor'"},
        {"a or", "error: syntax error at position 4: expected a term after 'or'"},
        {"a or or b", "error: syntax error at position 5: expected a term after 'or'"},
        {"a AND OR b", "error: syntax error at position 6: expected a term after 'AND'"},
        {"a xor", "error: syntax error at position 5: expected a term after 'xor'"},
        {"not", "error: syntax error at position 3: expected a term after 'not'"},
        {"a not", "error: syntax error at position 5: expected a term after 'not'"},
        {"a and not", "error: syntax error at position 9: expected a term after 'not'"},
        {"not not a", "error: syntax error at position 4: expected a term after 'not'"},
        {"a not not b", "error: syntax error at position 6: expected a term after 'not'"},
        {"a and not not b", "error: syntax error at position 10: expected a term after 'not'"},
        {"a or -b", "error: syntax error at position 5: '-' cannot follow 'or' (use 'and -' or 'and not')"},
        {"a xor -b", "error: syntax error at position 6: '-' cannot follow 'xor' (use 'and -' or 'and not')"},
        {"not -a", "error: syntax error at position 4: '-' cannot follow 'not' (use 'and -' or 'and not')"},
        {"a and -", "error: syntax error at position 7: expected a term after 'and'"},
        {"a and -)", "error: syntax error at position 7: expected a term after 'and'"},
        {"(and a)", "error: syntax error at position 1: expected a term before 'and'"},
        {"a (or b)", "error: syntax error at position 3: expected a term before 'or'"},
        {"tag:inbox and ()", "error: syntax error at position 16: expected a term after 'and'"},
        {"tag:inbox or \"", "error: syntax error at position 14: expected a term after 'or'"},
        {"tag:inbox and '", "error: syntax error at position 15: expected a term after 'and'"},
        {"thread:{from:x", "error: syntax error at position 7: missing '}' in thread subquery"},
        {"thread:{from:x}y", "error: syntax error at position 7: missing '}' in thread subquery"},
        {"thread:\"{from:x\"", "error: syntax error at position 0: missing '}' in thread subquery"},
        {"thread:{a and}", "error: syntax error at position 13: expected a term after 'and'"},
        {"tag:/foo", "error: syntax error at position 0: unmatched regex delimiter in 'tag:/foo'"},
        {"tag:x subject:/", "error: syntax error at position 6: unmatched regex delimiter in 'subject:/'"},
        {"sexp:\"(foo)\"", "error: syntax error at position 0: in sexp:\"(foo)\": unknown prefix 'foo'"},
    };

    CHECK_CASES(cases);
}

/* Malformed queries, read as notmuch 0.37 (Xapian 1.4) reads them; test/T115-differential-malformed.sh
 * compares their counts with notmuch's. */
TEST(malformed_groups_and_quotes)
{
    static const struct qcase cases[] = {
        /* an unclosed '(' or '"' closes at the end */
        {"((a)", "(text \"a\")"},
        {"(a or b", "(or (text \"a\") (text \"b\"))"},
        {"not (a", "(not (text \"a\"))"},
        {"+a -- (from:carol", "(and (text \"a\") (from \"carol\"))"},
        {"\"sure works", "(text \"sure works\" phrase quoted)"},
        {"a \"b c", "(and (text \"a\") (text \"b c\" phrase quoted))"},
        {"subject:\"unterminated", "(subject \"unterminated\" quoted)"},
        {"from:\"x y", "(from \"x y\" phrase quoted)"},
        {"tag:\"foo", "(tag \"foo\" quoted)"},
        {"tag:\"foo\"\"", "(tag \"foo\\\"\" quoted)"},
        {"id:\"x", "(id \"x\" quoted)"},
        /* a '(' or '"' that opens nothing is dropped: at the end, empty, or a '(' stuck to a word */
        {"(", "(none)"},
        {"a (", "(text \"a\")"},
        {"a ()", "(text \"a\")"},
        {"( ) a", "(text \"a\")"},
        {"\"", "(none)"},
        {"\"\"\"", "(none)"},
        {"a \"", "(text \"a\")"},
        {"a(b", "(and (text \"a\" quoted) (text \"b\"))"},
        /* what Xapian calls "parse error" is read again with every word a term: an unmatched ')', */
        {")", "(none)"},
        {"a )", "(text \"a\")"},
        {"a))", "(text \"a\")"},
        {"(a or b))", "(and (text \"a\") (text \"or\") (text \"b\"))"},
        {"a) or (b", "(and (text \"a\") (text \"or\") (text \"b\"))"},
        {"tag:inbox)", "(tag \"inbox\")"},
        {"plan*)", "(text \"plan\" quoted)"},
        {"\"the plan\")", "(and (text \"the\") (text \"plan\" quoted))"},
        /* an empty group or phrase, */
        {"()", "(none)"},
        {"((", "(none)"},
        {"(())", "(none)"},
        {"(*)", "(none)"},
        {"subject:(", "(subject \"(\")"},
        {"subject:()", "(subject \"(\")"},
        {"\"'\"", "(none)"},
        {"tag:inbox and \"'\"", "(and (tag \"inbox\") (text \"and\"))"},
        {"to:\"\"", "(text \"to\")"},
        /* and a to:/body:/attachment:/mimetype: quote left open, whose prefix Xapian then closes as a group */
        {"to:\"user@x.org", "(and (text \"to\") (text \"user@x.org\" phrase))"},
        {"body:\"the plan", "(and (text \"body\") (text \"the\") (text \"plan\"))"},
        {"to:(", "(text \"to\")"},
        /* the curly quotes U+201C and U+201D are quotes too; a boolean value opened with '"' ends with '"' */
        {"\u201cplan\u201d", "(text \"plan\" quoted)"},
        {"a \u201d", "(text \"a\")"},
        {"\u201cplanning meeting", "(text \"planning meeting\" phrase quoted)"},
        {"tag:\u201cinbox", "(tag \"inbox\" quoted)"},
        {"tag:\"inbox\u201d", "(tag \"inbox\u201d\" quoted)"},
        {"to:\u201cuser", "(and (text \"to\") (text \"user\"))"},
    };

    CHECK_CASES(cases);
}

TEST(malformed_signs_and_operators)
{
    static const struct qcase cases[] = {
        /* a query of excluded terms only is a parse error */
        {"-a or b", "(and (text \"a\") (text \"or\") (text \"b\"))"},
        {"(-a)", "(text \"a\")"},
        {"tag:inbox and (-a)", "(and (tag \"inbox\") (text \"and\") (text \"a\"))"},
        {"-(a b)", "(and (text \"a\") (text \"b\"))"},
        /* and so is a sign with no term */
        {"-)", "(none)"},
        {"a -)", "(text \"a\")"},
        {"a -(", "(text \"a\")"},
        {"-'", "(none)"},
        {"-not a", "(and (text \"not\") (text \"a\"))"},
        {"-, +a", "(text \"a\")"},
        /* dropped signs: at the end, before whitespace or another sign, inside a word */
        {"a -", "(text \"a\")"},
        {"a - b", "(and (text \"a\") (text \"b\"))"},
        {"--a", "(text \"a\")"},
        {"(a)-b", "(and (text \"a\") (text \"b\"))"},
        /* a sign that dropped punctuation separates from its word takes the words that follow */
        {"-'foo bar' x", "(and (not (and (text \"foo\") (text \"bar\"))) (text \"x\"))"},
        {"x -,foo* bar", "(and (text \"x\") (not (text \"foo\" wildcard)) (text \"bar\"))"},
        /* operators are Xapian's terms: split off by punctuation, and not with an apostrophe */
        {"plan*and b", "(and (text \"plan\" quoted) (text \"b\"))"},
        {"AND*", "error: syntax error at position 0: expected a term before 'AND'"},
        {"or'", "error: syntax error at position 0: expected a term before 'or'"},
        {"and'x", "(text \"and'x\" phrase)"},
        /* an operator whose left operand is missing fails at its end, */
        {"a or and b", "error: syntax error at position 5: expected a term before 'and'"},
        {"+and xor tag:x", "error: syntax error at position 5: expected a term before 'xor'"},
        /* or Xapian has reset its grammar and restarts at a boolean-prefixed term in the same lexer step */
        {"a or or tag:x", "(tag \"x\")"},
        {"a or or tag:x b", "(and (tag \"x\") (text \"b\"))"},
        {"a and and tag:x", "(tag \"x\")"},
        {"not not tag:x", "(tag \"x\")"},
        {"a and or tag:x", "(tag \"x\")"},
        {"a xor or tag:x", "(tag \"x\")"},
        {"or or tag:x", "(tag \"x\")"},
        {"a or or +tag:x", "(tag \"x\")"},
        {"tag:y or -tag:x", "(tag \"x\")"},
        {"-tag:y and tag:x", "(tag \"x\")"},
        {"-and tag:x", "(tag \"x\")"},
        {"(a or or tag:x)", "(and (text \"a\") (text \"or\") (text \"or\") (tag \"x\"))"},
        {"a or or to:x", "error: syntax error at position 5: expected a term after 'or'"},
        {"a or or date:2023..", "error: syntax error at position 5: expected a term after 'or'"},
    };

    CHECK_CASES(cases);
}

TEST(malformed_words_and_ranges)
{
    static const struct qcase cases[] = {
        /* punctuation before a word is dropped, so a prefix after it counts */
        {"'tag:x", "(tag \"x\")"},
        {".tag:x", "(tag \"x\")"},
        {"a,tag:x", "(and (text \"a\") (tag \"x\"))"},
        {"to:,x", "(and (text \"to\") (text \"x\"))"},
        {"to:-x", "(to \"x\")"},
        {"body:plan,x", "(and (body \"plan\") (text \"x\"))"},
        /* a word followed by one of ( / \ @ < > = * [ { " is not stemmed */
        {"planning\"", "(text \"planning\" quoted)"},
        {"plan<", "(text \"plan\" quoted)"},
        {"plan/", "(text \"plan\" quoted)"},
        {"plan-", "(text \"plan\")"},
        {"body:plan\"", "(body \"plan\" quoted)"},
        /* a thread:{...} value runs on past the brace, and must end with one */
        {"thread:{a}}", "(thread-of (text \"a\"))"},
        {"thread:{a}b", "error: syntax error at position 7: missing '}' in thread subquery"},
        /* a word with `..` is tried as a range first, wherever it starts */
        {"\"date:2023..2024\"", "error: syntax error at position 0: unknown range operation '\"date:2023..2024\"' (a "
                                "word with '..' is a range of seconds since the epoch)"},
        {"tag:x -date:2023..2024", "error: syntax error at position 7: unknown range operation 'date:2023..2024' (a "
                                   "word with '..' is a range of seconds since the epoch)"},
        {"tag:x -tag:a..b", "(and (tag \"x\") (not (tag \"a..b\")))"},
        {"-1..5", "(date \"@0..@5\")"},
        {"-5..-1", "(none)"},
        {".5..2", "(date \"@1..@2\")"},
        {"-. 1..2 x", "(and (date \"@1..@2\") (text \"x\"))"},
        /* ranges of dates are grouped apart from date: values */
        {"date:2023 date:2020..2021", "(and (date \"2023\") (date \"2020..2021\"))"},
        {"date:2020..2021 1..2", "(or (date \"2020..2021\") (date \"@1..@2\"))"},
    };

    CHECK_CASES(cases);
}

TEST(node_positions_and_ownership)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error;

    ASSERT_EQ(maildex__query_parse(ctx, "tag:a  from:b thread:{to:c}", &options, &n, &error), MAILDEX__QUERY_OK);
    ASSERT(error == NULL);
    ASSERT_EQ(n->kind, MAILDEX__Q_AND);
    ASSERT_EQ(n->nchildren, 3);
    ASSERT_EQ(n->children[0]->pos, 0);
    ASSERT_EQ(n->children[1]->pos, 7);
    ASSERT_EQ(n->children[1]->field, MAILDEX__QF_FROM);
    ASSERT_STR_EQ(n->children[1]->value, "b");
    ASSERT_EQ(n->children[2]->kind, MAILDEX__Q_THREAD);
    ASSERT_EQ(n->children[2]->children[0]->pos, 22);
    /* The whole tree hangs off the root: freeing it leaves ctx empty. */
    talloc_free(n);
    ASSERT_EQ(talloc_total_blocks(ctx), 1);
    /* Nodes of an expanded named query point at the query: term. */
    ASSERT_EQ(maildex__query_parse(ctx, "tag:z query:lunch", &options, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_STR_EQ(maildex__qnode_to_string(n, n), "(and (tag \"z\") (subject \"lunch\") (tag \"inbox\"))");
    ASSERT_EQ(n->children[1]->pos, 6);
    ASSERT_EQ(n->children[2]->pos, 6);
    talloc_free(n);
    /* A failed parse leaves nothing but the message. */
    ASSERT_EQ(maildex__query_parse(ctx, "a and (b or", &options, &n, &error), MAILDEX__QUERY_BAD);
    ASSERT(n == NULL);
    talloc_free(error);
    ASSERT_EQ(talloc_total_blocks(ctx), 1);
    ASSERT_STR_EQ(maildex__qnode_to_string(ctx, NULL), "nil");
    talloc_free(ctx);
}

static char *repeat(void *ctx, const char *s, size_t times, const char *tail)
{
    size_t n = strlen(s);
    char *out = talloc_array(ctx, char, n * times + strlen(tail) + 1);

    for (size_t i = 0; i < times; i++)
        memcpy(out + i * n, s, n);
    strcpy(out + n * times, tail);
    return out;
}

TEST(deep_nesting_is_an_error)
{
    static const char *const nests[][2] = {{"(", ")"},  {"not (", ")"},       {"subject:(", ")"}, {"-(", ")"},
                                           {"tag:(", ")"}, {"thread:{", "}"}, {"thread:{(", ")}"}};
    /* thread:{ rescans the rest of the text at each of its 100 levels: fewer of those keep this quick */
    void *ctx = talloc_new(NULL);

    for (size_t i = 0; i < sizeof nests / sizeof nests[0]; i++) {
        size_t times = strncmp(nests[i][0], "thread", 6) == 0 ? 10000 : 100000;
        char *q = talloc_asprintf(ctx, "%s%s", repeat(ctx, nests[i][0], times, "a"),
                                  repeat(ctx, nests[i][1], times, ""));
        char *got = parse_to_string(ctx, q);

        ASSERT(strstr(got, "query nested too deeply (more than 100 levels)") != NULL);
        /* and unbalanced, which would close at the end */
        got = parse_to_string(ctx, repeat(ctx, nests[i][0], times, "a"));
        ASSERT(strncmp(got, "error: syntax error at position ", 32) == 0);
        ASSERT(strstr(got, "query nested too deeply") != NULL || strstr(got, "missing '}'") != NULL);
    }
    /* 100 levels is still fine */
    {
        char *q = repeat(ctx, "(", 99, "a");
        char *got;

        q = talloc_asprintf(ctx, "%s%s", q, repeat(ctx, ")", 99, ""));
        got = parse_to_string(ctx, q);
        ASSERT_STR_EQ(got, "(text \"a\")");
    }
    talloc_free(ctx);
}

TEST(huge_flat_queries)
{
    void *ctx = talloc_new(NULL);
    struct maildex__qnode *n;
    char *error;

    ASSERT_EQ(maildex__query_parse(ctx, repeat(ctx, "tag:a from:b word ", 30000, ""), NULL, &n, &error),
              MAILDEX__QUERY_OK);
    ASSERT_EQ(n->kind, MAILDEX__Q_AND);
    ASSERT_EQ(n->nchildren, 30002); /* the two OR groups and 30000 words */
    ASSERT_EQ(n->children[0]->nchildren, 30000);
    ASSERT_EQ(maildex__query_parse(ctx, repeat(ctx, "a or ", 100000, "b"), NULL, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_EQ(n->nchildren, 100001);
    ASSERT(maildex__qnode_to_string(ctx, n) != NULL);
    /* empty phrases are dropped, and the last quote opens nothing */
    ASSERT_EQ(maildex__query_parse(ctx, repeat(ctx, "\"", 100001, ""), NULL, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_EQ(n->kind, MAILDEX__Q_NONE);
    /* a restart or a second reading per operator stays linear */
    ASSERT_EQ(maildex__query_parse(ctx, repeat(ctx, "a or or tag:x ", 20000, ""), NULL, &n, &error),
              MAILDEX__QUERY_OK);
    ASSERT_STR_EQ(maildex__qnode_to_string(ctx, n), "(tag \"x\")");
    ASSERT_EQ(maildex__query_parse(ctx, repeat(ctx, "a ) ", 20000, ""), NULL, &n, &error), MAILDEX__QUERY_OK);
    ASSERT_EQ(n->nchildren, 20000);
    talloc_free(ctx);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random queries, from raw bytes and from query-like fragments: every result is a tree or an error. */
TEST(fuzz)
{
    static const char *const frags[] = {"tag:", "from:", "subject:", "thread:", "query:", "date:", "id:", "mid:",
                                        "folder:", "path:", "(", ")", "\"", "\"\"", "{", "}", "/", " ", " and ",
                                        " or ", " not ", " xor ", "-", "+", "*", "'", "a", "Bob", "x@y.z", "..",
                                        "lunch", "query:a", "query:lunch", "query:chain90", "sexp:", "é", "\t",
                                        "\u201c", "\u201d", ",", ".", "1..2", "-1", "date:", "to:", "and'"};
    char buf[256];

    for (int iter = 0; iter < 20000; iter++) {
        void *ctx = talloc_new(NULL);
        struct maildex__qnode *n;
        char *error;
        size_t len = 0, want = rng() % 48;
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
        rc = maildex__query_parse(ctx, buf, &options, &n, &error);
        if (rc == MAILDEX__QUERY_OK) {
            ASSERT(n != NULL);
            ASSERT(maildex__qnode_to_string(ctx, n) != NULL);
        } else {
            ASSERT_EQ(rc, MAILDEX__QUERY_BAD);
            ASSERT(n == NULL && error != NULL && strstr(error, " at position ") != NULL);
        }
        talloc_free(ctx);
    }
}

TEST_MAIN(TEST_ENTRY(prefixes) TEST_ENTRY(free_text) TEST_ENTRY(legacy_range) TEST_ENTRY(quoted_date_range)
              TEST_ENTRY(prefixed_paren_query) TEST_ENTRY(all_and_none) TEST_ENTRY(operators_and_precedence)
              TEST_ENTRY(same_prefix_grouping) TEST_ENTRY(quoting) TEST_ENTRY(wildcards_and_regexes)
                  TEST_ENTRY(thread_subqueries) TEST_ENTRY(emacs_queries) TEST_ENTRY(named_queries)
                      TEST_ENTRY(named_query_without_lookup) TEST_ENTRY(syntax_errors)
                          TEST_ENTRY(malformed_groups_and_quotes) TEST_ENTRY(malformed_signs_and_operators)
                          TEST_ENTRY(malformed_words_and_ranges)
                          TEST_ENTRY(node_positions_and_ownership) TEST_ENTRY(deep_nesting_is_an_error)
                              TEST_ENTRY(huge_flat_queries) TEST_ENTRY(fuzz))
