/* Config lookup, reading, defaults and writing (see config-file.h). It must not open the database:
 * database-stored config is the library's business. */
#include "config-file.h"

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

/* config_find, also saying what named the file: "--config", "$MAILDEX_CONFIG", "$NOTMUCH_CONFIG",
 * or NULL for a default location (which is only taken when a file is there). */
static char *locate(void *ctx, const char *explicit_path, const char **named_by)
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
    candidate = talloc_asprintf(ctx, "%s/maildex/config", xdg_config_home(ctx));
    if (exists(candidate))
        return candidate;
    if ((env = getenv("NOTMUCH_CONFIG")) && *env) {
        *named_by = "$NOTMUCH_CONFIG";
        return talloc_strdup(ctx, env);
    }
    candidate = talloc_asprintf(ctx, "%s/notmuch/%s/config", xdg_config_home(ctx),
                                profile && *profile ? profile : "default");
    if (exists(candidate))
        return candidate;
    candidate = profile && *profile
                    ? talloc_asprintf(ctx, "%s/.notmuch-config.%s", home(), profile)
                    : talloc_asprintf(ctx, "%s/.notmuch-config", home());
    if (exists(candidate))
        return candidate;
    return NULL;
}

char *config_find(void *ctx, const char *explicit_path)
{
    const char *named_by;
    return locate(ctx, explicit_path, &named_by);
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
    cfg->path = locate(cfg, explicit_path, &cfg->named_by);
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

static char *raw_get(void *ctx, struct config *cfg, const char *key)
{
    char *section, *item, *value, *result = NULL;

    if (config_split_key(ctx, key, &section, &item) != 0)
        return NULL;
    value = g_key_file_get_value(cfg->kf, section, item, NULL);
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

static char *database_path(void *ctx, struct config *cfg)
{
    char *p = raw_get(ctx, cfg, "database.path");
    const char *maildir = getenv("MAILDIR");

    if (p && *p)
        return absolute(ctx, p);
    if (maildir && *maildir)
        return absolute(ctx, maildir);
    return talloc_asprintf(ctx, "%s/mail", home());
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

char *config_missing(void *ctx, struct config *cfg)
{
    if (!cfg->missing)
        return NULL;
    return talloc_asprintf(ctx, "cannot load config file '%s' (named by %s): %s; create it with "
                                "'maildex setup' or 'maildex config set'",
                           cfg->path, cfg->named_by, g_strerror(ENOENT));
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

char **config_get_list(void *ctx, struct config *cfg, const char *key)
{
    char *v = config_get(ctx, cfg, key);
    char **list = talloc_zero_array(ctx, char *, 1);
    size_t n = 0;

    if (v == NULL || list == NULL)
        return list;
    /* GLib's list syntax: ';' separates, "\;" is a literal semicolon. */
    for (char *p = v, *start = v;; p++) {
        if (*p == '\\' && p[1]) {
            memmove(p, p + 1, strlen(p));
            continue;
        }
        if (*p == ';' || *p == '\0') {
            bool end = *p == '\0';
            *p = '\0';
            g_strstrip(start); /* notmuch's strsplit_len: " fu bar ; ; bar " is "fu bar", "bar" */
            if (*start) {
                char **grown = talloc_realloc(ctx, list, char *, n + 2);
                if (grown == NULL)
                    break;
                list = grown;
                list[n++] = talloc_strdup(list, start);
                list[n] = NULL;
            }
            if (end)
                break;
            start = p + 1;
        }
    }
    talloc_free(v);
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

int config_set(void *ctx, struct config *cfg, const char *key, const char *const *values, int n,
               bool as_list, char **error)
{
    char *section, *item;
    GError *gerr = NULL;

    *error = NULL;
    if (config_split_key(ctx, key, &section, &item) != 0) {
        *error = talloc_asprintf(ctx, "invalid configuration name: %s (should be of the form "
                                      "<section>.<item>)", key);
        return -1;
    }
    if (n == 0)
        g_key_file_remove_key(cfg->kf, section, item, NULL);
    else if (n == 1 && !as_list)
        g_key_file_set_string(cfg->kf, section, item, values[0]);
    else
        g_key_file_set_string_list(cfg->kf, section, item, values, (gsize) n);
    if (make_parent_dirs(cfg->write_path) != 0 ||
        !g_key_file_save_to_file(cfg->kf, cfg->write_path, &gerr)) {
        *error = talloc_asprintf(ctx, "cannot write config file '%s': %s", cfg->write_path,
                                 gerr ? gerr->message : strerror(errno));
        g_clear_error(&gerr);
        return -1;
    }
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

char **config_list_keys(void *ctx, struct config *cfg)
{
    static const char *const derived[] = {"database.path", "database.mail_root", "new.tags",
                                          "maildir.synchronize_flags", "user.name",
                                          "user.primary_email"};
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

char *config_database_file(void *ctx, struct config *cfg)
{
    const char *env = getenv("MAILDEX_DATABASE");
    char *mail_root_set = raw_get(ctx, cfg, "database.mail_root");
    char *path = database_path(ctx, cfg), *file;

    if (env && *env)
        file = absolute(ctx, env);
    else if (mail_root_set && *mail_root_set)
        file = talloc_asprintf(ctx, "%s/maildex.db", path);
    else
        file = talloc_asprintf(ctx, "%s/.maildex/maildex.db", path);
    talloc_free(mail_root_set);
    talloc_free(path);
    return file;
}
