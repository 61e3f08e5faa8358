/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How a malformed query fails, as Xapian 1.4 fails it (doc/query-syntax.md, "Malformed queries"): at which
 * token, with which error, and whether Xapian forgets the error and starts again after it
 * (maildex__qrecover_note_restart). An operator missing an operand stays an error, as there ("Syntax:
 * <expression> AND <expression>"), unless Xapian forgets it; what its grammar rejects with "parse error" (an
 * unmatched ')', an empty group or phrase, only excluded terms, a sign with no term) fails with
 * maildex__qparse_fail_retry, and parse_text then reads the text again in plain mode, as
 * QueryParser::parse_query does: every word a term; operators, parentheses, quotes, signs and wildcards
 * ignored, but prefixes notmuch registers as boolean or with a field processor keep their values. This file
 * only decides how to fail: it must not build nodes. */
#include "parser.h"

#include <string.h>

void maildex__qrecover_note_restart(struct maildex__qparser *p, size_t from)
{
    size_t i = from, start;
    const struct maildex__qprefix *pf;

    if (p->sh->failed || p->plain)
        return;
    for (;;) {
        size_t end;

        while (i < p->len && maildex__qis_space(p->text[i]))
            i++;
        if (i + 1 < p->len && strchr("+-", p->text[i]) && !strchr(" \t\n\r\f\v+-", p->text[i + 1])) {
            i++;
            break;
        }
        for (end = i; end < p->len && maildex__qword_at(p->text, end, p->len); end++)
            ;
        if (end == i || maildex__qlex_operator_kind(p->text + i, end - i) == MAILDEX__QT_WORD)
            break;
        i = end;
    }
    pf = maildex__qlex_boolean_term_at(p, i);
    if (!pf || (pf->field == MAILDEX__QF_DATE && maildex__qlex_range_at(p, i, NULL) > 0))
        return;
    for (start = from; start < p->len && maildex__qis_space(p->text[start]); start++)
        ;
    p->sh->restart = p->text[start] == '+' || p->text[start] == '-' ? start + 1 : start;
    p->sh->restart_groups = p->open_groups;
}

/* The operator at maildex__qlex_peek(p) (`and`, `or`, `xor`) has no left operand. Xapian takes it all the
 * same and fails only when it combines it, after its right operand: at the next operator that binds no
 * tighter (where it may restart, maildex__qrecover_note_restart), a ')' or the end. */
static void fail_missing_left(struct maildex__qparser *p)
{
    struct maildex__qtoken op = *maildex__qlex_peek(p);
    const struct maildex__qtoken *next;
    bool e;

    maildex__qlex_advance(p);
    maildex__qparse_level(p, maildex__qprecedence(op.kind) + 1, &op, &e);
    next = maildex__qlex_peek(p);
    if (p->sh->failed)
        return;
    if (e && maildex__qis_operator(next->kind) && next->kind != MAILDEX__QT_NOT &&
        maildex__qprecedence(next->kind) > maildex__qprecedence(op.kind)) {
        fail_missing_left(p); /* that one has no left operand either */
        return;
    }
    if (maildex__qis_operator(next->kind) && maildex__qprecedence(next->kind) <= maildex__qprecedence(op.kind))
        maildex__qrecover_note_restart(p, next->end);
    maildex__qparse_fail(p, op.pos, "expected a term before '%.*s'", (int) (op.end - op.pos), p->text + op.pos);
}

void maildex__qrecover_fail_after(struct maildex__qparser *p, const struct maildex__qtoken *op)
{
    const struct maildex__qtoken *next = maildex__qlex_peek(p);

    if (maildex__qis_operator(next->kind) && next->kind != MAILDEX__QT_NOT &&
        maildex__qprecedence(next->kind) > maildex__qprecedence(op->kind)) {
        fail_missing_left(p);
        return;
    }
    if (maildex__qis_operator(next->kind) && maildex__qprecedence(next->kind) <= maildex__qprecedence(op->kind))
        maildex__qrecover_note_restart(p, next->end);
    maildex__qparse_fail(p, next->pos, "expected a term after '%.*s'", (int) (op->end - op->pos), p->text + op->pos);
}

void maildex__qrecover_fail_sign(struct maildex__qparser *p, const struct maildex__qtoken *t,
                                 const struct maildex__qtoken *after, bool excluding)
{
    if (excluding) {
        maildex__qrecover_fail_after(p, after);
        return;
    }
    if (maildex__qis_operator(maildex__qlex_peek(p)->kind))
        maildex__qrecover_note_restart(p, maildex__qlex_peek(p)->end);
    else if (maildex__qlex_peek(p)->sign) /* found at a second sign, which goes on to its term */
        maildex__qrecover_note_restart(p, maildex__qlex_peek(p)->pos);
    maildex__qparse_fail_retry(p, t->pos, "'%c' with no term after it", t->sign);
}

struct maildex__qnode *maildex__qrecover_empty(struct maildex__qparser *p, size_t open_pos, const char *open_what)
{
    struct maildex__qtoken t = *maildex__qlex_peek(p);

    if (maildex__qis_operator(t.kind))
        fail_missing_left(p);
    else if (open_pos != MAILDEX__NO_POS)
        maildex__qparse_fail_retry(p, open_pos, "nothing inside %s", open_what);
    else if (t.kind == MAILDEX__QT_RPAREN)
        maildex__qparse_fail_retry(p, t.pos, "unmatched ')'");
    else
        return maildex__qparse_node(p, MAILDEX__Q_NONE, 0);
    return NULL;
}
