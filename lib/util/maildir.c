/* SPDX-License-Identifier: GPL-3.0-or-later */
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
    return strcspn(name, ":,");
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

char *maildex__maildir_retag(void *ctx, const char *name, bool in_new, const char *set,
                             const char *clear, bool *to_cur)
{
    const char *info = strstr(name, ":2,");
    bool have[128] = {false}, changed = false;
    char flags[sizeof have + 1];
    size_t n = 0;

    *to_cur = false;
    if (info) {
        int last = 0;
        for (const char *f = info + 3; *f; f++) {
            const int c = (unsigned char) *f;
            if (c <= last || c >= (int) sizeof have)
                return NULL;
            have[c] = true;
            last = c;
        }
    }
    for (const char *f = set; *f; f++)
        if ((unsigned char) *f < sizeof have && !have[(unsigned char) *f])
            have[(unsigned char) *f] = changed = true;
    for (const char *f = clear; *f; f++)
        if ((unsigned char) *f < sizeof have && have[(unsigned char) *f]) {
            have[(unsigned char) *f] = false;
            changed = true;
        }
    if (in_new && info == NULL && !changed)
        return talloc_strdup(ctx, name);
    for (size_t c = 1; c < sizeof have; c++)
        if (have[c])
            flags[n++] = (char) c;
    flags[n] = '\0';
    *to_cur = in_new;
    return talloc_asprintf(ctx, "%.*s:2,%s", (int) (info ? (size_t) (info - name) : strlen(name)), name,
                           flags);
}

char *maildex__path_join(void *ctx, const char *root, const char *dir, const char *name)
{
    if (dir[0] == '\0')
        return name ? talloc_asprintf(ctx, "%s/%s", root, name) : talloc_strdup(ctx, root);
    return name ? talloc_asprintf(ctx, "%s/%s/%s", root, dir, name)
                : talloc_asprintf(ctx, "%s/%s", root, dir);
}

static bool component_is(const char *p, size_t n, const char *name)
{
    return n == strlen(name) && strncmp(p, name, n) == 0;
}

char *maildex__maildir_folder_normalise(void *ctx, const char *folder)
{
    size_t len = 0;
    char *out;

    if (folder == NULL)
        return talloc_strdup(ctx, "");
    if (folder[0] == '/' || (out = talloc_size(ctx, strlen(folder) + 1)) == NULL)
        return NULL;
    for (const char *p = folder; *p; p += *p == '/') {
        size_t n = strcspn(p, "/");
        if (component_is(p, n, "..") || component_is(p, n, "cur") || component_is(p, n, "new") ||
            component_is(p, n, "tmp")) {
            talloc_free(out);
            return NULL;
        }
        if (n > 0 && !component_is(p, n, ".")) {
            if (len)
                out[len++] = '/';
            memcpy(out + len, p, n);
            len += n;
        }
        p += n;
    }
    out[len] = '\0';
    return out;
}
