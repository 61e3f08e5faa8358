/* `maildex setup`: writes the configuration file. On a terminal it asks, notmuch's questions with the
 * current values as defaults; otherwise (or with any option) it takes the answers from options, so
 * scripts and tests can set up a machine. It only writes keys it was given or asked about; comments
 * and other keys in an existing file are kept. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct answers {
    const char *name, *primary_email, *mail_root, *tags, *exclude_tags;
    char **other_emails;
};

/* Reads one line from stdin after printing the prompt; returns the default on an empty line. */
static char *ask(void *ctx, const char *prompt, const char *dflt)
{
    char line[4096];

    printf("%s [%s]: ", prompt, dflt ? dflt : "");
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL)
        return dflt ? talloc_strdup(ctx, dflt) : NULL;
    line[strcspn(line, "\n")] = '\0';
    return talloc_strdup(ctx, line[0] ? line : (dflt ? dflt : ""));
}

static char *joined_list(void *ctx, struct config *cfg, const char *key, const char *sep)
{
    char **list = config_get_list(ctx, cfg, key);
    char *out = talloc_strdup(ctx, "");

    for (char **v = list; *v; v++)
        out = talloc_asprintf_append(out, "%s%s", v == list ? "" : sep, *v);
    return out;
}

static void interview(struct cli *cli, struct answers *a)
{
    void *ctx = cli->ctx;
    char **others = NULL;
    char *other;

    a->name = ask(ctx, "Your full name", config_get(ctx, cli->config, "user.name"));
    a->primary_email = ask(ctx, "Your primary email address",
                           config_get(ctx, cli->config, "user.primary_email"));
    while ((other = ask(ctx, "Additional email address", "Press 'Enter' if none")) &&
           *other && strcmp(other, "Press 'Enter' if none") != 0)
        if (!options_strv_append(ctx, &others, other))
            break;
    a->other_emails = others;
    a->mail_root = ask(ctx, "Top-level directory of your email archive",
                       config_get(ctx, cli->config, "database.path"));
    a->tags = ask(ctx, "Tags to apply to all new messages (separated by spaces)",
                  joined_list(ctx, cli->config, "new.tags", " "));
    a->exclude_tags = ask(ctx, "Tags to exclude when searching messages (separated by spaces)",
                          joined_list(ctx, cli->config, "search.exclude_tags", " "));
}

/* Sets key from a space-separated answer as a list (notmuch writes "a;b;"). */
static int set_list(struct cli *cli, const char *key, const char *spaced, char **error)
{
    gchar **words = g_strsplit_set(spaced, " ;", -1);
    const char *kept[64];
    int n = 0, rc;

    for (gchar **w = words; *w && n < 64; w++)
        if (**w)
            kept[n++] = *w;
    rc = config_set(cli->ctx, cli->config, key, kept, n, true, error);
    g_strfreev(words);
    return rc;
}

static int write_answers(struct cli *cli, const struct answers *a, char **error)
{
    int rc = 0;

    if (a->name)
        rc = config_set(cli->ctx, cli->config, "user.name", &a->name, 1, false, error);
    if (rc == 0 && a->primary_email)
        rc = config_set(cli->ctx, cli->config, "user.primary_email", &a->primary_email, 1, false,
                        error);
    if (rc == 0 && a->other_emails) {
        gchar *spaced = g_strjoinv(" ", a->other_emails);
        rc = set_list(cli, "user.other_email", spaced, error);
        g_free(spaced);
    }
    if (rc == 0 && a->mail_root)
        rc = config_set(cli->ctx, cli->config, "database.path", &a->mail_root, 1, false, error);
    if (rc == 0 && a->tags)
        rc = set_list(cli, "new.tags", a->tags, error);
    if (rc == 0 && a->exclude_tags)
        rc = set_list(cli, "search.exclude_tags", a->exclude_tags, error);
    return rc;
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
    if (!given && isatty(STDIN_FILENO))
        interview(cli, &a);
    else if (!given)
        return cli_error(cli, "not a terminal: give the answers as options (--name, "
                              "--primary-email, --other-email, --mail-root, --tags, "
                              "--exclude-tags)");
    if (write_answers(cli, &a, &error) != 0)
        return cli_error(cli, "%s", error);
    printf("Configuration written to %s.\nNext, run 'maildex new' to index your mail.\n",
           cli->config->write_path);
    return EXIT_SUCCESS;
}
