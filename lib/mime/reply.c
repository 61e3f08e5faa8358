/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reply of the read path (see show.h), after notmuch 0.37's notmuch-reply.c: a new gmime
 * message gets In-Reply-To, References, the recipients of the original without the user's own
 * addresses, a From the user's name and the address of theirs the original was sent to, and the
 * Subject with "Re: "; its headers are then written by gmime (the default and headers-only formats)
 * and read back as notmuch's JSON prints them. Which address is the user's is decided from the
 * addresses the caller passes: this file reads no config. The original's parts come from the part
 * walker (show.c). */
#include "show.h"

#include <string.h>
#include <strings.h>

struct reply {
    void *ctx;
    const maildex_reply_options_t *opts;
    GMimeMessage *original, *reply;
    GMimeMessage *indexed; /* the headers notmuch_message_get_header reads (show.h) */
};

typedef enum { USER_ADDRESS_IN_STRING, STRING_IN_USER_ADDRESS, STRING_IS_USER_ADDRESS } address_match_t;

static bool match_address(const char *str, const char *address, address_match_t mode)
{
    switch (mode) {
    case USER_ADDRESS_IN_STRING: return strcasestr(str, address) != NULL;
    case STRING_IN_USER_ADDRESS: return strcasestr(address, str) != NULL;
    case STRING_IS_USER_ADDRESS: return strcasecmp(address, str) == 0;
    }
    return false;
}

/* The user's address (primary first, then the others) that str matches in mode, or NULL. */
static const char *address_match(const struct reply *r, const char *str, address_match_t mode)
{
    const char *primary = r->opts->primary_email;

    if (str == NULL || *str == '\0')
        return NULL;
    if (primary && match_address(str, primary, mode))
        return primary;
    for (const char *const *other = r->opts->other_email; other && *other; other++)
        if (match_address(str, *other, mode))
            return *other;
    return NULL;
}

/* Adds every address of list that is not the user's to the reply as type (unless add is false); sets
 * *user_from to the first of the user's found, when it is not set yet. Returns the number added. */
static unsigned scan_address_list(struct reply *r, InternetAddressList *list, bool add,
                                  GMimeAddressType type, const char **user_from)
{
    unsigned n = 0;

    for (int i = 0; list && i < internet_address_list_length(list); i++) {
        InternetAddress *address = internet_address_list_get_address(list, i);
        if (INTERNET_ADDRESS_IS_GROUP(address)) {
            n += scan_address_list(r, internet_address_group_get_members(INTERNET_ADDRESS_GROUP(address)),
                                   add, type, user_from);
            continue;
        }
        const char *name = internet_address_get_name(address);
        const char *addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address));
        if (address_match(r, addr, STRING_IS_USER_ADDRESS)) {
            if (*user_from == NULL)
                *user_from = addr;
        } else if (add) {
            g_mime_message_add_mailbox(r->reply, type, name, addr);
            n++;
        }
    }
    return n;
}

/* A mailing list that munges Reply-To leaves it naming one of the recipients: then the From is used
 * (and the list still gets the reply-all). */
static bool reply_to_is_redundant(GMimeMessage *message, InternetAddressList *reply_to)
{
    InternetAddressList *recipients;
    InternetAddress *address;
    const char *wanted;
    bool found = false;

    if (reply_to == NULL || internet_address_list_length(reply_to) != 1)
        return false;
    address = internet_address_list_get_address(reply_to, 0);
    if (INTERNET_ADDRESS_IS_GROUP(address))
        return false;
    wanted = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address));
    /* NULL when the message has no recipient at all (notmuch asks gmime anyway, which complains on
     * stderr). */
    recipients = g_mime_message_get_all_recipients(message);
    if (recipients == NULL)
        return false;
    for (int i = 0; !found && i < internet_address_list_length(recipients); i++) {
        address = internet_address_list_get_address(recipients, i);
        found = !INTERNET_ADDRESS_IS_GROUP(address) &&
                strcmp(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address)), wanted) == 0;
    }
    g_object_unref(recipients);
    return found;
}

static InternetAddressList *sender(GMimeMessage *message)
{
    InternetAddressList *reply_to = g_mime_message_get_reply_to(message);

    if (reply_to && internet_address_list_length(reply_to) > 0 && !reply_to_is_redundant(message, reply_to))
        return reply_to;
    return g_mime_message_get_from(message);
}

