/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTML to indexable text: a single forward pass over the bytes with a handful of states (see
 * html-text.h). Every byte is looked at a bounded number of times (entity and tag-name lookahead is
 * capped), so the cost is linear in the input whatever the markup; the output never exceeds the
 * input plus one byte, so it is allocated once. It must not try to build a DOM or repair markup. */
#include "html-text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>

#define TAG_NAME_MAX 15
#define ENTITY_MAX 32

enum html_state {
    HTML_TEXT,
    HTML_TAG,      /* inside <...>, outside attribute quotes */
    HTML_TAG_SQ,   /* inside a '...' attribute value */
    HTML_TAG_DQ,   /* inside a "..." attribute value */
    HTML_COMMENT,  /* inside <!-- ... --> */
    HTML_RAWTEXT,  /* inside <script> or <style>: skip until the matching end tag */
};

struct html_scan {
    const char *in;
    size_t len, pos;
    char *out;
    size_t out_len;
    enum html_state state;
    bool after_equals;          /* in a tag, an attribute value may start here */
    char tag[TAG_NAME_MAX + 1]; /* lower-case name of the tag being read */
    bool end_tag;
    char raw_end[TAG_NAME_MAX + 1]; /* "script" or "style" while in HTML_RAWTEXT */
};

/* Named references beyond Latin-1 that show up in mail. */
static const struct {
    const char *name;
    uint32_t code;
} named_entities[] = {
    {"amp", '&'},      {"lt", '<'},       {"gt", '>'},       {"quot", '"'},    {"apos", '\''},
    {"nbsp", ' '},     {"ensp", ' '},     {"emsp", ' '},     {"thinsp", ' '},  {"zwnj", 0},
    {"zwj", 0},        {"ndash", 0x2013}, {"mdash", 0x2014}, {"lsquo", 0x2018}, {"rsquo", 0x2019},
    {"sbquo", 0x201A}, {"ldquo", 0x201C}, {"rdquo", 0x201D}, {"bdquo", 0x201E}, {"dagger", 0x2020},
    {"Dagger", 0x2021}, {"bull", 0x2022}, {"hellip", 0x2026}, {"permil", 0x2030},
    {"lsaquo", 0x2039},
    {"rsaquo", 0x203A}, {"euro", 0x20AC}, {"trade", 0x2122}, {"larr", 0x2190}, {"rarr", 0x2192},
    {"uarr", 0x2191},  {"darr", 0x2193},  {"OElig", 0x152},  {"oelig", 0x153},  {"Scaron", 0x160},
    {"scaron", 0x161}, {"Yuml", 0x178},   {"fnof", 0x192},   {"circ", 0x2C6},  {"tilde", 0x2DC},
};

/* Latin-1 names for U+00A0..U+00FF, in code point order. */
static const char *const latin1_entities[96] = {
    "nbsp",   "iexcl",  "cent",   "pound",  "curren", "yen",    "brvbar", "sect",
    "uml",    "copy",   "ordf",   "laquo",  "not",    "shy",    "reg",    "macr",
    "deg",    "plusmn", "sup2",   "sup3",   "acute",  "micro",  "para",   "middot",
    "cedil",  "sup1",   "ordm",   "raquo",  "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc",  "Atilde", "Auml",   "Aring",  "AElig",  "Ccedil",
    "Egrave", "Eacute", "Ecirc",  "Euml",   "Igrave", "Iacute", "Icirc",  "Iuml",
    "ETH",    "Ntilde", "Ograve", "Oacute", "Ocirc",  "Otilde", "Ouml",   "times",
    "Oslash", "Ugrave", "Uacute", "Ucirc",  "Uuml",   "Yacute", "THORN",  "szlig",
    "agrave", "aacute", "acirc",  "atilde", "auml",   "aring",  "aelig",  "ccedil",
    "egrave", "eacute", "ecirc",  "euml",   "igrave", "iacute", "icirc",  "iuml",
    "eth",    "ntilde", "ograve", "oacute", "ocirc",  "otilde", "ouml",   "divide",
    "oslash", "ugrave", "uacute", "ucirc",  "uuml",   "yacute", "thorn",  "yuml",
};

