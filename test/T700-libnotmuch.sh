#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libnotmuch.so.5 (lib/notmuch-abi) from a C program compiled against the system's notmuch.h, on a
# store `maildex new` made: the lifetimes notmuch documents (a thread and its messages outlive the
# lists that handed them out and the closed database; a found message reads its metadata on first
# use), the statuses clients branch on (DUPLICATE_MESSAGE_ID, FILE_NOT_EMAIL, READ_ONLY_DATABASE,
# TAG_TOO_LONG, UNBALANCED_*, DATABASE_EXISTS, NO_MAIL_ROOT), frozen tag changes written at the last
# thaw, atomic sections seen whole by another handle, and what the CLI reads after API writes.
# Breadth (every query, thread and message field against Debian's libnotmuch) is the differential
# test's job. Under a sanitizer build the programs are compiled with the same sanitizers.
. "$(dirname "$0")/test-lib.sh"

LIBDIR=$MAILDEX_BUILDDIR/lib/notmuch-abi/.libs
if ! [ -f "$LIBDIR/libnotmuch.so.5" ]; then
    echo "1..0 # SKIP libnotmuch.so.5 was not built (configure --without-notmuch-abi)"
    exit 0
fi
CC=${CC:-cc}
SAN=
if ldd "$LIBDIR/libnotmuch.so.5" | grep -q libasan; then
    SAN="-fsanitize=address,undefined"
fi
# notmuch's library reads notmuch's config: the suite's file is in that format.
NOTMUCH_CONFIG=$MAILDEX_CONFIG
export NOTMUCH_CONFIG

# libnotmuch_C NAME ARGS...: compiles the C program on stdin against notmuch.h and this build's
# libnotmuch, runs it with ARGS; its stdout and stderr go to OUTPUT (stderr after "--").
libnotmuch_C() {
    name=$1
    shift
    cat > "$name.c"
    if ! $CC -std=c11 -D_GNU_SOURCE $SAN -Wall -Werror -Wno-deprecated-declarations -o "$name" "$name.c" -L"$LIBDIR" -lnotmuch -ltalloc \
        2> "$name.cc-err"; then
        { echo "compile error"; cat "$name.cc-err"; } > OUTPUT
        return
    fi
    LD_LIBRARY_PATH=$LIBDIR ./"$name" "$@" > OUTPUT.out 2> OUTPUT.err
    { cat OUTPUT.out; echo "--"; cat OUTPUT.err; } > OUTPUT
}

add_lunch_corpus

