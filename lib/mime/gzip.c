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

GMimeStream *maildex__gzip_stream(void *ctx, GMimeStream *file)
{
    char head[2];
    ssize_t n = g_mime_stream_read(file, head, sizeof head);

    if (n < 0 || g_mime_stream_reset(file) != 0)
        return NULL;
    return maildex__is_gzip(head, (size_t) n) ? unzipping(ctx, file) : file;
}
