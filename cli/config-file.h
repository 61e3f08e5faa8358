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
};

/* Finds and reads the config file. explicit_path is --config's value or NULL ("" means no file).
 * Returns NULL with *error set (talloc'd on ctx) when the file exists but cannot be read or parsed.
 * An absent file is not an error here: with none in the default locations notmuch's defaults apply;
 * a named one that is missing sets cfg->missing for the command to refuse (config_missing). */
struct config *config_load(void *ctx, const char *explicit_path, char **error);

/* NULL, or when the file was named by --config or an environment variable but does not exist, the
 * error to report (naming the file and what named it; talloc'd on ctx). Every command refuses to
 * run on defaults then, as notmuch does ("cannot load config file"), except those that create the
 * file (`setup`, `config set`) and `help`. */
char *config_missing(void *ctx, struct config *cfg);

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

/* A boolean value into *value: true/yes/1 or false/no/0 in any case (notmuch's words and
 * GKeyFile's), dflt when unset. Returns 0, or -1 with *error set (talloc'd on ctx, naming the key,
 * the value and the file) for any other value: notmuch refuses to run on one too. */
int config_get_bool(void *ctx, struct config *cfg, const char *key, bool dflt, bool *value,
                    char **error);

/* Sets key to values (a list when as_list or n > 1, written "a;b;"; else a plain string), or removes
 * it when n == 0, then writes the file (creating its directory). Returns 0, or -1 with *error set. */
int config_set(void *ctx, struct config *cfg, const char *key, const char *const *values, int n,
               bool as_list, char **error);

/* Every "section.key" the file holds plus the derived ones notmuch lists, sorted. talloc'd on ctx. */
char **config_list_keys(void *ctx, struct config *cfg);

/* Checks the "section.item" form; returns 0 or -1. */
int config_split_key(void *ctx, const char *key, char **section, char **item);

/* Where mail lives, and the database file (see doc/maildex.1: $MAILDEX_DATABASE, else maildex.db
 * in database.path when database.mail_root is set, else <database.path>/.maildex/maildex.db). */
char *config_mail_root(void *ctx, struct config *cfg);
char *config_database_file(void *ctx, struct config *cfg);

#endif
