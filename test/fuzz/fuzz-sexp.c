/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzzes the S-expression query syntax (lib/query/sexp-read.c, lib/query/sexp.c) with the input as query text,
 * up to its first NUL, with saved queries defined that take parameters, call each other, call themselves
 * and double their argument, and named infix queries for (query ...), so every path of the conversion is
 * reached. Checked: the reader and the conversion agree (a text the reader refuses is "invalid
 * s-expression"), the result or the error is set as query.h says, the tree keeps its shape (operators with
 * enough children, values never NULL, depth within MAILDEX__QUERY_MAX_DEPTH), and date: values go on to
 * the date parser as the planner hands them. */
#include "fuzz.h"

#include "query/parse-time.h"
#include "query/ast.h"
#include "query/sexp-read.h"

#include <string.h>
#include <talloc.h>

static const char *lookup(void *data, const char *name)
{
    (void) data;
    if (strcmp(name, "inbox") == 0)
        return "tag:inbox and not tag:spam";
    if (strcmp(name, "a") == 0)
        return "from:alice or query:b";
    if (strcmp(name, "b") == 0)
        return "query:a";
    if (strcmp(name, "s") == 0)
        return "sexp:\"(Twice x)\"";
    return NULL;
}

static const char *squery(void *data, const char *name)
{
    static const struct {
        const char *name, *text;
    } saved[] = {
        {"T", "(macro (tagname subj) (and (tag ,tagname) (subject ,subj)))"},
        {"I", "(macro (x) (subject ,x))"},
        {"O", "(macro (x y) (and (tag ,x) (I ,y)))"},
        {"R", "(macro (x) (tag (rx ,x)))"},
        {"W", "(macro (x) (folder (starts-with ,x)))"},
        {"Twice", "(macro (x) (or ,x ,x))"},
        {"Deep", "(and (tag x) (Deep))"},
        {"Ping", "(Pong)"},
        {"Pong", "(Ping)"},
        {"Plain", "(thread (of (from bob)))"},
        {"Bad", "(Bad"},
        {"NoBody", "(macro (a))"},
        {"Infix", "(infix \"date:2024.. and sexp:\"\"(Twice y)\"\"\")"},
    };

    (void) data;
    for (size_t i = 0; i < sizeof saved / sizeof saved[0]; i++)
        if (strcmp(saved[i].name, name) == 0)
            return saved[i].text;
    return NULL;
}

/* Checks n's shape; returns its depth. */
static int check_tree(const struct maildex__qnode *n)
{
    int deepest = 0;

    FUZZ_CHECK(n != NULL);
    switch (n->kind) {
    case MAILDEX__Q_AND:
    case MAILDEX__Q_OR:
    case MAILDEX__Q_XOR:
        FUZZ_CHECK(n->nchildren >= 2);
        break;
    case MAILDEX__Q_NOT:
    case MAILDEX__Q_THREAD:
    case MAILDEX__Q_SAME:
        FUZZ_CHECK(n->nchildren == 1);
        break;
    case MAILDEX__Q_TERM:
        FUZZ_CHECK(n->value != NULL && n->nchildren == 0);
        break;
    case MAILDEX__Q_ALL:
    case MAILDEX__Q_NONE:
        FUZZ_CHECK(n->nchildren == 0);
        break;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        int d = check_tree(n->children[i]);
        deepest = d > deepest ? d : deepest;
    }
    if (n->kind == MAILDEX__Q_TERM && n->field == MAILDEX__QF_DATE && !(n->flags & MAILDEX__QFLAG_QUOTED)) {
        int64_t from, to;
        const char *message;
        int r = maildex__parse_date_range(n->value, (time_t) 1705322096, &from, &to, &message);
        FUZZ_CHECK(r == 0 ? message == NULL : message != NULL);
    }
    return deepest + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct maildex__query_options options = {.lookup = lookup, .squery = squery};
    void *ctx = talloc_new(NULL);
    char *text = talloc_strndup(ctx, (const char *) data, size);
    struct maildex__qnode *tree = (struct maildex__qnode *) 1;
    struct maildex__sx *sx = (struct maildex__sx *) 1;
    char *error = (char *) 1;
    enum maildex__sx_status read;
    int rc;

    FUZZ_CHECK(text != NULL);
    read = maildex__sx_read(ctx, text, strlen(text), &sx);
    FUZZ_CHECK(read == MAILDEX__SX_OK ? sx != NULL : read == MAILDEX__SX_BAD && sx == NULL);
    rc = maildex__query_parse_sexp(ctx, text, &options, &tree, &error);
    if (rc == MAILDEX__QUERY_OK) {
        FUZZ_CHECK(read == MAILDEX__SX_OK);
        FUZZ_CHECK(error == NULL);
        /* "About this deep" (query.h): a nesting may add a node or two, so the bound is loose. */
        FUZZ_CHECK(check_tree(tree) <= 2 * MAILDEX__QUERY_MAX_DEPTH + 8);
        FUZZ_CHECK(maildex__qnode_to_string(ctx, tree) != NULL);
    } else {
        FUZZ_CHECK(rc == MAILDEX__QUERY_BAD);
        FUZZ_CHECK(tree == NULL && error != NULL && error != (char *) 1 && error[0] != '\0');
        FUZZ_CHECK((read == MAILDEX__SX_BAD) == (strncmp(error, "invalid s-expression: ", 22) == 0));
    }
    talloc_free(ctx);
    return 0;
}
