/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The usage examples in lib/maildex.h, so that they cannot drift: make copies them out of the header
 * into header_example_1(db), header_example_2(db), ... (test/unit/header-example.c), compiled with the
 * public header alone and linked with the public library; this program indexes a small Maildir through
 * the public API and checks that each example prints what its comment promises. Uses nothing but
 * maildex.h. */
#include "maildex.h"
#include "test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The examples, as the header writes them (made by make), in the header's order. */
int header_example_1(maildex_db_t *db);
int header_example_2(maildex_db_t *db);
int header_example_3(maildex_db_t *db);
int header_example_4(maildex_db_t *db);
int header_example_5(maildex_db_t *db);

#define MESSAGES 80
#define T0 1704103200 /* 2024-01-01 10:00 UTC; message i is i hours later */

/* Message i is unread unless i is a multiple of 4, so 60 are unread: the limit of 50 cuts them. */
static bool is_unread(int i)
{
    return i % 4 != 0;
}

static void write_message(const char *root, int i)
{
    char path[4400], date[64];
    time_t t = T0 + (time_t) i * 3600;
    struct tm tm;
    FILE *f;

    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", gmtime_r(&t, &tm));
    snprintf(path, sizeof path, "%s/cur/%d.example:2,%s", root, i, is_unread(i) ? "" : "S");
    f = fopen(path, "w");
    ASSERT(f != NULL);
    fprintf(f, "From: Alice <alice@example.org>\nTo: Bob <bob@example.org>\nSubject: message %d\n"
               "Date: %s\nMessage-ID: <m%d@example.org>\n\nbody %d\n",
            i, date, i, i);
    ASSERT_EQ(fclose(f), 0);
}

/* A Maildir of MESSAGES messages indexed as `maildex new` would, with new.tags inbox;unread. */
static maildex_db_t *small_store(const char *dir)
{
    static const char *const new_tags[] = {"inbox", "unread", NULL};
    static const char *const subdirs[] = {"", "/cur", "/new", "/tmp"};
    maildex_index_options_t opts = {0};
    maildex_index_stats_t stats;
    char root[4200], db_path[4200];
    maildex_db_t *db = NULL;
    char *err = NULL;

    snprintf(root, sizeof root, "%s/mail", dir);
    snprintf(db_path, sizeof db_path, "%s/maildex.db", dir);
    for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++) {
        char d[4300];
        snprintf(d, sizeof d, "%s%s", root, subdirs[k]);
        ASSERT_EQ(mkdir(d, 0700), 0);
    }
    for (int i = 0; i < MESSAGES; i++)
        write_message(root, i);
    if (maildex_db_open(db_path, root, MAILDEX_DB_CREATE, &db, &err) != MAILDEX_STATUS_OK) {
        printf("# %s\n", err ? err : "?");
        free(err);
    }
    ASSERT(db != NULL);
    opts.new_tags = new_tags;
    opts.synchronize_flags = true;
    ASSERT_EQ(maildex_index(db, &opts, &stats), MAILDEX_STATUS_OK);
    ASSERT_EQ(stats.messages_added, MESSAGES);
    return db;
}

/* Runs an example with its standard output in file path; returns what the example returned. */
static int run_example(int (*example)(maildex_db_t *), maildex_db_t *db, const char *path)
{
    int saved, fd, ret;

    fflush(stdout);
    saved = dup(STDOUT_FILENO);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    ret = example(db);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return ret;
}

TEST(header_example_prints_the_newest_50_unread)
{
    const char *dir = test_scratch_dir("example");
    char out[4200], line[256], want[64];
    maildex_db_t *db = small_store(dir);
    int printed = 0, i = MESSAGES;
    FILE *f;

    snprintf(out, sizeof out, "%s/out", dir);
    ASSERT_EQ(run_example(header_example_2, db, out), 0);
    f = fopen(out, "r");
    ASSERT(f != NULL);
    while (fgets(line, sizeof line, f)) {
        while (!is_unread(--i))
            ;
        snprintf(want, sizeof want, "m%d@example.org\n", i);
        if (strcmp(line, want) != 0)
            printf("# line %d: got %s#   expected %s", printed + 1, line, want);
        ASSERT_STR_EQ(line, want);
        printed++;
    }
    fclose(f);
    ASSERT_EQ(printed, 50);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* Every message is from Alice to Bob: each address once, in the table's order. */
TEST(header_example_prints_each_correspondent_once)
{
    const char *dir = test_scratch_dir("example-addresses");
    char out[4200], line[256];
    maildex_db_t *db = small_store(dir);
    bool alice = false, bob = false;
    int printed = 0;
    FILE *f;

    snprintf(out, sizeof out, "%s/out", dir);
    ASSERT_EQ(run_example(header_example_4, db, out), 0);
    f = fopen(out, "r");
    ASSERT(f != NULL);
    while (fgets(line, sizeof line, f)) {
        alice |= strcmp(line, "Alice <alice@example.org>\n") == 0;
        bob |= strcmp(line, "Bob <bob@example.org>\n") == 0;
        printed++;
    }
    fclose(f);
    ASSERT(alice && bob);
    ASSERT_EQ(printed, 2);
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* The parts example: the text of the newest message from Alice. */
TEST(header_example_prints_the_text_of_a_message)
{
    const char *dir = test_scratch_dir("parts");
    char out[4200], text[256] = "";
    maildex_db_t *db = small_store(dir);
    FILE *f;
    size_t n;

    snprintf(out, sizeof out, "%s/out", dir);
    ASSERT_EQ(run_example(header_example_5, db, out), 0);
    f = fopen(out, "r");
    ASSERT(f != NULL);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    ASSERT_STR_EQ(text, "body 79\n");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* Reads the whole output of example into text (at most size - 1 bytes). */
static void example_output(int (*example)(maildex_db_t *), maildex_db_t *db, const char *dir, char *text,
                           size_t size)
{
    char out[4200];
    size_t n;
    FILE *f;

    snprintf(out, sizeof out, "%s/out", dir);
    ASSERT_EQ(run_example(example, db, out), 0);
    f = fopen(out, "r");
    ASSERT(f != NULL);
    n = fread(text, 1, size - 1, f);
    fclose(f);
    text[n] = '\0';
}

/* The directories example: the mail root's cur/ and new/ (a Maildir's tmp/ is not the store's). */
TEST(header_example_prints_the_subdirectories)
{
    const char *dir = test_scratch_dir("directories");
    char text[256];
    maildex_db_t *db = small_store(dir);

    example_output(header_example_1, db, dir, text, sizeof text);
    ASSERT_STR_EQ(text, "cur\nnew\n");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

/* The one-message example: m7 is unread. */
TEST(header_example_prints_one_message)
{
    const char *dir = test_scratch_dir("one-message");
    char text[256];
    maildex_db_t *db = small_store(dir);

    example_output(header_example_3, db, dir, text, sizeof text);
    ASSERT_STR_EQ(text, "inbox\nunread\nmessage 7\n");
    ASSERT_EQ(maildex_db_close(db), MAILDEX_STATUS_OK);
}

TEST_MAIN(TEST_ENTRY(header_example_prints_the_subdirectories)
          TEST_ENTRY(header_example_prints_one_message)
          TEST_ENTRY(header_example_prints_the_newest_50_unread)
          TEST_ENTRY(header_example_prints_each_correspondent_once)
          TEST_ENTRY(header_example_prints_the_text_of_a_message))
