/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The line-end repair as a decision fed in pieces and a gmime stream (see line-ends.h). Both are
 * byte-at-a-time state machines, so a piece may end anywhere (inside a CR run, between a CR and the
 * field name after it) and the result is that of the whole data at once; test-message-parse.c checks
 * them against the whole-buffer rules they replace, split every way. Linear: no byte is looked at
 * twice. */
#include "line-ends.h"

/* ---- the decision ---------------------------------------------------------------------------------- */

enum {
    SCAN_TEXT,    /* inside a line */
    SCAN_CR,      /* after a CR: bare unless an LF follows */
    SCAN_NAME,    /* after a bare CR and field-name bytes: a colon makes it a line end */
    SCAN_LF,      /* after an LF: another LF (or CR LF) is the empty line */
    SCAN_LF_CR,   /* after LF CR */
};

static bool name_byte(unsigned char c)
{
    return c > ' ' && c < 0x7f && c != ':';
}

/* One byte: 1 or 0 when it decides, -1 to go on. */
static int scan_byte(struct maildex__line_scan *s, unsigned char c)
{
    switch (s->state) {
    case SCAN_LF_CR:
        if (c == '\n')
            return 0;
        /* The CR after the LF is bare: c decides whether it ends a line. */
        /* fall through */
    case SCAN_CR:
        if (c == '\r' || c == ' ' || c == '\t')
            return 1;
        if (name_byte(c)) {
            s->state = SCAN_NAME;
            return -1;
        }
        break; /* an LF, or a byte no line starts with: c is read as text */
    case SCAN_NAME:
        if (name_byte(c))
            return -1;
        if (c == ':')
            return 1;
        break;
    case SCAN_LF:
        if (c == '\n')
            return 0;
        if (c == '\r') {
            s->state = SCAN_LF_CR;
            return -1;
        }
        break;
    default:
        break;
    }
    s->state = c == '\r' ? SCAN_CR : c == '\n' ? SCAN_LF : SCAN_TEXT;
    return -1;
}

int maildex__line_scan_feed(struct maildex__line_scan *s, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int decided = scan_byte(s, (unsigned char) p[i]);
        if (decided >= 0)
            return decided;
    }
    return -1;
}

/* A CR as the last byte is bare and ends a line; a field name cut by the end has no colon. */
bool maildex__line_scan_end(const struct maildex__line_scan *s)
{
    return s->state == SCAN_CR || s->state == SCAN_LF_CR;
}

bool maildex__line_ends_need_repair(GMimeStream *stream)
{
    struct maildex__line_scan scan = {0};
    char buf[16384];
    ssize_t n;
    int decided = -1;

    while (decided < 0 && (n = g_mime_stream_read(stream, buf, sizeof buf)) > 0)
        decided = maildex__line_scan_feed(&scan, buf, (size_t) n);
    if (g_mime_stream_reset(stream) != 0)
        return false;
    return decided >= 0 ? decided == 1 : maildex__line_scan_end(&scan);
}

/* ---- the repairing stream --------------------------------------------------------------------------- */

/* Not a GMimeFilter: a run of CRs becomes one LF or as many as it holds depending on the byte after
 * it, so a filter would have nothing to give for a piece made of CRs, and gmime's filter stream hands
 * such an empty piece to the parser as the end of the file. This stream reads on until it has a byte
 * to give. */
typedef struct {
    GMimeStream parent;
    GMimeStream *source;
    size_t crs;  /* CRs read whose fate the next byte decides */
    size_t lfs;  /* LFs decided and not yet given */
    int held;    /* a byte to give after them, or -1 */
    size_t pos, len;
    char in[16384];
} MaildexLineEnds;

typedef struct {
    GMimeStreamClass parent;
} MaildexLineEndsClass;

/* Internal linkage for what G_DEFINE_TYPE defines: the module exports one symbol only. */
static GType maildex__line_ends_get_type(void);
G_DEFINE_TYPE(MaildexLineEnds, maildex__line_ends, GMIME_TYPE_STREAM)

