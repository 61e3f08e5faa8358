/* SPDX-License-Identifier: GPL-3.0-or-later */
/* help.h: the help of the commands, compiled in from their man pages. doc/man/help-embed.awk turns
 * each page's scdoc source (doc/maildex.1.scd and doc/man/) into help-pages.c at build time: the
 * NAME line's summary, the SYNOPSIS and every OPTIONS entry as plain text. `help COMMAND` and
 * `COMMAND --help` print them against the command's own option table (help.c), so the page, the
 * help and what the command accepts cannot say three different things unnoticed (test/T012-docs.sh). */
#ifndef MAILDEX_CLI_HELP_H
#define MAILDEX_CLI_HELP_H

#include <stddef.h>

struct help_option {
    const char *names;   /* every --name its heading gives, each with a space before and after */
    const char *heading; /* "--output=summary|threads|messages|files|tags" */
    const char *text;    /* the description, lines ended by \n */
};

struct help_page {
    const char *name;    /* "maildex-search"; "maildex" for maildex(1) */
    char section;        /* '1', '5' or '7' */
    const char *summary; /* the NAME line after its " - " */
    const char *synopsis;
    const struct help_option *options; /* ended by a NULL heading */
};

/* Every page, ended by a NULL name (help-pages.c, generated). */
extern const struct help_page help_pages[];

#endif
