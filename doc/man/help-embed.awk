# SPDX-License-Identifier: GPL-3.0-or-later
# Turns the man pages into cli/base/help-pages.c, the text `maildex help COMMAND` and `maildex
# COMMAND --help` print (cli/base/help.h): for each page its name, section, summary, synopsis, and
# the entries of OPTIONS and COMMON OPTIONS. Run with doc/man/scdoc.awk, which reads the pages:
#   awk -f doc/man/scdoc.awk -f doc/man/help-embed.awk PAGE.scd...
# Every byte outside printable ASCII is written as an octal escape.
BEGIN { for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i }

function c_string(s,    out, i, c) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" || c == "\"") out = out "\\" c
        else if (c == "\n") out = out "\\n"
        else if (ord[c] < 32 || ord[c] > 126) out = out sprintf("\\%03o", ord[c])
        else out = out c
    }
    return "\"" out "\""
}

# A block of lines (each ended by \n) as C string literals, one a line.
function c_text(text, indent,    lines, n, i, out) {
    if (text == "") return "\"\""
    n = split(text, lines, "\n")
    out = ""
    for (i = 1; i < n; i++) out = out (i > 1 ? "\n" indent : "") c_string(lines[i] "\n")
    return out
}

function ident(p,    s) {
    s = "options_" page_name[p] "_" page_section[p]
    gsub(/[^A-Za-z0-9]/, "_", s)
    return s
}

END {
    print "/* Generated from the man pages (doc/maildex.1.scd and doc/man/) by doc/man/help-embed.awk;"
    print " * do not edit: change the page. */"
    print "#include \"base/help.h\""
    for (p = 1; p <= npages; p++) {
        printf "\nstatic const struct help_option %s[] = {\n", ident(p)
        for (k = 1; k <= page_nopts[p]; k++)
            if (opt_part[p, k] ~ /^(COMMON )?OPTIONS$/)
                printf "    {%s, %s,\n     %s},\n", c_string(opt_names[p, k]), c_string(opt_heading[p, k]),
                       c_text(opt_text[p, k], "     ")
        print "    {NULL, NULL, NULL},"
        print "};"
    }
    print "\nconst struct help_page help_pages[] = {"
    for (p = 1; p <= npages; p++)
        printf "    {%s, '%s', %s,\n     %s,\n     %s},\n", c_string(page_name[p]), substr(page_section[p], 1, 1),
               c_string(page_summary[p]), c_text(page_synopsis[p], "     "), ident(p)
    print "    {NULL, 0, NULL, NULL, NULL},"
    print "};"
}
