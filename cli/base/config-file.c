/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Config lookup, reading, defaults and writing (see config-file.h). It must not open the database:
 * database-stored config is the library's business. */
#include "config-file.h"

#include "maildex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

static int keyfile_destructor(struct config *cfg)
{
    if (cfg->kf)
        g_key_file_free(cfg->kf);
    return 0;
}

static const char *home(void)
{
    const char *h = getenv("HOME");
    return h && *h ? h : g_get_home_dir();
}

static char *xdg_config_home(void *ctx)
{
    const char *x = getenv("XDG_CONFIG_HOME");
    return x && *x ? talloc_strdup(ctx, x) : talloc_asprintf(ctx, "%s/.config", home());
}

/* A default location is taken when something is there, readable or not: an unreadable file is
 * reported with its name rather than silently passed over for the next one. */
static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Notes a place locate() looked at, for the message that no config file exists (config_missing). */
static void looked_at(void *ctx, GPtrArray *looked, const char *place, const char *note)
{
    if (looked)
        g_ptr_array_add(looked, talloc_asprintf(ctx, "%s%s", place, note));
}

/* config_find, also saying what named the file: "--config", "$MAILDEX_CONFIG", "$NOTMUCH_CONFIG",
 * or NULL for a default location (which is only taken when a file is there). Each place it tried goes
 * into looked (NULL: not wanted), so that the error for none names them in the order they count. */
static char *locate(void *ctx, const char *explicit_path, const char **named_by, GPtrArray *looked)
{
    const char *env, *profile = getenv("NOTMUCH_PROFILE");
    char *candidate;

    *named_by = NULL;
    if (explicit_path) {
        *named_by = "--config";
        return talloc_strdup(ctx, explicit_path);
    }
    if ((env = getenv("MAILDEX_CONFIG")) && *env) {
        *named_by = "$MAILDEX_CONFIG";
        return talloc_strdup(ctx, env);
    }
    looked_at(ctx, looked, "$MAILDEX_CONFIG", " (not set)");
    candidate = talloc_asprintf(ctx, "%s/maildex/config", xdg_config_home(ctx));
    if (exists(candidate))
        return candidate;
    looked_at(ctx, looked, candidate, "");
    if ((env = getenv("NOTMUCH_CONFIG")) && *env) {
        *named_by = "$NOTMUCH_CONFIG";
        return talloc_strdup(ctx, env);
    }
    looked_at(ctx, looked, "$NOTMUCH_CONFIG", " (not set)");
    candidate = talloc_asprintf(ctx, "%s/notmuch/%s/config", xdg_config_home(ctx),
                                profile && *profile ? profile : "default");
    if (exists(candidate))
        return candidate;
    looked_at(ctx, looked, candidate, "");
    candidate = profile && *profile
                    ? talloc_asprintf(ctx, "%s/.notmuch-config.%s", home(), profile)
                    : talloc_asprintf(ctx, "%s/.notmuch-config", home());
    if (exists(candidate))
        return candidate;
    looked_at(ctx, looked, candidate, "");
    return NULL;
}

char *config_find(void *ctx, const char *explicit_path)
{
    const char *named_by;
    return locate(ctx, explicit_path, &named_by, NULL);
}

struct config *config_load(void *ctx, const char *explicit_path, char **error)
{
    struct config *cfg = talloc_zero(ctx, struct config);
    GError *gerr = NULL;

    *error = NULL;
    if (cfg == NULL)
        return NULL;
    cfg->kf = g_key_file_new();
    talloc_set_destructor(cfg, keyfile_destructor);
    cfg->path = locate(cfg, explicit_path, &cfg->named_by, NULL);
    cfg->none = cfg->path == NULL;
    /* --config='' means no file at all, as in notmuch. */
    if (cfg->path && *cfg->path == '\0')
        cfg->named_by = NULL;
    if (cfg->path && *cfg->path &&
        !g_key_file_load_from_file(cfg->kf, cfg->path, G_KEY_FILE_KEEP_COMMENTS, &gerr)) {
        /* Unreadable or unparseable is an error. A named file that is absent is left for the
         * command to judge (config_missing): `setup` and `config set` create it. */
        if (!g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            *error = talloc_asprintf(ctx, "cannot read config file '%s': %s", cfg->path,
                                     gerr->message);
            g_error_free(gerr);
            talloc_free(cfg);
            return NULL;
        }
        cfg->missing = cfg->named_by != NULL;
        g_clear_error(&gerr);
    } else if (cfg->path && *cfg->path) {
        cfg->loaded = true;
    }
    cfg->write_path = cfg->path ? talloc_strdup(cfg, cfg->path)
                                : talloc_asprintf(cfg, "%s/maildex/config", xdg_config_home(cfg));
    return cfg;
}

