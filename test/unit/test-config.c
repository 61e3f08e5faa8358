/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Config lookup order, list syntax, defaults and derived paths (cli/base/config-file.c). Each test sets
 * HOME and the XDG/NOTMUCH/MAILDEX variables itself, so the order of tests does not matter. */
#include "base/config-file.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <talloc.h>

static const char *home_dir;

static void write_file(const char *path, const char *text)
{
    char *dir = g_path_get_dirname(path);
    FILE *f;
    g_mkdir_with_parents(dir, 0700);
    g_free(dir);
    f = fopen(path, "w");
    ASSERT(f != NULL);
    fputs(text, f);
    fclose(f);
}

static char *in_home(void *ctx, const char *rel)
{
    return talloc_asprintf(ctx, "%s/%s", home_dir, rel);
}

static void fresh_env(const char *label)
{
    home_dir = test_scratch_dir(label);
    setenv("HOME", home_dir, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("MAILDEX_CONFIG");
    unsetenv("NOTMUCH_CONFIG");
    unsetenv("NOTMUCH_PROFILE");
    unsetenv("MAILDEX_DATABASE");
    unsetenv("MAILDIR");
    unsetenv("XDG_DATA_HOME");
    unsetenv("NOTMUCH_DATABASE");
}

TEST(lookup_order_each_step)
{
    void *ctx = talloc_new(NULL);
    fresh_env("order");
    /* Build every candidate, then remove them from the top down. */
    write_file(in_home(ctx, ".notmuch-config"), "[user]\nname=home\n");
    ASSERT_STR_EQ(config_find(ctx, NULL), in_home(ctx, ".notmuch-config"));
    write_file(in_home(ctx, ".config/notmuch/default/config"), "[user]\nname=xdg-notmuch\n");
    ASSERT_STR_EQ(config_find(ctx, NULL), in_home(ctx, ".config/notmuch/default/config"));
    setenv("NOTMUCH_CONFIG", "/nm/env", 1);
    ASSERT_STR_EQ(config_find(ctx, NULL), "/nm/env");
    write_file(in_home(ctx, ".config/maildex/config"), "[user]\nname=xdg-maildex\n");
    ASSERT_STR_EQ(config_find(ctx, NULL), in_home(ctx, ".config/maildex/config"));
    setenv("MAILDEX_CONFIG", "/md/env", 1);
    ASSERT_STR_EQ(config_find(ctx, NULL), "/md/env");
    ASSERT_STR_EQ(config_find(ctx, "/explicit"), "/explicit");
    talloc_free(ctx);
}

TEST(xdg_config_home_and_profile)
{
    void *ctx = talloc_new(NULL);
    fresh_env("xdg");
    setenv("XDG_CONFIG_HOME", in_home(ctx, "elsewhere"), 1);
    setenv("NOTMUCH_PROFILE", "work", 1);
    write_file(in_home(ctx, ".notmuch-config.work"), "[user]\nname=w\n");
    ASSERT_STR_EQ(config_find(ctx, NULL), in_home(ctx, ".notmuch-config.work"));
    write_file(in_home(ctx, "elsewhere/notmuch/work/config"), "[user]\nname=w\n");
    ASSERT_STR_EQ(config_find(ctx, NULL), in_home(ctx, "elsewhere/notmuch/work/config"));
    write_file(in_home(ctx, "elsewhere/maildex/config"), "[user]\nname=w\n");
    ASSERT_STR_EQ(config_find(ctx, NULL), in_home(ctx, "elsewhere/maildex/config"));
    talloc_free(ctx);
}

TEST(no_file_means_defaults)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    struct config *cfg;
    char **tags;
    bool flag;
    fresh_env("none");
    cfg = config_load(ctx, NULL, &err);
    ASSERT(cfg != NULL);
    ASSERT(cfg->path == NULL);
    ASSERT_STR_EQ(cfg->write_path, in_home(ctx, ".config/maildex/config"));
    ASSERT_STR_EQ(config_get(ctx, cfg, "database.path"), in_home(ctx, "mail"));
    ASSERT_STR_EQ(config_get(ctx, cfg, "database.mail_root"), in_home(ctx, "mail"));
    tags = config_get_list(ctx, cfg, "new.tags");
    ASSERT_STR_EQ(tags[0], "unread");
    ASSERT_STR_EQ(tags[1], "inbox");
    ASSERT(tags[2] == NULL);
    ASSERT_EQ(config_get_bool(ctx, cfg, "maildir.synchronize_flags", false, &flag, &err), 0);
    ASSERT(flag);
    ASSERT(config_get(ctx, cfg, "search.exclude_tags") == NULL);
    ASSERT(config_get_list(ctx, cfg, "search.exclude_tags")[0] == NULL);
    setenv("MAILDIR", "/var/maildir", 1);
    ASSERT_STR_EQ(config_get(ctx, cfg, "database.path"), "/var/maildir");
    talloc_free(ctx);
}

