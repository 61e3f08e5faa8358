/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzzes the message parser (lib/mime/parse.c, with gmime, mime/html-text.c and mime/message-id.c) with the
 * input as a whole mail file. Checked: a return code from mime/parse.h with its error string, and on
 * success every field mime/parse.h promises: strings set and valid UTF-8, the reference list
 * NULL-terminated without the message's own id, a parent that is not the message itself. */
#include "fuzz.h"

#include "mime/parse.h"

#include <glib.h>
#include <string.h>
#include <talloc.h>

static void check_text(const char *s)
{
    FUZZ_CHECK(s != NULL);
    FUZZ_CHECK(g_utf8_validate(s, -1, NULL));
}

static void check_message(const struct maildex__parsed_message *m)
{
    const char *const texts[] = {m->message_id, m->from, m->to, m->cc, m->bcc, m->reply_to,
                                 m->subject, m->from_name, m->body, m->attachment_names,
                                 m->mime_types};

    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        check_text(texts[i]);
    FUZZ_CHECK(m->message_id[0] != '\0');
    FUZZ_CHECK(m->references != NULL);
    for (size_t i = 0; m->references[i]; i++)
        FUZZ_CHECK(strcmp(m->references[i], m->message_id) != 0);
    FUZZ_CHECK(m->parent_id == NULL || strcmp(m->parent_id, m->message_id) != 0);
    FUZZ_CHECK(m->date >= 0);
    FUZZ_CHECK(m->is_mail == (m->from[0] || m->subject[0] || m->to[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *ctx = talloc_new(NULL);
    struct maildex__parsed_message *m = NULL;
    char *error = NULL;
    int rc = maildex__message_parse_buffer(ctx, (const char *) data, size, NULL, &m, &error);

    if (rc == MAILDEX__PARSE_ERROR) {
        FUZZ_CHECK(m == NULL && error != NULL);
    } else {
        FUZZ_CHECK(rc == MAILDEX__PARSE_OK || rc == MAILDEX__PARSE_NOT_MAIL);
        FUZZ_CHECK(m != NULL);
        FUZZ_CHECK((rc == MAILDEX__PARSE_OK) == m->is_mail);
        FUZZ_CHECK(rc == MAILDEX__PARSE_OK || error != NULL);
        check_message(m);
    }
    talloc_free(ctx);
    return 0;
}
