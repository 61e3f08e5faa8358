/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config-file.h: finding and reading the user's configuration, and where the database lives.
 *
 * The file is GLib's key-file format with notmuch's keys, found in this order (DESIGN §2): --config,
 * $MAILDEX_CONFIG, $XDG_CONFIG_HOME/maildex/config, $NOTMUCH_CONFIG,
 * $XDG_CONFIG_HOME/notmuch/<$NOTMUCH_PROFILE|default>/config, ~/.notmuch-config[.<profile>]. A notmuch
 * user therefore needs no setup. Values that notmuch derives or defaults (database.mail_root,
 * new.tags, maildir.synchronize_flags, user.name, ...) are derived here the same way. Only the CLI
 * reads config: the library is handed paths and values. */
#ifndef MAILDEX_CLI_CONFIG_FILE_H
#define MAILDEX_CLI_CONFIG_FILE_H

#include <glib.h>
#include <stdbool.h>

struct config {
    GKeyFile *kf;         /* empty when no file was found */
    char *path;           /* the file read, or NULL when none was found */
    char *write_path;     /* where `config set` and `setup` write: path, or maildex's own default */
    const char *named_by; /* "--config", "$MAILDEX_CONFIG" or "$NOTMUCH_CONFIG"; NULL when path was
                           * found in a default location */
    bool missing;         /* path was named but does not exist (see config_missing) */
    bool none;            /* nothing named one and no default location has one (see config_missing) */
    bool loaded;          /* a file was read (false: the file `setup` writes will be new) */
};

/* Finds and reads the config file. explicit_path is --config's value or NULL ("" means no file).
 * Returns NULL with *error set (talloc'd on ctx) when the file exists but cannot be read or parsed.
 * An absent file is not an error here: a named one that is missing sets cfg->missing, none anywhere
 * cfg->none, for the command to refuse (config_missing); `config` and `setup` run on notmuch's
 * defaults then. */
struct config *config_load(void *ctx, const char *explicit_path, char **error);

/* NULL, or when the file was named by --config or an environment variable but does not exist, or
 * when none was named and none is in a default location, the error to report: notmuch's "Error:
 * cannot load config file.", with name_it the missing file and what named it, or every place looked
 * at in order, too (talloc'd on ctx). The commands that read the database refuse to run on defaults
 * then, as notmuch's do; `config get|list` say only how to make a named one; `setup`, `config set`
 * and `help` run. */
char *config_missing(void *ctx, struct config *cfg, bool name_it);

/* notmuch's default for a key that neither the file nor the database sets, for `config get|list`
 * (database.autocommit, new.ignore, search.exclude_tags), or NULL. Static. */
const char *config_default(const char *key);

/* The path config_load would read, or NULL; talloc'd on ctx. Exposed for tests. */
char *config_find(void *ctx, const char *explicit_path);

/* A value with notmuch's defaults and derivations applied, or NULL when unset. "section.key" form.
 * Paths (database.*) are made absolute relative to $HOME. talloc'd on ctx. */
char *config_get(void *ctx, struct config *cfg, const char *key);

/* Whether the file itself sets key ("section.key"), as opposed to a default or nothing. */
bool config_is_set(struct config *cfg, const char *key);

/* A list value ("a;b;" -> {"a", "b", NULL}), each item trimmed of white space and empty items dropped
 * (notmuch's reading). Never NULL. talloc'd on ctx. */
char **config_get_list(void *ctx, struct config *cfg, const char *key);

/* value split at each ';' as notmuch splits lists, items trimmed and empty ones dropped. Never NULL.
 * talloc'd on ctx. */
char **config_split_list(void *ctx, const char *value);

/* A boolean value into *value: true/yes/1 or false/no/0 in any case (notmuch's words and
 * GKeyFile's), dflt when unset. Returns 0, or -1 with *error set (talloc'd on ctx, naming the key,
 * the value and the file) for any other value: notmuch refuses to run on one too. */
int config_get_bool(void *ctx, struct config *cfg, const char *key, bool dflt, bool *value,
                    char **error);

/* Sets key to values in memory, as notmuch does: a list when n > 1 (written "a;b;"), else a plain
 * string (GLib's escapes keep newlines, tabs and backslashes), or removes it when n == 0. Returns 0,
 * or -1 with *error set (a key not of the form section.item). */
int config_put(void *ctx, struct config *cfg, const char *key, const char *const *values, int n,
               char **error);

/* Writes the file to write_path (creating its directory; through a symbolic link to the file it
 * names). Returns 0, or -1 with *error set. */
int config_save(void *ctx, struct config *cfg, char **error);

/* config_put, then config_save. */
int config_set(void *ctx, struct config *cfg, const char *key, const char *const *values, int n,
               char **error);

/* Adds notmuch's comments to the file setup writes (config-template.c): the top one to a new file,
 * and each of notmuch's sections (database, user, new, search, maildir) that is missing, with its
 * comment, so that `setup` writes the file notmuch's setup writes. */
void config_add_notmuch_comments(struct config *cfg);

/* Every "section.key" the file holds plus the derived and default ones notmuch lists, sorted.
 * talloc'd on ctx. */
char **config_list_keys(void *ctx, struct config *cfg);

/* Checks the "section.item" form; returns 0 or -1. */
int config_split_key(void *ctx, const char *key, char **section, char **item);

/* Where mail lives, and the database file (see doc/maildex.1): $MAILDEX_DATABASE, else at the place
 * of notmuch's database. notmuch's database path is $NOTMUCH_DATABASE, database.path,
 * $XDG_DATA_HOME/notmuch/<profile> when it is a directory, $MAILDIR, then $HOME/mail (config_get of
 * database.path answers it); maildex.db goes in it when the mail lives elsewhere (that XDG place, or
 * a database.mail_root that is another directory once symbolic links are resolved), else in its
 * .maildex/ (where notmuch has .notmuch/). */
char *config_mail_root(void *ctx, struct config *cfg);
char *config_database_file(void *ctx, struct config *cfg);

/* database.backup_dir as notmuch chooses it: the file's, else $XDG_DATA_HOME/notmuch/<profile>/backups
 * when it exists, else backups/ beside the database. talloc'd on ctx. */
char *config_backup_dir(void *ctx, struct config *cfg);

/* Where notmuch 0.37 keeps its own files (xapian/, hooks/) for this config: notmuch's database path
 * itself when it holds xapian/, else its .notmuch/ (notmuch's lib/open.cc). talloc'd on ctx. Whether
 * a notmuch database is there: config_notmuch_database, the xapian/ directory when it exists, else
 * NULL. */
char *config_notmuch_dir(void *ctx, struct config *cfg);
char *config_notmuch_database(void *ctx, struct config *cfg);

#endif