TEST(notmuch_file_values_and_lists)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    struct config *cfg;
    char **other;
    bool flag;
    fresh_env("values");
    write_file(in_home(ctx, ".notmuch-config"),
               "# a notmuch config\n[database]\npath=mail/archive\n\n[user]\nname=Ada L.\n"
               "primary_email=ada@example.org\nother_email=a@x.org;b@y.org;\n"
               "[new]\ntags=unread;inbox;\nignore=.mbsyncstate;/^tmp\\;x$/; ;\n"
               "[search]\nexclude_tags= fu bar ; ; bar \n"
               "[maildir]\nsynchronize_flags=false\n");
    cfg = config_load(ctx, NULL, &err);
    ASSERT(cfg != NULL);
    ASSERT_STR_EQ(config_get(ctx, cfg, "user.primary_email"), "ada@example.org");
    ASSERT_STR_EQ(config_get(ctx, cfg, "database.path"), in_home(ctx, "mail/archive"));
    other = config_get_list(ctx, cfg, "user.other_email");
    ASSERT_STR_EQ(other[0], "a@x.org");
    ASSERT_STR_EQ(other[1], "b@y.org");
    ASSERT(other[2] == NULL);
    other = config_get_list(ctx, cfg, "new.ignore");
    ASSERT_STR_EQ(other[0], ".mbsyncstate");
    ASSERT_STR_EQ(other[1], "/^tmp;x$/"); /* "\;" is a literal semicolon */
    ASSERT(other[2] == NULL);
    /* Each value is trimmed, and one that is only blanks is no value (notmuch's strsplit_len). */
    other = config_get_list(ctx, cfg, "search.exclude_tags");
    ASSERT_STR_EQ(other[0], "fu bar");
    ASSERT_STR_EQ(other[1], "bar");
    ASSERT(other[2] == NULL);
    ASSERT_EQ(config_get_bool(ctx, cfg, "maildir.synchronize_flags", true, &flag, &err), 0);
    ASSERT(!flag);
    ASSERT(config_get(ctx, cfg, "user.nothing") == NULL);
    ASSERT(config_get(ctx, cfg, "nodot") == NULL);
    talloc_free(ctx);
}

TEST(database_location_rules)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    struct config *cfg;
    fresh_env("dbloc");
    write_file(in_home(ctx, "c1"), "[database]\npath=/srv/mail\n");
    cfg = config_load(ctx, in_home(ctx, "c1"), &err);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), "/srv/mail/.maildex/maildex.db");
    ASSERT_STR_EQ(config_mail_root(ctx, cfg), "/srv/mail");
    write_file(in_home(ctx, "c2"), "[database]\npath=.local/share/notmuch\nmail_root=Mail\n");
    cfg = config_load(ctx, in_home(ctx, "c2"), &err);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), in_home(ctx, ".local/share/notmuch/maildex.db"));
    ASSERT_STR_EQ(config_mail_root(ctx, cfg), in_home(ctx, "Mail"));
    setenv("MAILDEX_DATABASE", "/tmp/x.db", 1);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), "/tmp/x.db");
    talloc_free(ctx);
}

