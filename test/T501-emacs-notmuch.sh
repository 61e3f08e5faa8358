#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# T500-emacs against the real notmuch 0.37: the same steps and expected text, every step run, so that
# a step failing for maildex but passing here is maildex's fault, and one failing here is the test's.
MAILDEX_EMACS_PROGRAM=notmuch
. "$(dirname "$0")/T500-emacs.sh"
