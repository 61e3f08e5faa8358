/* SPDX-License-Identifier: GPL-3.0-or-later */
/* read/prefetch.c: reading a thread's files ahead on a second thread changes nothing but the time.
 * A thread of 40 messages (plain, multipart/alternative, an attachment, a multipart/signed part, a
 * message whose first copy is gone, one whose only file is gone, one whose file is now empty) is read
 * through maildex_message_parts with and without a read-ahead, in show's order and in reverse, with
 * the default options, verify + decrypt, and --body=false: every tree, status and error message must
 * be the same, the other thread must have handed parses over, and a read-ahead freed half-read must
 * leave nothing behind (the suite's AddressSanitizer run checks that). */
#include "read/prefetch.h"
#include "read/search.h"
#include "test.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 40

static char mail[4200];

static void write_file(const char *name, const char *text)
{
    char path[4400];
    FILE *f;

    snprintf(path, sizeof path, "%s/cur/%s", mail, name);
    f = fopen(path, "w");
    ASSERT(f != NULL);
    fputs(text, f);
    ASSERT(fclose(f) == 0);
}

static void remove_file(const char *name)
{
    char path[4400];

    snprintf(path, sizeof path, "%s/cur/%s", mail, name);
    ASSERT(unlink(path) == 0);
}

/* Message i of the thread: m0 the root, every other a reply to the one before it or to the root. */
static char *message(int i)
{
    char *head = g_strdup_printf("From: Person %d <p%d@example.org>\nTo: list@example.org\n"
                                 "Subject: %sthe plan\nDate: Mon, 1 Jan 2024 %02d:%02d:00 +0000\n"
                                 "Message-ID: <m%d@example.org>\n%s%s%s",
                                 i, i, i ? "Re: " : "", 10 + i / 60, i % 60, i,
                                 i ? "In-Reply-To: <m" : "", i ? (i % 3 ? "0" : "1") : "", i ? "@example.org>\n" : "");
    const char *body;
    char *text;

    switch (i % 5) {
    case 1:
        body = "MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=\"b\"\n\n"
               "--b\nContent-Type: text/plain; charset=utf-8\n\nCaf\xc3\xa9 at noon?\n"
               "--b\nContent-Type: text/html\n\n<p>Caf&eacute; at <b>noon</b>?</p>\n--b--\n";
        break;
    case 2:
        body = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n"
               "--b\nContent-Type: text/plain\n\nThe numbers attached.\n"
               "--b\nContent-Type: text/csv; name=\"n.csv\"\nContent-Disposition: attachment; filename=\"n.csv\"\n"
               "Content-Transfer-Encoding: base64\n\nYSxiCjEsMgo=\n--b--\n";
        break;
    case 3:
        body = "MIME-Version: 1.0\nContent-Type: multipart/signed; micalg=pgp-sha256;\n"
               " protocol=\"application/pgp-signature\"; boundary=\"s\"\n\n"
               "--s\nContent-Type: text/plain\n\nSigned, or so it says.\n"
               "--s\nContent-Type: application/pgp-signature\n\n"
               "-----BEGIN PGP SIGNATURE-----\n\nbm90IGEgc2lnbmF0dXJl\n-----END PGP SIGNATURE-----\n--s--\n";
        break;
    default:
        body = "\nPlain words, quoted-printable free.\n";
    }
    text = g_strconcat(head, body, NULL);
    g_free(head);
    return text;
}

/* The thread indexed; then m7's first copy and m11's only file removed, m13's file emptied. Built on
 * the first call; each call opens it. */
static maildex_db_t *thread_store(void)
{
    static char dbpath[4300];
    const char *dir;
    maildex_index_options_t opts = {0};
    char path[4400], name[64];
    maildex_db_t *db = NULL;

    if (dbpath[0]) {
        ASSERT_EQ(maildex_db_open(dbpath, mail, MAILDEX_DB_READ_ONLY, &db, NULL), MAILDEX_STATUS_OK);
        return db;
    }
    dir = test_scratch_dir("parts-prefetch");

    snprintf(mail, sizeof mail, "%s/mail", dir);
    ASSERT(mkdir(mail, 0700) == 0);
    snprintf(path, sizeof path, "%s/cur", mail);
    ASSERT(mkdir(path, 0700) == 0);
    for (int i = 0; i < N; i++) {
        char *text = message(i);
        snprintf(name, sizeof name, "%02d:2,S", i);
        write_file(name, text);
        if (i == 7)
            write_file("07-copy:2,S", text);
        g_free(text);
    }
    snprintf(dbpath, sizeof dbpath, "%s/maildex.db", dir);
    ASSERT_EQ(maildex_db_open(dbpath, mail, MAILDEX_DB_CREATE, &db, NULL), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_index(db, &opts, NULL), MAILDEX_STATUS_OK);
    remove_file("07:2,S");
    remove_file("11:2,S");
    write_file("13:2,S", "");
    return db;
}