int config_split_key(void *ctx, const char *key, char **section, char **item)
{
    const char *dot = strchr(key, '.');

    if (dot == NULL || dot == key || dot[1] == '\0')
        return -1;
    *section = talloc_strndup(ctx, key, (size_t) (dot - key));
    *item = talloc_strdup(ctx, dot + 1);
    return 0;
}

/* The file's value of key with GLib's escapes (\n, \t, \\, \s) read as notmuch reads them, so that
 * what `config set` wrote comes back unchanged; the value as written when it holds an escape GLib's
 * strings do not have (a list's "\;"). NULL when unset. */
static char *raw_get(void *ctx, struct config *cfg, const char *key)
{
    char *section, *item, *value, *result = NULL;
    GError *gerr = NULL;

    if (config_split_key(ctx, key, &section, &item) != 0)
        return NULL;
    value = g_key_file_get_string(cfg->kf, section, item, &gerr);
    if (gerr) {
        g_free(value);
        value = g_key_file_get_value(cfg->kf, section, item, NULL);
        g_error_free(gerr);
    }
    if (value) {
        result = talloc_strdup(ctx, value);
        g_free(value);
    }
    talloc_free(section);
    talloc_free(item);
    return result;
}

bool config_is_set(struct config *cfg, const char *key)
{
    char *v = raw_get(NULL, cfg, key);
    bool set = v != NULL;

    talloc_free(v);
    return set;
}

static char *absolute(void *ctx, const char *path)
{
    if (path == NULL || path[0] == '/')
        return talloc_strdup(ctx, path);
    return talloc_asprintf(ctx, "%s/%s", home(), path);
}

static const char *profile(void)
{
    const char *p = getenv("NOTMUCH_PROFILE");
    return p && *p ? p : "default";
}

static char *xdg_data_dir(void *ctx)
{
    const char *x = getenv("XDG_DATA_HOME");
    return x && *x ? talloc_asprintf(ctx, "%s/notmuch/%s", x, profile())
                   : talloc_asprintf(ctx, "%s/.local/share/notmuch/%s", home(), profile());
}

static bool is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Whether two paths name the same directory once symbolic links are resolved (notmuch compares
 * canonical names); a path that does not exist yet compares as written. */
static bool same_dir(const char *a, const char *b)
{
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    bool same = strcmp(ra ? ra : a, rb ? rb : b) == 0;

    free(ra);
    free(rb);
    return same;
}

/* notmuch's database path (lib/open.cc, _choose_database_path): $NOTMUCH_DATABASE, database.path,
 * $XDG_DATA_HOME/notmuch/<profile> when that directory exists, $MAILDIR, $HOME/mail. *split says
 * whether the database lives apart from the mail (the XDG place, or a mail_root that is another
 * directory), where notmuch keeps xapian/ in the path itself instead of in its .notmuch/. */
static char *database_dir(void *ctx, struct config *cfg, bool *split)
{
    const char *env = getenv("NOTMUCH_DATABASE"), *maildir = getenv("MAILDIR");
    char *p = raw_get(ctx, cfg, "database.path"), *root = raw_get(ctx, cfg, "database.mail_root");
    char *dir = NULL;

    *split = false;
    if (env && *env)
        dir = absolute(ctx, env);
    else if (p && *p)
        dir = absolute(ctx, p);
    else if (is_dir(p = xdg_data_dir(ctx))) {
        dir = p;
        *split = true;
    } else if (maildir && *maildir)
        dir = absolute(ctx, maildir);
    else
        dir = talloc_asprintf(ctx, "%s/mail", home());
    if (!*split && root && *root) {
        char *r = absolute(ctx, root);
        *split = !same_dir(r, dir);
        talloc_free(r);
    }
    talloc_free(root);
    return dir;
}

static char *database_path(void *ctx, struct config *cfg)
{
    bool split;
    return database_dir(ctx, cfg, &split);
}

static char *default_email(void *ctx)
{
    const char *host = g_get_host_name();
    return talloc_asprintf(ctx, "%s@%s", g_get_user_name(),
                           host && strchr(host, '.') ? host : "localhost");
}

static char *default_name(void *ctx)
{
    const char *real = g_get_real_name();
    if (real && *real && strcmp(real, "Unknown") != 0)
        return talloc_strdup(ctx, real);
    return talloc_strdup(ctx, g_get_user_name());
}

