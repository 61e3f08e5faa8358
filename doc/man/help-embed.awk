# SPDX-License-Identifier: GPL-3.0-or-later
# Turns the man pages' scdoc sources into cli/base/help-pages.c, the text `maildex help COMMAND` and
# `maildex COMMAND --help` print: for each page its name, section, the NAME line's summary, the
# SYNOPSIS, and each entry of OPTIONS (and of maildex(1)'s COMMON OPTIONS): the option names its
# heading gives, the heading and the description, as plain text. The pages are the one source of the
# help: what the man page says is what --help says. scdoc's markup is taken out as scdoc reads it
# (`*bold*`, `_underline_` where an underscore starts or ends a word, `\` escapes, a line's closing
# `++`); every byte outside printable ASCII is written as an octal escape.
BEGIN {
    print "/* Generated from the man pages (doc/maildex.1.scd and doc/man/) by doc/man/help-embed.awk;"
    print " * do not edit: change the page. */"
    print "#include \"base/help.h\""
    print ""
    for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i
    npages = 0
}

# scdoc's text without its markup.
function plain(s,    out, i, n, c, prev, next_c, underline) {
    out = ""; prev = " "; underline = 0; n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c == "\\" && i < n) {
            i++; c = substr(s, i, 1); out = out c; prev = c; continue
        }
        if (c == "*") { prev = c; continue }
        if (c == "_") {
            next_c = substr(s, i + 1, 1)
            if (prev !~ /[A-Za-z0-9]/ || (underline && next_c !~ /[A-Za-z0-9]/)) {
                underline = !underline; prev = c; continue
            }
        }
        out = out c; prev = c
    }
    sub(/[ \t]*\+\+$/, "", out)
    return out
}

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

# An option description line: the entry's own tab taken off, deeper tabs as four spaces; a literal
# block's fences dropped.
function description_line(line) {
    sub(/^\t/, "", line)
    if (line ~ /^[ \t]*```/) return ""
    while (match(line, /^ *\t/)) line = substr(line, 1, RLENGTH - 1) "    " substr(line, RLENGTH + 1)
    return plain(line) "\n"
}

function end_option() {
    if (heading == "") return
    sub(/\n+$/, "\n", text)
    printf "    {%s, %s,\n     %s},\n", c_string(names), c_string(heading), c_text(text, "     ")
    heading = ""
}

function end_page() {
    if (page == "") return
    end_option()
    print "    {NULL, NULL, NULL},"
    print "};"
    print ""
    npages++
    page_name[npages] = page; page_section[npages] = section; page_summary[npages] = summary
    page_synopsis[npages] = synopsis; page_options[npages] = ident
    page = ""
}

FNR == 1 {
    end_page()
    page = $0; sub(/\(.*/, "", page)
    section = $0; sub(/.*\(/, "", section); sub(/\).*/, "", section)
    ident = "options_" page "_" section; gsub(/[^A-Za-z0-9]/, "_", ident)
    summary = synopsis = heading = part = ""
    printf "static const struct help_option %s[] = {\n", ident
    next
}
/^; / { next }
/^# / { end_option(); part = substr($0, 3); next }
part == "NAME" && / - / { summary = plain(substr($0, index($0, " - ") + 3)); next }
part == "SYNOPSIS" && NF {
    line = plain($0); sub(/[ \t]*\\$/, "", line); sub(/^\t+/, "  ", line)
    synopsis = synopsis line "\n"
    next
}
part == "OPTIONS" || part == "COMMON OPTIONS" {
    if ($0 ~ /^[^\t]/ && NF) {
        end_option()
        heading = plain($0)
        names = " "; rest = heading
        while (match(rest, /--[a-z0-9][a-z0-9-]*/)) {
            names = names substr(rest, RSTART, RLENGTH) " "
            rest = substr(rest, RSTART + RLENGTH)
        }
        text = ""
    } else if (heading != "") {
        text = text (NF ? description_line($0) : "\n")
    }
}
END {
    end_page()
    print "const struct help_page help_pages[] = {"
    for (i = 1; i <= npages; i++)
        printf "    {%s, '%s', %s,\n     %s,\n     %s},\n", c_string(page_name[i]), substr(page_section[i], 1, 1),
               c_string(page_summary[i]), c_text(page_synopsis[i], "     "), page_options[i]
    print "    {NULL, 0, NULL, NULL, NULL},"
    print "};"
}
