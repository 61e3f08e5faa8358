/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What every harness in test/fuzz/ defines: libFuzzer's entry point, called with one input at a time.
 *
 * A harness feeds the bytes to one parser and checks what the parser promises in its header (no crash,
 * no leak, the documented outputs set or cleared); a broken promise aborts. The same harness is built
 * twice: with clang and -fsanitize=fuzzer by `make fuzz`, and with the ordinary build into
 * test/fuzz/replay-NAME, which `make check` runs on every file of test/fuzz/corpus-NAME (replay.c).
 * A harness keeps no state between inputs beyond one-time set-up, so a crash replays from its file. */
#ifndef MAILDEX_FUZZ_H
#define MAILDEX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the broken promise named: libFuzzer saves the input, the replay fails. */
#define FUZZ_CHECK(cond)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond);       \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

#endif
