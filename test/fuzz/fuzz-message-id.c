/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzzes the Message-ID and References parser (lib/mime/message-id.c). The input, up to its first NUL, is
 * split at its first newline: the part before is a References value, the part after an In-Reply-To
 * value, and the whole is also read as one id, strictly and not. Checked: the promises of mime/message-id.h
 * (a strict id holds no blank and no '>', a list's walk always advances, the referenced ids are
 * distinct and never the message's own, the parent is never the message itself). */
#include "fuzz.h"

#include "mime/message-id.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

static void check_ids(char **ids, const char *self, const char *parent)
{
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);

    for (size_t i = 0; ids[i]; i++) {
        FUZZ_CHECK(strcmp(ids[i], self) != 0);
        FUZZ_CHECK(!g_hash_table_contains(seen, ids[i]));
        g_hash_table_add(seen, ids[i]);
    }
    g_hash_table_unref(seen);
    /* The parent need not be in the list: notmuch reads a clean In-Reply-To strictly ("<(c)x>" is
     * "(c)x" there, "x" in the list). */
    FUZZ_CHECK(parent == NULL || strcmp(parent, self) != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *ctx = talloc_new(NULL);
    char *text = talloc_strndup(ctx, (const char *) data, size);
    char *newline = strchr(text, '\n');
    const char *references = text, *in_reply_to = NULL, *self, *p, *next;
    char *strict, **ids, *parent;

    strict = maildex__message_id_parse_strict(ctx, text);
    if (strict)
        FUZZ_CHECK(strpbrk(strict, " \t\n\v\f\r>") == NULL);
    self = maildex__message_id_parse(ctx, text, &next);
    FUZZ_CHECK(next >= text && next <= text + strlen(text));
    if (self == NULL)
        self = "";
    for (p = text; *p; p = next) {
        maildex__message_id_parse(ctx, p, &next);
        FUZZ_CHECK(next > p && next <= text + strlen(text));
    }
    if (newline) {
        *newline = '\0';
        in_reply_to = newline + 1;
    }
    FUZZ_CHECK(maildex__references_parse(ctx, self, references, in_reply_to, &ids, &parent));
    check_ids(ids, self, parent);
    talloc_free(ctx);
    return 0;
}
