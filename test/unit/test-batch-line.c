/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch's batch-tag lines (lib/tag/batch-line.c): parsing `tag --batch` and `restore` lines with
 * notmuch's warnings word for word (test/T240-dump-restore.sh of notmuch checks them), and writing
 * the dump's lines byte for byte as notmuch 0.37 writes them (the expected lines below were printed
 * by notmuch itself); every line written reads back as what was written. Public API only. */
#include "maildex.h"
#include "test.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* The line parsed with flags, rendered: "ERR <warning>", "-" for nothing, or "T id=ID q=QUERY +a -b",
 * "P id=ID k=v ...", "C k=v" (| between a key and a value that hold '=' would be ambiguous: none do). */
static char *render(const char *line, unsigned flags)
{
    maildex_batch_line_t *b = NULL;
    char *error = NULL, *out = NULL;
    maildex_status_t st = maildex_batch_line_parse(line, flags, &b, &error);
    GString *s;

    if (st == MAILDEX_STATUS_INVALID_ARGUMENT) {
        ASSERT(b == NULL && error != NULL);
        out = g_strdup_printf("ERR %s", error);
        free(error);
        return out;
    }
    ASSERT_EQ(st, MAILDEX_STATUS_OK);
    ASSERT(error == NULL);
    if (b == NULL)
        return g_strdup("-");
    s = g_string_new(b->kind == MAILDEX_BATCH_TAGS ? "T" : b->kind == MAILDEX_BATCH_PROPERTIES ? "P" : "C");
    if (b->message_id)
        g_string_append_printf(s, " id=%s", b->message_id);
    if (b->query)
        g_string_append_printf(s, " q=%s", b->query);
    for (size_t i = 0; i < b->nops; i++)
        g_string_append_printf(s, " %c%s", b->ops[i].add ? '+' : '-', b->ops[i].tag);
    for (size_t i = 0; i < b->npairs; i++)
        g_string_append_printf(s, " %s=%s", b->pairs[i].key, b->pairs[i].value);
    maildex_batch_line_free(b);
    return g_string_free(s, FALSE);
}

