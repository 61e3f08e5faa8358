# SPDX-License-Identifier: GPL-3.0-or-later
# Makes a shell's completion script from the man pages and the script's template: the commands (every
# maildex-COMMAND(1) page), each command's options and their values (its OPTIONS headings, plus
# maildex(1)'s COMMON OPTIONS), the global options (maildex(1)'s GLOBAL OPTIONS), the query prefixes
# (maildex-search-terms(7)'s PREFIXES) and what each command's other arguments are (its SYNOPSIS),
# so that the completions say what the pages say. Run with doc/man/scdoc.awk, the template last:
#   awk -v shell=bash|zsh|fish -f doc/man/scdoc.awk -f completions/generate.awk PAGE.scd... TEMPLATE.in
# The template's line @DATA@ becomes the data: shell functions for bash and zsh (the same text runs
# in both), `complete` lines for fish.
FILENAME ~ /\.in$/ { template[++ntemplate] = $0 }

function shell_quote(s) { gsub(/'/, "'\\''", s); return "'" s "'" }
function fish_quote(s) { gsub(/\\/, "\\\\", s); gsub(/'/, "\\'", s); return "'" s "'" }

# The first sentence of an entry's text, for fish's descriptions.
function first_sentence(text) {
    gsub(/\n/, " ", text)
    sub(/\. .*/, "", text); sub(/\.$/, "", text); sub(/ *$/, "", text)
    if (length(text) > 72) text = substr(text, 1, 69) "..."
    return text
}

# Each --name of a heading, with what its value is, into the command's lists: kind[cmd, name] is
# "flag", "file", "dir", "free", "words" (an =a|b list) or "optional" (a [=a|b] list), words[...] the list.
function add_options(cmd, heading, text,    rest, item, name, value) {
    rest = heading
    while (match(rest, /--[a-z0-9][a-z0-9-]*(\[=[^] ]*\]|=[^ ,]*)?/)) {
        item = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
        name = item; sub(/[[=].*/, "", name)
        value = substr(item, length(name) + 1)
        if ((cmd, name) in kind) continue
        names[cmd] = names[cmd] " " name
        describe[cmd, name] = first_sentence(text)
        if (value == "") kind[cmd, name] = "flag"
        else if (value ~ /^\[=/) { kind[cmd, name] = "optional"; words[cmd, name] = value; gsub(/[][=]/, "", words[cmd, name]) }
        else if (value ~ /^=[a-z0-9-]+(\|[a-z0-9-]+)*$/) { kind[cmd, name] = "words"; words[cmd, name] = substr(value, 2) }
        else if (value ~ /FILE|PATH/) kind[cmd, name] = "file"
        else if (value ~ /DIR/) kind[cmd, name] = "dir"
        else kind[cmd, name] = "free"
        gsub(/\|/, " ", words[cmd, name])
    }
}

# What a command's arguments are, from its synopsis: a query, tag changes, a command or topic, a
# config subcommand and key, a program.
function arguments(synopsis,    a) {
    a = ""
    if (synopsis ~ /\+TAG/) a = a " tags"
    if (synopsis ~ /QUERY/) a = a " query"
    if (synopsis ~ /TOPIC/) a = a " help"
    if (synopsis ~ / get KEY/) a = a " config"
    if (synopsis ~ /CLIENT/) a = a " program"
    return substr(a, 2)
}

function collect(    p, k, cmd, rest) {
    for (p = 1; p <= npages; p++) {
        if (page_name[p] == "maildex") main = p
        else if (page_name[p] == "maildex-search-terms") terms = p
        if (page_section[p] == "1" && page_name[p] ~ /^maildex-/) {
            cmd = substr(page_name[p], 9)
            commands = commands " " cmd; summary[cmd] = page_summary[p]; args[cmd] = arguments(page_synopsis[p])
        }
    }
    for (p = 1; p <= npages; p++) {
        cmd = substr(page_name[p], 9)
        if (page_section[p] != "1" && !index(commands " ", " " cmd " ")) topics = topics " " cmd
        if (page_section[p] != "1" || page_name[p] !~ /^maildex-/) continue
        for (k = 1; k <= page_nopts[p]; k++)
            if (opt_part[p, k] == "OPTIONS") add_options(cmd, opt_heading[p, k], opt_text[p, k])
        for (k = 1; k <= page_nopts[main]; k++)
            if (opt_part[main, k] == "COMMON OPTIONS") add_options(cmd, opt_heading[main, k], opt_text[main, k])
    }
    for (k = 1; k <= page_nopts[main]; k++)
        if (opt_part[main, k] == "GLOBAL OPTIONS") add_options("", opt_heading[main, k], opt_text[main, k])
    for (k = 1; k <= page_nopts[terms]; k++) {
        rest = " " opt_heading[terms, k]
        while (match(rest, / [a-z]+:/)) { prefixes = prefixes substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH) }
    }
    commands = substr(commands, 2); topics = substr(topics, 2); prefixes = substr(prefixes, 2)
}

# An option as typed: "--name=" when it takes a value, so that the value follows without a space.
function typed(cmd, name) { return name (kind[cmd, name] ~ /^(flag|optional)$/ ? "" : "=") }

function print_sh(    n, list, i, cmd, j, opts, o, line) {
    print "_maildex_commands=" shell_quote(commands)
    print "_maildex_topics=" shell_quote(topics)
    print "_maildex_prefixes=" shell_quote(prefixes)
    o = ""; n = split(names[""], opts, " ")
    for (j = 1; j <= n; j++) o = o " " typed("", opts[j])
    print "_maildex_global_options=" shell_quote(substr(o, 2))
    n = split(commands, list, " ")
    print "# A command's options, as typed: _maildex_options COMMAND"
    print "_maildex_options() {\n    case $1 in"
    for (i = 1; i <= n; i++) {
        cmd = list[i]; o = ""
        split(names[cmd], opts, " ")
        for (j = 1; opts[j] != ""; j++) o = o " " typed(cmd, opts[j])
        printf "    %s) echo %s ;;\n", cmd, shell_quote(substr(o, 2))
    }
    print "    esac\n}"
    print "# An option's values: _maildex_values COMMAND OPTION (\"\" for a global one): words, or @file or @dir"
    print "_maildex_values() {\n    case \"$1 $2\" in"
    for (i = 0; i <= n; i++) {
        cmd = i ? list[i] : ""
        split(names[cmd], opts, " ")
        for (j = 1; opts[j] != ""; j++) {
            line = kind[cmd, opts[j]] ~ /^(words|optional)$/ ? words[cmd, opts[j]] : kind[cmd, opts[j]] ~ /^(file|dir)$/ ? "@" kind[cmd, opts[j]] : ""
            if (line != "") printf "    %s) echo %s ;;\n", shell_quote(cmd " " opts[j]), shell_quote(line)
        }
    }
    print "    esac\n}"
    print "# What a command's other arguments are: query, tags, help, config, program"
    print "_maildex_arguments() {\n    case $1 in"
    for (i = 1; i <= n; i++)
        if (args[list[i]] != "") printf "    %s) echo %s ;;\n", list[i], shell_quote(args[list[i]])
    print "    esac\n}"
}

function print_fish(    n, list, i, cmd, j, opts, k, line, with) {
    n = split(commands, list, " ")
    for (i = 1; i <= n; i++)
        printf "complete -c maildex -n __fish_use_subcommand -f -a %s -d %s\n", list[i], fish_quote(summary[list[i]])
    for (i = 0; i <= n; i++) {
        cmd = i ? list[i] : ""
        split(names[cmd], opts, " ")
        for (j = 1; opts[j] != ""; j++) {
            k = kind[cmd, opts[j]]
            line = sprintf("complete -c maildex -n %s -l %s", cmd == "" ? "__fish_use_subcommand" : fish_quote("__maildex_using " cmd), substr(opts[j], 3))
            if (k == "words") line = line " -x -a " fish_quote(words[cmd, opts[j]])
            else if (k == "optional") line = line " -f -a " fish_quote(words[cmd, opts[j]])
            else if (k == "file") line = line " -r -F"
            else if (k == "dir") line = line " -x -a '(__fish_complete_directories)'"
            else if (k == "free") line = line " -x"
            else line = line " -f"
            print line " -d " fish_quote(describe[cmd, opts[j]])
        }
    }
    split("query tags help config program", kinds, " ")
    for (k = 1; k <= 5; k++) {
        with = ""
        for (i = 1; i <= n; i++) if (index(" " args[list[i]] " ", " " kinds[k] " ")) with = with " " list[i]
        if (with != "")
            printf "complete -c maildex -n %s -f -a '(__maildex_%s)'\n", fish_quote("__maildex_arguments" with), kinds[k]
    }
    printf "set -g __maildex_command_list %s\nset -g __maildex_prefixes %s\nset -g __maildex_topics %s\n",
           commands, prefixes, topics
}

END {
    collect()
    for (t = 1; t <= ntemplate; t++) {
        if (template[t] != "@DATA@") print template[t]
        else if (shell == "fish") print_fish()
        else print_sh()
    }
}
