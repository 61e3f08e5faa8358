/* SPDX-License-Identifier: GPL-3.0-or-later */
/* read/thread-tree.c: a thread's messages arranged as notmuch 0.37 arranges them for show, on hand-made
 * message objects with their In-Reply-To parents and References given here (the callback stands in for
 * reading the files). Each case prints the tree as "id(reply reply(...))" and checks it, and which
 * messages needed their references read. */
#include "read/search.h"
#include "test.h"

#include <stdlib.h>

struct fx {
    const char *id;
    int64_t date;
    const char *parent;     /* In-Reply-To as the database has it */
    const char *references; /* space-separated, as the file would give them */
};

struct refs_log {
    const struct fx *fx;
    size_t n;
    char asked[256];
};

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

static maildex_status_t fake_refs(void *data, void *ctx, maildex_message_t *m, char ***ids)
{
    struct refs_log *log = data;

    for (size_t i = 0; i < log->n; i++) {
        if (strcmp(log->fx[i].id, m->message_id) != 0)
            continue;
        char **split = g_strsplit(log->fx[i].references ? log->fx[i].references : "", " ", -1);
        size_t k = 0;
        *ids = talloc_zero_array(ctx, char *, g_strv_length(split) + 1);
        for (char **s = split; *s; s++)
            if (**s)
                (*ids)[k++] = talloc_strdup(*ids, *s);
        /* Sorted, as the real callback hands them over (notmuch's term order). */
        qsort(*ids, k, sizeof **ids, by_bytes);
        g_strfreev(split);
    }
    g_strlcat(log->asked, log->asked[0] ? " " : "", sizeof log->asked);
    g_strlcat(log->asked, m->message_id, sizeof log->asked);
    return MAILDEX_STATUS_OK;
}

static void print(GString *out, maildex_message_t *const *list)
{
    for (size_t i = 0; list && list[i]; i++) {
        g_string_append_printf(out, "%s%s", i ? " " : "", list[i]->message_id);
        if (list[i]->nreplies) {
            g_string_append_c(out, '(');
            print(out, list[i]->replies);
            g_string_append_c(out, ')');
        }
    }
}

/* Arranges fx (given in key order: oldest first, as the thread index reads them) and checks the tree and the messages whose references were read. */
static void check(const struct fx *fx, size_t n, const char *want, const char *want_asked)
{
    void *ctx = talloc_new(NULL);
    maildex_message_t **list = talloc_array(ctx, maildex_message_t *, n);
    maildex_message_t **top;
    struct refs_log log = {.fx = fx, .n = n};
    GString *out = g_string_new("");

    for (size_t i = 0; i < n; i++) {
        list[i] = talloc_zero(list, maildex_message_t);
        list[i]->message_id = fx[i].id;
        list[i]->date = fx[i].date;
        list[i]->parent = fx[i].parent;
    }
    ASSERT_EQ(maildex__thread_arrange(ctx, list, n, fake_refs, &log, &top), MAILDEX_STATUS_OK);
    print(out, top);
    ASSERT_STR_EQ(out->str, want);
    ASSERT_STR_EQ(log.asked, want_asked);
    g_string_free(out, TRUE);
    talloc_free(ctx);
}

TEST(replies_hang_under_their_in_reply_to_by_date)
{
    static const struct fx fx[] = {
        {"a", 10, NULL, NULL}, {"b", 20, "a", "a"}, {"c", 30, "a", "a"}, {"d", 40, "b", "a b"}};
    check(fx, 4, "a(b(d) c)", "");
}

TEST(a_missing_parent_hangs_under_the_deepest_reference)
{
    static const struct fx fx[] = {{"a", 10, NULL, NULL},
                                   {"b", 20, "a", "a"},
                                   {"c", 30, "b", "a b"},
                                   {"x", 40, "gone", "a b gone"}};
    /* x names a (depth 0) and b (depth 1): b wins. */
    check(fx, 4, "a(b(c x))", "x");
}

TEST(equal_depths_go_to_the_first_reference_in_byte_order)
{
    /* q and p are both one deep; p comes first in byte order, whatever order the header names them. */
    static const struct fx fx[] = {
        {"r", 10, NULL, NULL}, {"q", 20, "r", "r"}, {"p", 30, "r", "r"}, {"x", 40, "gone", "q p gone"}};
    check(fx, 4, "r(q p(x))", "x");
}

TEST(roots_without_references_are_top_level_by_date)
{
    /* Both answer a message that is not in the store: the newer is a candidate first and finds no
     * reference in the thread, so the oldest is asked too; then the top level is sorted by date. */
    static const struct fx fx[] = {{"b", 5, "gone", "gone"}, {"c", 10, "gone", "gone"}};
    check(fx, 2, "b c", "c b");
}

TEST(the_oldest_goes_under_its_parent_when_another_root_exists)
{
    /* a answers c, which is newer (dates out of order); d has no parent: a hangs under c. */
    static const struct fx fx[] = {{"a", 10, "c", "c"}, {"c", 20, NULL, NULL}, {"d", 30, NULL, NULL}};
    check(fx, 3, "c(a) d", "c d");
}

TEST(a_cycle_keeps_the_oldest_as_root)
{
    /* a and b answer each other: nothing else is a root, so the oldest is, and its own In-Reply-To
     * is not followed (notmuch's short circuit). */
    static const struct fx fx[] = {{"a", 10, "b", "b"}, {"b", 20, "a", "a"}};
    check(fx, 2, "a(b)", "");
}

TEST(a_candidate_under_its_own_reply_vanishes_as_in_notmuch)
{
    /* x is a root candidate (its parent is missing) whose References name its own reply y, deeper
     * than anything else: notmuch puts x under y, and neither is reachable from the top. */
    static const struct fx fx[] = {{"a", 10, NULL, NULL}, {"x", 20, "gone", "a y"}, {"y", 30, "x", "x"}};
    check(fx, 3, "a", "x");
}

TEST(a_single_message_is_its_own_thread)
{
    static const struct fx fx[] = {{"only", 10, "gone", "gone"}};
    check(fx, 1, "only", "");
}

TEST(equal_dates_keep_their_order)
{
    static const struct fx fx[] = {
        {"a", 10, NULL, NULL}, {"m", 20, "a", "a"}, {"k", 20, "a", "a"}, {"z", 20, "a", "a"}};
    check(fx, 4, "a(m k z)", "");
}

TEST_MAIN(TEST_ENTRY(replies_hang_under_their_in_reply_to_by_date)
          TEST_ENTRY(a_missing_parent_hangs_under_the_deepest_reference)
          TEST_ENTRY(equal_depths_go_to_the_first_reference_in_byte_order)
          TEST_ENTRY(roots_without_references_are_top_level_by_date)
          TEST_ENTRY(the_oldest_goes_under_its_parent_when_another_root_exists)
          TEST_ENTRY(a_cycle_keeps_the_oldest_as_root)
          TEST_ENTRY(a_candidate_under_its_own_reply_vanishes_as_in_notmuch)
          TEST_ENTRY(a_single_message_is_its_own_thread)
          TEST_ENTRY(equal_dates_keep_their_order))
