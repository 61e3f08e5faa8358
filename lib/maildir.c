/* Maildir name rules (see maildir.h). */
#include "maildir.h"

#include <string.h>
#include <talloc.h>

const struct maildex__flag_tag maildex__flag_tags[] = {
    {'D', "draft", false},  {'F', "flagged", false}, {'P', "passed", false},
    {'R', "replied", false}, {'S', "unread", true},
};
const size_t maildex__flag_tag_count = sizeof maildex__flag_tags / sizeof maildex__flag_tags[0];

size_t maildex__maildir_base_len(const char *name)
{
    const char *colon = strchr(name, ':');
    return colon ? (size_t) (colon - name) : strlen(name);
}

const char *maildex__maildir_flags(const char *name)
{
    const char *info = strstr(name, ":2,");
    return info ? info + 3 : NULL;
}

bool maildex__maildir_is_leaf(const char *dir, bool *is_new)
{
    const char *last = strrchr(dir, '/');
    last = last ? last + 1 : dir;
    *is_new = strcmp(last, "new") == 0;
    return *is_new || strcmp(last, "cur") == 0;
}

void maildex__maildir_folder(const char *dir, char *out)
{
    size_t len = strlen(dir);
    bool is_new;

    memcpy(out, dir, len + 1);
    if (maildex__maildir_is_leaf(dir, &is_new)) {
        len -= 3;
        if (len > 0)
            len--; /* the '/' before cur or new */
        out[len] = '\0';
    }
}

char *maildex__maildir_rename(void *ctx, const char *name, const char *flags)
{
    char sorted[128];
    size_t n = 0;

    /* Maildir wants the flags in ASCII order, each once. */
    for (int c = 33; c < 127 && n + 1 < sizeof sorted; c++)
        if (strchr(flags, c))
            sorted[n++] = (char) c;
    sorted[n] = '\0';
    return talloc_asprintf(ctx, "%.*s:2,%s", (int) maildex__maildir_base_len(name), name, sorted);
}