/* Gives what is decided into buf[*o..n). */
static void give(MaildexLineEnds *s, char *buf, size_t *o, size_t n)
{
    for (; *o < n && s->lfs > 0; s->lfs--)
        buf[(*o)++] = '\n';
    if (*o < n && s->lfs == 0 && s->held >= 0) {
        buf[(*o)++] = (char) s->held;
        s->held = -1;
    }
}

/* One byte of the source: LF, CRLF and CR CR LF are one line end, each CR of a run not followed by LF
 * is one. */
static void take(MaildexLineEnds *s, char c, char *buf, size_t *o)
{
    if (c == '\r') {
        s->crs++;
    } else if (c == '\n') {
        s->crs = 0;
        buf[(*o)++] = '\n';
    } else if (s->crs > 0) {
        s->lfs = s->crs;
        s->crs = 0;
        s->held = (unsigned char) c;
    } else {
        buf[(*o)++] = c;
    }
}

static ssize_t repair_read(GMimeStream *stream, char *buf, size_t n)
{
    MaildexLineEnds *s = (MaildexLineEnds *) stream;
    size_t o = 0;

    while (o < n) {
        give(s, buf, &o, n);
        if (o == n || s->lfs > 0 || s->held >= 0)
            break;
        if (s->pos == s->len) {
            ssize_t got = o > 0 ? 0 : g_mime_stream_read(s->source, s->in, sizeof s->in);
            if (got < 0)
                return -1;
            if (got == 0 && o == 0 && s->crs > 0) { /* CRs at the very end: a line end each */
                s->lfs = s->crs;
                s->crs = 0;
                continue;
            }
            if (got == 0)
                break;
            s->pos = 0;
            s->len = (size_t) got;
        }
        while (o < n && s->pos < s->len && s->lfs == 0 && s->held < 0)
            take(s, s->in[s->pos++], buf, &o);
    }
    stream->position += (gint64) o;
    return (ssize_t) o;
}

static gboolean repair_eos(GMimeStream *stream)
{
    MaildexLineEnds *s = (MaildexLineEnds *) stream;

    return s->pos == s->len && s->crs == 0 && s->lfs == 0 && s->held < 0 && g_mime_stream_eos(s->source);
}

static int repair_reset(GMimeStream *stream)
{
    MaildexLineEnds *s = (MaildexLineEnds *) stream;

    if (g_mime_stream_reset(s->source) != 0)
        return -1;
    s->crs = s->lfs = s->pos = s->len = 0;
    s->held = -1;
    stream->position = 0;
    return 0;
}

/* No position to seek to: gmime's parser then keeps the parts it reads through this stream in
 * memory. */
static gint64 repair_tell(GMimeStream *stream)
{
    (void) stream;
    return -1;
}

static gint64 repair_seek(GMimeStream *stream, gint64 offset, GMimeSeekWhence whence)
{
    (void) stream;
    (void) offset;
    (void) whence;
    return -1;
}

static ssize_t repair_write(GMimeStream *stream, const char *buf, size_t n)
{
    (void) stream;
    (void) buf;
    (void) n;
    return -1;
}

static void repair_finalize(GObject *object)
{
    g_object_unref(((MaildexLineEnds *) object)->source);
    G_OBJECT_CLASS(maildex__line_ends_parent_class)->finalize(object);
}

static void maildex__line_ends_class_init(MaildexLineEndsClass *klass)
{
    GMimeStreamClass *stream = GMIME_STREAM_CLASS(klass);

    G_OBJECT_CLASS(klass)->finalize = repair_finalize;
    stream->read = repair_read;
    stream->write = repair_write;
    stream->eos = repair_eos;
    stream->reset = repair_reset;
    stream->tell = repair_tell;
    stream->seek = repair_seek;
}

static void maildex__line_ends_init(MaildexLineEnds *s)
{
    s->held = -1;
}

GMimeStream *maildex__line_ends_stream_new(GMimeStream *source)
{
    MaildexLineEnds *s = g_object_new(maildex__line_ends_get_type(), NULL);

    g_mime_stream_construct(GMIME_STREAM(s), 0, -1);
    s->source = g_object_ref(source);
    return GMIME_STREAM(s);
}
