/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex_query_addresses (lib/read/addresses.c): notmuch's de-duplication and counts, the reading order,
 * and where the mailboxes come from: the addresses table, or a message's file when the row is
 * missing (a database indexed before the table existed), never a file when the row is there. The
 * stores are small Maildirs written here and indexed by maildex_index, as `maildex new` would. */
#include "store/maildex-private.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>

/* Message i: date 2024-01-01 10:00 UTC plus i hours, so key order is the order of the array. */
#define T0 1704103200

static const char *const corpus[] = {
    /* 0 */ "From: Jane Roe <JANE@Example.COM>\nTo: Bob <bob@example.com>\n",
    /* 1 */ "From: jane@example.com\nTo: Bob <bob@example.com>, \"Carol, C.\" <carol@example.net>\n"
            "Cc: team: Dan <dan@example.com>;\nBcc: eve@example.com\n",
    /* 2 */ "From: Jane Roe <jane@example.com>\nTo: bob@example.com\n",
    /* 3 */ "From: Jane Roe <jane@example.com>\nTo: Bob <bob@example.com>\n",
};
#define N (sizeof corpus / sizeof corpus[0])

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ASSERT(f != NULL);
    fputs(text, f);
    ASSERT_EQ(fclose(f), 0);
}

/* Writes message i dated T0 + hours hours. */
static void write_message(const char *root, size_t i, const char *headers, int hours)
{
    char path[4400], text[1024];
    time_t t = T0 + (time_t) hours * 3600;
    struct tm tm;
    char date[64];

    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", gmtime_r(&t, &tm));
    snprintf(path, sizeof path, "%s/cur/%zu:2,S", root, i);
    snprintf(text, sizeof text, "%sSubject: message %zu\nDate: %s\nMessage-ID: <m%zu@example.org>\n\nbody\n",
             headers, i, date, i);
    write_file(path, text);
}

/* A Maildir of the n messages, message i dated i hours after T0 (n - i hours with reverse_dates),
 * each indexed by a run of its own, so the order they were indexed in is i's: one run would take
 * a new directory in inode order, which need not be the order the files were written. */
static maildex_db_t *store_of(const char *label, char *root, size_t size, const char *const *messages,
                              size_t n, bool reverse_dates)
{
    static const char *const subdirs[] = {"", "/cur", "/new", "/tmp"};
    const char *dir = test_scratch_dir(label);
    maildex_index_options_t opts = {0};
    char db_path[4200];
    maildex_db_t *db = NULL;
    char *err = NULL;

    snprintf(root, size, "%s/mail", dir);
    snprintf(db_path, sizeof db_path, "%s/maildex.db", dir);
    for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++) {
        char d[4300];
        snprintf(d, sizeof d, "%s%s", root, subdirs[k]);
        ASSERT_EQ(mkdir(d, 0700), 0);
    }
    if (maildex_db_open(db_path, root, MAILDEX_DB_CREATE, &db, &err) != MAILDEX_STATUS_OK) {
        printf("# %s\n", err ? err : "?");
        free(err);
    }
    ASSERT(db != NULL);
    opts.full_scan = true;
    for (size_t i = 0; i < n; i++) {
        write_message(root, i, messages[i], reverse_dates ? (int) (n - i) : (int) i);
        ASSERT_EQ(maildex_index(db, &opts, NULL), MAILDEX_STATUS_OK);
    }
    return db;
}

/* The mailboxes of query's matches as "count name-addr" (just "name-addr" when count was not asked
 * for), joined with "; " in the order they came. */
