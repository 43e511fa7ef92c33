#!/usr/bin/env python3
"""tests/book/typed_figures.py - no prose types a time or a rate of a card.

After `make bench` on any card the book is that card's: every time, peak,
bandwidth and floor in the prose comes from a placeholder ({{median_ms|...}},
{{floor_fp32_ms|...}}, {{part_ms|PIPE|COUNT|...}}, {{card_memory_tbs|...}}),
never typed from one card's data sheet. This reads the prose of the files
given (the /*md blocks of a .cu or .cuh file, the whole of a .md file), a
paragraph at a time (a figure may be split over lines), drops the
placeholders and code spans, and reports each number written before a unit
of time or rate: "0.32, 1.28 and 0.24 ms", "over 0.4 ms", "4.8 TB/s",
"535 TFLOP/s", and each count of work, "6.45 GFLOP". Prints FILE:LINE: the figure for each, then how many it
found; exits 1 when it found one.

    typed_figures.py FILE...
"""
import re
import sys

# times and rates, and counts of work ("6.45 GFLOP"): a count is the same on
# every card, but written as a formula of the shape it cannot drift from it
UNIT = r"(?:ms|µs|us|ns|TB/s|GB/s|MB/s|TFLOP/s|GFLOP/s|TOP/s|TOPS|kFLOP|MFLOP|GFLOP|TFLOP)"
NUMBER = r"\d+(?:\.\d+)?"
# a number, or a list of them ("0.32, 1.28 and 0.24"), then the unit
FIGURE = re.compile(r"(?<![\w.{}\\^])" + NUMBER + r"(?:(?:,| and| or| to|,? and)\s+" + NUMBER +
                    r")*\s*" + UNIT + r"(?![\w/])")
PLACEHOLDER = re.compile(r"\{\{.*?\}\}")
CODE = re.compile(r"`[^`]*`")
MATH = re.compile(r"\$[^$]*\$")


def paragraphs(path):
    """(first line, text) of each paragraph of the file's prose."""
    with open(path, encoding="utf-8") as source:
        lines = source.read().split("\n")
    markdown = path.endswith(".md")
    inside, fenced, start, text = markdown, False, 0, []
    for number, line in enumerate(lines, 1):
        if not markdown and line.strip() == "/*md":
            inside, start, text = True, number + 1, []
            continue
        if not markdown and inside and line.strip() == "*/":
            if text:
                yield start, " ".join(text)
            inside, text = False, []
            continue
        if not inside:
            continue
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not line.strip():
            if text:
                yield start, " ".join(text)
            text, start = [], number + 1
            continue
        if not text:
            start = number
        text.append(line.strip())
    if text:
        yield start, " ".join(text)


def main(paths):
    found = 0
    for path in paths:
        for line, text in paragraphs(path):
            text = MATH.sub(" ", CODE.sub(" ", PLACEHOLDER.sub("P", text)))
            for figure in FIGURE.finditer(text):
                print(f"{path}:{line}: typed \"{figure.group(0)}\"")
                found += 1
    print(f"checked {len(paths)} files, {found} typed figures")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
