/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli.h: what the command files share.
 *
 * How to add a command, in five steps:
 *   1. Write cli/cmd-NAME.c with one entry point `int cmd_NAME(struct cli *cli, int argc, char **argv)`:
 *      an option table, cli_start() (parses options, checks --format-version, opens the database as the
 *      command's flags say), one library call, output through a printer (cli/print/sprinter.h).
 *   2. Declare it below.
 *   3. Add its row to the command table in cli/main.c (flags: does it need the database, read-only or
 *      read-write, may it create it; CMD_QUERY if it takes a query, which gives it --query=infix|sexp
 *      and makes cli_query_create read the query in the syntax asked for).
 *   4. Add the file to cli_maildex_SOURCES in Makefile.am.
 *   5. Document it in doc/maildex.1.scd and test it in test/T###-NAME.sh.
 * Commands return an exit status (notmuch's: 0, 1 for errors, 20/21 for format versions, 75 for
 * files that vanished during `new` and for a database that cannot take an `insert` now). A command that grows past ~100 lines is hiding library code. */
#ifndef MAILDEX_CLI_H
#define MAILDEX_CLI_H

#include "config-file.h"
#include "maildex.h"
#include "options.h"

#include <stdbool.h>
#include <stdio.h>
#include <talloc.h>
#include <time.h>

/* Output format versions: the oldest and newest accepted (notmuch 0.37's). */
#define FORMAT_VERSION_MIN 1
#define FORMAT_VERSION_CURRENT 5
#define EXIT_FORMAT_TOO_OLD 20
#define EXIT_FORMAT_TOO_NEW 21
/* What cli_start makes a command return (as -first) after printing the help page --help asked for:
 * no exit status is this large, and cli_run turns it into 0. */
#define CLI_STATUS_HELPED 256

enum command_flags {
    CMD_CONFIG = 0,         /* needs the config only */
    CMD_DB_READ = 1 << 0,   /* opens the database read-only */
    CMD_DB_WRITE = 1 << 1,  /* opens the database read-write */
    CMD_DB_CREATE = 1 << 2, /* may create the database */
    CMD_CONFIG_CREATE = 1 << 3, /* runs when a named config file is missing (creates it, or needs
                                 * none); other commands refuse to run on defaults then */
    CMD_QUERY = 1 << 4,         /* takes a query: cli_start accepts --query=infix|sexp for it */
    CMD_PROCESS = 1 << 5,       /* owns the process (signals, the terminal, a loop): never run as a
                                 * request of `server` */
};

struct cli;
typedef int command_fn(struct cli *cli, int argc, char **argv);

struct command {
    const char *name;
    command_fn *fn;
    int flags;
    const char *usage;   /* options and arguments, for help */
    const char *summary; /* one line */
};

struct cli {
    void *ctx;                      /* talloc root of the process */
    const struct command *command;
    const char *config_option;      /* --config's value, or NULL */
    struct config *config;
    maildex_db_t *db;               /* opened by cli_start as the flags say */
    int format_version;
    const char *uuid;               /* --uuid: the database revision uuid the caller expects, or NULL */
    int query_syntax;               /* maildex_query_syntax_t: --query (CMD_QUERY commands) */
    /* Where the command reads and prints: stdin, stdout and stderr in a process; a request's own
     * streams in `server`, which runs commands on threads. Nothing in a command names stdin, stdout
     * or stderr; what it spawns (hooks) gets these as its fds 0, 1 and 2. */
    FILE *in, *out, *err;
    /* A cancellation (maildex_cancel_t) that came from another thread (server's cancel), under
     * db_lock: cli_open_db cancels the handle with it as soon as it is open. 0: none. In a process
     * of its own, `new` takes SIGINT and SIGTERM instead. */
    int cancel;
    /* Held while db is set or cleared, or cancel set, when another thread may cancel db. */
    GMutex *db_lock;
    bool own_process; /* main's, not a server request: unknown commands run maildex-NAME, CMD_PROCESS ones run */
};

/* The program's name in messages: "notmuch" when it runs as notmuch (a drop-in's symlink), as notmuch's
 * scripts and tests read its messages; "maildex" otherwise. Set by main. */
extern const char *cli_program;

/* Parses the command's options (plus the shared ones: --format-version, --help, --uuid), validates the
 * format version, then opens the database if the command's flags ask for it and checks --uuid against
 * it. Returns the index of the first non-option argument, or a negative exit status to return (already
 * reported on stderr): -CLI_STATUS_HELPED when --help printed the command's help page instead. */
int cli_start(struct cli *cli, int argc, char **argv, const struct option *opts);

/* Opens the database in the given mode, reporting failure on stderr. Returns 0 or an exit status. */
int cli_open_db(struct cli *cli, maildex_db_mode_t mode);

/* Closes cli->db (NULL allowed) and sets it to NULL, under cli->db_lock when there is one. */
void cli_close_db(struct cli *cli);

/* Prints "maildex CMD: message" on stderr (cli_program for maildex); returns 1 (EXIT_FAILURE) for
 * `return cli_error(...)`. */
int cli_error(struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What the program does when given no command (first-run.c): setup without a config file, a
 * reminder to run `new` without a database, else the command list. Returns an exit status. */
int cli_first_run(struct cli *cli);

/* Reports options_parse's failure (parsed < 0): an unknown option in notmuch's own words, without the
 * program's name, as scripts match it; any other error as cli_error does. Returns EXIT_FAILURE. */
int cli_option_error(struct cli *cli, int parsed, const char *error);

/* The whole program on cli's streams (main.c): global options, the config, then the command argv
 * names (argv[0] is the program). cli holds ctx, in, out, err, and cancel and own_process as
 * the host wants; the rest is filled in. Closes the database it opened and flushes out. Returns the
 * exit status. main() calls it once; `server` once per request, on its own thread. */
int cli_run(struct cli *cli, int argc, char **argv);

/* The command table, NULL-terminated (main.c). */
extern const struct command cli_commands[];
const struct command *cli_find_command(const char *name);

command_fn cmd_help;
command_fn cmd_new;
command_fn cmd_reindex;
command_fn cmd_config;
command_fn cmd_setup;
command_fn cmd_search;
command_fn cmd_address;
command_fn cmd_count;
command_fn cmd_tag;
command_fn cmd_dump;
command_fn cmd_restore;
command_fn cmd_compact;
command_fn cmd_insert;
command_fn cmd_show;
command_fn cmd_reply;
command_fn cmd_watch;
command_fn cmd_server;

/* notmuch's relative date of then ("Today 10:30", "2023-11-30"), as search and show print it
 * (relative-date.c). */
void cli_relative_date(char *buf, size_t size, time_t then);

/* dump's and restore's --include keywords (cmd-dump.c). */
enum { INCLUDE_CONFIG = 1, INCLUDE_PROPERTIES = 2, INCLUDE_TAGS = 4 };
extern const struct keyword dump_include_keywords[];

/* Query helpers shared by every command that takes a query (cmd-search.c): argv joined with single
 * spaces, as notmuch joins it; and a query created in the syntax --query asked for, with
 * search.exclude_tags, query.NAME and squery.NAME from the config (else the database), reporting a
 * syntax error as notmuch does. cli_query_create returns 0 or an exit status. */
char *cli_query_string(void *ctx, int argc, char **argv);

/* argv joined as cli_query_string joins it, or NULL when it is empty, after notmuch's message ("Error:
 * notmuch search requires at least one search term.", with this program's and command's names). */
char *cli_query_required(struct cli *cli, int argc, char **argv);

/* --decrypt=true|false|auto|nostash of the commands that index (index-decrypt.c), and the policy they
 * index with: the option when given, else index.decrypt from the config file, else from the open
 * database's stored config, else auto. */
extern const struct keyword cli_index_decrypt_keywords[];
maildex_decrypt_t cli_index_decrypt(struct cli *cli, int option, bool given);

/* notmuch refuses to index with a new.tags tag it would refuse to add, before any hook: returns 0,
 * or 1 after saying in notmuch's words which tag and why (cmd-new.c; insert and watch too). */
int cli_check_new_tags(struct cli *cli, const char *const *tags);

/* The keywords of --format=text|text0|json|sexp, as enum sprinter_format (cmd-search.c). */
extern const struct keyword cli_format_keywords[];
int cli_query_create(struct cli *cli, const char *text, maildex_query_options_t *opts,
                     maildex_query_t **out);

#endif
