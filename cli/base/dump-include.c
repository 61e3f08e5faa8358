/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dump's and restore's --include=config|properties|tags: one table for the two commands, so that
 * what restore reads back is named as dump writes it. */
#include "base.h"

const struct keyword dump_include_keywords[] = {
    {"config", INCLUDE_CONFIG}, {"properties", INCLUDE_PROPERTIES}, {"tags", INCLUDE_TAGS}, {NULL, 0}};