/* notmuch's _choose_database_path and its split rule, with maildex.db where notmuch has xapian/. */
TEST(database_location_as_notmuch)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL, *mail, *text;
    struct config *cfg;
    fresh_env("dbnotmuch");
    mail = in_home(ctx, "Maildir");
    ASSERT(mkdir(mail, 0700) == 0);
    /* database.path a symbolic link to the mail root: the same directory, so not split. */
    ASSERT(symlink(mail, in_home(ctx, "link")) == 0);
    text = talloc_asprintf(ctx, "[database]\npath=%s\nmail_root=%s\n", in_home(ctx, "link"), mail);
    write_file(in_home(ctx, "c1"), text);
    cfg = config_load(ctx, in_home(ctx, "c1"), &err);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), in_home(ctx, "link/.maildex/maildex.db"));
    /* No database.path: the XDG data directory when it exists (split), else $MAILDIR, else ~/mail. */
    text = talloc_asprintf(ctx, "[database]\nmail_root=%s\n", mail);
    write_file(in_home(ctx, "c2"), text);
    cfg = config_load(ctx, in_home(ctx, "c2"), &err);
    ASSERT_STR_EQ(config_get(ctx, cfg, "database.path"), in_home(ctx, "mail"));
    setenv("MAILDIR", mail, 1);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), in_home(ctx, "Maildir/.maildex/maildex.db"));
    ASSERT(g_mkdir_with_parents(in_home(ctx, ".local/share/notmuch/work"), 0700) == 0);
    setenv("NOTMUCH_PROFILE", "work", 1);
    ASSERT_STR_EQ(config_get(ctx, cfg, "database.path"), in_home(ctx, ".local/share/notmuch/work"));
    ASSERT_STR_EQ(config_database_file(ctx, cfg), in_home(ctx, ".local/share/notmuch/work/maildex.db"));
    ASSERT_STR_EQ(config_mail_root(ctx, cfg), mail);
    setenv("XDG_DATA_HOME", in_home(ctx, "elsewhere"), 1);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), in_home(ctx, "Maildir/.maildex/maildex.db"));
    setenv("NOTMUCH_DATABASE", "/srv/nm", 1);
    ASSERT_STR_EQ(config_database_file(ctx, cfg), "/srv/nm/maildex.db");
    unsetenv("NOTMUCH_DATABASE");
    /* A database made where earlier versions put it (mail_root set to the path itself) is kept. */
    write_file(in_home(ctx, "Maildir/maildex.db"), "");
    ASSERT_STR_EQ(config_database_file(ctx, cfg), in_home(ctx, "Maildir/maildex.db"));
    talloc_free(ctx);
}

/* Values come back as they were set: GLib's escapes for newlines, tabs and backslashes. */
TEST(values_round_trip)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    struct config *cfg;
    const char *v[] = {"thing\nother\tx\\y"};
    fresh_env("roundtrip");
    cfg = config_load(ctx, in_home(ctx, "c"), &err);
    ASSERT_EQ(config_set(ctx, cfg, "foo.bar", v, 1, &err), 0);
    cfg = config_load(ctx, in_home(ctx, "c"), &err);
    ASSERT_STR_EQ(config_get(ctx, cfg, "foo.bar"), v[0]);
    ASSERT_STR_EQ(config_get_list(ctx, cfg, "foo.bar")[0], v[0]);
    talloc_free(ctx);
}

/* `config set` through a symbolic link writes the file it names and leaves the link. */
TEST(save_follows_symlink)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL, target[256];
    struct config *cfg;
    const char *v[] = {"Link Name"};
    ssize_t n;
    fresh_env("symlink");
    write_file(in_home(ctx, "real"), "[user]\nname=N\n");
    ASSERT(symlink("real", in_home(ctx, "link")) == 0);
    cfg = config_load(ctx, in_home(ctx, "link"), &err);
    ASSERT_EQ(config_set(ctx, cfg, "user.name", v, 1, &err), 0);
    n = readlink(in_home(ctx, "link"), target, sizeof target - 1);
    ASSERT_EQ(n, 4);
    cfg = config_load(ctx, in_home(ctx, "real"), &err);
    ASSERT_STR_EQ(config_get(ctx, cfg, "user.name"), "Link Name");
    talloc_free(ctx);
}

TEST(set_writes_lists_and_removes)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL, *text = NULL;
    struct config *cfg;
    const char *two[] = {"a", "b"}, *one[] = {"solo"};
    fresh_env("set");
    write_file(in_home(ctx, "cfg"), "# keep this comment\n[user]\nname=N\n");
    cfg = config_load(ctx, in_home(ctx, "cfg"), &err);
    ASSERT_EQ(config_set(ctx, cfg, "user.x", two, 2, &err), 0);
    ASSERT_EQ(config_set(ctx, cfg, "new.tags", one, 1, &err), 0);
    ASSERT_EQ(config_set(ctx, cfg, "user.name", NULL, 0, &err), 0);
    ASSERT(g_file_get_contents(in_home(ctx, "cfg"), &text, NULL, NULL));
    ASSERT(strstr(text, "# keep this comment") != NULL);
    ASSERT(strstr(text, "x=a;b;") != NULL);
    ASSERT(strstr(text, "tags=solo\n") != NULL); /* one value is a string, as notmuch writes it */
    ASSERT(strstr(text, "name=") == NULL);
    g_free(text);
    ASSERT_EQ(config_set(ctx, cfg, "nodot", one, 1, &err), -1);
    ASSERT(strstr(err, "invalid configuration name") != NULL);
    talloc_free(ctx);
}