static void dump_part(GString *out, const maildex_part_t *p, int depth)
{
    size_t n, len;
    const maildex_header_t *headers = maildex_part_headers(p, &n);
    const char *content = maildex_part_content(p, &len);

    g_string_append_printf(out, "%*s%d %d %s fn=%s cs=%s len=%" PRId64 " verified=%d error=%s", depth * 2, "",
                           maildex_part_id(p), (int) maildex_part_kind(p), maildex_part_content_type(p),
                           maildex_part_filename(p) ? maildex_part_filename(p) : "-",
                           maildex_part_charset(p) ? maildex_part_charset(p) : "-", maildex_part_length(p),
                           maildex_part_verified(p), maildex_part_crypto_error(p) ? maildex_part_crypto_error(p) : "-");
    maildex_part_signatures(p, &len);
    g_string_append_printf(out, " sigs=%zu\n", len);
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(out, "%*s%s: %s\n", depth * 2 + 1, "", headers[i].name,
                               headers[i].value ? headers[i].value : "(null)");
    content = maildex_part_content(p, &len);
    if (content)
        g_string_append_printf(out, "%*s[%.*s]\n", depth * 2 + 1, "", (int) len, content);
    for (size_t i = 0; i < maildex_part_count(p); i++)
        dump_part(out, maildex_part_child(p, i), depth + 1);
}

static void in_show_order(maildex_message_t *const *list, GPtrArray *order)
{
    for (; *list; list++) {
        g_ptr_array_add(order, *list);
        in_show_order(maildex_message_replies(*list), order);
    }
}

/* Every message of the thread read with opts, in show's order or reversed, with a read-ahead or not;
 * *handed: how many parses the other thread handed over (-1 without one). */
