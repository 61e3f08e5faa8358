/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `maildex server`: answer requests (doc/protocol.md) on stdin and stdout, for the editor that
 * started it, or on a Unix socket (--listen: $XDG_RUNTIME_DIR/maildex/socket; --socket=PATH), with
 * the watch indexing beside them when asked (--watch). cli/loop/server.c does the serving; this file the
 * options and the socket's place: a directory of mode 0700 that belongs to the user, so no one else
 * can reach the socket, and a socket left by a server that died replaced, one that answers refused. */
#include "cli.h"
#include "loop/server.h"
#include "loop/watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The default socket: $XDG_RUNTIME_DIR/maildex/socket, its directory made (0700) when missing. */
static char *default_socket(struct cli *cli)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    char *dir;

    if (runtime == NULL || *runtime == '\0') {
        cli_error(cli, "XDG_RUNTIME_DIR is not set: give the socket's place with --socket=PATH");
        return NULL;
    }
    dir = talloc_asprintf(cli->ctx, "%s/maildex", runtime);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        cli_error(cli, "cannot create directory '%s': %s", dir, strerror(errno));
        return NULL;
    }
    return talloc_asprintf(cli->ctx, "%s/socket", dir);
}

/* The socket's directory must be the user's alone: anyone who can connect can read all the mail. */
static int check_directory(struct cli *cli, const char *path)
{
    char *dir = g_path_get_dirname(path);
    struct stat st;
    int rc = 0;

    if (stat(dir, &st) != 0)
        rc = cli_error(cli, "cannot use directory '%s': %s", dir, strerror(errno));
    else if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
        rc = cli_error(cli, "directory '%s' must belong to you and be closed to others (chmod 700) to "
                            "hold the socket",
                       dir);
    g_free(dir);
    return rc;
}

/* A socket file at path: another server's (it answers: refused), or a dead one's (removed). */
static int claim_socket(struct cli *cli, const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    struct stat st;
    int fd, rc = 0;

    if (strlen(path) >= sizeof addr.sun_path)
        return cli_error(cli, "socket path '%s' is too long (at most %zu bytes)", path,
                         sizeof addr.sun_path - 1);
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : cli_error(cli, "cannot use '%s': %s", path, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return cli_error(cli, "'%s' exists and is not a socket", path);
    strcpy(addr.sun_path, path);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return cli_error(cli, "cannot make a socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *) &addr, sizeof addr) == 0)
        rc = cli_error(cli, "another server is listening on '%s'", path);
    else if (unlink(path) != 0)
        rc = cli_error(cli, "cannot remove the old socket '%s': %s", path, strerror(errno));
    close(fd);
    return rc;
}

int cmd_server(struct cli *cli, int argc, char **argv)
{
    bool listen = false, watch = false, no_hooks = false;
    const char *socket_path = NULL;
    int debounce = WATCH_DEBOUNCE_MS;
    const struct option opts[] = {
        {OPT_STRING, "socket", &socket_path, NULL, NULL, NULL},
        {OPT_BOOL, "listen", &listen, NULL, NULL, NULL},
        {OPT_BOOL, "watch", &watch, NULL, NULL, NULL},
        {OPT_BOOL, "no-hooks", &no_hooks, NULL, NULL, NULL},
        {OPT_COUNT, "debounce", &debounce, NULL, NULL, NULL},
        {OPT_END, NULL, NULL, NULL, NULL, NULL},
    };
    struct server_options so = {0};
    int first = cli_start(cli, argc, argv, opts), rc;

    if (first < 0)
        return -first;
    if (first < argc)
        return cli_error(cli, "unexpected argument '%s'", argv[first]);
    if ((rc = watch_check_debounce(cli, debounce)) != 0)
        return rc;
    if (listen && socket_path == NULL && (socket_path = default_socket(cli)) == NULL)
        return EXIT_FAILURE;
    if (socket_path && ((rc = check_directory(cli, socket_path)) != 0 || (rc = claim_socket(cli, socket_path)) != 0))
        return rc;
    so.socket_path = socket_path;
    so.watch = watch;
    so.hooks = !no_hooks;
    so.debounce_ms = (unsigned) debounce;
    rc = server_run(cli, &so);
    if (socket_path)
        unlink(socket_path);
    return rc;
}
