/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show's byte formats (notmuch 0.37's format_part_raw and format_part_mbox): --format=raw prints a
 * message's file verbatim, or with --part=N the bytes of that part; --format=mbox prints each message
 * as mboxrd ("From <address> <asctime date>", every line that starts with ">"s and "From " gets one
 * more ">", an empty line after it). Nothing here converts or escapes anything else, or holds a
 * message or a part whole: files are copied, parts written in pieces as the library decodes them. A gzip-compressed
 * mail file is printed decompressed, as notmuch reads it (zlib reads any other file as it is). */
#include "show.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static ssize_t gz_cookie_read(void *cookie, char *buf, size_t size)
{
    int n = gzread(cookie, buf, size > INT_MAX ? INT_MAX : (unsigned) size);

    return n < 0 ? -1 : n;
}

static int gz_cookie_close(void *cookie)
{
    return gzclose(cookie) == Z_OK ? 0 : EOF;
}

/* The mail file at path for reading with stdio, decompressed when it is gzip; NULL with errno set. */
static FILE *open_mail(const char *path)
{
    static const cookie_io_functions_t gz = {.read = gz_cookie_read, .close = gz_cookie_close};
    gzFile z = gzopen(path, "rb");
    FILE *in;

    if (z == NULL) {
        if (errno == 0)
            errno = ENOMEM;
        return NULL;
    }
    if ((in = fopencookie(z, "rb", gz)) == NULL)
        gzclose(z);
    return in;
}

/* The file notmuch's raw output reads: the first one numbered duplicate or later. */
static const char *raw_file(struct show *s, maildex_message_t *m)
{
    const char *const *files;
    size_t i = 0;

    if (maildex_message_files(m, &files) != MAILDEX_STATUS_OK) {
        cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
        return NULL;
    }
    while (files[i] && (int) i + 1 < s->duplicate)
        i++;
    return files[i];
}

static int copy_file(struct show *s, const char *path)
{
    FILE *in = open_mail(path);
    char buf[65536];
    size_t n;
    int rc = 0;

    if (in == NULL) {
        fprintf(s->cli->err, "Error: Cannot open file %s: %s\n", path, strerror(errno));
        return 1;
    }
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, s->out) != n) {
            fprintf(s->cli->err, "Error: Write %zu chars to stdout failed\n", n);
            rc = 1;
            break;
        }
    if (ferror(in)) {
        fprintf(s->cli->err, "Error: Read failed from %s\n", path);
        rc = 1;
    }
    fclose(in);
    return rc;
}

/* A piece of a part, as the library decodes it: never the whole part at once. */
static int write_piece(void *data, const char *bytes, size_t len)
{
    return fwrite(bytes, 1, len, data) == len ? 0 : -1;
}

int show_raw_message(struct show *s, maildex_message_t *m, int indent)
{
    const char *path;
    maildex_status_t st;

    (void) indent;
    if (s->part <= 0) {
        if ((path = raw_file(s, m)) == NULL) {
            fprintf(s->cli->err, "Error: Cannot get message filename.\n");
            return 1;
        }
        return copy_file(s, path);
    }
    st = maildex_message_part_write(m, s->duplicate, s->part, s->popts.decrypt, write_piece, s->out);
    if (st == MAILDEX_STATUS_NOT_FOUND)
        return 0;
    if (st == MAILDEX_STATUS_IO_ERROR && ferror(s->out)) {
        fprintf(s->cli->err, "Error: Write to stdout failed: %s\n", strerror(errno));
        return 1;
    }
    if (st != MAILDEX_STATUS_OK)
        return cli_error(s->cli, "%s", maildex_db_errmsg(s->cli->db));
    return 0;
}

/* notmuch's _is_from_line: ">"s, then "From ". */
static bool is_from_line(const char *line)
{
    while (*line == '>')
        line++;
    return strncmp(line, "From ", 5) == 0;
}

int show_mbox_message(struct show *s, maildex_message_t *m, int indent)
{
    static const maildex_parts_options_t headers_only = {.body = false};
    maildex_part_t *root = show_open_parts(s, m, &headers_only);
    const char *const *files;
    time_t date = (time_t) maildex_message_date(m);
    char asc[26], *line = NULL;
    struct tm tm;
    size_t size = 0;
    FILE *in;

    (void) indent;
    if (root == NULL)
        return 1;
    if (maildex_message_files(m, &files) != MAILDEX_STATUS_OK || files[0] == NULL ||
        (in = open_mail(files[0])) == NULL) {
        fprintf(s->cli->err, "Failed to open %s: %s\n", files && files[0] ? files[0] : "(none)", strerror(errno));
        maildex_part_free(root);
        return 1;
    }
    gmtime_r(&date, &tm);
    asctime_r(&tm, asc);
    fprintf(s->out, "From %s %s", maildex_part_sender_address(root), asc);
    /* Each line as printf's "%s" prints it, so only up to a NUL in it (notmuch's output). */
    while (getline(&line, &size, in) >= 0) {
        if (is_from_line(line))
            fputc('>', s->out);
        fputs(line, s->out);
    }
    fputc('\n', s->out);
    free(line);
    fclose(in);
    maildex_part_free(root);
    return 0;
}
