#!/usr/bin/env python3
"""tests/book/page_fill.py PDF - the pages of the book's PDF that are less
than half full in the middle of a chapter.

A page may end short only where the next page starts a chapter (a level-one
heading always starts a page) or at the end of the book. Anywhere else a
short page is a figure, a table or a listing that did not fit and was pushed
to the next page, leaving a hole, or a lead-in cut from what it introduces.

How: each page is drawn in grey at 20 dots an inch (pdftoppm), and the
lowest row with ink above the footer (the page number) is the page's fill;
the chapters' first pages are the ones whose first words are a level-one
heading: 22-point words at the top of the text (pdftotext -bbox). The
chapters are the pages from the first numbered heading to the first
unnumbered one after it (the appendices, whose tables take a page each).
Prints one line per short page and exits 1 if there is one; 0 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

DPI = 20
TOP, BOTTOM = 20, 22          # the page margins in mm (book.css's @page)
HEADING_POINTS = 22.0         # the height of a level-one heading's words
HALF = 0.5


def pages_starting_chapters(pdf):
    """The pages whose first words are a level-one heading: {page: first word}."""
    text = subprocess.run(["pdftotext", "-bbox", pdf, "-"], check=True,
                          capture_output=True, text=True).stdout
    starts = {}
    for number, page in enumerate(text.split("<page ")[1:], 1):
        first = re.search(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<', page)
        if first and abs(float(first[2]) - float(first[1]) - HEADING_POINTS) < 1.0:
            starts[number] = first[3]
    return starts


def chapter_pages(starts):
    """The first and last page of the numbered chapters: from the first
    heading that starts with a number to the page before the first one
    after it that does not (the appendices)."""
    numbered = [p for p in sorted(starts) if starts[p].isdigit()]
    if not numbered:
        sys.exit("page_fill.py: no numbered chapter found in the PDF")
    after = [p for p in sorted(starts) if p > numbered[0] and not starts[p].isdigit()]
    return numbered[0], (after[0] - 1 if after else None)


def read_pgm(path):
    """(width, height, rows of bytes) of a binary PGM file."""
    with open(path, "rb") as f:
        data = f.read()
    fields = data.split(maxsplit=4)
    if fields[0] != b"P5":
        sys.exit(f"page_fill.py: {path}: not a binary PGM file")
    width, height = int(fields[1]), int(fields[2])
    pixels = fields[4]
    return width, height, [pixels[r * width:(r + 1) * width] for r in range(height)]


def fill_of(path):
    """How far down the text area the page's ink goes, 0 to 1."""
    width, height, rows = read_pgm(path)
    mm = height / 297.0
    top, bottom = TOP * mm, height - BOTTOM * mm
    last = None
    for r in range(int(top), int(bottom)):
        if min(rows[r]) < 200:
            last = r
    return 0.0 if last is None else (last - top) / (bottom - top)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: page_fill.py BOOK.pdf")
    pdf = sys.argv[1]
    if not os.path.isfile(pdf):
        sys.exit(f"page_fill.py: {pdf}: no such file")
    starts = pages_starting_chapters(pdf)
    first, last = chapter_pages(starts)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["pdftoppm", "-gray", "-r", str(DPI), pdf, f"{scratch}/p"], check=True)
        files = sorted(os.listdir(scratch), key=lambda n: int(re.search(r"(\d+)", n)[1]))
        short = []
        last = last or len(files)
        for number, name in enumerate(files, 1):
            if number < first or number >= last or number + 1 in starts:
                continue
            fill = fill_of(f"{scratch}/{name}")
            if fill < HALF:
                short.append((number, fill))
    for number, fill in short:
        print(f"page {number}: {fill:.0%} full in the middle of a chapter")
    print(f"{len(short)} of the chapters' {last - first + 1} pages ({first} to {last}) "
          "under half full mid-chapter")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