test_begin_subtest "a thread and its messages outlive the lists they came from and the closed database"
libnotmuch_C lifetimes <<'EOF'
#include <notmuch.h>
#include <stdio.h>
int main(void)
{
    notmuch_database_t *db;
    notmuch_query_t *q;
    notmuch_threads_t *threads;
    notmuch_thread_t *t;
    notmuch_messages_t *all, *top, *replies;
    notmuch_message_t *root, *reply;
    notmuch_tags_t *tags;
    if (notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_ONLY, NULL, NULL, &db, NULL))
        return 1;
    q = notmuch_query_create(db, "id:msg2@example.com");
    if (notmuch_query_search_threads(q, &threads) || !notmuch_threads_valid(threads))
        return 2;
    t = notmuch_threads_get(threads);
    top = notmuch_thread_get_toplevel_messages(t);
    root = notmuch_messages_get(top);
    replies = notmuch_message_get_replies(root);
    reply = notmuch_messages_get(replies);
    notmuch_messages_destroy(replies); /* the reply belongs to the thread */
    notmuch_messages_destroy(top);
    notmuch_threads_destroy(threads);  /* ... and the thread to the query */
    notmuch_database_close(db);
    printf("%s -> %s\n", notmuch_message_get_message_id(root), notmuch_message_get_message_id(reply));
    printf("%d/%d %s|%s\n", notmuch_thread_get_matched_messages(t), notmuch_thread_get_total_messages(t),
           notmuch_thread_get_authors(t), notmuch_thread_get_subject(t));
    for (all = notmuch_thread_get_messages(t); notmuch_messages_valid(all); notmuch_messages_move_to_next(all))
        printf("%s %d\n", notmuch_message_get_message_id(notmuch_messages_get(all)),
               notmuch_message_get_flag(notmuch_messages_get(all), NOTMUCH_MESSAGE_FLAG_MATCH));
    for (tags = notmuch_thread_get_tags(t); notmuch_tags_valid(tags); notmuch_tags_move_to_next(tags))
        printf("[%s]", notmuch_tags_get(tags));
    printf("\n%s\n", notmuch_query_get_query_string(q));
    notmuch_database_destroy(db);
    return 0;
}
EOF
cat > EXPECTED <<'EOF'
msg1@example.org -> msg2@example.com
1/3 Bob| Alice Example, Carol|Lunch plans
msg1@example.org 0
msg2@example.com 1
msg3@example.net 0
[attachment][inbox][unread]
id:msg2@example.com
--
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "a found message reads its metadata on first use: nothing once the database closed"
libnotmuch_C found <<'EOF'
#include <notmuch.h>
#include <stdio.h>
int main(void)
{
    notmuch_database_t *db;
    notmuch_message_t *early, *late, *none = (notmuch_message_t *) 1;
    notmuch_filenames_t *files;
    if (notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_ONLY, NULL, NULL, &db, NULL))
        return 1;
    notmuch_database_find_message(db, "msg1@example.org", &early);
    notmuch_database_find_message(db, "msg3@example.net", &late);
    printf("%d ", notmuch_database_find_message(db, "nobody@example.org", &none));
    printf("%p\n", (void *) none);
    printf("%s %s\n", notmuch_message_get_message_id(early), notmuch_message_get_header(early, "subject"));
    files = notmuch_message_get_filenames(early);
    notmuch_database_close(db);
    printf("%s %d\n", notmuch_filenames_get(files) ? "file" : "-", notmuch_message_get_flag(early, NOTMUCH_MESSAGE_FLAG_MATCH));
    printf("%s %s %d\n", notmuch_message_get_message_id(late) ? "id" : "NULL",
           notmuch_message_get_thread_id(late) ? "thread" : "NULL", notmuch_message_count_files(late));
    printf("%s\n", notmuch_message_get_message_id(early));
    notmuch_database_destroy(db);
    return 0;
}
EOF
cat > EXPECTED <<'EOF'
0 (nil)
msg1@example.org Lunch plans
file 0
NULL NULL -1
msg1@example.org
--
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "index_file, remove_message: notmuch's statuses and messages"
mkdir -p "$MAIL_DIR/other/cur"
cp "$MAIL_DIR/cur/1:2,S" "$MAIL_DIR/other/cur/copy-of-1:2,S"
printf 'just text\n' > "$MAIL_DIR/other/cur/not-mail"
generate_message dir=other/cur filename=fresh id=fresh@example.org subject=Fresh > /dev/null
libnotmuch_C index "$MAIL_DIR" <<'EOF'
#include <notmuch.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    notmuch_database_t *db;
    notmuch_message_t *m = NULL;
    notmuch_status_t st;
    (void) argc;
    if (notmuch_database_open_with_config(argv[1], NOTMUCH_DATABASE_MODE_READ_ONLY, NULL, NULL, &db, NULL))
        return 1;
    st = notmuch_database_index_file(db, "other/cur/fresh", NULL, NULL);
    printf("ro %d %s", st, notmuch_database_status_string(db));
    notmuch_database_destroy(db);
    if (notmuch_database_open_with_config(argv[1], NOTMUCH_DATABASE_MODE_READ_WRITE, NULL, NULL, &db, NULL))
        return 1;
    st = notmuch_database_index_file(db, "other/cur/fresh", NULL, &m);
    printf("new %d %s %d\n", st, notmuch_message_get_message_id(m), notmuch_message_count_files(m));
    printf("again %d\n", notmuch_database_index_file(db, "other/cur/fresh", NULL, NULL));
    st = notmuch_database_index_file(db, "other/cur/copy-of-1:2,S", NULL, &m);
    printf("dup %d %s %d\n", st, notmuch_message_get_message_id(m), notmuch_message_count_files(m));
    printf("not mail %d\n", notmuch_database_index_file(db, "other/cur/not-mail", NULL, NULL));
    st = notmuch_database_index_file(db, "other/cur/missing", NULL, NULL);
    printf("missing %d %s", st, notmuch_database_status_string(db));
    st = notmuch_database_index_file(db, "/etc/passwd", NULL, NULL);
    printf("outside %d %s", st, notmuch_database_status_string(db));
    printf("remove copy %d\n", notmuch_database_remove_message(db, "other/cur/copy-of-1:2,S"));
    printf("remove last %d\n", notmuch_database_remove_message(db, "other/cur/fresh"));
    printf("remove unknown %d\n", notmuch_database_remove_message(db, "other/cur/fresh"));
    notmuch_database_destroy(db);
    return 0;
}
EOF
cat > EXPECTED <<EOF
ro 2 Cannot write to a read-only database.
new 0 fresh@example.org 1
again 6
dup 6 msg1@example.org 2
not mail 5
missing 4 Error opening other/cur/missing: No such file or directory
outside 4 Error opening /etc/passwd: path outside mail root
remove copy 6
remove last 0
remove unknown 0
--
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "... and the CLI sees what they did: the copy gone, the fresh message gone"
output="$(maildex count id:fresh@example.org) $(maildex search --output=files id:msg1@example.org | wc -l)"
test_expect_equal "$output" "0 1"