TEST(set_creates_default_file)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    struct config *cfg;
    const char *v[] = {"me@example.org"};
    fresh_env("create");
    cfg = config_load(ctx, NULL, &err);
    ASSERT_EQ(config_set(ctx, cfg, "user.primary_email", v, 1, &err), 0);
    cfg = config_load(ctx, NULL, &err);
    ASSERT_STR_EQ(cfg->path, in_home(ctx, ".config/maildex/config"));
    ASSERT_STR_EQ(config_get(ctx, cfg, "user.primary_email"), "me@example.org");
    talloc_free(ctx);
}

TEST(unparseable_file_is_an_error)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    fresh_env("bad");
    write_file(in_home(ctx, "bad"), "this is not a key file\n[[[\n");
    ASSERT(config_load(ctx, in_home(ctx, "bad"), &err) == NULL);
    ASSERT(err && strstr(err, "bad") && strstr(err, "cannot read config file"));
    talloc_free(ctx);
}

/* A file that --config or a variable names must exist (notmuch: "cannot load config file"); only
 * the default locations may be absent. */
TEST(named_file_that_is_missing_is_reported)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL, *missing;
    struct config *cfg;
    const char *const vars[] = {"MAILDEX_CONFIG", "NOTMUCH_CONFIG"};
    fresh_env("missing");
    cfg = config_load(ctx, in_home(ctx, "nope"), &err);
    ASSERT(cfg != NULL && cfg->missing);
    ASSERT_STR_EQ(config_missing(ctx, cfg, false), "Error: cannot load config file.");
    missing = config_missing(ctx, cfg, true);
    ASSERT(missing && strstr(missing, in_home(ctx, "nope")) && strstr(missing, "--config"));
    for (size_t i = 0; i < 2; i++) {
        char *dollar = talloc_asprintf(ctx, "$%s", vars[i]);
        setenv(vars[i], in_home(ctx, "gone"), 1);
        cfg = config_load(ctx, NULL, &err);
        ASSERT(cfg != NULL);
        missing = config_missing(ctx, cfg, true);
        ASSERT(missing && strstr(missing, in_home(ctx, "gone")) && strstr(missing, dollar));
        unsetenv(vars[i]);
    }
    /* Nothing named and nothing in the default locations: refused too, naming where it looked. */
    cfg = config_load(ctx, NULL, &err);
    ASSERT(cfg != NULL && cfg->none && !cfg->missing);
    ASSERT_STR_EQ(config_missing(ctx, cfg, false), "Error: cannot load config file.");
    missing = config_missing(ctx, cfg, true);
    ASSERT(missing && strstr(missing, "$MAILDEX_CONFIG (not set)") && strstr(missing, in_home(ctx, ".notmuch-config")));
    /* --config='' means no file, as in notmuch. */
    cfg = config_load(ctx, "", &err);
    ASSERT(cfg != NULL && config_missing(ctx, cfg, true) == NULL);
    talloc_free(ctx);
}

TEST(unreadable_default_file_is_reported_not_skipped)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    fresh_env("unreadable");
    write_file(in_home(ctx, ".notmuch-config"), "[user]\nname=N\n");
    ASSERT(mkdir(in_home(ctx, ".config"), 0700) == 0);
    ASSERT(mkdir(in_home(ctx, ".config/maildex"), 0700) == 0);
    /* A directory where the file should be: unreadable as a file even for root. */
    ASSERT(mkdir(in_home(ctx, ".config/maildex/config"), 0700) == 0);
    ASSERT(config_load(ctx, NULL, &err) == NULL);
    ASSERT(err && strstr(err, in_home(ctx, ".config/maildex/config")));
    talloc_free(ctx);
}

