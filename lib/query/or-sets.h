/* SPDX-License-Identifier: GPL-3.0-or-later */
/* or-sets.h: an OR or XOR read whole into one set of message keys at plan time, for the planner's
 * composition (plan.c), which asks first whether a node is one. */
#ifndef MAILDEX_QUERY_OR_SETS_H
#define MAILDEX_QUERY_OR_SETS_H

#include "planner.h"

/* Whether n is an OR or XOR too long to drive as a union or to probe part by part on every message
 * (three thousand `(tag:x and word)` would cost three thousand probes per message), or an XOR whose
 * parts are cheaper read once each than streamed and probed: with a prefix, or, when every match is
 * read anyway, of words the pages give (FTS5 would walk each word's positions once per time its
 * expression names it: `the xor to` names each twice). An OR or XOR that a handler answers whole
 * is not, unless it is such an XOR of words. */
bool maildex__or_set_wanted(struct maildex__planner *p, const struct maildex__qnode *n);

/* The probe of n's set, and its drive: the keys stream from the set's own rows, in key order
 * (maildex_set yields them sorted). The set is read once per query: each part's own plan read once
 * (the sum of the parts), the parts' sorted keys merged pairwise, balanced (an XOR keeps the keys in
 * one side only, which is odd membership over all parts). "0", or false, on error (on p). */
const char *maildex__or_set_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a);
bool maildex__or_set_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d);

#endif
