/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex restore`: notmuch 0.37's restore (notmuch-restore.c). Reads a dump (batch-tag or sup,
 * gzip-compressed or not: zlib tells) and gives every message it names the tags it lists (or adds
 * them, with --accumulate), its properties, and the database the config lines; Maildir flags follow
 * the tags. A bad line makes the exit status 1. This file opens the input; base/restore-lines.c
 * applies its lines, and what a line means is the library's (lib/tag/batch-line.c). */
#include "cli.h"
#include "base/restore-lines.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cmd_restore(struct cli *cli, int argc, char **argv)
{
    static const struct keyword formats[] = {
        {"auto", RESTORE_FORMAT_AUTO}, {"batch-tag", RESTORE_FORMAT_BATCH_TAG},
        {"sup", RESTORE_FORMAT_SUP}, {NULL, 0}};
    struct restore r = {.cli = cli, .format = RESTORE_FORMAT_AUTO};
    const char *input = NULL, *name;
    bool accumulate = false, sync_flags;
    const struct option opts[] = {
        {OPT_KEYWORD, "format", &r.format, formats, NULL, NULL},
        {OPT_FLAGS, "include", &r.include, dump_include_keywords, NULL, NULL},
        {OPT_STRING, "input", &input, NULL, NULL, NULL},
        {OPT_BOOL, "accumulate", &accumulate, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    int first = cli_start(cli, argc, argv, opts), fd, rc;
    char *error;
    gzFile in;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s' (the dump is read from standard input or "
                              "--input=FILE)",
                         argv[first]);
    if (config_get_bool(cli->ctx, cli->config, "maildir.synchronize_flags", true, &sync_flags, &error) != 0)
        return cli_error(cli, "%s", error);
    if (r.include == 0)
        r.include = INCLUDE_CONFIG | INCLUDE_PROPERTIES | INCLUDE_TAGS;
    r.tag_flags = (sync_flags ? MAILDEX_TAG_SYNC_FLAGS : 0) | (accumulate ? 0 : MAILDEX_TAG_REMOVE_ALL);
    name = input ? input : "stdin";
    /* zlib reads plain text as it is and decompresses gzip, whichever it finds. */
    fd = input ? -1 : dup(fileno(cli->in));
    in = input ? gzopen(input, "r") : fd >= 0 ? gzdopen(fd, "r") : NULL;
    if (in == NULL) {
        rc = cli_error(cli, "cannot open '%s': %s", name, errno ? strerror(errno) : "out of memory");
        if (fd >= 0)
            close(fd);
        return rc;
    }
    rc = restore_lines(&r, in, name);
    gzclose_r(in);
    return rc ? rc : r.bad_line; /* a skipped line fails the restore, as in notmuch */
}
