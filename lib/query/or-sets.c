/* SPDX-License-Identifier: GPL-3.0-or-later */
/* or-sets.c: an OR or XOR that the planner reads whole into one set of message keys (or-sets.h),
 * because it is too long to drive as a union or to probe part by part on every message, or because
 * its parts are cheaper read once each than streamed and probed. Each part's own plan is read once
 * (through the planner's callback, p->stream), the costly ones on a second connection and core
 * (side-read.h), and the parts' sorted keys are merged. Nothing here composes the parts' plans or
 * knows a field: a part's keys come from its handler (read_keys) or from its stream. */
#include "or-sets.h"

#include "handlers.h"
#include "side-read.h"

/* n's matches read whole now by its handler (a free-text word from the index's pages when every
 * match is read), or NULL to stream it. */
static const struct maildex__set *read_by_handler(struct maildex__planner *p, const struct maildex__qnode *n)
{
    const struct maildex__field_ops *h = maildex__handler(n);

    return h && h->read_keys ? h->read_keys(p, n) : NULL;
}

/* Whether every child of n is read whole by its handler, reading them now. */
static bool words_from_pages(struct maildex__planner *p, const struct maildex__qnode *n)
{
    for (size_t i = 0; i < n->nchildren; i++)
        if (read_by_handler(p, n->children[i]) == NULL)
            return false;
    return n->nchildren > 0;
}

bool maildex__or_set_wanted(struct maildex__planner *p, const struct maildex__qnode *n)
{
    if (n->kind == MAILDEX__Q_XOR && words_from_pages(p, n))
        return true;
    if ((n->kind != MAILDEX__Q_OR && n->kind != MAILDEX__Q_XOR) || maildex__handler(n) != NULL)
        return false;
    /* An XOR with a prefix in it too: as a union, each part would be streamed in one arm and probed
     * in the others, and a prefix costs its whole merged doclist either way. */
    return n->nchildren > MAILDEX__MAX_ARMS || (n->kind == MAILDEX__Q_XOR && maildex__plan_has_prefix(n));
}

/* Each part's keys, parts[i] for n's child i. The costly parts (a prefix FTS5 answers: it merges all
 * its words' doclists before the first key) after the first are read on a second connection and core
 * while this one reads the rest: an XOR of two prefixes then costs the slower one, not both. A lone
 * prefix read word by word (fts-prefix.h) is a set by now, and costs nothing more here. */
static void read_parts(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__set **parts)
{
    const size_t np = n->nchildren;
    const char **streams = talloc_zero_array(p->ctx, const char *, np);
    const char **side_sqls = talloc_zero_array(p->ctx, const char *, np);
    size_t *side_part = talloc_zero_array(p->ctx, size_t, np);
    struct maildex__set **side_sets = talloc_zero_array(p->ctx, struct maildex__set *, np);
    struct maildex__side_read *side = NULL;
    size_t nside = 0, ncostly = 0;

    if (!streams || !side_sqls || !side_part || !side_sets) {
        p->st = MAILDEX_STATUS_NO_MEMORY;
        return;
    }
    for (size_t i = 0; i < np && p->st == MAILDEX_STATUS_OK; i++) {
        const struct maildex__set *words = read_by_handler(p, n->children[i]);
        if (words) { /* a copy: the merge below frees its parts, the planner keeps this one */
            if ((parts[i] = maildex__set_union(p->ctx, (struct maildex__set *const *) &words, 1)) == NULL)
                p->st = MAILDEX_STATUS_NO_MEMORY;
            continue;
        }
        streams[i] = p->stream(p, n->children[i]);
        if (streams[i] && maildex__plan_has_prefix(n->children[i]) &&
            !maildex__plan_keys_held(p, n->children[i]) && ncostly++ > 0) {
            side_part[nside] = i;
            side_sqls[nside++] = streams[i];
        }
    }
    if (p->st != MAILDEX_STATUS_OK)
        return;
    if (nside) {
        const struct maildex__plan so_far = {.binds = (struct maildex__bind *) p->binds->data,
                                             .nbinds = p->binds->len};
        side = maildex__side_read_start(p->ctx, p->db, side_sqls, nside, &so_far);
    }
    for (size_t i = 0, j = 0; i < np && p->st == MAILDEX_STATUS_OK; i++) {
        if (side && j < nside && side_part[j] == i) {
            j++;
            continue;
        }
        if (parts[i] == NULL)
            parts[i] = maildex__plan_read_keys(p, streams[i]);
    }
    if (side == NULL)
        return;
    maildex__side_read_finish(side, p->db, p->ctx, side_sets);
    for (size_t j = 0; j < nside && p->st == MAILDEX_STATUS_OK; j++)
        parts[side_part[j]] = side_sets[j] ? side_sets[j] : maildex__plan_read_keys(p, side_sqls[j]);
}

/* The messages n matches, found once per query (or-sets.h). */
static const struct maildex__set *key_set(struct maildex__planner *p, const struct maildex__qnode *n)
{
    struct maildex__set *set = g_hash_table_lookup(p->key_sets, n);
    struct maildex__set **parts;
    const size_t np = n->nchildren;

    if (set || p->st != MAILDEX_STATUS_OK)
        return set;
    parts = talloc_zero_array(p->ctx, struct maildex__set *, np);
    if (parts)
        read_parts(p, n, parts);
    for (size_t width = 1; parts && width < np && p->st == MAILDEX_STATUS_OK; width *= 2)
        for (size_t i = 0; i + width < np && p->st == MAILDEX_STATUS_OK; i += 2 * width) {
            struct maildex__set *both = maildex__set_merge(p->ctx, parts[i], parts[i + width],
                                                           n->kind == MAILDEX__Q_XOR);
            if (both == NULL)
                p->st = MAILDEX_STATUS_NO_MEMORY;
            talloc_free(parts[i]);
            talloc_free(parts[i + width]);
            parts[i] = both;
        }
    set = parts && p->st == MAILDEX_STATUS_OK ? parts[0] : NULL;
    talloc_free(parts);
    if (set)
        g_hash_table_insert(p->key_sets, (gpointer) n, set);
    else if (p->st == MAILDEX_STATUS_OK)
        p->st = MAILDEX_STATUS_NO_MEMORY;
    return set;
}

const char *maildex__or_set_probe(struct maildex__planner *p, const struct maildex__qnode *n, const char *a)
{
    return maildex__plan_in_keys(p, key_set(p, n), a);
}

bool maildex__or_set_drive(struct maildex__planner *p, const struct maildex__qnode *n, struct maildex__drive *d)
{
    return maildex__plan_drive_keys(p, d, key_set(p, n), MAILDEX__DRIVER_UNION);
}