static const struct {
    const char *line;
    unsigned flags;
    const char *want;
} cases[] = {
    /* tag --batch (notmuch's parse_tag_line) */
    {"", 0, "-"},
    {"  \t ", 0, "-"},
    {"# a comment", 0, "-"},
    {" \t# indented comment", 0, "-"},
    {"+a -b -- tag:x", 0, "T q=tag:x +a -b"},
    {"+a tag:x and  y ", 0, "T q=tag:x and  y  +a"},
    {"\t+a -- x\n", 0, "T q=x +a"},
    {"-- x", 0, "T q=x"},
    {"a", 0, "T q=a"},
    {"+to%20do +%c3%bc +%C3%BC +%25 -%22q%22 -- *", 0, "T q=* +to do +\xc3\xbc +\xc3\xbc +% -\"q\""},
    {"+%2dx -- *", 0, "T q=* +-x"}, /* checked before decoding, as notmuch does */
    {"+0", 0, "ERR Warning: no query string [+0]"},
    {"+a +b", 0, "ERR Warning: no query string [+a +b]"},
    {"+a +b ", 0, "ERR Warning: missing query string [+a +b ]"},
    {"+c +d --", 0, "ERR Warning: no query string after -- [+c +d --]"},
    {"+%zz -- id:whatever", 0, "ERR Warning: hex decoding of tag %zz failed [+%zz -- id:whatever]"},
    {"+a% -- x", 0, "ERR Warning: hex decoding of tag a% failed [+a% -- x]"},
    {"+ -- x", 0, "ERR Warning: empty tag forbidden [+ -- x]"},
    {"+-x -- y", 0, "ERR Warning: tag starting with '-' forbidden [+-x -- y]"},
    {"- -- y", 0, "T q=y -"},
    /* restore (generous tags, one id: term, "#=" and "#@" lines) */
    {"+ -- id:20091117232137.GA7669@griffis1.net", MAILDEX_BATCH_RESTORE,
     "T id=20091117232137.GA7669@griffis1.net q=id:20091117232137.GA7669@griffis1.net +"},
    {"+ +e -- id:x", MAILDEX_BATCH_RESTORE, "T id=x q=id:x + +e"},
    {"+-x -- id:x", MAILDEX_BATCH_RESTORE, "T id=x q=id:x +-x"},
    {" -- id:x", MAILDEX_BATCH_RESTORE, "T id=x q=id:x"},
    {"a", MAILDEX_BATCH_RESTORE, "ERR Warning: cannot parse query: a (skipping)"},
    {"+e +f id:\"", MAILDEX_BATCH_RESTORE, "ERR Warning: cannot parse query: id:\" (skipping)"},
    {"+e +f tag:abc", MAILDEX_BATCH_RESTORE, "ERR Warning: not an id query: tag:abc (skipping)"},
    {"+e id:missing_message_id", MAILDEX_BATCH_RESTORE, "T id=missing_message_id q=id:missing_message_id +e"},
    {"+e -- id:some)stuff", MAILDEX_BATCH_RESTORE, "ERR Warning: cannot parse query: id:some)stuff (skipping)"},
    {"+e -- id:some stuff", MAILDEX_BATCH_RESTORE, "ERR Warning: cannot parse query: id:some stuff (skipping)"},
    {"+e -- id:some\"stuff", MAILDEX_BATCH_RESTORE, "T id=some\"stuff q=id:some\"stuff +e"},
    {"+e -- id:\"a_message_id_with\"\"_a_quote\"", MAILDEX_BATCH_RESTORE,
     "T id=a_message_id_with\"_a_quote q=id:\"a_message_id_with\"\"_a_quote\" +e"},
    {"+e -- id:\"a message id with spaces\"", MAILDEX_BATCH_RESTORE,
     "T id=a message id with spaces q=id:\"a message id with spaces\" +e"},
    {"+e --  id:an_id_with_leading_and_trailing_ws ", MAILDEX_BATCH_RESTORE,
     "T id=an_id_with_leading_and_trailing_ws q=id:an_id_with_leading_and_trailing_ws  +e"},
    {"+e -- id:\"x\" y", MAILDEX_BATCH_RESTORE, "ERR Warning: cannot parse query: id:\"x\" y (skipping)"},
    {"+%zz -- id:x", MAILDEX_BATCH_RESTORE, "ERR Warning: hex decoding of tag %zz failed [+%zz -- id:x]"},
    {"#notmuch-dump batch-tag:3 config,properties,tags", MAILDEX_BATCH_RESTORE, "-"},
    {"#@ query.lunch subject%3alunch%20and%20tag%3ainbox", MAILDEX_BATCH_RESTORE,
     "C query.lunch=subject:lunch and tag:inbox"},
    {"#@ query.empty ", MAILDEX_BATCH_RESTORE, "C query.empty="},
    {"#@ a%zz b", MAILDEX_BATCH_RESTORE, "ERR Warning: hex decoding of config key or value failed [#@ a%zz b]"},
    {"#@", MAILDEX_BATCH_RESTORE, "ERR Warning: no config key [#@]"},
    {"#= m2@x k=a%20b k=v k2= =v", MAILDEX_BATCH_RESTORE, "P id=m2@x k=a b k=v k2= =v"},
    {"#= %3cm%3e a%3db=c", MAILDEX_BATCH_RESTORE, "P id=<m> a=b=c"},
    {"#= m2@x k", MAILDEX_BATCH_RESTORE, "ERR Warning: property k has no '=' [#= m2@x k]"},
    {"#= m2@x k%z=v", MAILDEX_BATCH_RESTORE, "ERR Warning: hex decoding of property k%z=v failed [#= m2@x k%z=v]"},
    {"#=", MAILDEX_BATCH_RESTORE, "ERR Warning: no message id [#=]"},
    {"#= a%g", MAILDEX_BATCH_RESTORE, "ERR Warning: hex decoding of message id a%g failed [#= a%g]"},
    {"#@ k v", 0, "-"}, /* tag --batch: a comment */
    /* sup */
    {"m@x (a b)", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, "T id=m@x q=m@x +a +b"},
    {"m@x ()", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, "T id=m@x q=m@x"},
    {"m@x (\"q\" %x  to)", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, "T id=m@x q=m@x +\"q\" +%x +to"},
    {"m@x (a", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, "ERR Warning: Ignoring invalid sup format line: m@x (a"},
    {"m@x  (a)", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, "ERR Warning: Ignoring invalid sup format line: m@x  (a)"},
    {"m@x (a) b)", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP,
     "ERR Warning: Ignoring invalid sup format line: m@x (a) b)"},
    {"(a)", MAILDEX_BATCH_RESTORE | MAILDEX_BATCH_SUP, "ERR Warning: Ignoring invalid sup format line: (a)"},
};

TEST(parse_lines_as_notmuch_does)
{
    int bad = 0;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = render(cases[i].line, cases[i].flags);
        if (strcmp(got, cases[i].want) != 0) {
            printf("# line \"%s\" (flags %u):\n#   got:      %s\n#   expected: %s\n", cases[i].line,
                   cases[i].flags, got, cases[i].want);
            bad++;
        }
        g_free(got);
    }
    ASSERT_EQ(bad, 0);
}

