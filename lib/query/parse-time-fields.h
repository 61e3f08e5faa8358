/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse-time-fields.h: the record of a date text that reading it (parse-time-read.c) fills in and building
 * its time (parse-time.c) completes: which fields the text gave, how, and their values. */
#ifndef MAILDEX_PARSE_TIME_FIELDS_H
#define MAILDEX_PARSE_TIME_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

/* Fields of a parse. The SEC..YEAR and REL_SEC..REL_YEAR blocks must stay parallel (maildex__time_rel_of). */
enum maildex__time_field {
    MAILDEX__TF_SEC,
    MAILDEX__TF_MIN,
    MAILDEX__TF_HOUR,
    MAILDEX__TF_MDAY,
    MAILDEX__TF_MON,
    MAILDEX__TF_YEAR,
    MAILDEX__TF_WDAY, /* 0 = Sunday; counts back from today unless a day of the month is given */
    MAILDEX__TF_AMPM, /* 0 = am, 1 = pm */
    MAILDEX__TF_TZ,   /* minutes east of UTC */
    MAILDEX__TF_REL_SEC,
    MAILDEX__TF_REL_MIN,
    MAILDEX__TF_REL_HOUR,
    MAILDEX__TF_REL_DAY,
    MAILDEX__TF_REL_MON,
    MAILDEX__TF_REL_YEAR,
    MAILDEX__TF_REL_WEEK,
    MAILDEX__TF_COUNT,
    MAILDEX__TF_NONE = MAILDEX__TF_COUNT,
};

/* How a field was given: not at all, by the text, or as "now" ("today", "now": known once the zone is). */
enum { MAILDEX__TF_UNSET, MAILDEX__TF_GIVEN, MAILDEX__TF_FROM_NOW };

/* What a date text gave: per field its value and how it was given, and the reading's state. */
typedef struct {
    int64_t value[MAILDEX__TF_COUNT];
    unsigned char how[MAILDEX__TF_COUNT];
    enum maildex__time_field last; /* the field set most recently: "January 20" reads 20 as a day because of it */
    char delim;      /* the last separator seen since a field was set: '@', '+', '-' change meanings */
    struct {
        int len; /* digits in the number; 0 = nothing held; -1 = a number word ("two", "last") */
        int64_t value;
        char delim; /* the separator in front of it: "-0800" is a zone */
    } held;
} maildex__time_parse_t;

static inline bool maildex__time_is_set(const maildex__time_parse_t *p, enum maildex__time_field f)
{
    return p->how[f] != MAILDEX__TF_UNSET;
}

/* The relative field of an absolute one (MAILDEX__TF_SEC ... MAILDEX__TF_YEAR). */
static inline enum maildex__time_field maildex__time_rel_of(enum maildex__time_field f)
{
    return (enum maildex__time_field) (f + (MAILDEX__TF_REL_SEC - MAILDEX__TF_SEC));
}

/* An hour on a 12-hour clock (before am/pm). */
static inline bool maildex__time_valid_hour12(int64_t h)
{
    return h >= 1 && h <= 12;
}

/* Reads the date text s into *p from scratch (parse-time-read.c). Returns 0, or a
 * MAILDEX__PARSE_TIME_ERR_* code for a text notmuch does not take. */
int maildex__time_read(maildex__time_parse_t *p, const char *s);

/* Adds v units to the relative field f. Returns 0, or MAILDEX__PARSE_TIME_ERR_FORMAT when the sum
 * reaches past any year (or a held number nobody claimed is wrong, as resolve_held says). */
int maildex__time_add_field(maildex__time_parse_t *p, enum maildex__time_field f, int64_t v);

#endif
