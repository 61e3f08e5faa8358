/* SPDX-License-Identifier: GPL-3.0-or-later */
/* handlers.h: the one table that finds a node's handler (planner.h's struct maildex__field_ops), for
 * the planner (plan.c, or-sets.c). It names every handler (fields.h) and calls none of them. */
#ifndef MAILDEX_QUERY_HANDLERS_H
#define MAILDEX_QUERY_HANDLERS_H

#include "planner.h"

/* The handler that answers n: every term has one (a field no handler knows matches nothing), and so
 * have an OR of plain terms of a field with a set form (tag:, folder:, path:, id:, thread:): `tag:a
 * tag:b ...` with ten thousand terms is one set, probed by binary search, instead of ten thousand
 * probes per message, though its drive may refuse (the planner then tries a union of the terms); a
 * full-text AND, OR or XOR (one FTS5 MATCH; an AND only for its estimate and its group, see
 * planner.h); and a (field (of ...)). NULL for a node the planner composes: NOT, thread:{}, ALL,
 * NONE, and any other AND, OR or XOR. */
const struct maildex__field_ops *maildex__handler(const struct maildex__qnode *n);

#endif
