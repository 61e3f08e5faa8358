/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maildex's entry point: the command table, global options (--config, --version, --help), loading
 * the config, the shared start-up every command gets through cli_start(), and external commands
 * (`maildex foo` runs maildex-foo or notmuch-foo). Commands never repeat this set-up, and this file
 * knows nothing of any one command. */
#include "cli.h"

#include <errno.h>
#include <locale.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct command cli_commands[] = {
    {"new", cmd_new, CMD_CONFIG, "[--quiet] [--verbose] [--debug] [--no-hooks] [--full-scan]",
     "Index new, moved and removed mail"},
    {"watch", cmd_watch, CMD_CONFIG | CMD_PROCESS, "[--foreground] [--debounce=MS] [--no-hooks] [--quiet]",
     "Index mail as it lands in the Maildirs, until stopped"},
    {"server", cmd_server, CMD_CONFIG | CMD_PROCESS,
     "[--socket=PATH | --listen] [--watch] [--no-hooks] [--debounce=MS]",
     "Answer requests from editors (doc/protocol.md) on stdin/stdout or a socket"},
    {"search", cmd_search, CMD_DB_READ | CMD_QUERY,
     "[--output=summary|threads|messages|files|tags] [--format=text|text0|json|sexp] [--query=infix|sexp] "
     "[--sort=newest-first|oldest-first] [--limit=N] [--offset=N] [--exclude=true|false|flag|all] "
     "[--duplicate=N] QUERY...",
     "Search for messages matching a query"},
    {"address", cmd_address, CMD_DB_READ | CMD_QUERY,
     "[--output=sender|recipients|count|address]... [--deduplicate=no|mailbox|address] "
     "[--format=text|text0|json|sexp] [--sort=newest-first|oldest-first] [--exclude=true|false] "
     "[--query=infix|sexp] "
     "QUERY...",
     "Print the senders or recipients of the messages matching a query"},
    {"count", cmd_count, CMD_DB_READ | CMD_QUERY,
     "[--output=messages|threads|files] [--exclude=true|false] [--batch] [--input=FILE] [--lastmod] "
     "[--query=infix|sexp] [QUERY...]",
     "Count messages, threads or files matching a query"},
    {"show", cmd_show, CMD_DB_READ | CMD_QUERY,
     "[--format=json|sexp|text|raw|mbox] [--entire-thread[=true|false]] [--unthreaded] [--body=true|false] "
     "[--part=N] [--duplicate=N] [--include-html] [--exclude=true|false] [--sort=newest-first|oldest-first] "
     "[--decrypt=false|auto|true] [--query=infix|sexp] QUERY...",
     "Show the threads or messages matching a query"},
    {"reply", cmd_reply, CMD_DB_READ | CMD_QUERY,
     "[--format=default|json|sexp|headers-only] [--reply-to=all|sender] [--decrypt=false|auto|true] "
     "[--duplicate=N] [--query=infix|sexp] QUERY...",
     "Print a reply template for the messages matching a query"},
    {"tag", cmd_tag, CMD_DB_WRITE | CMD_QUERY, "[--batch] [--input=FILE] [--remove-all] [--query=infix|sexp] +TAG|-TAG... [--] QUERY...",
     "Add or remove tags of the messages matching a query"},
    {"insert", cmd_insert, CMD_DB_WRITE,
     "[--folder=DIR] [--create-folder] [--keep] [--no-hooks] [--world-readable] [--decrypt=...] "
     "[+TAG|-TAG...] < MESSAGE",
     "Deliver a message from standard input into a Maildir and index it"},
    {"reindex", cmd_reindex, CMD_DB_WRITE | CMD_QUERY, "[--decrypt=...] [--query=infix|sexp] QUERY...",
     "Re-index the messages matching a query, keeping their tags"},
    {"dump", cmd_dump, CMD_DB_READ | CMD_QUERY,
     "[--format=batch-tag|sup] [--include=config|properties|tags] [--output=FILE] [--gzip] "
     "[--query=infix|sexp] [--] [QUERY...]",
     "Write the tags, properties and stored config of the messages matching a query"},
    {"restore", cmd_restore, CMD_DB_WRITE,
     "[--accumulate] [--format=auto|batch-tag|sup] [--include=config|properties|tags] "
     "[--input=FILE]",
     "Restore tags, properties and stored config from a dump"},
    {"compact", cmd_compact, CMD_DB_WRITE, "[--backup=DIR] [--quiet]",
     "Rebuild the database without its free space"},
    {"config", cmd_config, CMD_CONFIG_CREATE, "get|set|list [KEY [VALUE...]]",
     "Get, set or list configuration values"},
    {"setup", cmd_setup, CMD_CONFIG_CREATE, "[--name=NAME] [--primary-email=ADDR] ...",
     "Write a configuration file, interactively on a terminal"},
    {"help", cmd_help, CMD_CONFIG_CREATE, "[COMMAND]", "Show help for maildex or for one command"},
    {NULL, NULL, 0, NULL, NULL},
};

