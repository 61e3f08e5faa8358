/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vm-steps.h: counting the SQLite VM steps a piece of work costs, for the work bounds the unit tests
 * assert and bench/work-counter reports. Every statement counts: install maildex__vm_steps_finished
 * with sqlite3_trace_v2(SQLITE_TRACE_PROFILE, ..., &steps) to collect a statement's steps when it is
 * reset or finalized (planner look-ups and FTS5's own statements included), then add
 * maildex__vm_steps_sweep for the statements still alive (cached ones). Both zero what they read,
 * so call the sweep once before the work too. Header only: nothing here is in the library. */
#ifndef MAILDEX_VM_STEPS_H
#define MAILDEX_VM_STEPS_H

#include <sqlite3.h>
#include <stdint.h>

static inline int maildex__vm_steps_finished(unsigned type, void *steps, void *stmt, void *x)
{
    (void) x;
    if (type == SQLITE_TRACE_PROFILE)
        *(int64_t *) steps += sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1);
    return 0;
}

static inline int64_t maildex__vm_steps_sweep(sqlite3 *sql)
{
    int64_t n = 0;

    for (sqlite3_stmt *s = sqlite3_next_stmt(sql, NULL); s; s = sqlite3_next_stmt(sql, s))
        n += sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
    return n;
}

#endif
