#!/usr/bin/env python3
"""tests/autograder_json.py FORMAT FILE NAME=STATUS... - reads back what the
grader wrote for a course's autograder (GRADE_GRADESCOPE, GRADE_PRAIRIELEARN
in solutions/grade.sh) and checks every field that autograder's
documentation requires, with its type, and each named exercise's status
(passed or failed). Exit 0 when all hold; 1 with the first problem.

  gradescope    results.json: score (number), tests (list), each test's
                name (string), status ("passed" or "failed"), score and
                max_score (numbers), output (string)
  prairielearn  the external grader's results.json: gradable (true), score
                (a number from 0 to 1), message (string), tests (list), each
                test's name (string), points and max_points (numbers),
                message and output (strings)

Each test's output also names the grading's seed, as the grader's own rule
(SEED=N EX=NAME repeats what that exercise drew).
"""
import json
import re
import sys


def fail(message):
    print(message)
    sys.exit(1)


def need(record, key, kinds, where):
    if key not in record:
        fail(f"{where}: no field {key!r}")
    if not isinstance(record[key], kinds) or isinstance(record[key], bool) != (kinds is bool):
        fail(f"{where}: {key!r} is {record[key]!r}, not of type {kinds}")
    return record[key]


def seeded(output, where):
    if not re.search(r"SEED=[0-9]+ EX=\S+", output):
        fail(f"{where}: the output names no seed (SEED=N EX=NAME)")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("gradescope", "prairielearn"):
        print(__doc__.strip().splitlines()[0])
        sys.exit(2)
    form, path = sys.argv[1], sys.argv[2]
    try:
        with open(path, encoding="ascii") as file:
            results = json.load(file)
    except (OSError, ValueError) as error:
        fail(f"{path}: not read as JSON: {error}")
    number = (int, float)
    tests = need(results, "tests", list, path)
    statuses = {}
    if form == "gradescope":
        total = need(results, "score", number, path)
        for k, test in enumerate(tests):
            where = f"{path}: test {k + 1}"
            name = need(test, "name", str, where)
            status = need(test, "status", str, where)
            if status not in ("passed", "failed"):
                fail(f"{where}: status {status!r}")
            score, top = need(test, "score", number, where), need(test, "max_score", number, where)
            seeded(need(test, "output", str, where), where)
            if not 0 <= score <= top:
                fail(f"{where}: score {score} outside 0..{top}")
            if (status == "passed") != (score == top):
                fail(f"{where}: status {status} with score {score} of {top}")
            statuses[name] = status
        if total != sum(test["score"] for test in tests):
            fail(f"{path}: score {total} is not the sum of the tests' scores")
    else:
        if need(results, "gradable", bool, path) is not True:
            fail(f"{path}: gradable is not true")
        fraction = need(results, "score", number, path)
        if not 0 <= fraction <= 1:
            fail(f"{path}: score {fraction} outside 0..1")
        need(results, "message", str, path)
        points = top_points = 0
        for k, test in enumerate(tests):
            where = f"{path}: test {k + 1}"
            name = need(test, "name", str, where)
            got, top = need(test, "points", number, where), need(test, "max_points", number, where)
            need(test, "message", str, where)
            seeded(need(test, "output", str, where), where)
            points, top_points = points + got, top_points + top
            statuses[name] = "passed" if got == top else "failed"
        if top_points and abs(fraction - points / top_points) > 1e-6:
            fail(f"{path}: score {fraction} is not {points} of {top_points} points")
    for expected in sys.argv[3:]:
        name, _, status = expected.partition("=")
        if statuses.get(name) != status:
            fail(f"{path}: {name} is {statuses.get(name, 'absent')}, {status} expected")


main()
