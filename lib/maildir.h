/* maildir.h: Maildir file-name rules, notmuch's way: the unique part of a name, the ":2," info, which
 * directories count as a Maildir's cur/ and new/, and the flag <-> tag table (D draft, F flagged,
 * P passed, R replied, S = no unread). Pure string functions: no I/O, no database. */
#ifndef MAILDEX_MAILDIR_H
#define MAILDEX_MAILDIR_H

#include <stdbool.h>
#include <stddef.h>

struct maildex__flag_tag {
    char flag;
    const char *tag;
    bool inverse; /* the tag is present when the flag is absent */
};
extern const struct maildex__flag_tag maildex__flag_tags[];
extern const size_t maildex__flag_tag_count;

/* Length of the unique part of a Maildir file name: everything before the first ':' (mbsync and
 * the Maildir spec put the info after it). */
size_t maildex__maildir_base_len(const char *name);

/* The flags after ":2," or NULL when the name has no Maildir info. Points into name. */
const char *maildex__maildir_flags(const char *name);

/* True when dir (a path relative to the mail root) is a Maildir's "cur" or "new" directory, i.e. its
 * last component is cur or new. *is_new tells which. */
bool maildex__maildir_is_leaf(const char *dir, bool *is_new);

/* The folder name notmuch's folder: sees for a directory: the path minus a trailing "cur" or "new"
 * component ("" for the root). Writes into out (at least strlen(dir) + 1 bytes). */
void maildex__maildir_folder(const char *dir, char *out);

/* name with its info replaced by ":2," + flags (flags sorted, unknown flags kept), talloc'd on ctx.
 * Used when tags change the flags. */
char *maildex__maildir_rename(void *ctx, const char *name, const char *flags);

#endif
