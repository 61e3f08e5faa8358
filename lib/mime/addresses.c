/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The mailboxes of a message's address headers in the stored form of addresses.h, read with
 * gmime exactly as notmuch 0.37's `address` reads them (notmuch-search.c, process_address_header and
 * process_address_list): the decoded header parsed again as an address list, so an encoded word that
 * decodes to a comma splits a mailbox in two there as here. name-addr is gmime's own rendering, so
 * its quoting rules are gmime's and never copied. Runs on the parse threads: no state. */
#include "addresses.h"
#include "body.h"

#include <string.h>
#include <talloc.h>

/* `name <address>`, or `address` for an empty name: what the reader composes from an empty stored
 * name-addr. */
static bool composes_to(const char *name_addr, const char *name, const char *address)
{
    size_t n = strlen(name), a = strlen(address);

    if (*name == '\0')
        return strcmp(name_addr, address) == 0;
    return strlen(name_addr) == n + a + 3 && memcmp(name_addr, name, n) == 0 &&
           memcmp(name_addr + n, " <", 2) == 0 && memcmp(name_addr + n + 2, address, a) == 0 &&
           strcmp(name_addr + n + 2 + a, ">") == 0;
}

/* Does gmime render this pair as plain `name <addr>`? Yes for a name of letters, digits, '-', '\''
 * and bytes above 0x7f with single spaces between words, and a dot-atom address of letters, digits,
 * '.', '_', '+', '-' around one '@': nothing in them needs quoting. That is nearly every mailbox,
 * and the round trip through gmime costs more than parsing the header (test-message-parse checks
 * that gmime agrees). */
static bool renders_plainly(const char *name, const char *addr)
{
    const char *at = strchr(addr, '@');

    for (const char *c = name; *c; c++)
        if (!(g_ascii_isalnum(*c) || (unsigned char) *c >= 0x80 || *c == '-' || *c == '\'' ||
              (*c == ' ' && c != name && c[1] != '\0' && c[1] != ' ')))
            return false;
    if (at == NULL || at == addr || at[1] == '\0' || strchr(at + 1, '@') || *addr == '.' ||
        addr[strlen(addr) - 1] == '.' || strstr(addr, "..") || strstr(addr, ".@") || strstr(addr, "@."))
        return false;
    for (const char *c = addr; *c; c++)
        if (!(g_ascii_isalnum(*c) || *c == '.' || *c == '_' || *c == '+' || *c == '-' || *c == '@'))
            return false;
    return true;
}

/* notmuch prints the pair through a new mailbox, which gmime renders with its quoting. */
static char *rendering(const char *name, const char *addr)
{
    InternetAddress *copy = internet_address_mailbox_new(name, addr);
    char *name_addr = copy ? internet_address_to_string(copy, NULL, FALSE) : NULL;

    if (copy)
        g_object_unref(copy);
    return name_addr;
}

static void append_mailbox(GString *out, InternetAddress *address)
{
    const char *name = internet_address_get_name(address);
    const char *addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address));
    char *name_addr;

    name = name ? name : "";
    addr = addr ? addr : "";
    name_addr = renders_plainly(name, addr) ? NULL : rendering(name, addr);
    g_string_append_len(out, name, (gssize) strlen(name) + 1);
    g_string_append_len(out, addr, (gssize) strlen(addr) + 1);
    if (name_addr && !composes_to(name_addr, name, addr))
        g_string_append(out, name_addr);
    g_string_append_c(out, '\0');
    g_free(name_addr);
}

static void append_list(GString *out, InternetAddressList *list, int depth)
{
    for (int i = 0; list && i < internet_address_list_length(list); i++) {
        InternetAddress *address = internet_address_list_get_address(list, i);
        if (INTERNET_ADDRESS_IS_GROUP(address)) {
            /* gmime's parser makes no group inside a group; the bound only keeps a hand-made list
             * from recursing without end. */
            if (depth < 8)
                append_list(out, internet_address_group_get_members(INTERNET_ADDRESS_GROUP(address)),
                            depth + 1);
        } else if (INTERNET_ADDRESS_IS_MAILBOX(address)) {
            append_mailbox(out, address);
        }
    }
}

bool maildex__mailboxes_encode(void *ctx, const char *const *headers, char **out, size_t *len)
{
    GString *all = g_string_new(NULL);

    for (size_t i = 0; headers && headers[i]; i++) {
        InternetAddressList *list = *headers[i] ? internet_address_list_parse(NULL, headers[i]) : NULL;
        append_list(all, list, 0);
        if (list)
            g_object_unref(list);
    }
    *len = all->len;
    *out = talloc_memdup(ctx, all->str, all->len + 1);
    g_string_free(all, TRUE);
    return *out != NULL;
}