static char *list_of(maildex_db_t *db, const char *query, maildex_sort_t sort, unsigned headers,
                     maildex_dedup_t dedup, bool count)
{
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_address_options_t opts = {.headers = headers, .dedup = dedup, .count = count};
    maildex_query_t *q;
    maildex_addresses_t *it;
    const maildex_mailbox_t *mb;
    GString *out = g_string_new(NULL);
    char *result;

    qopts.sort = sort;
    ASSERT_EQ(maildex_query_create(db, query, &qopts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_addresses(q, &opts, &it), MAILDEX_STATUS_OK);
    while (maildex_addresses_next(it, &mb) == MAILDEX_STATUS_OK && mb) {
        if (out->len)
            g_string_append(out, "; ");
        if (count)
            g_string_append_printf(out, "%lld ", (long long) maildex_mailbox_count(mb));
        g_string_append(out, maildex_mailbox_name_addr(mb));
    }
    maildex_query_destroy(q);
    result = talloc_strdup(db, out->str);
    g_string_free(out, TRUE);
    return result;
}

static maildex_db_t *store(const char *label, char *root, size_t size)
{
    return store_of(label, root, size, corpus, N, false);
}

static char *list(maildex_db_t *db, maildex_sort_t sort, unsigned headers, maildex_dedup_t dedup,
                  bool count)
{
    return list_of(db, "*", sort, headers, dedup, count);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

static void exec(maildex_db_t *db, const char *sql)
{
    ASSERT_EQ(sqlite3_exec(db->sql, sql, NULL, NULL, NULL), SQLITE_OK);
}

TEST(every_mailbox_in_the_query_order)
{
    char root[4200];
    maildex_db_t *db = store("none", root, sizeof root);

    ASSERT_STR_EQ(list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_NONE, false),
                  "Jane Roe <JANE@Example.COM>; jane@example.com; Jane Roe <jane@example.com>; "
                  "Jane Roe <jane@example.com>");
    /* To, then the members of Cc's group, then Bcc; a quoted name stays quoted. */
    ASSERT_STR_EQ(list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_RECIPIENTS, MAILDEX_DEDUP_NONE,
                       false),
                  "Bob <bob@example.com>; bob@example.com; Bob <bob@example.com>; "
                  "\"Carol, C.\" <carol@example.net>; Dan <dan@example.com>; eve@example.com; "
                  "Bob <bob@example.com>");
    /* Senders first, then recipients, message by message. */
    ASSERT_STR_EQ(list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_SENDER | MAILDEX_ADDRESS_RECIPIENTS,
                       MAILDEX_DEDUP_NONE, false),
                  "Jane Roe <jane@example.com>; Bob <bob@example.com>; Jane Roe <jane@example.com>; "
                  "bob@example.com; jane@example.com; Bob <bob@example.com>; "
                  "\"Carol, C.\" <carol@example.net>; Dan <dan@example.com>; eve@example.com; "
                  "Jane Roe <JANE@Example.COM>; Bob <bob@example.com>");
    /* No header chosen means senders. */
    ASSERT_STR_EQ(list(db, MAILDEX_SORT_NEWEST_FIRST, 0, MAILDEX_DEDUP_NONE, false),
                  list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_NONE, false));
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* A (name, address) pair once, the first time it is read; names and addresses bytewise. */
TEST(dedup_mailbox_keeps_each_pair_once)
{
    char root[4200];
    maildex_db_t *db = store("mailbox", root, sizeof root);

    ASSERT_STR_EQ(list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_MAILBOX,
                       false),
                  "Jane Roe <JANE@Example.COM>; jane@example.com; Jane Roe <jane@example.com>");
    ASSERT_STR_EQ(list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_RECIPIENTS, MAILDEX_DEDUP_MAILBOX,
                       false),
                  "Bob <bob@example.com>; bob@example.com; \"Carol, C.\" <carol@example.net>; "
                  "Dan <dan@example.com>; eve@example.com");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* Counted pairs come after the whole pass, those of one address together (first seen first); the
 * order of the addresses is the hash table's, so the test sorts them. */
TEST(dedup_mailbox_with_counts)
{
    char root[4200];
    maildex_db_t *db = store("count", root, sizeof root);
    char *got = list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_MAILBOX, true);

    /* jane@example.com and JANE@Example.COM are one address of three pairs, read in the order
     * the files were indexed (0 to 3 here) whatever the query's order. */
    ASSERT_STR_EQ(got, "1 Jane Roe <JANE@Example.COM>; 1 jane@example.com; 2 Jane Roe <jane@example.com>");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* One line per address, case-insensitively: the most frequent pair with the total; of equally
 * frequent pairs the first read (in the order the files were indexed, notmuch's document order). */
TEST(dedup_address_most_frequent_pair)
{
    char root[4200];
    maildex_db_t *db = store("address", root, sizeof root);
    char **lines;

    ASSERT_STR_EQ(list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_ADDRESS, true),
                  "4 Jane Roe <jane@example.com>");
    lines = g_strsplit(list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_RECIPIENTS,
                            MAILDEX_DEDUP_ADDRESS, true), "; ", -1);
    ASSERT_EQ(g_strv_length(lines), 4);
    qsort(lines, 4, sizeof *lines, compare_strings);
    ASSERT_STR_EQ(lines[0], "1 \"Carol, C.\" <carol@example.net>");
    ASSERT_STR_EQ(lines[1], "1 Dan <dan@example.com>");
    ASSERT_STR_EQ(lines[2], "1 eve@example.com");
    ASSERT_STR_EQ(lines[3], "4 Bob <bob@example.com>");
    g_strfreev(lines);
    /* Tied 1:1 between JANE@Example.COM and jane@example.com: the first read wins, whatever the
     * query's order. */
    ASSERT_STR_EQ(list_of(db, "id:m0@example.org or id:m1@example.org", MAILDEX_SORT_NEWEST_FIRST,
                          MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_ADDRESS, true),
                  "2 Jane Roe <JANE@Example.COM>");
    ASSERT_STR_EQ(list_of(db, "id:m0@example.org or id:m1@example.org", MAILDEX_SORT_OLDEST_FIRST,
                          MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_ADDRESS, false),
                  "Jane Roe <JANE@Example.COM>");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* A whole pass reads the messages in the order they were indexed, not by date: notmuch reads them in
 * its document order. Here the first indexed is the newest message, so of the two spellings,
 * equally frequent, its spelling wins in either sort. */
