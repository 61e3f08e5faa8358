#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""xkeys.py WINDOW KEY...: types KEYs into the X window WINDOW (an id, as xwininfo prints it) on $DISPLAY.

For the tests of graphical clients on Xvfb (test/T771-astroid.sh), where xdotool is not installed: the
keys go through the XTEST extension, as a real keyboard's would, so the toolkit cannot tell them from
typing. Only libX11 and libXtst are needed (x11-utils, which gives xwininfo, depends on libXtst), loaded
with ctypes: nothing to build. A KEY is an X keysym name (a, Return, Down); "S-" before it holds Shift
(S-n types N). Exits 2 when the libraries or the display are missing.
"""

import ctypes
import sys
import time


def load():
    try:
        x11 = ctypes.CDLL("libX11.so.6")
        xtst = ctypes.CDLL("libXtst.so.6")
    except OSError as e:
        print("xkeys.py: %s" % e, file=sys.stderr)
        sys.exit(2)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XStringToKeysym.restype = ctypes.c_ulong
    x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
    x11.XKeysymToKeycode.restype = ctypes.c_ubyte
    x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    x11.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
    return x11, xtst


def main():
    x11, xtst = load()
    display = x11.XOpenDisplay(None)
    if not display:
        print("xkeys.py: cannot open the display", file=sys.stderr)
        sys.exit(2)
    # With no window manager on Xvfb nothing gives the window the focus; a key goes where the focus is.
    x11.XSetInputFocus(display, int(sys.argv[1], 0), 2, 0)  # RevertToParent, CurrentTime
    x11.XSync(display, 0)
    # The toolkit takes the focus change as an event of its own: keys sent before it lands are lost.
    time.sleep(0.3)
    shift = x11.XKeysymToKeycode(display, x11.XStringToKeysym(b"Shift_L"))
    for key in sys.argv[2:]:
        shifted = key.startswith("S-")
        code = x11.XKeysymToKeycode(display, x11.XStringToKeysym(key[2 if shifted else 0:].encode()))
        if not code:
            print("xkeys.py: no key for %s" % key, file=sys.stderr)
            sys.exit(2)
        if shifted:
            xtst.XTestFakeKeyEvent(display, shift, 1, 0)
        xtst.XTestFakeKeyEvent(display, code, 1, 0)
        xtst.XTestFakeKeyEvent(display, code, 0, 0)
        if shifted:
            xtst.XTestFakeKeyEvent(display, shift, 0, 0)
        x11.XSync(display, 0)
    x11.XCloseDisplay(display)


main()
