/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sink.h: a write-only gmime stream that hands every piece gmime writes to a function, so that
 * whatever gmime produces (a part decoded from its transfer encoding, an attached message written out)
 * can go somewhere as it is made instead of into a memory stream holding all of it: show's raw parts
 * to the caller's output, the indexer's text up to its limit. Part of the parser module (gmime); it
 * keeps no state but the stream's own. */
#ifndef MAILDEX_MIME_SINK_H
#define MAILDEX_MIME_SINK_H

#include <gmime/gmime.h>
#include <stdbool.h>
#include <stddef.h>

/* Called with each piece written (len > 0 bytes, valid during the call). Returns 0 to take more,
 * anything else to refuse the rest: the write that brought the piece then fails (gmime stops writing)
 * and so does every later one. */
typedef int maildex__sink_fn(void *data, const char *bytes, size_t len);

/* A new stream (unref it) writing to fn(data, ...). */
GMimeStream *maildex__sink_new(maildex__sink_fn *fn, void *data);

/* Whether fn refused a piece. */
bool maildex__sink_refused(GMimeStream *sink);

#endif
