# SPDX-License-Identifier: GPL-3.0-or-later
# Turns sql/NNNN-name.sql files into lib/sql-embedded.c: an array of { version, name, text } in the
# order given on the command line (the Makefile lists them in version order). Bytes other than
# printable ASCII are written as octal escapes so any SQL survives as a C string.
BEGIN {
    print "/* Generated from the sql/NNNN-name.sql files by sql/embed.awk; do not edit. */"
    print "#include \"store/maildex-private.h\""
    print "const struct maildex__migration maildex__migrations[] = {"
    for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i
}
FNR == 1 {
    if (started) print "    },"
    started = 1
    name = FILENAME; sub(/.*\//, "", name)
    version = name; sub(/-.*/, "", version); version = version + 0
    printf "    { %d, \"%s\",\n", version, name
}
{
    line = $0; out = ""
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\\" || c == "\"") out = out "\\" c
        else if (ord[c] < 32 || ord[c] > 126) out = out sprintf("\\%03o", ord[c])
        else out = out c
    }
    printf "      \"%s\\n\"\n", out
}
END {
    if (started) print "    },"
    print "};"
    printf "const int maildex__migration_count = %d;\n", ARGC - 1
}
