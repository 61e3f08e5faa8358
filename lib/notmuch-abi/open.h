/* SPDX-License-Identifier: GPL-3.0-or-later */
/* open.h: what opening a database shares between config-file.c (where things are: the config file,
 * the database path, the keys and their defaults) and database-open.c (the three ways in: open, load
 * the config, create). Every message is malloc'd, as notmuch's error_message out-parameters are. */
#ifndef MAILDEX_NOTMUCH_ABI_OPEN_H
#define MAILDEX_NOTMUCH_ABI_OPEN_H

#include "abi.h"

#include <glib.h>

/* $<var>/notmuch/<profile> ($HOME/<fallback>/... when var is unset), profile defaulting to
 * $NOTMUCH_PROFILE, then "default"; on ctx; NULL without $HOME. */
char *nm_xdg_dir(void *ctx, const char *var, const char *fallback, const char *profile);

/* Finds and reads the config file (path "" for none, NULL to look in notmuch's places); sets
 * db->config_path. Returns SUCCESS, or NO_CONFIG when the file could not be read (*key_file is then
 * an empty key file, NULL for ""). */
notmuch_status_t nm_load_key_file(notmuch_database_t *db, const char *path, const char *profile,
                                  GKeyFile **key_file);

/* SUCCESS when path is a directory, else FILE_ERROR with notmuch's "Error: Cannot open database at
 * ..." in *message (when message is not NULL). */
notmuch_status_t nm_dir_exists(const char *path, char **message);

/* notmuch's database path when *path is NULL (see config-file.c); NO_DATABASE or PATH_ERROR (a
 * relative one) with *message set. */
notmuch_status_t nm_choose_database_path(notmuch_database_t *db, const char *profile, GKeyFile *key_file,
                                         const char **path, char **message);

/* The keys the database stores, then the file's over them, into db->config. */
notmuch_status_t nm_config_from_database(notmuch_database_t *db);
notmuch_status_t nm_config_from_file(notmuch_database_t *db, GKeyFile *key_file);

/* database.hook_dir and database.backup_dir when unset: the XDG place when it exists, else notmuch's
 * own directory beside its database. */
notmuch_status_t nm_choose_dir(notmuch_database_t *db, const char *profile, const char *key,
                               const char *var, const char *fallback, const char *subdir, char **message);

/* notmuch's defaults for the keys of notmuch_config_key_t that are unset; NO_MAIL_ROOT when the
 * database lives apart from the mail and no mail root was configured. */
notmuch_status_t nm_config_defaults(notmuch_database_t *db);

/* "database.path" ... for a notmuch_config_key_t, NULL for none. */
const char *nm_config_key_name(notmuch_config_key_t key);

#endif