char *config_missing(void *ctx, struct config *cfg, bool name_it)
{
    GPtrArray *looked;
    const char *named_by;
    char *text;

    if (cfg->missing && name_it)
        return talloc_asprintf(ctx, "Error: cannot load config file '%s' (named by %s): %s.", cfg->path,
                               cfg->named_by, g_strerror(ENOENT));
    if (!cfg->none || !name_it)
        return cfg->missing || cfg->none ? talloc_strdup(ctx, "Error: cannot load config file.") : NULL;
    /* Looked for again, now with the list: what the user can change is where it looked. */
    looked = g_ptr_array_new();
    locate(ctx, NULL, &named_by, looked);
    text = talloc_strdup(ctx, "Error: cannot load config file: there is none. Looked for, in this order:");
    for (guint i = 0; i < looked->len; i++)
        text = talloc_asprintf_append(text, "\n  %s", (const char *) g_ptr_array_index(looked, i));
    g_ptr_array_free(looked, TRUE);
    return text;
}

const char *config_default(const char *key)
{
    static const char *const defaults[][2] = {
        {"database.autocommit", "8000"}, {"new.ignore", ""}, {"search.exclude_tags", ""}};

    for (size_t i = 0; i < G_N_ELEMENTS(defaults); i++)
        if (strcmp(key, defaults[i][0]) == 0)
            return defaults[i][1];
    return NULL;
}

char *config_get(void *ctx, struct config *cfg, const char *key)
{
    char *v = raw_get(ctx, cfg, key);

    if (strcmp(key, "database.path") == 0)
        return database_path(ctx, cfg);
    if (strcmp(key, "database.mail_root") == 0)
        return v && *v ? absolute(ctx, v) : database_path(ctx, cfg);
    if (v)
        return strncmp(key, "database.", 9) == 0 ? absolute(ctx, v) : v;
    if (strcmp(key, "new.tags") == 0)
        return talloc_strdup(ctx, "unread;inbox");
    if (strcmp(key, "maildir.synchronize_flags") == 0)
        return talloc_strdup(ctx, "true");
    if (strcmp(key, "user.name") == 0)
        return default_name(ctx);
    if (strcmp(key, "user.primary_email") == 0)
        return default_email(ctx);
    return NULL;
}

/* Appends each item trimmed, dropping the empty ones (notmuch's strsplit_len: " fu bar ; ; bar " is
 * "fu bar", "bar"). */
static char **append_items(void *ctx, char **list, size_t *n, gchar **items)
{
    for (gchar **i = items; i && *i; i++) {
        char **grown;
        g_strstrip(*i);
        if (**i == '\0' || (grown = talloc_realloc(ctx, list, char *, *n + 2)) == NULL)
            continue;
        list = grown;
        list[(*n)++] = talloc_strdup(list, *i);
        list[*n] = NULL;
    }
    return list;
}

char **config_split_list(void *ctx, const char *value)
{
    char **list = talloc_zero_array(ctx, char *, 1);
    gchar **items = g_strsplit(value, ";", -1);
    size_t n = 0;

    if (list)
        list = append_items(ctx, list, &n, items);
    g_strfreev(items);
    return list;
}


char **config_get_list(void *ctx, struct config *cfg, const char *key)
{
    void *local = talloc_new(NULL);
    char **list = talloc_zero_array(ctx, char *, 1), *section, *item, *v;
    gchar **items = NULL;
    size_t n = 0;

    /* The file's own lists in GLib's syntax ("\;" is a literal semicolon); derived values are plain. */
    if (list && config_split_key(local, key, &section, &item) == 0 && strncmp(key, "database.", 9) != 0)
        items = g_key_file_get_string_list(cfg->kf, section, item, NULL, NULL);
    if (list && items == NULL && (v = config_get(local, cfg, key)) != NULL)
        items = g_strsplit(v, ";", -1);
    if (list)
        list = append_items(ctx, list, &n, items);
    g_strfreev(items);
    talloc_free(local);
    return list;
}

int config_get_bool(void *ctx, struct config *cfg, const char *key, bool dflt, bool *value,
                    char **error)
{
    void *local = talloc_new(NULL);
    char *v = config_get(local, cfg, key);
    int rc = 0;

    *value = dflt;
    *error = NULL;
    if (v && (g_ascii_strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0 ||
              g_ascii_strcasecmp(v, "yes") == 0))
        *value = true;
    else if (v && (g_ascii_strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0 ||
                   g_ascii_strcasecmp(v, "no") == 0))
        *value = false;
    else if (v) {
        *error = talloc_asprintf(ctx, "config key '%s' has value '%s', which is not true or false "
                                      "(in '%s')",
                                 key, v, cfg->path ? cfg->path : "the defaults");
        rc = -1;
    }
    talloc_free(local);
    return rc;
}

static int make_parent_dirs(const char *path)
{
    char *dir = g_path_get_dirname(path);
    int rc = g_mkdir_with_parents(dir, 0700);
    g_free(dir);
    return rc;
}