TEST(booleans_are_true_or_false_or_an_error)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL, *text;
    struct config *cfg;
    bool value;
    const char *const yes[] = {"true", "TRUE", "yes", "Yes", "1"};
    const char *const no[] = {"false", "no", "0"};
    const char *const bad[] = {"maybe", "", "2", "on"};
    fresh_env("bool");
    for (size_t i = 0; i < G_N_ELEMENTS(yes) + G_N_ELEMENTS(no); i++) {
        bool is_yes = i < G_N_ELEMENTS(yes);
        text = talloc_asprintf(ctx, "[maildir]\nsynchronize_flags=%s\n",
                               is_yes ? yes[i] : no[i - G_N_ELEMENTS(yes)]);
        write_file(in_home(ctx, "b"), text);
        cfg = config_load(ctx, in_home(ctx, "b"), &err);
        ASSERT_EQ(config_get_bool(ctx, cfg, "maildir.synchronize_flags", !is_yes, &value, &err), 0);
        ASSERT_EQ(value, is_yes);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        text = talloc_asprintf(ctx, "[maildir]\nsynchronize_flags=%s\n", bad[i]);
        write_file(in_home(ctx, "b"), text);
        cfg = config_load(ctx, in_home(ctx, "b"), &err);
        ASSERT_EQ(config_get_bool(ctx, cfg, "maildir.synchronize_flags", true, &value, &err), -1);
        ASSERT_STR_EQ(err, talloc_asprintf(ctx, "config key 'maildir.synchronize_flags' has value "
                                                "'%s', which is not true or false (in '%s')",
                                           bad[i], in_home(ctx, "b")));
    }
    talloc_free(ctx);
}

TEST(list_keys_sorted_with_derived)
{
    void *ctx = talloc_new(NULL);
    char *err = NULL;
    struct config *cfg;
    char **keys;
    size_t n = 0;
    fresh_env("list");
    write_file(in_home(ctx, "c"), "[user]\nname=N\n[search]\nexclude_tags=deleted;spam;\n");
    cfg = config_load(ctx, in_home(ctx, "c"), &err);
    keys = config_list_keys(ctx, cfg);
    for (; keys[n]; n++)
        if (n > 0)
            ASSERT(strcmp(keys[n - 1], keys[n]) < 0);
    ASSERT_EQ(n, 9);
    ASSERT_STR_EQ(keys[0], "database.autocommit");
    ASSERT_STR_EQ(keys[4], "new.ignore");
    ASSERT_STR_EQ(keys[6], "search.exclude_tags");
    talloc_free(ctx);
}

/* notmuch's own directory for the config (xapian/, hooks/): .notmuch/ in database.path, or the path
 * itself once it holds xapian/; a notmuch database only when xapian/ is there. */
TEST(notmuch_dir_as_notmuch_finds_it)
{
    void *ctx = talloc_new(NULL);
    struct config *cfg;
    char *error, *mail;

    fresh_env("notmuch-dir");
    mail = in_home(ctx, "mail");
    write_file(in_home(ctx, ".notmuch-config"), talloc_asprintf(ctx, "[database]\npath=%s\n", mail));
    cfg = config_load(ctx, NULL, &error);
    ASSERT(cfg != NULL);
    ASSERT_STR_EQ(config_notmuch_dir(ctx, cfg), talloc_asprintf(ctx, "%s/.notmuch", mail));
    ASSERT(config_notmuch_database(ctx, cfg) == NULL);
    g_mkdir_with_parents(talloc_asprintf(ctx, "%s/.notmuch/xapian", mail), 0700);
    ASSERT_STR_EQ(config_notmuch_database(ctx, cfg), talloc_asprintf(ctx, "%s/.notmuch/xapian", mail));
    g_mkdir_with_parents(talloc_asprintf(ctx, "%s/xapian", mail), 0700);
    ASSERT_STR_EQ(config_notmuch_dir(ctx, cfg), mail);
    ASSERT_STR_EQ(config_notmuch_database(ctx, cfg), talloc_asprintf(ctx, "%s/xapian", mail));
    talloc_free(ctx);
}

TEST_MAIN(TEST_ENTRY(lookup_order_each_step) TEST_ENTRY(notmuch_dir_as_notmuch_finds_it) TEST_ENTRY(xdg_config_home_and_profile)
              TEST_ENTRY(no_file_means_defaults) TEST_ENTRY(notmuch_file_values_and_lists)
                  TEST_ENTRY(database_location_rules) TEST_ENTRY(database_location_as_notmuch) TEST_ENTRY(values_round_trip) TEST_ENTRY(save_follows_symlink) TEST_ENTRY(set_writes_lists_and_removes)
                      TEST_ENTRY(set_creates_default_file) TEST_ENTRY(unparseable_file_is_an_error)
                          TEST_ENTRY(named_file_that_is_missing_is_reported)
                          TEST_ENTRY(unreadable_default_file_is_reported_not_skipped)
                          TEST_ENTRY(booleans_are_true_or_false_or_an_error)
                          TEST_ENTRY(list_keys_sorted_with_derived))
