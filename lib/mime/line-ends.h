/* SPDX-License-Identifier: GPL-3.0-or-later */
/* line-ends.h: the line-end repair of the indexing parser (doc/quirks.md), done as a stream so that a
 * file is never held whole. gmime 3 splits lines on LF (a CR before it is dropped), so in a file whose
 * lines end in a bare CR (old Mac tools, a CR-only or mixed export) the header lines run together, and
 * in one whose lines end in CR CR LF (a CRLF file converted once more) the line "\r" before the body is
 * not empty and the body is read as headers. Such a file is read through a repairing stream; an ordinary
 * one costs one pass over its header section to find that it needs none. Part of the parser module
 * (gmime); nothing here keeps state between calls but the stream's own, and nothing touches the file. */
#ifndef MAILDEX_MIME_LINE_ENDS_H
#define MAILDEX_MIME_LINE_ENDS_H

#include <gmime/gmime.h>
#include <stdbool.h>
#include <stddef.h>

/* The decision, fed in pieces: does the header section (up to the first empty LF or CRLF line) end a
 * line with a bare CR or with CR CR LF? A bare CR ends a line when a line can start after it: a CR (CR
 * CR LF, or the empty line of a CR-only file), a blank (a folded line), a field name and its colon, or
 * the end of the data; otherwise it is a stray byte inside a value ("Subject: a\rb"), which gmime
 * drops. Zero-initialise, feed the bytes in order with maildex__line_scan_feed (which returns 1 or 0
 * once decided, -1 while it needs more), then ask maildex__line_scan_end at the end of the data. The
 * answer does not depend on how the bytes are split. */
struct maildex__line_scan {
    int state;
};
int maildex__line_scan_feed(struct maildex__line_scan *s, const char *p, size_t n);
bool maildex__line_scan_end(const struct maildex__line_scan *s);

/* The decision over stream from its current position (read in pieces, to the first empty line at most),
 * which is then reset. False when the stream cannot be read. */
bool maildex__line_ends_need_repair(GMimeStream *stream);

/* A new stream (unref it) that reads source (from its current position) with every line end written
 * as LF: LF, CRLF and CR CR LF (any run of CRs before an LF) are one line end, and each CR of a run
 * not followed by LF is one. It cannot seek (gmime's parser then holds the parts it reads in memory)
 * and takes a reference to source. */
GMimeStream *maildex__line_ends_stream_new(GMimeStream *source);

#endif