int config_put(void *ctx, struct config *cfg, const char *key, const char *const *values, int n,
               char **error)
{
    char *section, *item;

    *error = NULL;
    if (config_split_key(ctx, key, &section, &item) != 0) {
        *error = talloc_asprintf(ctx, "invalid configuration name: %s (should be of the form "
                                      "<section>.<item>)", key);
        return -1;
    }
    if (n == 0)
        g_key_file_remove_key(cfg->kf, section, item, NULL);
    else if (n == 1)
        g_key_file_set_string(cfg->kf, section, item, values[0]);
    else
        g_key_file_set_string_list(cfg->kf, section, item, values, (gsize) n);
    return 0;
}

int config_save(void *ctx, struct config *cfg, char **error)
{
    /* A symbolic link stays one: the file it points to is written (notmuch's conffile_save). */
    char *target = realpath(cfg->write_path, NULL);
    const char *file = target ? target : cfg->write_path;
    GError *gerr = NULL;
    int rc = 0;

    *error = NULL;
    if (make_parent_dirs(file) != 0 || !g_key_file_save_to_file(cfg->kf, file, &gerr)) {
        *error = talloc_asprintf(ctx, "cannot write config file '%s': %s", file,
                                 gerr ? gerr->message : strerror(errno));
        g_clear_error(&gerr);
        rc = -1;
    }
    free(target);
    return rc;
}

int config_set(void *ctx, struct config *cfg, const char *key, const char *const *values, int n,
               char **error)
{
    if (config_put(ctx, cfg, key, values, n, error) != 0)
        return -1;
    return config_save(ctx, cfg, error);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

char **config_list_keys(void *ctx, struct config *cfg)
{
    static const char *const derived[] = {"database.autocommit", "database.path", "database.mail_root",
                                          "maildir.synchronize_flags", "new.ignore", "new.tags",
                                          "search.exclude_tags", "user.name", "user.primary_email"};
    gchar **groups = g_key_file_get_groups(cfg->kf, NULL);
    GPtrArray *keys = g_ptr_array_new();
    char **out;

    for (size_t i = 0; i < G_N_ELEMENTS(derived); i++)
        g_ptr_array_add(keys, talloc_strdup(ctx, derived[i]));
    for (gchar **g = groups; g && *g; g++) {
        gchar **items = g_key_file_get_keys(cfg->kf, *g, NULL, NULL);
        for (gchar **k = items; k && *k; k++) {
            char *full = talloc_asprintf(ctx, "%s.%s", *g, *k);
            bool dup = false;
            for (guint j = 0; j < keys->len; j++)
                dup = dup || strcmp(keys->pdata[j], full) == 0;
            if (!dup)
                g_ptr_array_add(keys, full);
        }
        g_strfreev(items);
    }
    g_strfreev(groups);
    qsort(keys->pdata, keys->len, sizeof(char *), compare_strings);
    out = talloc_array(ctx, char *, keys->len + 1);
    for (guint j = 0; j < keys->len; j++)
        out[j] = talloc_steal(out, keys->pdata[j]);
    out[keys->len] = NULL;
    g_ptr_array_free(keys, TRUE);
    return out;
}

char *config_mail_root(void *ctx, struct config *cfg)
{
    return config_get(ctx, cfg, "database.mail_root");
}

char *config_backup_dir(void *ctx, struct config *cfg)
{
    char *set = config_get(ctx, cfg, "database.backup_dir"), *dir, *db_dir;

    if (set && *set)
        return set;
    dir = talloc_asprintf(ctx, "%s/backups", xdg_data_dir(ctx));
    if (is_dir(dir))
        return dir;
    db_dir = g_path_get_dirname(config_database_file(ctx, cfg));
    dir = talloc_asprintf(ctx, "%s/backups", db_dir);
    g_free(db_dir);
    return dir;
}

char *config_notmuch_dir(void *ctx, struct config *cfg)
{
    char *path = database_path(ctx, cfg);
    char *xapian = talloc_asprintf(ctx, "%s/xapian", path);
    bool in_path = is_dir(xapian);

    talloc_free(xapian);
    return in_path ? path : talloc_asprintf(ctx, "%s/.notmuch", path);
}

char *config_notmuch_database(void *ctx, struct config *cfg)
{
    char *xapian = talloc_asprintf(ctx, "%s/xapian", config_notmuch_dir(ctx, cfg));

    return is_dir(xapian) ? xapian : NULL;
}

/* maildex's database at the place of notmuch's (maildex_database_file says where: the library holds
 * the rule, so that libnotmuch.so.5 opens the same file for the same configuration). */
char *config_database_file(void *ctx, struct config *cfg)
{
    const char *env = getenv("MAILDEX_DATABASE");
    bool split;
    char *dir, *file, *found;

    if (env && *env)
        return absolute(ctx, env);
    dir = database_dir(ctx, cfg, &split);
    found = maildex_database_file(dir, split);
    file = talloc_strdup(ctx, found);
    free(found);
    talloc_free(dir);
    return file;
}
