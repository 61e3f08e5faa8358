/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading gzip-compressed mail (see gzip.h). gmime does the decompressing: GMimeFilterGZip over a
 * filter stream, as notmuch does it; nothing here knows zlib. */
#include "gzip.h"

#include "body.h"

#include <talloc.h>

bool maildex__is_gzip(const char *p, size_t n)
{
    return n >= 2 && (unsigned char) p[0] == 0x1f && (unsigned char) p[1] == 0x8b;
}

static GMimeStream *unzipping(void *ctx, GMimeStream *source)
{
    GMimeStream *filtered = maildex__hold_gobject(ctx, g_mime_stream_filter_new(source));
    GMimeFilter *gzip = filtered ? g_mime_filter_gzip_new(GMIME_FILTER_GZIP_MODE_UNZIP, 0) : NULL;

    if (gzip == NULL)
        return NULL;
    g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), gzip);
    g_object_unref(gzip);
    return filtered;
}

const char *maildex__gunzip(void *ctx, const char *data, size_t len, size_t *out_len)
{
    void *local;
    GMimeStream *in, *unzip;
    char *out = NULL;
    size_t used = 0, cap = 2 * len + 4096;

    *out_len = len;
    if (!maildex__is_gzip(data, len))
        return data;
    local = talloc_new(ctx);
    in = local ? maildex__hold_gobject(local, g_mime_stream_mem_new_with_buffer(data, len)) : NULL;
    unzip = in ? unzipping(local, in) : NULL;
    out = unzip ? talloc_size(ctx, cap) : NULL;
    while (out) {
        ssize_t n;
        if (used + 1 == cap) {
            char *grown = cap > MAILDEX__MESSAGE_MAX_SIZE ? NULL : talloc_realloc_size(ctx, out, cap * 2);
            if (grown == NULL)
                break; /* cut at the size limit */
            out = grown;
            cap *= 2;
        }
        if ((n = g_mime_stream_read(unzip, out + used, cap - used - 1)) <= 0)
            break; /* the end, or a damaged stream: what came out is kept, as notmuch keeps it */
        used += (size_t) n;
    }
    if (out)
        out[used] = '\0';
    *out_len = used;
    talloc_free(local);
    return out;
}

GMimeStream *maildex__gzip_stream(void *ctx, GMimeStream *file)
{
    char head[2];
    ssize_t n = g_mime_stream_read(file, head, sizeof head);

    if (n < 0 || g_mime_stream_reset(file) != 0)
        return NULL;
    return maildex__is_gzip(head, (size_t) n) ? unzipping(ctx, file) : file;
}
