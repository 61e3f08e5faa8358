/* SPDX-License-Identifier: GPL-3.0-or-later */
/* purge-report.h: what `purge` prints (cli/print/purge-report.c) for cli/cmd-purge.c: the files a
 * dry run would remove or move, the files that could not go, and what the purge will do or did: a
 * line in the text format, one map in JSON and S-expressions. The command decides when; this
 * prints. */
#ifndef MAILDEX_CLI_PRINT_PURGE_REPORT_H
#define MAILDEX_CLI_PRINT_PURGE_REPORT_H

#include "base/base.h"
#include "sprinter.h"

struct purge_report {
    struct cli *cli;
    const char *query;     /* as it is run */
    const char *to_folder; /* --to-folder, or NULL */
    int format;            /* enum sprinter_format */
    bool dry_run;          /* --dry-run: every file is listed */
    bool done;             /* the purge itself runs (not the plan): its failures are listed */
    struct sprinter *sp;
    maildex_purge_file_t **paths; /* JSON and sexp: the files to list (copies, on the printer) */
    size_t npaths;
    char *held; /* the plan's files that cannot go, one message a line, for purge_report_held */
};

/* --format's keywords: text (the default), text0 (only a dry run's files, each ended by a NUL),
 * json, sexp. */
extern const struct keyword purge_report_formats[];

/* Makes pr's printer on cli->out. Returns 0 or 1 (reported). */
int purge_report_start(struct purge_report *pr);

/* maildex_purge's file callback (data is the struct purge_report). */
void purge_report_file(void *data, const maildex_purge_file_t *f);

/* Tells, on stderr, the files the plan found that cannot go (when nothing else can, the purge is
 * not run and these are its report). */
void purge_report_held(struct purge_report *pr);

/* What will be (a plan, a dry run) or was purged. */
void purge_report_print(struct purge_report *pr, const maildex_purge_stats_t *s);

#endif
