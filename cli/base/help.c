/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A command's help (help.h): its man page's synopsis, summary and options, compiled in, printed
 * against the option table the command really parses. An option the table has and the page does not
 * is still listed, from the table, and said to be missing from the page; the options every command
 * shares come from maildex(1)'s COMMON OPTIONS. On a terminal, with the page installed, man shows
 * the whole page instead, as notmuch's help does. */
#include "base.h"
#include "help.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const struct help_page *cli_help_page(const char *name, char section)
{
    for (const struct help_page *p = help_pages; p->name; p++)
        if (strcmp(p->name, name) == 0 && (section == 0 || p->section == section))
            return p;
    return NULL;
}

const char *cli_command_summary(const struct command *c)
{
    char name[64];
    const struct help_page *p;

    snprintf(name, sizeof name, "maildex-%s", c->name);
    p = cli_help_page(name, '1');
    return p ? p->summary : "";
}

bool cli_help_man(struct cli *cli, char section, const char *page)
{
    char sect[2] = {section, '\0'};
    char *argv[] = {(char *) "man", (char *) "-w", sect, (char *) page, NULL};
    int status;

    if (!cli->own_process || !isatty(fileno(cli->out)))
        return false;
    /* Asked first: a page that is not installed would be man's error, where the text helps. */
    if (!g_spawn_sync(NULL, argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                      NULL, NULL, NULL, &status, NULL) ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return false;
    fflush(cli->out);
    execlp("man", "man", sect, page, (char *) NULL);
    return false; /* man went away meanwhile: the text instead */
}

/* The entry of page whose heading names option o (a boolean also as --no-NAME), or NULL. */
static const struct help_option *find_entry(const struct help_page *page, const struct option *o)
{
    char plain[80], negated[80];

    if (page == NULL)
        return NULL;
    snprintf(plain, sizeof plain, " --%s ", o->name);
    snprintf(negated, sizeof negated, " --no-%s ", o->name);
    for (const struct help_option *e = page->options; e->heading; e++)
        if (strstr(e->names, plain) || (o->type == OPT_BOOL && strstr(e->names, negated)))
            return e;
    return NULL;
}

/* An option as its table gives it, for one its page does not describe. */
static void print_from_table(FILE *out, const struct option *o)
{
    fprintf(out, "  --%s", o->name);
    if (o->type == OPT_KEYWORD || o->type == OPT_FLAGS)
        for (const struct keyword *k = o->keywords; k->name; k++)
            fprintf(out, "%c%s", k == o->keywords ? '=' : '|', k->name);
    else if (o->type == OPT_INT || o->type == OPT_COUNT)
        fputs("=N", out);
    else if (o->type == OPT_STRING || o->type == OPT_STRINGS)
        fputs("=VALUE", out);
    fputs("\n      (not described in the man page)\n\n", out);
}

/* The table's options that the command's page does not describe: the shared ones maildex(1)
 * describes go into one closing line, the rest are printed from the table. */
static void print_rest(FILE *out, const struct option *opts, const struct help_page *page,
                       const struct help_page *common, GPtrArray *shared)
{
    for (const struct option *o = opts; o->type != OPT_END; o++) {
        const struct help_option *e;
        if (o->type == OPT_INHERIT) {
            print_rest(out, o->sub, page, common, shared);
        } else if (find_entry(page, o) == NULL) {
            if ((e = find_entry(common, o)) == NULL)
                print_from_table(out, o);
            else if (!g_ptr_array_find(shared, e->heading, NULL))
                g_ptr_array_add(shared, (char *) e->heading);
        }
    }
}

static void print_text(FILE *out, const char *text, const char *indent)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%s%.*s\n", len ? indent : "", (int) len, line);
        line += len + (line[len] == '\n');
    }
}

void cli_print_help(struct cli *cli, const struct option *opts)
{
    const struct command *c = cli->command;
    const struct help_page *page, *common = cli_help_page("maildex", '1');
    GPtrArray *shared = g_ptr_array_new();
    char name[64];

    snprintf(name, sizeof name, "maildex-%s", c->name);
    if (cli_help_man(cli, '1', name))
        return;
    page = cli_help_page(name, '1');
    if (page) {
        size_t len = strcspn(page->synopsis, "\n");
        fprintf(cli->out, "Usage: %.*s\n", (int) len, page->synopsis);
        print_text(cli->out, page->synopsis + len + (page->synopsis[len] == '\n'), "       ");
        fprintf(cli->out, "\n%c%s.\n\nOptions:\n", g_ascii_toupper(page->summary[0]), page->summary + 1);
        for (const struct help_option *e = page->options; e->heading; e++) {
            fprintf(cli->out, "  %s\n", e->heading);
            print_text(cli->out, e->text, "      ");
            fputc('\n', cli->out);
        }
    } else {
        fprintf(cli->out, "Usage: maildex %s [OPTION...]\n\nOptions:\n", c->name);
    }
    print_rest(cli->out, opts, page, common, shared);
    if (shared->len) {
        fputs("Also", cli->out);
        for (guint i = 0; i < shared->len; i++)
            fprintf(cli->out, "%s %s", i == 0 ? "" : i + 1 == shared->len ? " and" : ",",
                    (const char *) g_ptr_array_index(shared, i));
        fputs(": see maildex(1).\n", cli->out);
    }
    fprintf(cli->out, "The whole page: %s(1).\n", name);
    g_ptr_array_free(shared, TRUE);
}