/* Tags that separate blocks of text: replaced by a line break so adjacent words stay apart. */
static const char *const block_tags[] = {
    "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "div", "dl",
    "dt", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html",
    "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody", "tfoot", "thead", "title",
    "tr", "ul",
};

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
}

static void emit(struct html_scan *s, char c)
{
    if (c != '\0')
        s->out[s->out_len++] = c;
}

/* Appends the UTF-8 form of `code`; code points that are not characters are dropped. The caller
 * guarantees the reference that produced it was at least as long as the encoding. */
static void emit_code_point(struct html_scan *s, uint32_t code)
{
    if (code == 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        return;
    if (code < 0x80) {
        emit(s, (char) code);
    } else if (code < 0x800) {
        emit(s, (char) (0xC0 | (code >> 6)));
        emit(s, (char) (0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
        emit(s, (char) (0xE0 | (code >> 12)));
        emit(s, (char) (0x80 | ((code >> 6) & 0x3F)));
        emit(s, (char) (0x80 | (code & 0x3F)));
    } else {
        emit(s, (char) (0xF0 | (code >> 18)));
        emit(s, (char) (0x80 | ((code >> 12) & 0x3F)));
        emit(s, (char) (0x80 | ((code >> 6) & 0x3F)));
        emit(s, (char) (0x80 | (code & 0x3F)));
    }
}

static bool lookup_named(const char *name, size_t n, uint32_t *code)
{
    for (size_t i = 0; i < sizeof named_entities / sizeof named_entities[0]; i++) {
        if (strlen(named_entities[i].name) == n && memcmp(named_entities[i].name, name, n) == 0) {
            *code = named_entities[i].code;
            return true;
        }
    }
    for (size_t i = 0; i < 96; i++) {
        if (strlen(latin1_entities[i]) == n && memcmp(latin1_entities[i], name, n) == 0) {
            *code = 0xA0 + (uint32_t) i;
            return true;
        }
    }
    return false;
}

static bool parse_numeric(const char *p, size_t n, uint32_t *code)
{
    uint32_t value = 0;
    bool hex = n > 0 && (p[0] == 'x' || p[0] == 'X');
    size_t i = hex ? 1 : 0;

    if (i == n)
        return false;
    for (; i < n; i++) {
        char c = lower(p[i]);
        uint32_t digit;
        if (c >= '0' && c <= '9')
            digit = (uint32_t) (c - '0');
        else if (hex && c >= 'a' && c <= 'f')
            digit = (uint32_t) (c - 'a' + 10);
        else
            return false;
        value = value * (hex ? 16 : 10) + digit;
        if (value > 0x10FFFF)
            value = 0x110000; /* keep it out of range without overflowing */
    }
    *code = value;
    return true;
}

/* At an '&': decodes a character reference and returns the bytes it used, or 0 to make the caller
 * copy the '&' as text. Only a bounded lookahead, so the pass stays linear. */
static size_t scan_entity(struct html_scan *s)
{
    const char *p = s->in + s->pos + 1;
    size_t avail = s->len - s->pos - 1, n = 0;
    uint32_t code;

    while (n < avail && n < ENTITY_MAX && (is_alnum(p[n]) || (n == 0 && p[n] == '#')))
        n++;
    if (n == 0 || n == avail || p[n] != ';')
        return 0;
    if (p[0] == '#') {
        if (!parse_numeric(p + 1, n - 1, &code))
            return 0;
    } else if (!lookup_named(p, n, &code)) {
        return 0;
    }
    emit_code_point(s, code);
    return n + 2;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

/* Separates the text on either side of a tag, without piling up separators. */
static void emit_break(struct html_scan *s, char c)
{
    char last = s->out_len ? s->out[s->out_len - 1] : '\n';

    if (last == '\n' || (last == c))
        return;
    if (last == ' ' && c == '\n')
        s->out[s->out_len - 1] = '\n';
    else
        emit(s, c);
}

/* Called at the '>' that closes a tag: decides what the tag leaves in the text. */
static void finish_tag(struct html_scan *s)
{
    s->state = HTML_TEXT;
    if (in_list(s->tag, block_tags, sizeof block_tags / sizeof block_tags[0]))
        emit_break(s, '\n');
    else if (strcmp(s->tag, "td") == 0 || strcmp(s->tag, "th") == 0 || strcmp(s->tag, "img") == 0)
        emit_break(s, ' ');
    if (!s->end_tag && (strcmp(s->tag, "script") == 0 || strcmp(s->tag, "style") == 0)) {
        strcpy(s->raw_end, s->tag);
        s->state = HTML_RAWTEXT;
    }
}

/* At a '<' in text: starts a tag or comment and returns the bytes consumed, or 0 when the '<' is
 * just text ("a < b"). */
static size_t start_markup(struct html_scan *s)
{
    const char *p = s->in + s->pos + 1;
    size_t avail = s->len - s->pos - 1, i = 0, n = 0;

    if (avail >= 3 && memcmp(p, "!--", 3) == 0) {
        s->state = HTML_COMMENT;
        return 4;
    }
    s->end_tag = avail > 0 && p[0] == '/';
    if (s->end_tag)
        i = 1;
    if (i < avail && (p[i] == '!' || p[i] == '?')) {
        s->tag[0] = '\0';
        s->state = HTML_TAG;
        s->after_equals = false;
        return i + 2;
    }
    if (i >= avail || !is_alpha(p[i]))
        return 0;
    for (; i < avail && is_alnum(p[i]); i++)
        if (n < TAG_NAME_MAX)
            s->tag[n++] = lower(p[i]);
    s->tag[n] = '\0';
    s->state = HTML_TAG;
    s->after_equals = false;
    return i + 1;
}

static void step_tag(struct html_scan *s, char c)
{
    if (c == '>') {
        finish_tag(s);
    } else if (c == '=') {
        s->after_equals = true;
    } else if ((c == '"' || c == '\'') && s->after_equals) {
        s->state = c == '"' ? HTML_TAG_DQ : HTML_TAG_SQ;
        s->after_equals = false;
    } else if (!is_space(c)) {
        s->after_equals = false;
    }
    s->pos++;
}

/* In <script>/<style>: is the input at "</script" (any case) followed by a non-name byte? */
static bool at_raw_end(const struct html_scan *s)
{
    size_t n = strlen(s->raw_end);
    const char *p = s->in + s->pos;

    if (s->len - s->pos < n + 2 || p[0] != '<' || p[1] != '/')
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(p[2 + i]) != s->raw_end[i])
            return false;
    return s->len - s->pos == n + 2 || !is_alnum(p[2 + n]);
}

static void step(struct html_scan *s)
{
    char c = s->in[s->pos];
    size_t used;

    switch (s->state) {
    case HTML_TEXT:
        used = c == '<' ? start_markup(s) : c == '&' ? scan_entity(s) : 0;
        if (used == 0) {
            emit(s, c);
            used = 1;
        }
        s->pos += used;
        break;
    case HTML_TAG:
        step_tag(s, c);
        break;
    case HTML_TAG_SQ:
    case HTML_TAG_DQ:
        if (c == (s->state == HTML_TAG_DQ ? '"' : '\''))
            s->state = HTML_TAG;
        s->pos++;
        break;
    case HTML_COMMENT:
        if (c == '-' && s->len - s->pos >= 3 && memcmp(s->in + s->pos, "-->", 3) == 0) {
            s->state = HTML_TEXT;
            s->pos += 3;
        } else {
            s->pos++;
        }
        break;
    case HTML_RAWTEXT:
        if (c == '<' && at_raw_end(s)) {
            s->pos += start_markup(s);
        } else {
            s->pos++;
        }
        break;
    }
}

char *maildex__html_to_text(void *ctx, const char *html, size_t len, size_t *out_len)
{
    struct html_scan s;

    memset(&s, 0, sizeof s);
    s.in = html;
    s.len = len;
    s.out = talloc_array(ctx, char, len + 1);
    if (s.out == NULL)
        return NULL;
    while (s.pos < s.len)
        step(&s);
    s.out[s.out_len] = '\0';
    if (out_len)
        *out_len = s.out_len;
    return s.out;
}