/* notmuch's add_recipients_from_message: sender, To, Cc, Bcc in turn; replying to the sender only
 * stops at the first that adds someone. Returns the user's first address found, or NULL. */
static const char *add_recipients(struct reply *r)
{
    struct {
        InternetAddressList *list;
        GMimeAddressType type;
    } map[] = {
        {sender(r->original), GMIME_ADDRESS_TYPE_TO},
        {g_mime_message_get_addresses(r->original, GMIME_ADDRESS_TYPE_TO), GMIME_ADDRESS_TYPE_TO},
        {g_mime_message_get_addresses(r->original, GMIME_ADDRESS_TYPE_CC), GMIME_ADDRESS_TYPE_CC},
        {g_mime_message_get_addresses(r->original, GMIME_ADDRESS_TYPE_BCC), GMIME_ADDRESS_TYPE_BCC},
    };
    const char *from = NULL;
    unsigned n = 0;
    bool add = true;

    for (size_t i = 0; i < G_N_ELEMENTS(map); i++) {
        n += scan_address_list(r, map[i].list, add, map[i].type, &from);
        if (!r->opts->reply_all && n) {
            add = false;
            if (from)
                break;
        }
    }
    /* Mail from the user to the user goes back to the user. */
    if (n == 0 && from)
        g_mime_message_add_mailbox(r->reply, GMIME_ADDRESS_TYPE_TO, NULL, from);
    return from;
}

/* The user's address in a " for <address>" clause of the Received chain. */
static const char *received_for(const struct reply *r, const char *received)
{
    const char *p = strstr(received, " for ");

    return p ? address_match(r, p, USER_ADDRESS_IN_STRING) : NULL;
}

/* A user address containing the domain (last two labels) of a receiving host, " by host.domain.tld". */
static const char *received_by(const struct reply *r, const char *received)
{
    const char *by = received, *addr = NULL;

    while (addr == NULL && (by = strstr(by, " by ")) != NULL) {
        char *mta, *token, *part, *domain = NULL, *tld = NULL, *rest = NULL;
        by += 4;
        if (*by == '\0')
            break;
        mta = g_strdup(by);
        token = strtok_r(mta, " \t", &rest); /* not strtok: replies are built on several threads */
        if (token == NULL) {
            g_free(mta);
            break;
        }
        while ((part = strsep(&token, ". \t")) != NULL) {
            if (*part == '\0')
                continue;
            domain = tld;
            tld = part;
        }
        if (domain) {
            tld[-1] = '.';
            addr = address_match(r, domain, STRING_IN_USER_ADDRESS);
        }
        g_free(mta);
    }
    return addr;
}

/* notmuch's fallbacks for the From address when the recipients did not name the user. */
static const char *guess_from(struct reply *r, void *tmp)
{
    static const char *const to_headers[] = {"Envelope-to", "X-Original-To", "Delivered-To"};
    const char *addr = NULL;
    char *received;

    for (size_t i = 0; addr == NULL && i < G_N_ELEMENTS(to_headers); i++)
        addr = address_match(r, maildex__show_file_header(tmp, r->indexed, to_headers[i]),
                             USER_ADDRESS_IN_STRING);
    if (addr)
        return addr;
    received = maildex__show_file_header(tmp, r->indexed, "Received");
    for (char *p = received; p && *p; p++)
        if (*p == '\t' || *p == '\n')
            *p = ' ';
        else if ((unsigned char) *p < 32)
            *p = '?';
    if (received && (addr = received_for(r, received)) == NULL)
        addr = received_by(r, received);
    return addr ? addr : r->opts->primary_email;
}

/* notmuch's create_reply_message. */
static bool build(struct reply *r, void *tmp, const char *message_id)
{
    const char *in_reply_to = talloc_asprintf(tmp, "<%s>", message_id);
    const char *references = maildex__show_file_header(tmp, r->indexed, "References");
    const char *from, *subject;

    if (in_reply_to == NULL || references == NULL)
        return false;
    g_mime_object_set_header(GMIME_OBJECT(r->reply), "In-Reply-To", in_reply_to, NULL);
    references = *references ? talloc_asprintf(tmp, "%s %s", references, in_reply_to) : in_reply_to;
    g_mime_object_set_header(GMIME_OBJECT(r->reply), "References", references, NULL);
    from = add_recipients(r);
    if (r->opts->headers_only)
        return true;
    if (from == NULL)
        from = guess_from(r, tmp);
    from = talloc_asprintf(tmp, "%s <%s>", r->opts->user_name ? r->opts->user_name : "(null)",
                           from ? from : "(null)");
    g_mime_object_set_header(GMIME_OBJECT(r->reply), "From", from, NULL);
    subject = g_mime_message_get_subject(r->original);
    if (subject) {
        if (g_ascii_strncasecmp(subject, "Re:", 3) != 0)
            subject = talloc_asprintf(tmp, "Re: %s", subject);
        g_mime_message_set_subject(r->reply, subject, NULL);
    }
    return true;
}

