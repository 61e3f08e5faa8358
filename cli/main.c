/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex's entry point: the command table, global options (--config, --version, --help), loading
 * the config, then the command (or, for a name not in the table, an external one: `maildex foo` runs
 * maildex-foo or notmuch-foo). The table and cli_run go down to the rest through struct cli (help
 * lists the one, server runs requests through the other): nothing below names this file. The start-up
 * every command shares is cli_start() (base/start.c); this file knows nothing of any one command. */
#include "cli.h"

#include <errno.h>
#include <locale.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each command's options, arguments and summary are in its man page (doc/man/maildex-NAME.1.scd),
 * from which its help is made: nothing here repeats them. */
static const struct command commands[] = {
    {"new", cmd_new, CMD_CONFIG},
    {"watch", cmd_watch, CMD_CONFIG | CMD_PROCESS},
    {"server", cmd_server, CMD_CONFIG | CMD_PROCESS},
    {"search", cmd_search, CMD_DB_READ | CMD_QUERY},
    {"address", cmd_address, CMD_DB_READ | CMD_QUERY},
    {"count", cmd_count, CMD_DB_READ | CMD_QUERY},
    {"show", cmd_show, CMD_DB_READ | CMD_QUERY},
    {"reply", cmd_reply, CMD_DB_READ | CMD_QUERY},
    {"tag", cmd_tag, CMD_DB_WRITE | CMD_QUERY},
    {"insert", cmd_insert, CMD_DB_WRITE},
    {"reindex", cmd_reindex, CMD_DB_WRITE | CMD_QUERY},
    {"purge", cmd_purge, CMD_CONFIG | CMD_QUERY},
    {"dump", cmd_dump, CMD_DB_READ | CMD_QUERY},
    {"restore", cmd_restore, CMD_DB_WRITE},
    {"import-notmuch", cmd_import_notmuch, CMD_DB_WRITE},
    {"compact", cmd_compact, CMD_DB_WRITE},
    {"exec", cmd_exec, CMD_CONFIG | CMD_PROCESS | CMD_NO_CONFIG},
    {"config", cmd_config, CMD_CONFIG_CREATE},
    {"setup", cmd_setup, CMD_CONFIG_CREATE},
    {"help", cmd_help, CMD_CONFIG_CREATE},
    {NULL, NULL, 0},
};

/* A command not in the table runs maildex-NAME, else notmuch-NAME, found in $PATH, with the same
 * arguments after the name, as notmuch runs notmuch-NAME (notmuch-git, notmuch-mutt ...), and with
 * NOTMUCH_CONFIG and MAILDEX_CONFIG naming the config file in use, so that what it runs reads the
 * same. Returns only when neither could be run, 1 after saying why. */
static int run_external(struct cli *cli, char **argv)
{
    static const char *const prefixes[] = {"maildex", "notmuch"};
    char *name = argv[0], *config = config_find(cli->ctx, cli->config_option);
    int err = ENOENT;

    if (config && *config && (setenv("NOTMUCH_CONFIG", config, 1) != 0 ||
                              setenv("MAILDEX_CONFIG", config, 1) != 0))
        return cli_error(NULL, "cannot set the environment of external command '%s': %s", name,
                         strerror(errno));
    for (size_t i = 0; i < G_N_ELEMENTS(prefixes) && err == ENOENT; i++) {
        argv[0] = talloc_asprintf(cli->ctx, "%s-%s", prefixes[i], name);
        execvp(argv[0], argv);
        err = errno;
        if (err != ENOENT) /* there, but it cannot run: not a reason to run another */
            fprintf(stderr, "Error: Running external command '%s' failed: %s\n", argv[0],
                    strerror(err));
    }
    argv[0] = name;
    if (err == ENOENT)
        cli_error(NULL, "unknown command '%s' (see 'maildex help')", name);
    return EXIT_FAILURE;
}

/* "notmuch" when run under that name (notmuch's scripts and test suite read its messages). */
static const char *program_name(const char *argv0)
{
    const char *base = strrchr(argv0, '/');

    return strcmp(base ? base + 1 : argv0, "notmuch") == 0 ? "notmuch" : "maildex";
}

/* The whole program on cli's streams: global options, the config, then the command argv names
 * (argv[0] is the program). cli holds ctx, in, out, err, commands and run, and cancel and
 * own_process as the host wants; the rest is filled in. Closes the database it opened and flushes
 * out. Returns the exit status. main() calls it once; `server` once per request, on its own thread,
 * through cli->run. */
static int cli_run(struct cli *cli, int argc, char **argv)
{
    bool version = false, help = false;
    const struct option global[] = {
        {OPT_STRING, "config", &cli->config_option, NULL, NULL, NULL},
        {OPT_BOOL, "version", &version, NULL, NULL, NULL},
        {OPT_BOOL, "help", &help, NULL, NULL, NULL},
        {OPT_STRING, "uuid", &cli->uuid, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    char *error = NULL;
    int first, status = EXIT_FAILURE;

    cli->format_version = FORMAT_VERSION_CURRENT;
    first = options_parse(cli->ctx, argc, argv, 1, global, &error);
    if (first < 0) {
        cli_option_error(cli, first, error);
        goto done;
    }
    if (version) {
        fprintf(cli->out, "maildex %s\n", maildex_version());
        status = EXIT_SUCCESS;
        goto done;
    }
    if (help) {
        char *args[] = {(char *) "help", NULL};
        status = cmd_help(cli, 1, args);
        goto done;
    }
    cli->command = first < argc ? cli_find_command(cli, argv[first]) : NULL;
    if (first < argc && cli->command == NULL) {
        status = cli->own_process ? run_external(cli, argv + first)
                                   : cli_error(cli, "unknown command '%s' (see 'maildex help')", argv[first]);
        goto done;
    }
    if (cli->command && (cli->command->flags & CMD_PROCESS) && !cli->own_process) {
        status = cli_error(cli, "runs only as a process of its own, not inside 'maildex server'");
        goto done;
    }
    cli->config = config_load(cli->ctx, cli->config_option, &error);
    if (cli->config == NULL) {
        cli_error(cli, "%s", error);
        goto done;
    }
    if (cli->command == NULL) {
        status = cli_first_run(cli);
        goto done;
    }
    status = cli->command->fn(cli, argc - first, argv + first);
    if (status == CLI_STATUS_HELPED)
        status = EXIT_SUCCESS;

done:
    cli_close_db(cli);
    if (fflush(cli->out) != 0 && status == EXIT_SUCCESS)
        status = EXIT_FAILURE;
    return status;
}

int main(int argc, char **argv)
{
    struct cli cli = {.in = stdin, .out = stdout, .err = stderr, .own_process = true, .commands = commands,
                      .run = cli_run};
    int status;

    /* Before SQLite initialises: its allocation statistics (which nothing here reads) take a global
     * mutex on every malloc, and FTS5 allocates per indexed term. The library leaves this global
     * setting to its host program. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    /* Regular expressions (POSIX, as notmuch's) read characters in the user's locale: `.` is one
     * character of a UTF-8 subject, not one byte. Nothing else here depends on the locale. */
    setlocale(LC_CTYPE, "");
    cli.ctx = talloc_new(NULL);
    if (argc > 0)
        cli_program = program_name(argv[0]);
    status = cli_run(&cli, argc, argv);
    talloc_free(cli.ctx);
    return status;
}
