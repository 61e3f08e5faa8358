/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Status codes: their strings and the version string. The list itself lives in maildex.h
 * (MAILDEX_STATUS_MAP), so the enum and its strings cannot drift apart. */
#include "maildex.h"

#define MAILDEX__STR(x) #x
#define MAILDEX__XSTR(x) MAILDEX__STR(x)

const char *maildex_status_to_string(maildex_status_t status)
{
    switch (status) {
#define MAILDEX__STATUS_CASE(name, text)                                                     \
    case MAILDEX_STATUS_##name:                                                              \
        return text;
        MAILDEX_STATUS_MAP(MAILDEX__STATUS_CASE)
#undef MAILDEX__STATUS_CASE
    case MAILDEX_STATUS_LAST:
        break;
    }
    return "unknown status";
}

const char *maildex_version(void)
{
    return MAILDEX__XSTR(MAILDEX_VERSION_MAJOR) "." MAILDEX__XSTR(
        MAILDEX_VERSION_MINOR) "." MAILDEX__XSTR(MAILDEX_VERSION_PATCH);
}
