/* SPDX-License-Identifier: GPL-3.0-or-later */
/* base.h: what every command, the loop and the printers stand on: struct cli (one run of a command:
 * its streams, its config, its database) and the command table's types; the shared start-up every
 * command gets through cli_start(); opening the database; error messages; a query from the
 * arguments; what the commands that index share. Nothing in cli/base/ names a command, a printer or
 * the loop: the command table and the whole program's run come down to it through struct cli. */
#ifndef MAILDEX_CLI_BASE_H
#define MAILDEX_CLI_BASE_H

#include "config-file.h"
#include "maildex.h"
#include "options.h"

#include <stdbool.h>
#include <stdio.h>
#include <talloc.h>

/* Output format versions: the oldest and newest accepted (notmuch 0.37's). */
#define FORMAT_VERSION_MIN 1
#define FORMAT_VERSION_CURRENT 5
#define EXIT_FORMAT_TOO_OLD 20
#define EXIT_FORMAT_TOO_NEW 21
/* What cli_start makes a command return (as -first) after printing the help page --help asked for:
 * no exit status is this large, and main.c's cli_run turns it into 0. */
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
    CMD_NO_CONFIG = 1 << 6,     /* runs when there is no config file anywhere (a client it runs
                                 * names its own: exec); a named one missing is still refused */
};

struct cli;
typedef int command_fn(struct cli *cli, int argc, char **argv);

/* A row of main.c's table. What a command does, its options and arguments are told by its man page,
 * doc/man/maildex-NAME.1.scd, which the help is made from (help.h). */
struct command {
    const char *name;
    command_fn *fn;
    int flags;
};

struct cli {
    void *ctx;                      /* talloc root of the process */
    const struct command *command;
    /* The program's command table (NULL-terminated) and the whole program on an argv (main.c's
     * cli_run): set by main, copied into each request by server, so that help lists the commands and
     * server runs a request without naming main.c. */
    const struct command *commands;
    command_fn *run;
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
 * scripts and tests read its messages; "maildex" otherwise. Set by main (errors.c). */
extern const char *cli_program;

/* Prints "maildex CMD: message" on stderr (cli_program for maildex); returns 1 (EXIT_FAILURE) for
 * `return cli_error(...)` (errors.c). */
int cli_error(struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reports options_parse's failure (parsed < 0): an unknown option in notmuch's own words, without the
 * program's name, as scripts match it; any other error as cli_error does. Returns EXIT_FAILURE. */
int cli_option_error(struct cli *cli, int parsed, const char *error);

/* Parses the command's options (plus the shared ones: --format-version, --help, --uuid), validates the
 * format version, then opens the database if the command's flags ask for it and checks --uuid against
 * it. Returns the index of the first non-option argument, or a negative exit status to return (already
 * reported on stderr): -CLI_STATUS_HELPED when --help printed the command's help page instead
 * (start.c). */
int cli_start(struct cli *cli, int argc, char **argv, const struct option *opts);

/* The command of the table in cli->commands named name, or NULL (start.c). */
const struct command *cli_find_command(const struct cli *cli, const char *name);

/* The help of cli->command, whose full option table (shared ones included) is opts: the page of
 * `help COMMAND` and `COMMAND --help`, from its man page (help.c, help.h); on a terminal, with the
 * man page installed, man shows the page instead and this does not return. */
void cli_print_help(struct cli *cli, const struct option *opts);

/* When cli is a process of its own writing to a terminal and man finds the page (in section, '1',
 * '5' or '7'), runs man on it in place of this process; else returns false (help.c). */
bool cli_help_man(struct cli *cli, char section, const char *page);

/* The compiled-in page named name ("maildex-search") in section (0: any), or NULL; and a command's
 * one-line summary, its page's NAME line ("" without a page) (help.c). */
struct help_page;
const struct help_page *cli_help_page(const char *name, char section);
const char *cli_command_summary(const struct command *c);

/* Opens the database in the given mode, reporting failure on stderr. Returns 0 or an exit status
 * (open-db.c). */
int cli_open_db(struct cli *cli, maildex_db_mode_t mode);

/* Closes cli->db (NULL allowed) and sets it to NULL, under cli->db_lock when there is one. */
void cli_close_db(struct cli *cli);

/* Query helpers shared by every command that takes a query (query-args.c): argv joined with single
 * spaces, as notmuch joins it; and a query created in the syntax --query asked for, with
 * search.exclude_tags, query.NAME and squery.NAME from the config (else the database), reporting a
 * syntax error as notmuch does. cli_query_create returns 0 or an exit status. */
char *cli_query_string(void *ctx, int argc, char **argv);
int cli_query_create(struct cli *cli, const char *text, maildex_query_options_t *opts,
                     maildex_query_t **out);

/* argv joined as cli_query_string joins it, or NULL when it is empty, after notmuch's message ("Error:
 * notmuch search requires at least one search term.", with this program's and command's names). */
char *cli_query_required(struct cli *cli, int argc, char **argv);

/* --decrypt=true|false|auto|nostash of the commands that index (index-options.c), and the policy they
 * index with: the option when given, else index.decrypt from the config file, else from the open
 * database's stored config, else auto. */
extern const struct keyword cli_index_decrypt_keywords[];
maildex_decrypt_t cli_index_decrypt(struct cli *cli, int option, bool given);

/* notmuch refuses to index with a new.tags tag it would refuse to add, before any hook: returns 0,
 * or 1 after saying in notmuch's words which tag and why (index-options.c; new, insert and watch). */
int cli_check_new_tags(struct cli *cli, const char *const *tags);

/* dump's and restore's --include keywords (dump-include.c). */
enum { INCLUDE_CONFIG = 1, INCLUDE_PROPERTIES = 2, INCLUDE_TAGS = 4 };
extern const struct keyword dump_include_keywords[];

#endif
