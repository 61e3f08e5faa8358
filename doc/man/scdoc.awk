# SPDX-License-Identifier: GPL-3.0-or-later
# Reads the man pages' scdoc sources (the *.scd files given on the command line; other files are
# left to the script this one is loaded with, and never `next`ed here) into arrays, for doc/man/help-embed.awk (the help compiled into the
# program) and completions/generate.awk (the shell completions): the pages are their one source.
#   npages; for page p: page_name[p] ("maildex-search"), page_section[p] ("1"), page_summary[p]
#   (the NAME line after " - "), page_synopsis[p] (its lines, each ended by \n), page_nopts[p];
#   for its option entry k (the headings of OPTIONS, COMMON OPTIONS, GLOBAL OPTIONS and PREFIXES):
#   opt_part[p, k], opt_heading[p, k], opt_names[p, k] (each --name of the heading with a space before
#   and after), opt_text[p, k] (the description, lines ended by \n).
# Everything is plain text: scdoc's markup taken out as scdoc reads it (`*bold*`, `_underline_` where
# an underscore starts or ends a word, `\` escapes, a line's closing `++`).

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

# An entry's description line: its own tab taken off, deeper tabs as four spaces; a literal block's
# fences dropped.
function scd_description_line(line) {
    sub(/^\t/, "", line)
    if (line ~ /^[ \t]*```/) return ""
    while (match(line, /^ *\t/)) line = substr(line, 1, RLENGTH - 1) "    " substr(line, RLENGTH + 1)
    return plain(line) "\n"
}

function scd_end_entry(    k) {
    if (scd_entry == 0) return
    k = page_nopts[npages]
    sub(/\n+$/, "\n", opt_text[npages, k])
    scd_entry = 0
}

FNR == 1 { scd_end_entry(); scd_part = "" }
FILENAME ~ /\.scd$/ && FNR == 1 {
    npages++
    page_name[npages] = $0; sub(/\(.*/, "", page_name[npages])
    page_section[npages] = $0; sub(/.*\(/, "", page_section[npages]); sub(/\).*/, "", page_section[npages])
    page_summary[npages] = page_synopsis[npages] = ""; page_nopts[npages] = 0; scd_part = ""
    next
}
FILENAME ~ /\.scd$/ && /^; / { next }
FILENAME ~ /\.scd$/ && /^# / { scd_end_entry(); scd_part = substr($0, 3); next }
scd_part == "NAME" && / - / { page_summary[npages] = plain(substr($0, index($0, " - ") + 3)); next }
scd_part == "SYNOPSIS" && NF {
    scd_line = plain($0); sub(/[ \t]*\\$/, "", scd_line); sub(/^\t+/, "  ", scd_line)
    page_synopsis[npages] = page_synopsis[npages] scd_line "\n"
    next
}
scd_part ~ /^((COMMON |GLOBAL )?OPTIONS|PREFIXES)$/ {
    if ($0 ~ /^[^\t]/ && NF) {
        scd_end_entry()
        scd_line = plain($0)
        if (scd_line !~ (scd_part == "PREFIXES" ? "^[A-Za-z]+:" : "^--"))
            next  # a paragraph of the section, not an entry
        scd_entry = ++page_nopts[npages]
        opt_part[npages, scd_entry] = scd_part
        opt_heading[npages, scd_entry] = scd_rest = scd_line
        opt_names[npages, scd_entry] = " "
        while (match(scd_rest, /--[a-z0-9][a-z0-9-]*/)) {
            opt_names[npages, scd_entry] = opt_names[npages, scd_entry] substr(scd_rest, RSTART, RLENGTH) " "
            scd_rest = substr(scd_rest, RSTART + RLENGTH)
        }
        opt_text[npages, scd_entry] = ""
    } else if (scd_entry) {
        opt_text[npages, scd_entry] = opt_text[npages, scd_entry] (NF ? scd_description_line($0) : "\n")
    }
}
END { scd_end_entry() }
