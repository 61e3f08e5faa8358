/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reduce an HTML document to the text a reader would see, for the full-text index.
 *
 * One linear pass, a small state machine: tags and comments are dropped, and so is the content of
 * <script> and <style> (the text of every other element, <title> included, is kept); character
 * references (&amp; &eacute; &#233; &#xE9;) are decoded to UTF-8, and block-level tags become line
 * breaks so words on either side stay apart. It is not an HTML parser: it must never allocate more
 * than one output buffer, never look backwards, and never fail on malformed markup. */
#ifndef MAILDEX_HTML_TEXT_H
#define MAILDEX_HTML_TEXT_H

#include <stddef.h>

/* Returns the text of the `len` bytes at `html` as a NUL-terminated string talloc'd under `ctx`
 * (its length, without the NUL, in *out_len when out_len is not NULL), or NULL when out of memory.
 * The input need not be NUL-terminated and may contain NULs (they are dropped). Bytes that are not
 * markup pass through unchanged, so UTF-8 in gives UTF-8 out. */
char *maildex__html_to_text(void *ctx, const char *html, size_t len, size_t *out_len);

#endif
