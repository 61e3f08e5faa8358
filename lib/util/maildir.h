/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildir.h: Maildir file-name rules, notmuch's way: the unique part of a name, the ":2," info, which
 * directories count as a Maildir's cur/ and new/, the flag <-> tag table (D draft, F flagged,
 * P passed, R replied, S = no unread), and how a file's path is made from the mail root, its
 * directory (relative, "" for the root) and its name. Pure string functions: no I/O, no database. */
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

/* "root/dir/name" ("root/name" when dir is "", and without "/name" when name is NULL), talloc'd on
 * ctx: the one way a path in the mail store is put together. */
char *maildex__path_join(void *ctx, const char *root, const char *dir, const char *name);

/* Length of the unique part of a Maildir file name: everything before the info (':', where the
 * Maildir spec puts it) and before the first ',': the fields sync tools add to the name and change
 * by renaming the file (mbsync's ",U=uid", Dovecot's ",S=size,W=vsize"), so a file renamed with a
 * new UID is still the same file. A ',' in the unique part itself is written \054 by the spec. */
size_t maildex__maildir_base_len(const char *name);

/* The flags after ":2," or NULL when the name has no Maildir info. Points into name. */
const char *maildex__maildir_flags(const char *name);

/* True when dir (a path relative to the mail root) is a Maildir's "cur" or "new" directory, i.e. its
 * last component is cur or new. *is_new tells which. */
bool maildex__maildir_is_leaf(const char *dir, bool *is_new);

/* A folder to deliver or move mail to (relative to the mail root) with empty and "." components
 * dropped, talloc'd on ctx ("" for NULL). NULL (refused) for an absolute path or a ".." component,
 * which would lead out of the mail root, and for a component named cur, new or tmp: `new` takes such
 * a directory for a Maildir's own and does not look inside it, so the mail would leave the index at
 * the next `new`. Also NULL when memory runs out. */
char *maildex__maildir_folder_normalise(void *ctx, const char *folder);

/* The folder name notmuch's folder: sees for a directory: the path minus a trailing "cur" or "new"
 * component ("" for the root). Writes into out (at least strlen(dir) + 1 bytes). */
void maildex__maildir_folder(const char *dir, char *out);

/* notmuch's new name for a Maildir file whose message's tags want the flags in `set` and not those in
 * `clear` (_new_maildir_filename in notmuch's lib/message.cc): the info's flags plus set, minus
 * clear, in ASCII order, other flags kept, talloc'd on ctx. A name without info gains ":2," -- except
 * in new/ when no flag changes: that file stays as it is. *to_cur: the file is in new/ (in_new) and
 * does not stay, so it moves to cur/. Returns NULL, leaving the file alone, when the name's flags are
 * not in strictly increasing ASCII order (notmuch's rule), or memory runs out. */
char *maildex__maildir_retag(void *ctx, const char *name, bool in_new, const char *set,
                             const char *clear, bool *to_cur);

#endif
