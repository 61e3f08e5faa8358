/* The body of maildex-mime.so, the module the command line loads to parse mail (see mime.h). It
 * exports one symbol, the table of parser entry points. */
#include "mime.h"

const struct maildex__mime_ops maildex_mime_ops = {maildex__message_parse_init,
                                                   maildex__message_parse_file,
                                                   maildex__message_parse_buffer};
