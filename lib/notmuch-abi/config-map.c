/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config-map.c: the map of configuration a notmuch database handle carries (notmuch's string map):
 * what the database stores, then the config file's keys over it, then the defaults. Keys stay in
 * bytewise order so that notmuch_config_get_pairs lists them sorted and a prefix is a range. It knows
 * no key's meaning. */
#include "abi.h"

#include <string.h>

struct nm_map *nm_map_create(void *ctx)
{
    return talloc_zero(ctx, struct nm_map);
}

size_t nm_map_lower_bound(const struct nm_map *map, const char *prefix)
{
    size_t lo = 0, hi = map->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(map->pairs[mid].key, prefix) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Inserts key = value at position at. */
static void insert_at(struct nm_map *map, size_t at, const char *key, const char *value)
{
    struct nm_pair *grown = talloc_realloc(map, map->pairs, struct nm_pair, map->n + 1);

    if (grown == NULL)
        return;
    map->pairs = grown;
    memmove(&map->pairs[at + 1], &map->pairs[at], (map->n - at) * sizeof *map->pairs);
    map->pairs[at].key = talloc_strdup(map->pairs, key);
    map->pairs[at].value = value ? talloc_strdup(map->pairs, value) : NULL;
    map->n++;
}

void nm_map_set(struct nm_map *map, const char *key, const char *value)
{
    size_t at = nm_map_lower_bound(map, key);

    if (at < map->n && strcmp(map->pairs[at].key, key) == 0) {
        talloc_free(map->pairs[at].value);
        map->pairs[at].value = value ? talloc_strdup(map->pairs, value) : NULL;
        return;
    }
    insert_at(map, at, key, value);
}

void nm_map_append(struct nm_map *map, const char *key, const char *value)
{
    size_t at = nm_map_lower_bound(map, key);

    while (at < map->n && strcmp(map->pairs[at].key, key) == 0)
        at++;
    insert_at(map, at, key, value);
}

const char *nm_map_get(const struct nm_map *map, const char *key)
{
    size_t at;

    if (map == NULL)
        return NULL;
    at = nm_map_lower_bound(map, key);
    return at < map->n && strcmp(map->pairs[at].key, key) == 0 ? map->pairs[at].value : NULL;
}
