/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli.h: the commands, one file each (cli/cmd-NAME.c), listed in main.c's table. What they stand
 * on (struct cli, cli_start, the database, errors, query arguments) is cli/base/base.h; the printers
 * are cli/print/, the loop of watch and server cli/loop/.
 *
 * How to add a command, in five steps:
 *   1. Write cli/cmd-NAME.c with one entry point `int cmd_NAME(struct cli *cli, int argc, char **argv)`:
 *      an option table, cli_start() (parses options, checks --format-version, opens the database as the
 *      command's flags say), one library call, output through a printer (cli/print/sprinter.h).
 *   2. Declare it below.
 *   3. Add its row to the command table in cli/main.c (flags: does it need the database, read-only or
 *      read-write, may it create it; CMD_QUERY if it takes a query, which gives it --query=infix|sexp
 *      and makes cli_query_create read the query in the syntax asked for).
 *   4. Add the file to cli_libmaildex_cli_la_SOURCES in Makefile.am.
 *   5. Document it in doc/man/maildex-NAME.1.scd (every option under OPTIONS: its --help and the shell
 *      completions are made from the page), add the page to MAN1_PAGES in Makefile.am and its line to
 *      doc/maildex.1.scd's COMMANDS, and test it in test/T###-NAME.sh.
 * Commands return an exit status (notmuch's: 0, 1 for errors, 20/21 for format versions, 75 for
 * files that vanished during `new` and for a database that cannot take an `insert` now). A command
 * that grows past ~100 lines is hiding library code. A command never calls another command's file:
 * what two share goes down into cli/base/ (or cli/print/, if it prints). */
#ifndef MAILDEX_CLI_H
#define MAILDEX_CLI_H

#include "base/base.h"

command_fn cmd_help;
command_fn cmd_new;
command_fn cmd_reindex;
command_fn cmd_purge;
command_fn cmd_config;
command_fn cmd_setup;
command_fn cmd_search;
command_fn cmd_address;
command_fn cmd_count;
command_fn cmd_tag;
command_fn cmd_dump;
command_fn cmd_restore;
command_fn cmd_import_notmuch;
command_fn cmd_compact;
command_fn cmd_insert;
command_fn cmd_show;
command_fn cmd_reply;
command_fn cmd_watch;
command_fn cmd_server;
command_fn cmd_exec;

/* What the program does when given no command (first-run.c): setup without a config file, a
 * reminder to run `new` without a database, else the command list. Returns an exit status. */
int cli_first_run(struct cli *cli);

#endif
