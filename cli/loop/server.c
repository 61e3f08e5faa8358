/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex server`'s clients and the order their requests run in (doc/protocol.md): request lines read
 * and parsed (json-read.c), readers started at once, writers one at a time in the order received,
 * output framed back to the client that asked ("out ID LEN", "end ID STATUS LEN"), cancels, the
 * watch's rounds sent as "event LEN" frames to clients that subscribed, and the end: stdin closed
 * (or a signal) lets the writer in hand finish, cancels the readers, then the loop ends. */
#include "json-read.h"
#include "server.h"
#include "stop-signals.h"
#include "print/sprinter.h"
#include "watch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A client slower than this (bytes framed, not yet written) stops its requests' output being read,
 * so a large `show` to a stalled editor does not fill the server's memory; it resumes below RESUME. */
#define THROTTLE_BYTES (4u << 20)
#define RESUME_BYTES (1u << 20)
/* Readers running at once; more wait their turn. Each holds a thread, a SQLite connection and some
 * ten descriptors, and two cores gain nothing from more: the cap keeps a client that sends
 * thousands at once from exhausting the process's descriptors, while one slow request (or 63) still
 * leaves room for the rest. */
#define MAX_READERS 64
/* A request line longer than this is refused (a message's stdin is the largest thing a line holds). */
#define MAX_LINE_BYTES (256u << 20)

struct server {
    struct cli *cli;
    uv_loop_t loop;
    const struct server_options *opts;
    uv_pipe_t listener;
    bool listening;
    GList *clients;
    GQueue writers;          /* struct request *, not yet started */
    GQueue readers;          /* readers waiting for one of the MAX_READERS places */
    unsigned reading;        /* readers running */
    struct request *writing; /* the writer running, or NULL */
    struct watch *watch;
    struct stop_signals signals;
    bool stopping;
    int status;
};

struct client {
    struct server *server;
    uv_pipe_t in, out;       /* a socket client: in only, used both ways */
    bool two_handles, input_done, gone, subscribed;
    bool draining;           /* gone, and closing once what is queued for it is written */
    bool failed;             /* a write failed: nothing queued can reach it */
    int open_handles;
    GString *line;
    bool overlong;           /* the line in hand passed MAX_LINE_BYTES: dropped up to its newline */
    GHashTable *requests;    /* id -> struct request *, until their end is sent */
    size_t queued;           /* bytes handed to uv_write and not yet written */
    bool throttled;
};

struct frame {
    uv_write_t req;
    struct client *client;
    size_t len;
    char bytes[];
};

static void maybe_finish(struct server *s);
static void start_next_writer(struct server *s);
static void start_next_readers(struct server *s);
static void client_gone(struct client *c);
static void close_handles(struct client *c);

static uv_stream_t *client_out(struct client *c)
{
    return (uv_stream_t *) (c->two_handles ? &c->out : &c->in);
}

static void each_request(struct client *c, void (*fn)(struct request *))
{
    GHashTableIter it;
    gpointer value;

    g_hash_table_iter_init(&it, c->requests);
    while (g_hash_table_iter_next(&it, NULL, &value))
        fn(value);
}

static void on_written(uv_write_t *w, int status)
{
    struct frame *f = (struct frame *) w;
    struct client *c = f->client;

    c->queued -= f->len;
    if (status < 0 && !c->failed) { /* the client stopped reading: nothing it asked for can reach it */
        c->failed = true;
        if (c->draining)
            close_handles(c);
        else
            client_gone(c);
    } else if (c->draining && c->queued == 0 && !c->failed) {
        close_handles(c);
    }
    if (c->throttled && c->queued < RESUME_BYTES) {
        c->throttled = false;
        each_request(c, request_resume);
    }
    g_free(f);
}

/* Sends "HEADER LEN\n" and the payload as one write. */
static void send_frame(struct client *c, const char *header, const char *payload, size_t len)
{
    char line[96];
    int n = snprintf(line, sizeof line, "%s %zu\n", header, len);
    struct frame *f;
    uv_buf_t buf;

    if (c->gone)
        return;
    f = g_malloc(sizeof *f + (size_t) n + len);
    f->client = c;
    f->len = (size_t) n + len;
    memcpy(f->bytes, line, (size_t) n);
    if (len)
        memcpy(f->bytes + n, payload, len);
    buf = uv_buf_init(f->bytes, (unsigned) f->len);
    if (uv_write(&f->req, client_out(c), &buf, 1, on_written) != 0) {
        g_free(f);
        return;
    }
    c->queued += f->len;
    if (!c->throttled && c->queued > THROTTLE_BYTES) {
        c->throttled = true;
        each_request(c, request_pause);
    }
}

static void send_end(struct client *c, int64_t id, int status, const char *text, size_t len)
{
    char header[64];

    snprintf(header, sizeof header, "end %" PRId64 " %d", id, status);
    send_frame(c, header, text, len);
}

static void send_error(struct client *c, int64_t id, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void send_error(struct client *c, int64_t id, const char *fmt, ...)
{
    va_list ap;
    GString *text = g_string_new("maildex server: ");

    va_start(ap, fmt);
    g_string_append_vprintf(text, fmt, ap);
    va_end(ap);
    g_string_append_c(text, '\n');
    send_end(c, id, EXIT_FAILURE, text->str, text->len);
    g_string_free(text, TRUE);
}

static void on_request_output(struct request *r, const char *data, size_t len)
{
    char header[48];

    if (r->client == NULL)
        return;
    snprintf(header, sizeof header, "out %" PRId64, r->id);
    send_frame(r->client, header, data, len);
}

static void free_request(struct request *r)
{
    if (r->err_text)
        g_string_free(r->err_text, TRUE);
    if (r->started)
        g_mutex_clear(&r->db_lock);
    g_bytes_unref(r->input);
    g_strfreev(r->argv);
    g_free(r);
}

static void client_free_if_done(struct client *c)
{
    if (c->gone && c->open_handles == 0 && g_hash_table_size(c->requests) == 0) {
        struct server *s = c->server;
        s->clients = g_list_remove(s->clients, c);
        g_hash_table_destroy(c->requests);
        g_string_free(c->line, TRUE);
        g_free(c);
    }
}

/* Whether the request ending is the last one running or waiting. */
static bool is_last(struct server *s, const struct request *ending)
{
    unsigned others = s->reading - (!ending->writer && ending->started ? 1u : 0u);

    return others == 0 && (s->writing == NULL || s->writing == ending) &&
           g_queue_is_empty(&s->writers) && g_queue_is_empty(&s->readers);
}

static void on_request_ended(struct request *r, int status, const char *err, size_t err_len)
{
    struct server *s = r->server;
    struct client *c = r->client;

    if (is_last(s, r))
        request_memory_trim(); /* before its end is sent: the client may measure us then */

    if (c) {
        if (r->cancelled_by_client) {
            char text[96];
            int n = snprintf(text, sizeof text, "maildex server: request %" PRId64 " cancelled\n", r->id);
            send_end(c, r->id, 130, text, (size_t) n);
        } else {
            send_end(c, r->id, status, err, err_len);
        }
        g_hash_table_remove(c->requests, &r->id);
        if ((c->input_done || s->stopping) && g_hash_table_size(c->requests) == 0)
            client_gone(c); /* it has its last answer */
    }
    if (s->writing == r) {
        s->writing = NULL;
        start_next_writer(s);
    }
    if (!r->writer && r->started) {
        s->reading--;
        start_next_readers(s);
    }
    free_request(r);
    maybe_finish(s);
}

static void start(struct request *r)
{
    const char *why = NULL;

    if (request_start(r, &r->server->loop, &why) != 0) {
        struct server *s = r->server;
        if (r->client) {
            struct client *c = r->client;
            send_error(c, r->id, "%s", why);
            g_hash_table_remove(c->requests, &r->id);
            if ((c->input_done || s->stopping) && g_hash_table_size(c->requests) == 0)
                client_gone(c);
        }
        if (s->writing == r)
            s->writing = NULL;
        if (!r->writer)
            s->reading--;
        free_request(r);
        return;
    }
    if (r->client && r->client->throttled)
        request_pause(r);
}

static void start_next_writer(struct server *s)
{
    struct request *r;

    while (s->writing == NULL && (r = g_queue_pop_head(&s->writers)) != NULL) {
        s->writing = r;
        start(r); /* a start that fails clears s->writing: the loop takes the next */
    }
}

static void start_next_readers(struct server *s)
{
    struct request *r;

    while (s->reading < MAX_READERS && (r = g_queue_pop_head(&s->readers)) != NULL) {
        if (r->client == NULL) { /* its client went while it waited: nobody wants the answer */
            free_request(r);
            continue;
        }
        s->reading++;
        start(r);
    }
}

/* Readers run at once: the commands that open the database read-only, and help. Everything else
 * (writes, config, anything this list does not know) waits its turn. */
static bool is_reader(const struct cli *cli, char **argv, int argc)
{
    const struct command *c = NULL;
    int i = 1;

    while (i < argc && strncmp(argv[i], "--", 2) == 0) /* global options: --config=FILE ... */
        i++;
    if (i < argc)
        c = cli_find_command(cli, argv[i]);
    if (c == NULL)
        return false;
    if (strcmp(c->name, "config") == 0)
        return i + 1 < argc && (strcmp(argv[i + 1], "get") == 0 || strcmp(argv[i + 1], "list") == 0);
    return (c->flags & CMD_DB_READ) || strcmp(c->name, "help") == 0;
}

/* A request's argv: the client's, after the program's name and the server's --config. */
static char **request_argv(struct server *s, const struct json *args, int *argc, const char **why)
{
    GPtrArray *v = g_ptr_array_new_with_free_func(g_free);

    g_ptr_array_add(v, g_strdup("maildex"));
    if (s->cli->config_option)
        g_ptr_array_add(v, g_strdup_printf("--config=%s", s->cli->config_option));
    for (size_t i = 0; i < args->n; i++) {
        const struct json *a = args->items[i];
        if (a->kind != JSON_STRING || strlen(a->string) != a->string_len) {
            *why = a->kind != JSON_STRING ? "argv must be an array of strings"
                                          : "an argument holds a NUL character";
            g_ptr_array_free(v, TRUE);
            return NULL;
        }
        g_ptr_array_add(v, g_strdup(a->string));
    }
    if (args->n == 0) {
        *why = "argv is empty";
        g_ptr_array_free(v, TRUE);
        return NULL;
    }
    *argc = (int) v->len;
    g_ptr_array_add(v, NULL);
    return (char **) g_ptr_array_free(v, FALSE);
}

static bool member_int(const struct json *o, const char *name, int64_t *out)
{
    const struct json *n = json_member(o, name);

    if (n == NULL || n->kind != JSON_NUMBER || !n->is_integer)
        return false;
    *out = n->integer;
    return true;
}

static const struct json *member_string(const struct json *o, const char *name)
{
    const struct json *n = json_member(o, name);

    return n && n->kind == JSON_STRING ? n : NULL;
}

static void cancel(struct client *c, int64_t id)
{
    struct request *r = g_hash_table_lookup(c->requests, &id);

    if (r == NULL) /* already ended, or never was: nothing to say */
        return;
    r->cancelled_by_client = true;
    if (r->started) {
        request_cancel(r);
        return;
    }
    g_queue_remove(r->writer ? &c->server->writers : &c->server->readers, r);
    on_request_ended(r, 130, NULL, 0);
}

/* GLib's decoder skips what is not of the alphabet and decodes a truncated quantum: a body that is
 * not base64 would reach the command as other bytes. Only the standard alphabet, padded to whole
 * quanta, is taken (whitespace is not: JSON carries the text as one string). */
static guchar *strict_base64(const char *text, size_t len, gsize *out_len)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t pad = 0;

    if (len % 4 != 0 || memchr(text, '\0', len) != NULL)
        return NULL;
    while (pad < 2 && pad < len && text[len - 1 - pad] == '=')
        pad++;
    if (strspn(text, alphabet) != len - pad)
        return NULL;
    return g_base64_decode(text, out_len);
}

/* A command request: {"id": N, "argv": [...], "stdin": TEXT | "stdin_base64": BASE64}. */
static void command(struct client *c, const struct json *o, int64_t id)
{
    struct server *s = c->server;
    const struct json *args = json_member(o, "argv"), *text = member_string(o, "stdin"),
                      *b64 = member_string(o, "stdin_base64");
    const char *why = NULL;
    struct request *r;

    if (args == NULL || args->kind != JSON_ARRAY)
        return send_error(c, id, "bad request %" PRId64 ": no argv array", id);
    if (g_hash_table_contains(c->requests, &id))
        return send_error(c, id, "bad request: id %" PRId64 " is already running", id);
    if (s->stopping)
        return send_error(c, id, "request %" PRId64 " refused: the server is stopping", id);
    r = g_new0(struct request, 1);
    r->server = s;
    r->client = c;
    r->id = id;
    r->output = on_request_output;
    r->ended = on_request_ended;
    /* The program's table and run, as main handed them to the server's own cli. */
    r->cli.commands = s->cli->commands;
    r->cli.run = s->cli->run;
    if ((r->argv = request_argv(s, args, &r->argc, &why)) == NULL) {
        free_request(r);
        return send_error(c, id, "bad request %" PRId64 ": %s", id, why);
    }
    if (b64) {
        gsize len;
        guchar *bytes = strict_base64(b64->string, b64->string_len, &len);
        if (bytes == NULL) {
            free_request(r);
            return send_error(c, id, "bad request %" PRId64 ": stdin_base64 is not base64 (RFC 4648)", id);
        }
        r->input = g_bytes_new_take(bytes, len);
    } else if (text) {
        r->input = g_bytes_new(text->string, text->string_len);
    }
    r->writer = !is_reader(s->cli, r->argv, r->argc);
    g_hash_table_insert(c->requests, &r->id, r);
    g_queue_push_tail(r->writer ? &s->writers : &s->readers, r);
    if (r->writer)
        start_next_writer(s);
    else
        start_next_readers(s);
}

static void request_line(struct client *c, const char *line, size_t len)
{
    void *ctx = talloc_new(NULL);
    char *error = NULL;
    const struct json *o = json_parse(ctx, line, len, &error), *subscribe;
    int64_t id = 0;

    if (o == NULL || o->kind != JSON_OBJECT) {
        send_error(c, 0, "bad request: not a JSON object%s%s", error ? ": " : "", error ? error : "");
    } else if (member_int(o, "cancel", &id)) {
        cancel(c, id);
    } else if (!member_int(o, "id", &id) || id < 1) {
        send_error(c, 0, "bad request: no \"id\" (a positive integer)");
    } else if ((subscribe = json_member(o, "subscribe")) != NULL) {
        c->subscribed = subscribe->kind == JSON_BOOL && subscribe->boolean;
        send_end(c, id, 0, NULL, 0);
    } else {
        command(c, o, id);
    }
    talloc_free(ctx);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void) h;
    (void) suggested;
    buf->base = g_malloc(65536);
    buf->len = 65536;
}

static void on_client_closed(uv_handle_t *h)
{
    struct client *c = h->data;
    struct server *s = c->server;

    c->open_handles--;
    client_free_if_done(c);
    maybe_finish(s);
}

static void close_handles(struct client *c)
{
    c->draining = false;
    uv_close((uv_handle_t *) &c->in, on_client_closed);
    if (c->two_handles)
        uv_close((uv_handle_t *) &c->out, on_client_closed);
}

/* The client is gone (its input ended, or it failed): its readers are cancelled, its writers run to
 * their end (a tag change it sent is made), and what they print goes nowhere. */
static void client_gone(struct client *c)
{
    GHashTableIter it;
    gpointer value;

    if (c->gone)
        return;
    c->gone = true;
    g_hash_table_iter_init(&it, c->requests);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        struct request *r = value;
        r->client = NULL;
        request_resume(r); /* paused for a slow client: what it prints from now on is dropped */
        if (!r->writer)
            request_cancel(r);
        g_hash_table_iter_remove(&it);
    }
    /* Closing a stream cancels the writes queued on it: the last answers are written first. */
    if (c->queued > 0 && !c->failed)
        c->draining = true;
    else
        close_handles(c);
    /* Without a socket the one client is the server's reason to run. */
    if (!c->server->opts->socket_path)
        c->server->stopping = true;
}

/* Adds a piece of the line in hand. A line over the limit is refused whole, once, and the rest of it
 * up to its newline is dropped: its tail must never be read as a request of its own (a cut line's
 * tail could be any command). Returns false once the line is over the limit. */
static bool take_line_part(struct client *c, const char *p, size_t len)
{
    if (c->overlong)
        return false;
    if (c->line->len + len > MAX_LINE_BYTES) {
        send_error(c, 0, "bad request: a line longer than %u bytes, ignored up to its end", MAX_LINE_BYTES);
        g_string_truncate(c->line, 0);
        c->overlong = true;
        return false;
    }
    g_string_append_len(c->line, p, len);
    return true;
}

static void on_client_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    struct client *c = stream->data;

    if (n > 0) {
        const char *p = buf->base, *end = buf->base + n, *nl;
        while ((nl = memchr(p, '\n', (size_t) (end - p))) != NULL) {
            if (take_line_part(c, p, (size_t) (nl - p)) && !c->overlong)
                request_line(c, c->line->str, c->line->len);
            g_string_truncate(c->line, 0);
            c->overlong = false;
            p = nl + 1;
        }
        take_line_part(c, p, (size_t) (end - p));
    }
    g_free(buf->base);
    if (n == UV_EOF) {
        /* No more requests: those in hand are answered, then the client is closed (and, without
         * a socket, the server stops). */
        c->input_done = true;
        uv_read_stop(stream);
        if (!c->server->opts->socket_path)
            c->server->stopping = true;
        if (g_hash_table_size(c->requests) == 0)
            client_gone(c);
        else
            maybe_finish(c->server);
    } else if (n < 0) {
        client_gone(c);
    }
}

static struct client *client_new(struct server *s)
{
    struct client *c = g_new0(struct client, 1);

    c->server = s;
    c->line = g_string_new(NULL);
    c->requests = g_hash_table_new(g_int64_hash, g_int64_equal);
    c->in.data = c->out.data = c;
    s->clients = g_list_prepend(s->clients, c);
    return c;
}

/* Whether libuv can wait on fd: a pipe, a socket or a terminal. epoll refuses regular files and
 * devices such as /dev/null, and libuv aborts when it is made to wait on one. Input is always
 * waited on; output only when a write would block, which a file or /dev/null never does, so a
 * server may answer into either. */
static bool pollable(int fd)
{
    struct stat st;

    return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(fd));
}

static int stdio_client(struct server *s)
{
    struct client *c;

    if (!pollable(STDIN_FILENO)) {
        fprintf(stderr, "maildex server: standard input must be a pipe, a socket or a terminal\n");
        return EXIT_FAILURE;
    }
    c = client_new(s);

    c->two_handles = true;
    uv_pipe_init(&s->loop, &c->in, 0);
    uv_pipe_init(&s->loop, &c->out, 0);
    c->open_handles = 2;
    c->in.data = c->out.data = c;
    if (uv_pipe_open(&c->in, STDIN_FILENO) != 0 || uv_pipe_open(&c->out, STDOUT_FILENO) != 0 ||
        uv_read_start((uv_stream_t *) &c->in, on_alloc, on_client_read) != 0) {
        fprintf(stderr, "maildex server: standard input and output must be pipes or sockets\n");
        client_gone(c);
        return EXIT_FAILURE;
    }
    return 0;
}

static void on_connection(uv_stream_t *listener, int status)
{
    struct server *s = listener->data;
    struct client *c;

    if (status != 0)
        return;
    c = client_new(s);
    uv_pipe_init(&s->loop, &c->in, 0);
    c->in.data = c;
    c->open_handles = 1;
    if (uv_accept(listener, (uv_stream_t *) &c->in) != 0 ||
        uv_read_start((uv_stream_t *) &c->in, on_alloc, on_client_read) != 0)
        client_gone(c);
}

/* Listens on path (the directory made and checked by cmd-server.c), mode 0600. */
static int listen_on(struct server *s, const char *path)
{
    mode_t old = umask(0177);
    int rc;

    uv_pipe_init(&s->loop, &s->listener, 0);
    s->listener.data = s;
    s->listening = true;
    rc = uv_pipe_bind(&s->listener, path);
    umask(old);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *) &s->listener, 64, on_connection);
    if (rc != 0) {
        fprintf(stderr, "maildex server: cannot listen on '%s': %s\n", path, uv_strerror(rc));
        return EXIT_FAILURE;
    }
    return 0;
}

/* A round of the watch as one line of JSON, through the printer every command uses. */
static char *round_json(const struct watch_round *round, size_t *len)
{
    char *text = NULL, id[17];
    FILE *f = open_memstream(&text, len);
    void *ctx = talloc_new(NULL);
    struct sprinter *sp;

    if (f == NULL || ctx == NULL || (sp = sprinter_json_create(ctx, f)) == NULL) {
        if (f)
            fclose(f);
        talloc_free(ctx);
        free(text);
        return NULL;
    }
    sp->begin_map(sp);
    sp->map_key(sp, "added");
    sp->integer(sp, (int64_t) round->added);
    sp->map_key(sp, "removed");
    sp->integer(sp, (int64_t) round->removed);
    sp->map_key(sp, "renamed");
    sp->integer(sp, (int64_t) round->renamed);
    sp->map_key(sp, "threads");
    sp->begin_list(sp);
    for (size_t i = 0; i < round->n_threads; i++) {
        snprintf(id, sizeof id, "%016" PRIx64, round->threads[i]);
        sp->string(sp, id);
    }
    sp->end(sp);
    sp->map_key(sp, "full");
    sp->boolean(sp, round->full);
    sp->map_key(sp, "status");
    sp->integer(sp, round->status);
    sp->map_key(sp, "error");
    if (round->error)
        sp->string(sp, round->error);
    else
        sp->null(sp);
    sp->end(sp); /* the printer ends the top-level value with a newline, as every command's output */
    talloc_free(ctx);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void on_round(void *data, const struct watch_round *round)
{
    struct server *s = data;
    size_t len = 0;
    char *text = round_json(round, &len);

    for (GList *l = s->clients; text && l; l = l->next) {
        struct client *c = l->data;
        if (c->subscribed)
            send_frame(c, "event", text, len);
    }
    free(text);
}

static void on_watch_stopped(void *data, int status)
{
    struct server *s = data;

    s->watch = NULL;
    if (status != 0 && s->status == 0)
        s->status = status;
    maybe_finish(s);
}

/* Stopping: no new request; readers cancelled; writers, queued or running, finish. */
static void stop(struct server *s)
{
    s->stopping = true;
    for (GList *l = s->clients; l; l = l->next) {
        struct client *c = l->data;
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, c->requests);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
            struct request *r = value;
            if (!r->writer)
                request_cancel(r);
        }
    }
    maybe_finish(s);
}

/* Once stopping and no writer is left, the watch stops, then the listener and the clients close. */
static void maybe_finish(struct server *s)
{
    if (!s->stopping || s->writing || g_queue_get_length(&s->writers) > 0)
        return;
    if (s->watch) {
        watch_stop(s->watch); /* on_watch_stopped comes back here */
        return;
    }
    for (GList *l = s->clients; l; l = l->next) {
        struct client *c = l->data;
        if (g_hash_table_size(c->requests) == 0 && !c->gone)
            client_gone(c);
    }
    if (s->listening && !uv_is_closing((uv_handle_t *) &s->listener))
        uv_close((uv_handle_t *) &s->listener, NULL);
    stop_signals_close(&s->signals, NULL);
}

static void on_signal(uv_signal_t *h, int signum)
{
    struct server *s = h->data;

    if (signum == SIGHUP) {
        if (s->watch)
            watch_reload(s->watch);
        return;
    }
    stop(s);
}

int server_run(struct cli *cli, const struct server_options *opts)
{
    struct server *s = g_new0(struct server, 1);
    /* defer: beside a running `maildex watch` the server does not watch too (one per store, so the
     * hooks run once per round); it takes over when that one ends. */
    struct watch_options wo = {.debounce_ms = opts->debounce_ms, .hooks = opts->hooks, .quiet = true,
                               .host = "server", .defer = true, .round = on_round, .stopped = on_watch_stopped};
    int rc = 0;

    request_memory_init(); /* before the first request's thread */
    s->cli = cli;
    s->opts = opts;
    g_queue_init(&s->writers);
    g_queue_init(&s->readers);
    if ((rc = uv_loop_init(&s->loop)) != 0) {
        fprintf(stderr, "maildex server: cannot start an event loop: %s\n", uv_strerror(rc));
        g_free(s);
        return 1;
    }
    /* A client that went away must not kill the server when its answer is written. */
    signal(SIGPIPE, SIG_IGN);
    stop_signals_start(&s->signals, &s->loop, on_signal, s);
    rc = opts->socket_path ? listen_on(s, opts->socket_path) : stdio_client(s);
    if (rc == 0 && opts->watch) {
        wo.data = s;
        rc = watch_start(cli, &s->loop, &wo, &s->watch);
    }
    if (rc != 0) {
        s->status = rc;
        s->watch = NULL;
        stop(s);
    }
    uv_run(&s->loop, UV_RUN_DEFAULT);
    uv_loop_close(&s->loop);
    rc = s->status;
    g_free(s);
    return rc;
}
