/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The write-only stream of sink.h. A write either takes every byte or fails: gmime's filter streams
 * do not retry the rest of a short write (they drop it), and g_mime_stream_write_to_stream loops
 * forever on a write of 0 bytes. */
#include "sink.h"

typedef struct {
    GMimeStream parent;
    maildex__sink_fn *fn;
    void *data;
    gboolean refused;
} MaildexSink;

typedef struct {
    GMimeStreamClass parent;
} MaildexSinkClass;

/* Internal linkage for what G_DEFINE_TYPE defines: the module exports one symbol only. */
static GType maildex__sink_get_type(void);
G_DEFINE_TYPE(MaildexSink, maildex__sink, GMIME_TYPE_STREAM)

static ssize_t sink_write(GMimeStream *stream, const char *buf, size_t len)
{
    MaildexSink *sink = (MaildexSink *) stream;

    if (sink->refused || sink->fn(sink->data, buf, len) != 0) {
        sink->refused = TRUE;
        return -1;
    }
    stream->position += (gint64) len;
    return (ssize_t) len;
}

static ssize_t sink_read(GMimeStream *stream, char *buf, size_t len)
{
    (void) stream;
    (void) buf;
    (void) len;
    return -1;
}

static int sink_flush(GMimeStream *stream)
{
    (void) stream;
    return 0;
}

static gboolean sink_eos(GMimeStream *stream)
{
    (void) stream;
    return TRUE;
}

static int sink_reset(GMimeStream *stream)
{
    (void) stream;
    return -1;
}

static void maildex__sink_class_init(MaildexSinkClass *klass)
{
    GMimeStreamClass *stream = GMIME_STREAM_CLASS(klass);

    stream->write = sink_write;
    stream->read = sink_read;
    stream->flush = sink_flush;
    stream->eos = sink_eos;
    stream->reset = sink_reset;
}

static void maildex__sink_init(MaildexSink *sink)
{
    sink->refused = FALSE;
}

GMimeStream *maildex__sink_new(maildex__sink_fn *fn, void *data)
{
    MaildexSink *sink = g_object_new(maildex__sink_get_type(), NULL);

    g_mime_stream_construct(GMIME_STREAM(sink), 0, -1);
    sink->fn = fn;
    sink->data = data;
    return GMIME_STREAM(sink);
}

bool maildex__sink_refused(GMimeStream *sink)
{
    return ((MaildexSink *) sink)->refused;
}
