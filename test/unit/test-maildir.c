/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for lib/util/maildir.c: file-name rules, and the new name notmuch gives a Maildir file when
 * tags change its flags (_new_maildir_filename in notmuch's lib/message.cc, described in
 * notmuch-compat.md 4.2). set/clear below are what tags_to_files passes for the message's tags. */
#include "test.h"

#include "util/maildir.h"

#include <talloc.h>

/* retag(name, in_new, set, clear) as "NEWNAME" or "NEWNAME>cur" when it moves, or "NULL". */
static const char *retag(void *ctx, const char *name, bool in_new, const char *set, const char *clear)
{
    bool to_cur = true;
    char *out = maildex__maildir_retag(ctx, name, in_new, set, clear, &to_cur);

    if (out == NULL)
        return "NULL";
    return to_cur ? talloc_asprintf(ctx, "%s>cur", out) : out;
}

TEST(tags_to_flags_as_notmuch)
{
    void *ctx = talloc_new(NULL);

    /* tags inbox unread: set nothing, clear DFPRS; tags without unread: set S */
    ASSERT_STR_EQ(retag(ctx, "1:2,S", false, "S", "DFPR"), "1:2,S");
    ASSERT_STR_EQ(retag(ctx, "2:2,", false, "S", "DFPR"), "2:2,S");
    ASSERT_STR_EQ(retag(ctx, "2:2,S", false, "", "DFPRS"), "2:2,");
    /* a file in cur/ without info gains ":2," even when no flag changes */
    ASSERT_STR_EQ(retag(ctx, "4", false, "", "DFPRS"), "4:2,");
    /* new/ without info: stays when no flag changes, else moves to cur/ with its flags */
    ASSERT_STR_EQ(retag(ctx, "3", true, "", "DFPRS"), "3");
    ASSERT_STR_EQ(retag(ctx, "3", true, "F", "DPRS"), "3:2,F>cur");
    /* new/ with info moves to cur/ even when its flags stay */
    ASSERT_STR_EQ(retag(ctx, "5:2,S", true, "S", "DFPR"), "5:2,S>cur");
    /* every synced flag, in ASCII order; unknown flags kept in their place in that order */
    ASSERT_STR_EQ(retag(ctx, "6:2,T", false, "SRPFD", ""), "6:2,DFPRST");
    ASSERT_STR_EQ(retag(ctx, "7:2,Sa", false, "F", "DPRS"), "7:2,Fa");
    /* only the info after the first ":2," is flags; the unique part is kept as written */
    ASSERT_STR_EQ(retag(ctx, "1623931200.18503_4711.host,U=24:2,RS", false, "FS", "DPR"),
                  "1623931200.18503_4711.host,U=24:2,FS");
    talloc_free(ctx);
}

TEST(malformed_flags_leave_the_file_alone)
{
    void *ctx = talloc_new(NULL);

    ASSERT_STR_EQ(retag(ctx, "8:2,SF", false, "S", ""), "NULL");     /* not in ASCII order */
    ASSERT_STR_EQ(retag(ctx, "8:2,SS", false, "S", ""), "NULL");     /* repeated */
    ASSERT_STR_EQ(retag(ctx, "8:2,S\xc3\xa9", false, "", ""), "NULL"); /* not ASCII */
    talloc_free(ctx);
}

TEST(name_parts)
{
    bool is_new = true;

    ASSERT_EQ(maildex__maildir_base_len("a.b:2,S"), 3);
    ASSERT_EQ(maildex__maildir_base_len("a.b,U=17:2,S"), 3);     /* mbsync's UID field */
    ASSERT_EQ(maildex__maildir_base_len("a.b,S=5,W=6:2,"), 3);   /* Dovecot's size fields */
    ASSERT_EQ(maildex__maildir_base_len("a\\054b"), 6);         /* the spec's escaped ',' */
    ASSERT_STR_EQ(maildex__maildir_flags("a:2,FS"), "FS");
    ASSERT(maildex__maildir_flags("a") == NULL);
    ASSERT(maildex__maildir_is_leaf("INBOX/cur", &is_new) && !is_new);
    ASSERT(maildex__maildir_is_leaf("new", &is_new) && is_new);
    ASSERT(!maildex__maildir_is_leaf("INBOX", &is_new));
}

TEST_MAIN(TEST_ENTRY(tags_to_flags_as_notmuch) TEST_ENTRY(malformed_flags_leave_the_file_alone)
              TEST_ENTRY(name_parts))
