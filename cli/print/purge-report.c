/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What `purge` prints (see purge-report.h). The text format is for people: a dry run's files one a
 * line, then "Would remove 3 messages: 4 files, 12345 bytes." (or "Removed ..."), and each file that
 * could not go on stderr with the reason; text0 lists only a dry run's files, for xargs -0. JSON and
 * S-expressions print one map:
 *     {"query": "tag:deleted", "to_folder": null, "dry_run": true, "done": false, "messages": 3,
 *      "files": 4, "bytes": 12345, "kept": 0, "failed": 0, "young": 0,
 *      "paths": [{"id": "a@b", "path": "/mail/cur/1:2,S", "size": 4115}, ...]}
 * where paths lists every file of a dry run, and the files that could not go (with "error") of a
 * purge; with a target, each path has its "to". It decides nothing: cmd-purge.c says when. */
#include "purge-report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const struct keyword purge_report_formats[] = {{"text", SPRINTER_TEXT}, {"text0", SPRINTER_TEXT0},
                                               {"json", SPRINTER_JSON}, {"sexp", SPRINTER_SEXP},
                                               {NULL, 0}};

int purge_report_start(struct purge_report *pr)
{
    pr->sp = sprinter_create(pr->cli->ctx, pr->cli->out, (enum sprinter_format) pr->format);
    if (pr->sp == NULL)
        return cli_error(pr->cli, "out of memory");
    return 0;
}

static bool text(const struct purge_report *pr)
{
    return pr->format == SPRINTER_TEXT || pr->format == SPRINTER_TEXT0;
}

void purge_report_file(void *data, const maildex_purge_file_t *f)
{
    struct purge_report *pr = data;
    maildex_purge_file_t *copy, **grown;

    if (f->error && (pr->dry_run || pr->done))
        fprintf(pr->cli->err, "%s %s: %s '%s': %s (its message is kept)\n", cli_program,
                pr->cli->command->name, pr->done ? "cannot remove" : "would not remove", f->path,
                f->reason);
    else if (f->error)
        pr->held = talloc_asprintf_append(pr->held ? pr->held : talloc_strdup(pr->sp, ""),
                                          "%s %s: cannot remove '%s': %s (its message is kept)\n",
                                          cli_program, pr->cli->command->name, f->path, f->reason);
    if (text(pr) && pr->dry_run && f->error == 0) {
        pr->sp->string(pr->sp, f->path);
        pr->sp->separator(pr->sp);
    }
    if (text(pr) || !(pr->dry_run || (pr->done && f->error)))
        return;
    grown = talloc_realloc(pr->sp, pr->paths, maildex_purge_file_t *, pr->npaths + 1);
    copy = grown ? talloc_zero(grown, maildex_purge_file_t) : NULL;
    if (grown)
        pr->paths = grown;
    if (copy == NULL)
        return;
    *copy = *f;
    pr->paths[pr->npaths++] = copy;
    copy->message_id = talloc_strdup(copy, f->message_id);
    copy->path = talloc_strdup(copy, f->path);
    copy->to = f->to ? talloc_strdup(copy, f->to) : NULL;
    copy->reason = f->reason ? talloc_strdup(copy, f->reason) : NULL;
}

void purge_report_held(struct purge_report *pr)
{
    if (pr->held)
        fputs(pr->held, pr->cli->err);
    TALLOC_FREE(pr->held);
}

static void print_line(struct purge_report *pr, const maildex_purge_stats_t *s)
{
    const char *verb = pr->to_folder ? (pr->done ? "Moved" : "Would move") : (pr->done ? "Removed" : "Would remove");
    char *line = talloc_asprintf(pr->sp, "%s %" PRIu64 " message%s%s%s%s: %" PRIu64 " file%s, %" PRIu64 " bytes.",
                                 verb, s->messages, s->messages == 1 ? "" : "s", pr->to_folder ? " to '" : "",
                                 pr->to_folder ? pr->to_folder : "", pr->to_folder ? "'" : "", s->files,
                                 s->files == 1 ? "" : "s", s->bytes);

    if (line && s->messages_kept)
        line = talloc_asprintf_append(line, " %" PRIu64 " kept: %" PRIu64 " of their files cannot go.",
                                      s->messages_kept, s->files_failed);
    if (line && s->messages_young)
        line = talloc_asprintf_append(line, " %" PRIu64 " kept: tagged within --older-than.",
                                      s->messages_young);
    pr->sp->string(pr->sp, line);
    pr->sp->separator(pr->sp);
    talloc_free(line);
}

static void print_count(struct sprinter *sp, const char *key, uint64_t n)
{
    sp->map_key(sp, key);
    sp->integer(sp, (int64_t) n);
}

static void print_path(struct sprinter *sp, const maildex_purge_file_t *f)
{
    sp->begin_map(sp);
    sp->map_key(sp, "id");
    sp->string(sp, f->message_id);
    sp->map_key(sp, "path");
    sp->string(sp, f->path);
    if (f->to) {
        sp->map_key(sp, "to");
        sp->string(sp, f->to);
    }
    print_count(sp, "size", f->size);
    if (f->reason) {
        sp->map_key(sp, "error");
        sp->string(sp, f->reason);
    }
    sp->end(sp);
}

static void print_map(struct purge_report *pr, const maildex_purge_stats_t *s)
{
    struct sprinter *sp = pr->sp;

    sp->begin_map(sp);
    sp->map_key(sp, "query");
    sp->string(sp, pr->query);
    sp->map_key(sp, "to_folder");
    if (pr->to_folder)
        sp->string(sp, pr->to_folder);
    else
        sp->null(sp);
    sp->map_key(sp, "dry_run");
    sp->boolean(sp, pr->dry_run);
    sp->map_key(sp, "done");
    sp->boolean(sp, pr->done);
    print_count(sp, "messages", s->messages);
    print_count(sp, "files", s->files);
    print_count(sp, "bytes", s->bytes);
    print_count(sp, "kept", s->messages_kept);
    print_count(sp, "failed", s->files_failed);
    print_count(sp, "young", s->messages_young);
    sp->map_key(sp, "paths");
    sp->begin_list(sp);
    for (size_t i = 0; i < pr->npaths; i++)
        print_path(sp, pr->paths[i]);
    sp->end(sp);
    sp->end(sp);
}

void purge_report_print(struct purge_report *pr, const maildex_purge_stats_t *s)
{
    if (pr->format == SPRINTER_TEXT)
        print_line(pr, s);
    else if (!text(pr))
        print_map(pr, s);
    TALLOC_FREE(pr->paths);
    pr->npaths = 0;
    if (pr->sp->error)
        cli_error(pr->cli, "%s", pr->sp->error);
}