TEST(error_may_be_null)
{
    maildex_batch_line_t *b = (maildex_batch_line_t *) 1;

    ASSERT_EQ(maildex_batch_line_parse("+0", 0, &b, NULL), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT(b == NULL);
    maildex_batch_line_free(NULL);
}

static char *format_tags(const char *id, const char *const *tags, bool sup)
{
    char *out = NULL;

    ASSERT_EQ(maildex_batch_format_tags(id, tags, sup, &out), MAILDEX_STATUS_OK);
    return out;
}

/* The expected lines are notmuch 0.37's dump of the same tags and ids. */
TEST(format_lines_as_notmuch_does)
{
    const char *const odd[] = {"\"q\"", "%x", "inbox", "to do", "unread", "\xc3\xbc", NULL};
    const char *const inbox[] = {"inbox", NULL};
    const char *const none[] = {NULL};
    const char *const empty[] = {"", NULL};
    const maildex_pair_t props[] = {{"k", "a b"}, {"k", "v"}, {"k2", ""}};
    const maildex_pair_t key_only[] = {{"", "v"}};
    char *s;

    s = format_tags("m1@x", odd, false);
    ASSERT_STR_EQ(s, "+%22q%22 +%25x +inbox +to%20do +unread +%c3%bc -- id:m1@x");
    free(s);
    s = format_tags("m1@x", odd, true);
    ASSERT_STR_EQ(s, "m1@x (\"q\" %x inbox to do unread \xc3\xbc)");
    free(s);
    s = format_tags("odd\"id\"(x)@x", inbox, false);
    ASSERT_STR_EQ(s, "+inbox -- id:\"odd\"\"id\"\"(x)@x\"");
    free(s);
    s = format_tags("m1@x", none, false);
    ASSERT_STR_EQ(s, " -- id:m1@x");
    free(s);
    s = format_tags("m1@x", empty, false);
    ASSERT_STR_EQ(s, "+ -- id:m1@x");
    free(s);
    s = format_tags("", none, false);
    ASSERT_STR_EQ(s, " -- id:\"\"");
    free(s);
    s = format_tags("a)b", none, false);
    ASSERT_STR_EQ(s, " -- id:\"a)b\"");
    free(s);
    s = format_tags("caf\xc3\xa9@x", none, false);
    ASSERT_STR_EQ(s, " -- id:\"caf\xc3\xa9@x\"");
    free(s);
    s = format_tags("a%b,c=d+e@f.g_h-i", none, false);
    ASSERT_STR_EQ(s, " -- id:a%b,c=d+e@f.g_h-i");
    free(s);
    ASSERT_EQ(maildex_batch_format_tags("a\nb", none, false, &s), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT(s == NULL);

    ASSERT_EQ(maildex_batch_format_properties("m2@x", props, 3, &s), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(s, "#= m2@x k=a%20b k=v k2=");
    free(s);
    ASSERT_EQ(maildex_batch_format_properties("m 2@x", key_only, 1, &s), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(s, "#= m%202@x =v");
    free(s);
    ASSERT_EQ(maildex_batch_format_properties("m2@x", props, 0, &s), MAILDEX_STATUS_OK);
    ASSERT(s == NULL);
    ASSERT_EQ(maildex_batch_format_config("query.lunch", "subject:lunch and tag:inbox", &s), MAILDEX_STATUS_OK);
    ASSERT_STR_EQ(s, "#@ query.lunch subject%3alunch%20and%20tag%3ainbox");
    free(s);
}

/* Every byte but NUL and the newline, in tags, ids, keys and values, reads back as it was written. */
TEST(every_line_written_reads_back)
{
    char all[256], id[300];
    size_t n = 0;

    for (int c = 1; c < 256; c++)
        if (c != '\n')
            all[n++] = (char) c;
    all[n] = '\0';
    for (size_t start = 0; start < n; start += 17) {
        const char *tags[3];
        char tag[40], *line;
        maildex_batch_line_t *b;
        maildex_pair_t pair;

        snprintf(tag, sizeof tag, "%.17s", all + start);
        snprintf(id, sizeof id, "<%.30s>@x", all + (start * 7) % (n - 30));
        tags[0] = tag;
        tags[1] = "plain";
        tags[2] = NULL;
        line = format_tags(id, tags, false);
        ASSERT_EQ(maildex_batch_line_parse(line, MAILDEX_BATCH_RESTORE, &b, NULL), MAILDEX_STATUS_OK);
        ASSERT(b != NULL);
        ASSERT_STR_EQ(b->message_id, id);
        ASSERT_EQ(b->nops, 2);
        ASSERT_STR_EQ(b->ops[0].tag, tag);
        ASSERT(b->ops[0].add && b->ops[1].add);
        maildex_batch_line_free(b);
        free(line);

        pair.key = strchr(tag, '=') ? "k" : tag;
        pair.value = all + start;
        ASSERT_EQ(maildex_batch_format_properties(id, &pair, 1, &line), MAILDEX_STATUS_OK);
        ASSERT_EQ(maildex_batch_line_parse(line, MAILDEX_BATCH_RESTORE, &b, NULL), MAILDEX_STATUS_OK);
        ASSERT(b != NULL && b->kind == MAILDEX_BATCH_PROPERTIES && b->npairs == 1);
        ASSERT_STR_EQ(b->message_id, id);
        ASSERT_STR_EQ(b->pairs[0].key, pair.key);
        ASSERT_STR_EQ(b->pairs[0].value, pair.value);
        maildex_batch_line_free(b);
        free(line);
    }
}

TEST_MAIN(TEST_ENTRY(parse_lines_as_notmuch_does) TEST_ENTRY(error_may_be_null)
              TEST_ENTRY(format_lines_as_notmuch_does) TEST_ENTRY(every_line_written_reads_back))
