/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notmuch's relative dates (notmuch-time.c notmuch_time_relative_date), which search summaries and
 * show's messages print as date_relative: "Today 10:30", "Yest. 09:15", "Mon. 08:00", "March 02",
 * "2023-11-30", in local time against the current time. */
#include "relative-date.h"

#include <stdio.h>
#include <time.h>

void cli_relative_date(char *buf, size_t size, time_t then)
{
    const time_t now = time(NULL), day = 24 * 3600;
    struct tm tm_now, tm_then;
    time_t delta;

    localtime_r(&now, &tm_now);
    localtime_r(&then, &tm_then);
    if (then > now) {
        snprintf(buf, size, "the future");
        return;
    }
    delta = now - then;
    if (delta > 180 * day) {
        strftime(buf, size, "%F", &tm_then);
        return;
    }
    if (delta < 3600) {
        snprintf(buf, size, "%d mins. ago", (int) (delta / 60));
        return;
    }
    if (delta <= 7 * day) {
        if (tm_then.tm_wday == tm_now.tm_wday && delta < day) {
            strftime(buf, size, "Today %R", &tm_then);
            return;
        }
        if ((tm_now.tm_wday + 7 - tm_then.tm_wday) % 7 == 1) {
            strftime(buf, size, "Yest. %R", &tm_then);
            return;
        }
        if (tm_then.tm_wday != tm_now.tm_wday) {
            strftime(buf, size, "%a. %R", &tm_then);
            return;
        }
    }
    strftime(buf, size, "%B %d", &tm_then);
}