const char *cli_program = "maildex";

const struct command *cli_find_command(const char *name)
{
    for (const struct command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

int cli_option_error(struct cli *cli, int parsed, const char *error)
{
    if (parsed == OPTIONS_UNRECOGNIZED) {
        fprintf(cli ? cli->err : stderr, "%s\n", error);
        return EXIT_FAILURE;
    }
    return cli_error(cli, "%s", error);
}

int cli_error(struct cli *cli, const char *fmt, ...)
{
    FILE *err = cli ? cli->err : stderr;
    va_list ap;

    fprintf(err, "%s%s%s: ", cli_program, cli && cli->command ? " " : "",
            cli && cli->command ? cli->command->name : "");
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
    fputc('\n', err);
    return EXIT_FAILURE;
}

/* A write that waits for another process says so on a terminal (a pipe, such as an editor's, gets
 * nothing: notmuch.el shows any stderr as an error). */
static void on_waiting(void *data, const char *what)
{
    struct cli *cli = data;

    if (isatty(fileno(cli->err)))
        fprintf(cli->err, "maildex %s: %s...\n", cli->command ? cli->command->name : "", what);
}

/* Creates the directory the database file goes in (mode 0700), but not its parents: a missing mail
 * root is a mistake to report, as notmuch does, not a directory to invent. Returns 0, or 1 when it
 * reported a failure. */
static int make_database_dir(struct cli *cli, const char *file)
{
    char *dir = g_path_get_dirname(file), *parent = g_path_get_dirname(dir);
    int rc = 0, err;

    if (mkdir(dir, 0700) != 0 && (err = errno) != EEXIST) {
        if (err == ENOENT)
            rc = cli_error(cli, "cannot create directory '%s': '%s' does not exist", dir, parent);
        else
            rc = cli_error(cli, "cannot create directory '%s': %s", dir, strerror(err));
    }
    g_free(parent);
    g_free(dir);
    return rc;
}

/* notmuch's index.header.PREFIX=Header keys (user-defined fields) for indexing and queries. */
static maildex_status_t set_user_fields(struct cli *cli)
{
    static const char section[] = "index.header.";
    char **keys = config_list_keys(cli->ctx, cli->config);
    maildex_pair_t *fields = talloc_zero_array(cli->ctx, maildex_pair_t, 1);
    size_t n = 0;

    for (char **k = keys; fields && k && *k; k++) {
        if (strncmp(*k, section, sizeof section - 1) != 0 || (*k)[sizeof section - 1] == '\0')
            continue;
        fields = talloc_realloc(cli->ctx, fields, maildex_pair_t, n + 2);
        if (fields == NULL)
            break;
        fields[n].key = *k + sizeof section - 1;
        fields[n].value = config_get(cli->ctx, cli->config, *k);
        fields[++n] = (maildex_pair_t){NULL, NULL};
    }
    return fields ? maildex_db_set_user_fields(cli->db, fields) : MAILDEX_STATUS_NO_MEMORY;
}

int cli_open_db(struct cli *cli, maildex_db_mode_t mode)
{
    char *file = config_database_file(cli->ctx, cli->config);
    char *root = config_mail_root(cli->ctx, cli->config);
    char *error = NULL;
    maildex_db_t *db = NULL;
    maildex_status_t st;

    if (mode == MAILDEX_DB_CREATE && make_database_dir(cli, file) != 0)
        return EXIT_FAILURE;
    st = maildex_db_open(file, root, mode, &db, &error);
    if (st == MAILDEX_STATUS_OK) {
        if (cli->db_lock)
            g_mutex_lock(cli->db_lock);
        cli->db = db;
        if (cli->cancel) /* cancelled before it was open */
            maildex_db_cancel(db, (maildex_cancel_t) cli->cancel);
        if (cli->db_lock)
            g_mutex_unlock(cli->db_lock);
    }
    if (st != MAILDEX_STATUS_OK) {
        if (st == MAILDEX_STATUS_FILE_NOT_FOUND && mode != MAILDEX_DB_CREATE)
            cli_error(cli, "no database at '%s': run 'maildex new' first", file);
        else
            cli_error(cli, "%s", error ? error : maildex_status_to_string(st));
        free(error);
        return EXIT_FAILURE;
    }
    if (set_user_fields(cli) != MAILDEX_STATUS_OK)
        return cli_error(cli, "out of memory");
    if (mode != MAILDEX_DB_READ_ONLY)
        maildex_db_set_waiting(cli->db, on_waiting, cli);
    return 0;
}

void cli_close_db(struct cli *cli)
{
    maildex_db_t *db = cli->db;

    if (cli->db_lock)
        g_mutex_lock(cli->db_lock);
    cli->db = NULL;
    if (cli->db_lock)
        g_mutex_unlock(cli->db_lock);
    maildex_db_close(db);
}

static int check_format_version(struct cli *cli)
{
    if (cli->format_version < FORMAT_VERSION_MIN) {
        fprintf(cli->err,
                "A caller requested output format version %d, which is no longer supported\n"
                "by the maildex CLI (it requires at least version %d).  You may need to\n"
                "upgrade your notmuch front-end.\n",
                cli->format_version, FORMAT_VERSION_MIN);
        return EXIT_FORMAT_TOO_OLD;
    }
    if (cli->format_version > FORMAT_VERSION_CURRENT) {
        fprintf(cli->err,
                "A caller requested output format version %d, but the installed maildex\n"
                "CLI only supports up to format version %d.  You may need to upgrade your\n"
                "maildex CLI.\n",
                cli->format_version, FORMAT_VERSION_CURRENT);
        return EXIT_FORMAT_TOO_NEW;
    }
    return 0;
}

/* --uuid names the database a caller read lastmod values from: another database (rebuilt, or a
 * different one) must not be read or written as if it were that one. notmuch's wording and status. */
static int check_uuid(struct cli *cli)
{
    const char *uuid = NULL;
    maildex_status_t st;

    if (cli->uuid == NULL)
        return 0;
    st = maildex_db_revision(cli->db, &uuid, NULL);
    if (st != MAILDEX_STATUS_OK)
        return cli_error(cli, "%s", maildex_db_errmsg(cli->db));
    if (strcmp(cli->uuid, uuid) != 0) {
        fprintf(cli->err, "Error: requested database revision %s does not match %s\n", cli->uuid, uuid);
        return EXIT_FAILURE;
    }
    return 0;
}

int cli_start(struct cli *cli, int argc, char **argv, const struct option *opts)
{
    static const struct keyword syntaxes[] = {{"infix", MAILDEX_QUERY_INFIX}, {"sexp", MAILDEX_QUERY_SEXP},
                                              {NULL, 0}};
    bool help = false;
    const struct option query[] = {
        {OPT_KEYWORD, "query", &cli->query_syntax, syntaxes, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    const struct option shared[] = {
        {OPT_INT, "format-version", &cli->format_version, NULL, NULL, NULL},
        {OPT_BOOL, "help", &help, NULL, NULL, NULL},
        {OPT_STRING, "uuid", &cli->uuid, NULL, NULL, NULL},
        {OPT_INHERIT, NULL, NULL, NULL, (cli->command->flags & CMD_QUERY) ? query : query + 1, NULL},
        {OPT_INHERIT, NULL, NULL, NULL, opts, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    char *error = NULL;
    int first = options_parse(cli->ctx, argc, argv, 1, shared, &error), rc;
    const int flags = cli->command->flags;

    if (first < 0)
        return -cli_option_error(cli, first, error);
    if (help) { /* the command does not run; its help page is its output */
        char *args[] = {(char *) "help", (char *) cli->command->name, NULL};
        rc = cmd_help(cli, 2, args);
        return -(rc == 0 ? CLI_STATUS_HELPED : rc);
    }
    if ((rc = check_format_version(cli)) != 0)
        return -rc;
    if (flags & (CMD_DB_READ | CMD_DB_WRITE | CMD_DB_CREATE)) {
        maildex_db_mode_t mode = (flags & CMD_DB_CREATE)  ? MAILDEX_DB_CREATE
                                 : (flags & CMD_DB_WRITE) ? MAILDEX_DB_READ_WRITE
                                                          : MAILDEX_DB_READ_ONLY;
        if ((rc = cli_open_db(cli, mode)) != 0 || (rc = check_uuid(cli)) != 0)
            return -rc;
    } else if (cli->uuid) {
        fprintf(cli->err, "Warning: ignoring --uuid=%s\n", cli->uuid);
    }
    return first;
}

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

int cli_run(struct cli *cli, int argc, char **argv)
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
    cli->command = first < argc ? cli_find_command(argv[first]) : NULL;
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
    /* notmuch's words (a maildex names the file too) and status; nothing runs on defaults. */
    if (!(cli->command->flags & CMD_CONFIG_CREATE) && cli->config->missing) {
        fprintf(cli->err, "%s\nTry running '%s setup' to create a configuration.\n",
                config_missing(cli->ctx, cli->config, strcmp(cli_program, "notmuch") != 0), cli_program);
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
    struct cli cli = {.in = stdin, .out = stdout, .err = stderr, .own_process = true};
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
