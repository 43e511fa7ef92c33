/* shape_count.c - a count as a formula of a shape's sizes. See shape_count.h. */
#include "shape_count.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *at, *shape;
    char *error;
    size_t capacity;
    int failed;
} reader;

static double sum(reader *r);

static void skip_spaces(reader *r)
{
    while (*r->at == ' ')
        r->at++;
}

static double fail(reader *r, const char *why, const char *where, int length)
{
    if (!r->failed && length)
        snprintf(r->error, r->capacity, "%s \"%.*s\"", why, length, where);
    else if (!r->failed)
        snprintf(r->error, r->capacity, "%s", why);
    r->failed = 1;
    return 0;
}

/* The value of size `name` (length bytes) in the shape: "S" in "B=1 S=512". */
static double size_named(reader *r, const char *name, int length)
{
    for (const char *p = r->shape; *p;) {
        const char *end = strchr(p, ' ');
        const char *equals = strchr(p, '=');
        if (!end)
            end = p + strlen(p);
        if (equals && equals < end && equals - p == length && strncmp(p, name, (size_t)length) == 0) {
            char *after;
            double value = strtod(equals + 1, &after);
            if (after == equals + 1 || after != end)
                return fail(r, "a size that is not a number:", p, (int)(end - p));
            return value;
        }
        p = *end ? end + 1 : end;
    }
    return fail(r, "no such size in the shape:", name, length);
}

static double factor(reader *r)
{
    skip_spaces(r);
    const char *start = r->at;
    if (*r->at == '(') {
        r->at++;
        double value = sum(r);
        skip_spaces(r);
        if (*r->at != ')')
            return fail(r, "a parenthesis not closed in the count", "", 0);
        r->at++;
        return value;
    }
    if (isdigit((unsigned char)*r->at)) {
        while (isdigit((unsigned char)*r->at))
            r->at++;
        return strtod(start, NULL);
    }
    if (isalpha((unsigned char)*r->at)) {
        while (isalnum((unsigned char)*r->at) || *r->at == '_')
            r->at++;
        return size_named(r, start, (int)(r->at - start));
    }
    if (!*r->at)
        return fail(r, "a term missing at the end of the count", "", 0);
    return fail(r, "a character a count may not hold:", r->at, 1);
}

static double product(reader *r)
{
    double value = factor(r);
    for (skip_spaces(r); !r->failed && (*r->at == '*' || *r->at == '/'); skip_spaces(r)) {
        const char *op = r->at++;
        double right = factor(r);
        if (*op == '/' && right == 0 && !r->failed)
            return fail(r, "a division by zero in", op, (int)strlen(op));
        value = *op == '*' ? value * right : value / right;
    }
    return value;
}

static double sum(reader *r)
{
    double value = product(r);
    for (skip_spaces(r); !r->failed && (*r->at == '+' || *r->at == '-'); skip_spaces(r)) {
        char op = *r->at++;
        double right = product(r);
        value = op == '+' ? value + right : value - right;
    }
    return value;
}

int shape_count(const char *formula, const char *shape, double *value, char *error,
                size_t capacity)
{
    reader r = {formula, shape, error, capacity, 0};
    double result = sum(&r);
    skip_spaces(&r);
    if (!r.failed && *r.at)
        fail(&r, "a character a count may not hold:", r.at, 1);
    if (r.failed)
        return -1;
    *value = result;
    return 0;
}
