/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex setup`: writes the configuration file. Without options it asks notmuch's questions on
 * stdin, terminal or not, with the current values as defaults, and writes only what was answered, so
 * the file is the one notmuch's setup writes (its comments too, config-template.c); with options it
 * takes the answers from them, for scripts. Comments and other keys in an existing file are kept. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct answers {
    const char *name, *primary_email, *mail_root, *tags, *exclude_tags;
    char **other_emails;
};

/* Prints the prompt, reads one line from the input: "" for an empty answer, NULL at the end of input
 * (notmuch's setup then says "Exiting." and fails). */
static char *ask(struct cli *cli, void *ctx, const char *prompt, const char *dflt)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    char *answer = NULL;

    fprintf(cli->out, "%s [%s]: ", prompt, dflt ? dflt : "");
    fflush(cli->out);
    if ((len = getline(&line, &size, cli->in)) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        answer = talloc_strdup(ctx, line);
    }
    free(line);
    return answer;
}

static char *joined_list(void *ctx, struct config *cfg, const char *key)
{
    char **list = config_get_list(ctx, cfg, key);
    char *out = talloc_strdup(ctx, "");

    for (char **v = list; *v; v++)
        out = talloc_asprintf_append(out, "%s%s", v == list ? "" : " ", *v);
    return out;
}

/* An empty answer keeps what is there (NULL: nothing to write). */
static const char *kept(const char *answer)
{
    return answer && *answer ? answer : NULL;
}

/* notmuch's questions in notmuch's order; false at the end of input. */
static bool interview(struct cli *cli, struct answers *a)
{
    void *ctx = cli->ctx;
    char **others = NULL, **known = config_get_list(ctx, cli->config, "user.other_email");
    char *r;

    if (!(r = ask(cli, ctx, "Your full name", config_get(ctx, cli->config, "user.name"))))
        return false;
    a->name = kept(r);
    if (!(r = ask(cli, ctx, "Your primary email address", config_get(ctx, cli->config, "user.primary_email"))))
        return false;
    a->primary_email = kept(r);
    for (char **k = known; *k; k++) {
        if (!(r = ask(cli, ctx, "Additional email address", *k)))
            return false;
        options_strv_append(ctx, &others, *r ? r : *k);
    }
    while ((r = ask(cli, ctx, "Additional email address", "Press 'Enter' if none")) && *r)
        options_strv_append(ctx, &others, r);
    a->other_emails = others;
    if (!r || !(r = ask(cli, ctx, "Top-level directory of your email archive",
                        config_get(ctx, cli->config, "database.path"))))
        return false;
    a->mail_root = kept(r);
    if (!(r = ask(cli, ctx, "Tags to apply to all new messages (separated by spaces)",
                  joined_list(ctx, cli->config, "new.tags"))))
        return false;
    a->tags = kept(r);
    r = ask(cli, ctx, "Tags to exclude when searching messages (separated by spaces)",
            joined_list(ctx, cli->config, "search.exclude_tags"));
    a->exclude_tags = kept(r);
    return r != NULL;
}

/* Sets key from a space-separated answer: a list of two or more, else a string (notmuch's setup). */
static int put_words(struct cli *cli, const char *key, const char *spaced, char **error)
{
    gchar **words = g_strsplit_set(spaced, " ", -1);
    const char *kept_words[64];
    int n = 0, rc;

    for (gchar **w = words; *w && n < 64; w++)
        if (**w)
            kept_words[n++] = *w;
    rc = n ? config_put(cli->ctx, cli->config, key, kept_words, n, error) : 0;
    g_strfreev(words);
    return rc;
}

/* A relative mail directory is taken from the working directory, as notmuch's setup takes it. */
static const char *absolute_dir(void *ctx, const char *dir)
{
    char *cwd;
    const char *out;

    if (dir[0] == '/' || (cwd = g_get_current_dir()) == NULL)
        return dir;
    out = talloc_asprintf(ctx, "%s/%s", cwd, dir);
    g_free(cwd);
    return out;
}

static int write_answers(struct cli *cli, const struct answers *a, char **error)
{
    const char *path = a->mail_root ? absolute_dir(cli->ctx, a->mail_root) : NULL;
    int rc = 0, n = 0;

    config_add_notmuch_comments(cli->config);
    if (a->name)
        rc = config_put(cli->ctx, cli->config, "user.name", &a->name, 1, error);
    if (rc == 0 && a->primary_email)
        rc = config_put(cli->ctx, cli->config, "user.primary_email", &a->primary_email, 1, error);
    while (a->other_emails && a->other_emails[n])
        n++;
    if (rc == 0 && n)
        rc = config_put(cli->ctx, cli->config, "user.other_email", (const char *const *) a->other_emails,
                        n, error);
    if (rc == 0 && path)
        rc = config_put(cli->ctx, cli->config, "database.path", &path, 1, error);
    if (rc == 0 && a->tags)
        rc = put_words(cli, "new.tags", a->tags, error);
    if (rc == 0 && a->exclude_tags)
        rc = put_words(cli, "search.exclude_tags", a->exclude_tags, error);
    return rc == 0 ? config_save(cli->ctx, cli->config, error) : rc;
}

int cmd_setup(struct cli *cli, int argc, char **argv)
{
    struct answers a = {0};
    bool given = false;
    const struct option opts[] = {
        {OPT_STRING, "name", &a.name, NULL, NULL, &given},
        {OPT_STRING, "primary-email", &a.primary_email, NULL, NULL, &given},
        {OPT_STRINGS, "other-email", &a.other_emails, NULL, NULL, &given},
        {OPT_STRING, "mail-root", &a.mail_root, NULL, NULL, &given},
        {OPT_STRING, "tags", &a.tags, NULL, NULL, &given},
        {OPT_STRING, "exclude-tags", &a.exclude_tags, NULL, NULL, &given},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    char *error = NULL;
    int first = cli_start(cli, argc, argv, opts);

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if (!given && !interview(cli, &a)) {
        fprintf(cli->out, "Exiting.\n");
        return EXIT_FAILURE;
    }
    if (write_answers(cli, &a, &error) != 0)
        return cli_error(cli, "%s", error);
    fprintf(cli->out, "Configuration written to %s.\nNext, run 'maildex new' to index your mail.\n",
           cli->config->write_path);
    return EXIT_SUCCESS;
}