static bool add_header(struct maildex_reply *out, const char *name, const char *value)
{
    maildex_header_t *grown = talloc_realloc(out, out->headers, maildex_header_t, out->nheaders + 1);

    if (grown == NULL)
        return false;
    out->headers = grown;
    grown[out->nheaders].name = talloc_strdup(out, name);
    grown[out->nheaders].value = maildex__show_strdup(out, value);
    return grown[out->nheaders++].name != NULL;
}

/* The reply's headers written by gmime, and as notmuch's format_headers_sprinter reads them back. */
static bool read_back(struct reply *r, struct maildex_reply *out, void *tmp)
{
    static const struct {
        const char *name;
        GMimeAddressType type;
    } lists[] = {{"To", GMIME_ADDRESS_TYPE_TO}, {"Cc", GMIME_ADDRESS_TYPE_CC}, {"Bcc", GMIME_ADDRESS_TYPE_BCC}};
    GMimeObject *reply = GMIME_OBJECT(r->reply);
    GMimeStream *memory = maildex__hold_gobject(tmp, g_mime_stream_mem_new());
    GByteArray *bytes;
    char *value;
    bool ok;

    if (memory == NULL || g_mime_object_write_to_stream(reply, NULL, memory) < 0)
        return false;
    bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(memory));
    out->header_text = talloc_strndup(out, (const char *) bytes->data, bytes->len);
    ok = out->header_text && add_header(out, "Subject", g_mime_message_get_subject(r->reply)) &&
         add_header(out, "From", g_mime_object_get_header(reply, "From"));
    for (size_t i = 0; ok && i < G_N_ELEMENTS(lists); i++) {
        value = maildex__show_address_string(tmp, g_mime_message_get_addresses(r->reply, lists[i].type));
        if (value)
            ok = add_header(out, lists[i].name, value);
    }
    if (ok && (value = maildex__show_address_string(tmp, g_mime_message_get_reply_to(r->reply))))
        ok = add_header(out, "Reply-To", value);
    return ok && add_header(out, "In-reply-to", g_mime_object_get_header(reply, "In-reply-to")) &&
           add_header(out, "References", g_mime_object_get_header(reply, "References"));
}

int maildex__show_reply_file(void *ctx, const char *path, const char *message_id,
                             const maildex_reply_options_t *opts, const char *const *session_keys,
                             struct maildex_reply **out, char **error)
{
    maildex_parts_options_t parts = MAILDEX_PARTS_OPTIONS_INIT;
    void *local = talloc_new(NULL);
    int rc = MAILDEX__PARSE_ERROR;
    struct reply r = {.ctx = ctx, .opts = opts};
    struct maildex_reply *reply = talloc_zero(ctx, struct maildex_reply);

    *out = NULL;
    parts.extra_headers = opts->extra_headers;
    parts.decrypt = opts->decrypt; /* notmuch's reply does not verify, even with --decrypt=true */
    r.original = local && reply ? maildex__show_open(local, path, &r.indexed, &rc, error) : NULL;
    if (r.original) {
        /* notmuch writes the full reply's headers in its "pretty" order, the limited one's as set. */
        r.reply = maildex__hold_gobject(local, g_mime_message_new(!opts->headers_only));
        reply->original = maildex__show_tree(reply, r.original, r.indexed, &parts, session_keys);
        if (r.reply == NULL || reply->original == NULL || !build(&r, local, message_id) ||
            !read_back(&r, reply, local)) {
            rc = MAILDEX__PARSE_ERROR;
            if (error)
                *error = talloc_strdup(local, "out of memory");
        }
    }
    if (rc == MAILDEX__PARSE_OK)
        *out = reply;
    else
        talloc_free(reply);
    if (error && *error)
        *error = talloc_steal(ctx, *error);
    talloc_free(local);
    return rc;
}