test_begin_subtest "tag changes: notmuch's statuses; frozen changes reach the store at the last thaw"
libnotmuch_C tags <<'EOF'
#include <notmuch.h>
#include <stdio.h>
#include <string.h>
static void show(notmuch_database_t *db, const char *what)
{
    notmuch_message_t *m;
    notmuch_tags_t *t;
    notmuch_database_find_message(db, "msg2@example.com", &m);
    printf("%s:", what);
    for (t = notmuch_message_get_tags(m); notmuch_tags_valid(t); notmuch_tags_move_to_next(t))
        printf(" %s", notmuch_tags_get(t));
    printf("\n");
    notmuch_message_destroy(m);
}
int main(void)
{
    notmuch_database_t *db, *reader;
    notmuch_message_t *m;
    char long_tag[202];
    memset(long_tag, 'x', 201);
    long_tag[201] = '\0';
    if (notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_WRITE, NULL, NULL, &db, NULL) ||
        notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_ONLY, NULL, NULL, &reader, NULL))
        return 1;
    notmuch_database_find_message(db, "msg2@example.com", &m);
    printf("%d %d %d\n", notmuch_message_add_tag(m, NULL), notmuch_message_add_tag(m, long_tag),
           notmuch_message_thaw(m));
    notmuch_message_freeze(m);
    notmuch_message_remove_all_tags(m);
    notmuch_message_add_tag(m, "frozen");
    notmuch_message_freeze(m);
    notmuch_message_add_tag(m, "twice");
    notmuch_message_thaw(m);
    show(reader, "before thaw");
    notmuch_message_thaw(m);
    show(reader, "after thaw");
    notmuch_message_add_tag(m, "inbox");
    notmuch_message_remove_tag(m, "twice");
    show(reader, "unfrozen");
    notmuch_database_destroy(reader);
    notmuch_database_destroy(db);
    return 0;
}
EOF
cat > EXPECTED <<'EOF'
7 8 9
before thaw: inbox unread
after thaw: frozen twice
unfrozen: frozen inbox
--
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "an atomic section is seen whole by another handle, at its outermost end"
libnotmuch_C atomic <<'EOF'
#include <notmuch.h>
#include <stdio.h>
static unsigned count(notmuch_database_t *db, const char *text)
{
    notmuch_query_t *q = notmuch_query_create(db, text);
    unsigned n = 0;
    notmuch_query_count_messages(q, &n);
    notmuch_query_destroy(q);
    return n;
}
static void tag(notmuch_database_t *db, const char *id)
{
    notmuch_message_t *m;
    notmuch_database_find_message(db, id, &m);
    notmuch_message_add_tag(m, "batch");
    notmuch_message_destroy(m);
}
int main(void)
{
    notmuch_database_t *db, *reader;
    if (notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_WRITE, NULL, NULL, &db, NULL) ||
        notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_ONLY, NULL, NULL, &reader, NULL))
        return 1;
    printf("%d\n", notmuch_database_end_atomic(db));
    notmuch_database_begin_atomic(db);
    tag(db, "msg1@example.org");
    notmuch_database_begin_atomic(db);
    tag(db, "msg3@example.net");
    notmuch_database_end_atomic(db);
    printf("inner end: %u\n", count(reader, "tag:batch"));
    notmuch_database_end_atomic(db);
    printf("outer end: %u\n", count(reader, "tag:batch"));
    notmuch_database_begin_atomic(db);
    tag(db, "msg2@example.com");
    notmuch_database_close(db); /* an open section is discarded */
    printf("closed: %u\n", count(reader, "tag:batch"));
    notmuch_database_destroy(db);
    notmuch_database_destroy(reader);
    return 0;
}
EOF
cat > EXPECTED <<'EOF'
10
inner end: 0
outer end: 2
closed: 2
--
EOF
test_expect_equal_file EXPECTED OUTPUT

