/* SPDX-License-Identifier: GPL-3.0-or-later */
/* relative-date.h: notmuch's relative date of a time ("Today 10:30", "2023-11-30"), as search's
 * summaries and show's messages print it. */
#ifndef MAILDEX_CLI_RELATIVE_DATE_H
#define MAILDEX_CLI_RELATIVE_DATE_H

#include <stddef.h>
#include <time.h>

/* Writes then's relative date (local time, against the current time) into buf. */
void cli_relative_date(char *buf, size_t size, time_t then);

#endif