TEST(whole_pass_reads_in_indexing_order)
{
    static const char *const newest_first[] = {"From: Foo Bar <foo@example.com>\n", "From: foo@example.com\n"};
    char root[4200];
    maildex_db_t *db = store_of("indexing-order", root, sizeof root, newest_first, 2, true);

    ASSERT_STR_EQ(list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_ADDRESS, true),
                  "2 Foo Bar <foo@example.com>");
    ASSERT_STR_EQ(list(db, MAILDEX_SORT_NEWEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_ADDRESS, false),
                  "Foo Bar <foo@example.com>");
    /* Read as they come, the sort decides. */
    ASSERT_STR_EQ(list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_MAILBOX, false),
                  "foo@example.com; Foo Bar <foo@example.com>");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST(count_needs_dedup)
{
    char root[4200];
    maildex_db_t *db = store("invalid", root, sizeof root);
    maildex_address_options_t opts = {.dedup = MAILDEX_DEDUP_NONE, .count = true};
    maildex_query_t *q;
    maildex_addresses_t *it = (maildex_addresses_t *) 1;

    ASSERT_EQ(maildex_query_create(db, "*", NULL, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_addresses(q, &opts, &it), MAILDEX_STATUS_INVALID_ARGUMENT);
    ASSERT(it == NULL);
    ASSERT(strstr(maildex_db_errmsg(db), "de-duplication") != NULL);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* The stored row answers, not the file: a file changed behind the index changes nothing until
 * it is re-indexed. A message without a row (indexed before the table existed) is read from its
 * file; a damaged row ends its list where it breaks. */
TEST(rows_not_files)
{
    char root[4200], path[4400];
    maildex_db_t *db = store("rows", root, sizeof root);
    const char *senders;

    snprintf(path, sizeof path, "%s/cur/0:2,S", root);
    write_file(path, "From: Someone Else <else@example.com>\nTo: x@example.com\nSubject: changed\n"
                     "Date: Mon, 01 Jan 2024 10:00:00 +0000\nMessage-ID: <m0@example.org>\n\nbody\n");
    senders = list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_NONE, false);
    ASSERT(g_str_has_prefix(senders, "Jane Roe <JANE@Example.COM>; "));
    exec(db, "DELETE FROM addresses WHERE id = (SELECT id FROM messages WHERE message_id = 'm0@example.org')");
    senders = list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_NONE, false);
    ASSERT(g_str_has_prefix(senders, "Someone Else <else@example.com>; jane@example.com; "));
    /* name NUL address NUL, then no third string: the list ends there. */
    exec(db, "UPDATE addresses SET sender = x'4A6F006A406578616D706C652E636F6D00' || x'4B' "
             "WHERE id = (SELECT id FROM messages WHERE message_id = 'm1@example.org')");
    senders = list(db, MAILDEX_SORT_OLDEST_FIRST, MAILDEX_ADDRESS_SENDER, MAILDEX_DEDUP_NONE, false);
    ASSERT_STR_EQ(senders, "Someone Else <else@example.com>; Jane Roe <jane@example.com>; "
                           "Jane Roe <jane@example.com>");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST_MAIN(TEST_ENTRY(every_mailbox_in_the_query_order)
          TEST_ENTRY(dedup_mailbox_keeps_each_pair_once)
          TEST_ENTRY(dedup_mailbox_with_counts)
          TEST_ENTRY(dedup_address_most_frequent_pair)
          TEST_ENTRY(whole_pass_reads_in_indexing_order)
          TEST_ENTRY(count_needs_dedup)
          TEST_ENTRY(rows_not_files))