static char *read_thread(maildex_db_t *db, const maildex_parts_options_t *opts, bool reversed, bool ahead,
                         int *handed)
{
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_query_t *q;
    maildex_threads_t *threads;
    maildex_thread_t *t;
    maildex_message_t *const *top;
    maildex_parts_prefetch_t *p = NULL;
    GPtrArray *order = g_ptr_array_new();
    GString *out = g_string_new("");

    ASSERT_EQ(maildex_query_create(db, "*", &qopts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_threads(q, &threads), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_threads_next(threads, &t), MAILDEX_STATUS_OK);
    ASSERT(t != NULL);
    ASSERT_EQ(maildex_thread_toplevel_messages(t, &top), MAILDEX_STATUS_OK);
    in_show_order(top, order);
    ASSERT_EQ(order->len, N);
    if (reversed)
        for (guint i = 0; i < order->len / 2; i++) {
            gpointer swap = order->pdata[i];
            order->pdata[i] = order->pdata[order->len - 1 - i];
            order->pdata[order->len - 1 - i] = swap;
        }
    if (ahead) {
        ASSERT_EQ(maildex_parts_prefetch_start((maildex_message_t *const *) order->pdata, order->len, 0, opts, &p),
                  MAILDEX_STATUS_OK);
        ASSERT(p != NULL);
        /* Time for the other thread to parse its first messages, so that it hands some over however
         * busy the machine is. */
        g_usleep(50 * 1000);
    }
    for (guint i = 0; i < order->len; i++) {
        maildex_message_t *m = order->pdata[i];
        maildex_part_t *root = NULL;
        maildex_status_t st = maildex_message_parts(m, 0, opts, &root);
        g_string_append_printf(out, "== %s: %d\n", maildex_message_id(m), (int) st);
        if (st == MAILDEX_STATUS_OK)
            dump_part(out, root, 0);
        else
            g_string_append_printf(out, "%s\n", maildex_db_errmsg(db));
        maildex_part_free(root);
    }
    *handed = p ? (int) maildex__parts_prefetch_handed(p) : -1;
    maildex_parts_prefetch_free(p);
    maildex_query_destroy(q);
    g_ptr_array_free(order, TRUE);
    return g_string_free(out, FALSE);
}

TEST(a_read_ahead_reads_what_the_caller_would)
{
    maildex_db_t *db = thread_store();
    maildex_parts_options_t plain = MAILDEX_PARTS_OPTIONS_INIT, crypto = MAILDEX_PARTS_OPTIONS_INIT,
                            headers = MAILDEX_PARTS_OPTIONS_INIT;
    const maildex_parts_options_t *const cases[] = {&plain, &crypto, &headers, NULL};

    crypto.verify = true;
    crypto.decrypt = MAILDEX_DECRYPT_TRUE;
    headers.body = false;
    for (int c = 0; cases[c]; c++) {
        for (int reversed = 0; reversed < 2; reversed++) {
            int handed;
            char *want = read_thread(db, cases[c], reversed, false, &handed);
            char *got = read_thread(db, cases[c], reversed, true, &handed);
            printf("# options %d%s: %d parses handed over\n", c, reversed ? ", reversed" : "", handed);
            ASSERT_STR_EQ(got, want);
            ASSERT(handed > 0);
            /* What the fixture is for: each kind of message and failure is in the thread. */
            char *gone = g_strdup_printf("== m11@example.org: %d\n", (int) MAILDEX_STATUS_FILE_NOT_FOUND);
            ASSERT(strstr(want, gone) != NULL);
            ASSERT(c == 2 || strstr(want, "multipart/signed") != NULL);
            ASSERT(c != 1 || strstr(want, "sigs=1") != NULL || strstr(want, "error=-") != NULL);
            g_free(gone);
            g_free(want);
            g_free(got);
        }
    }
    maildex_db_close(db);
}

/* Freed after three messages of forty: the other thread stops, the parses not asked for are freed. */
TEST(a_read_ahead_freed_early_leaves_nothing)
{
    maildex_query_options_t qopts = MAILDEX_QUERY_OPTIONS_INIT;
    maildex_db_t *db = thread_store();
    maildex_query_t *q;
    maildex_threads_t *threads;
    maildex_thread_t *t;
    maildex_message_t *const *top;
    maildex_parts_prefetch_t *p = NULL, *second = NULL;
    GPtrArray *order = g_ptr_array_new();

    ASSERT_EQ(maildex_query_create(db, "*", &qopts, &q), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_query_search_threads(q, &threads), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_threads_next(threads, &t), MAILDEX_STATUS_OK);
    ASSERT_EQ(maildex_thread_toplevel_messages(t, &top), MAILDEX_STATUS_OK);
    in_show_order(top, order);
    ASSERT_EQ(maildex_parts_prefetch_start((maildex_message_t *const *) order->pdata, order->len, 0, NULL, &p),
              MAILDEX_STATUS_OK);
    ASSERT(p != NULL);
    /* One read-ahead per query at a time: a second reads nothing ahead. */
    ASSERT_EQ(maildex_parts_prefetch_start((maildex_message_t *const *) order->pdata, order->len, 0, NULL, &second),
              MAILDEX_STATUS_OK);
    ASSERT(second == NULL);
    for (guint i = 0; i < 3; i++) {
        maildex_part_t *root = NULL;
        ASSERT_EQ(maildex_message_parts(order->pdata[i], 0, NULL, &root), MAILDEX_STATUS_OK);
        maildex_part_free(root);
    }
    maildex_parts_prefetch_free(p);
    /* And one left running is freed with its query. */
    ASSERT_EQ(maildex_parts_prefetch_start((maildex_message_t *const *) order->pdata, order->len, 0, NULL, &p),
              MAILDEX_STATUS_OK);
    ASSERT(p != NULL);
    maildex_query_destroy(q);
    g_ptr_array_free(order, TRUE);
    maildex_db_close(db);
}

TEST_MAIN(TEST_ENTRY(a_read_ahead_reads_what_the_caller_would) TEST_ENTRY(a_read_ahead_freed_early_leaves_nothing))
