/* The watch (watch.h): a stub while the implementation is written, so that its callers build. */
#include "watch.h"

#include <stdio.h>

int watch_start(struct cli *cli, uv_loop_t *loop, const struct watch_options *opts,
                struct watch **out)
{
    (void) loop;
    (void) opts;
    *out = NULL;
    return cli_error(cli, "watch: not implemented yet");
}

void watch_stop(struct watch *w)
{
    (void) w;
}

int watch_reload(struct watch *w)
{
    (void) w;
    return 1;
}