test_begin_subtest "opening and creating: notmuch's statuses and messages"
mkdir -p "$TMP_DIRECTORY/empty" "$TMP_DIRECTORY/xdg/notmuch/default"
libnotmuch_C open "$MAIL_DIR" "$TMP_DIRECTORY/empty" "$TMP_DIRECTORY/xdg" <<'EOF'
#include <notmuch.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    notmuch_database_t *db = (notmuch_database_t *) 1;
    char *msg = NULL;
    notmuch_status_t st;
    (void) argc;
    st = notmuch_database_create_with_config(argv[1], "", NULL, &db, NULL);
    printf("exists %d %s\n", st, db ? "db" : "NULL");
    st = notmuch_database_open_with_config(argv[2], NOTMUCH_DATABASE_MODE_READ_ONLY, "", NULL, &db, &msg);
    printf("none %d %s %s\n", st, db ? "db" : "NULL", msg ? "message" : "-");
    free(msg);
    st = notmuch_database_create_with_config(argv[2], "", NULL, &db, NULL);
    printf("create %d %s\n", st, notmuch_config_get(db, NOTMUCH_CONFIG_MAIL_ROOT) ? "root" : "-");
    notmuch_database_destroy(db);
    st = notmuch_database_open_with_config(argv[2], NOTMUCH_DATABASE_MODE_READ_ONLY, "", NULL, &db, NULL);
    printf("reopen %d %d\n", st, notmuch_database_get_version(db) > 0);
    notmuch_database_destroy(db);
    /* $XDG_DATA_HOME/notmuch/default holds a database apart from the mail: without a config there is
     * no mail root for it, whether it is being made or opened */
    setenv("XDG_DATA_HOME", argv[3], 1);
    unsetenv("NOTMUCH_CONFIG");
    st = notmuch_database_create_with_config(NULL, "", NULL, &db, NULL);
    printf("create split %d %s\n", st, db ? "db" : "NULL");
    st = notmuch_database_open_with_config(NULL, NOTMUCH_DATABASE_MODE_READ_ONLY, "", NULL, &db, NULL);
    printf("open split %d %s\n", st, db ? "db" : "NULL");
    return 0;
}
EOF
cat > EXPECTED <<'EOF'
exists 21 NULL
none 4 NULL message
create 0 root
reopen 0 1
create split 23 NULL
open split 23 NULL
--
EOF
test_expect_equal_file EXPECTED OUTPUT

test_done
