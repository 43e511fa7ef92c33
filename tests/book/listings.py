#!/usr/bin/env python3
"""tests/book/listings.py - are the book's listings each worth showing?

    python3 tests/book/listings.py WOVEN.md...

WOVEN.md: the chapters as the weaver wrote them (`weave chapter`), in the
book's order. Written apart from book/weave.c and book/changes.c, so that a
bug of theirs cannot hide itself. It fails (exit 1, a line per problem) when

- a listing holds only `#pragma once`, #include lines and blank lines: it
  tells the reader nothing;
- a listing's file was never named before it in its chapter (a note
  `.source-file`, "Source: FILE", which the HTML makes a link to its page);
- a function is shown whole a second time, its text the same as a listing
  shown before: an unchanged function is shown once; a changed one is a
  change (book:changes);
- a change (a `.changed-from` note, then `diff` blocks and notes of
  unchanged lines) does not turn the earlier function, as its file has it,
  into the new one, as its file has it: every line kept, removed or left
  out as unchanged is checked against the two files;
- a change's diff is longer than the function it shows: the reader would
  read more than the new function to learn what changed; such a change is
  shown marked instead (the note says `marked="N"`): the new function whole,
  its added lines `+`, its kept ones ` `, the N removed lines counted; a
  marked change must hold the new file's lines exactly, keep the old
  function's lines in their order, and count the rest;
- a change splits a comment between two runs of lines of one kind (added,
  removed, kept): book/changes.lua colours each run as CUDA on its own, so
  the run that does not open the comment would colour it as code.

Prints one line per file when all is well.
"""
import re
import sys

FENCE = re.compile(r'^(`{3,})\s*\{(.*)\}\s*$')
DIV = re.compile(r'^:::\s*\{(.*)\}\s*$')
HUNK = re.compile(r'^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$')

problems = []
sources = {}


def problem(where, text):
    problems.append(f'{where}: {text}')


def attributes(text):
    """{.cuda .numberLines startFrom="3" source="x"} -> classes, {key: value}"""
    return set(re.findall(r'\.([\w-]+)', re.sub(r'"[^"]*"', '', text))), \
        dict(re.findall(r'([\w-]+)="([^"]*)"', text))


def source_lines(path):
    if path not in sources:
        with open(path, encoding='utf-8') as file:
            sources[path] = file.read().split('\n')
    return sources[path]


def shown_code(path):
    """The line numbers of a file's code a reader can be shown: not in a
    /*md ... */ block, not between // book:hide and // book:show, no marker."""
    shown, state = set(), 'code'
    for number, line in enumerate(source_lines(path), 1):
        bare = line.strip()
        if state == 'prose':
            state = 'code' if bare == '*/' else state
        elif state == 'hidden':
            state = 'code' if bare == '// book:show' else state
        elif bare == '/*md':
            state = 'prose'
        elif bare == '// book:hide':
            state = 'hidden'
        elif not bare.startswith('// book:'):
            shown.add(number)
    return shown


def read_blocks(path):
    """The woven file's code blocks and notes, in order: (kind, classes,
    attributes, lines, woven line); kind 'code' or 'note'."""
    items, lines = [], open(path, encoding='utf-8').read().split('\n')
    k = 0
    while k < len(lines):
        fence, div = FENCE.match(lines[k]), DIV.match(lines[k])
        if fence:
            end = lines.index(fence.group(1), k + 1)
            items.append(('code', *attributes(fence.group(2)), lines[k + 1:end], k + 1))
            k = end
        elif div:
            items.append(('note', *attributes(div.group(1)), [], k + 1))
        k += 1
    return items


def functions_in(lines):
    """The functions a listing shows whole: from a line at column 0 that opens
    a definition (a '(' in it, no ';' at its end) to the next line "}"."""
    found = []
    for start, line in enumerate(lines):
        if not line or line[0] in ' \t#/*{}' or '(' not in line or line.rstrip().endswith(';'):
            continue
        if '}' in lines[start:]:
            end = lines.index('}', start)
            found.append((re.findall(r'(\w+)\s*\(', line)[0], '\n'.join(lines[start:end + 1])))
    return found


def check_change(where, note, parts):
    """note: the .changed-from note; parts: its diff blocks and notes of
    unchanged lines. The old function's shown lines, walked in order, must be
    exactly the kept, removed and left-out lines; the new file's shown lines
    in each part's range exactly the kept, added and left-out ones."""
    old_path, new_path = note[2]['source'], parts[0][2]['source'] if parts else None
    if not parts:
        return problem(where, f'a change of {old_path} with no part')
    old_lines, new_lines = source_lines(old_path), source_lines(new_path)
    if 'renamed' in note[2]:  # the step's rename: naive_ -> registers_, NAIVE_ -> REGISTERS_
        before, after = note[2]['renamed'].split()
        old_lines = [re.sub(r'\b' + before.upper(), after.upper(), re.sub(r'\b' + before, after, t))
                     for t in old_lines]
    old_shown = sorted(n for n in shown_code(old_path)
                       if int(note[2]['first']) <= n <= int(note[2]['last']))
    new_shown = shown_code(new_path)
    at = 0  # the next old line, an index into old_shown
    function = [n for n in new_shown
                if int(parts[0][2]['first']) <= n <= int(parts[-1][2]['last'])]
    if 'marked' in note[2]:
        return check_marked(where, note, parts, old_lines, old_shown, new_lines, new_shown,
                            len(function))
    diff = sum(len(body) for kind, classes, attrs, body, line in parts if kind == 'code')
    if diff > len(function):
        problem(where, f'a diff of {diff} lines for a function of {len(function)}: show it '
                'marked (the function whole, its changes marked)')

    def keep(new_numbers, what):
        nonlocal at
        for n in new_numbers:
            if at >= len(old_shown) or old_lines[old_shown[at] - 1] != new_lines[n - 1]:
                return problem(where, f'{new_path}:{n}: {what}, but the old function has '
                               f'{old_lines[old_shown[at] - 1] if at < len(old_shown) else "no more lines"!r}')
            at += 1

    for kind, classes, attrs, body, line in parts:
        first, last = int(attrs['first']), int(attrs['last'])
        new_at = first
        for text in body:
            hunk = HUNK.match(text)
            if hunk:  # the lines left out before it are unchanged
                keep([n for n in range(new_at, int(hunk.group(3))) if n in new_shown],
                     'left out as unchanged')
                if at < len(old_shown) and old_shown[at] != int(hunk.group(1)):
                    problem(f'{where}+{line}', f'a hunk says old line {hunk.group(1)}, the '
                            f'walk is at {old_shown[at]}')
                new_at = int(hunk.group(3))
            elif text.startswith('-'):
                if at >= len(old_shown) or source_lines(old_path)[old_shown[at] - 1] != text[1:]:
                    problem(f'{where}+{line}', f'removed {text[1:]!r}: not the old line')
                at += 1
            elif text.startswith(' '):
                keep([new_at], 'kept')
                new_at += 1
            elif text.startswith('+'):
                if new_lines[new_at - 1] != text[1:]:
                    problem(f'{where}+{line}', f'{new_path}:{new_at}: added {text[1:]!r}, the '
                            'file has another line')
                new_at += 1
        keep([n for n in range(new_at, last + 1) if n in new_shown], 'left out as unchanged')
    if at != len(old_shown):
        problem(where, f'the change leaves out old line {old_shown[at]} of {old_path}')


def check_marked(where, note, parts, old_lines, old_shown, new_lines, new_shown, length):
    """A marked change: each marked block is the new file's shown lines of its
    range, exactly, a ` ` or `+` before each; the kept lines (` `, and those of
    a note of unchanged lines) are the old function's shown lines in their
    order, with as many others between them as the note's marked="N" says."""
    kept = []
    for kind, classes, attrs, body, line in parts:
        first, last = int(attrs['first']), int(attrs['last'])
        numbers = [n for n in range(first, last + 1) if n in new_shown]
        if kind != 'code':
            kept += [new_lines[n - 1] for n in numbers]
            continue
        if 'marked' not in classes or attrs.get('startFrom') != str(first):
            problem(f'{where}+{line}', 'a block of a marked change not marked and numbered '
                    f'from its first line, {first}')
        if len(body) != len(numbers):
            problem(f'{where}+{line}', f'{len(body)} lines for the {len(numbers)} of lines '
                    f'{first} to {last}')
        for n, text in zip(numbers, body):
            if text[:1] not in (' ', '+') or text[1:] != new_lines[n - 1]:
                problem(f'{where}+{line}', f'line {n}: {text!r} is not a marked line of the file')
            elif text[0] == ' ':
                kept.append(text[1:])
    at = 0
    for text in kept:
        while at < len(old_shown) and old_lines[old_shown[at] - 1] != text:
            at += 1
        if at == len(old_shown):
            return problem(where, f'kept {text!r}: not a line of the old function, in its order')
        at += 1
    gone = len(old_shown) - len(kept)
    if str(gone) != note[2]['marked']:
        problem(where, f'marked="{note[2]["marked"]}", but {gone} lines of the old function '
                'are gone')


def check_runs(where, body):
    """A change's lines in runs of one mark: each run opens and closes its
    own block comments (strings and // comments aside)."""
    runs = []
    for text in body:
        mark = text[:1] if text[:1] in '+-@' else ' '
        if not runs or runs[-1][0] != mark:
            runs.append((mark, []))
        runs[-1][1].append(text[1:])
    for mark, lines in runs:
        code = re.sub(r'"(\\.|[^"\\])*"', '""', '\n'.join(lines))
        depth = 0
        for token in re.findall(r'/\*|\*/|//[^\n]*', code):
            depth += 1 if token == '/*' else -1 if token == '*/' else 0
            if depth < 0 or depth > 1:
                break
        if depth != 0:
            problem(where, f'a comment split between runs of the change (the run of {mark!r} '
                    f'lines from {lines[0].strip()!r}): book/changes.lua colours each run alone')


def check_file(path, seen):
    named, change, count = set(), None, 0
    items = read_blocks(path)

    def close_change():
        nonlocal change
        if change:
            check_change(*change)
        change = None

    for item in items:
        kind, classes, attrs, body, line = item
        where = f'{path}:{line}'
        if kind == 'note' and 'source-file' in classes:
            named.add(attrs.get('source'))
        if kind == 'note' and 'changed-from' in classes:
            close_change()
            change = (where, item, [])
        elif 'change' in classes and change:
            change[2].append(item)
        elif kind == 'code' or 'source-file' in classes:
            close_change()
        if kind != 'code':
            continue
        count += 1
        if attrs.get('source') not in named:
            problem(where, f'a listing of {attrs.get("source")} under no note naming its file')
        if 'change' in classes:
            check_runs(where, body)
            continue
        if all(not t.strip() or t.strip() == '#pragma once' or t.strip().startswith('#include')
               for t in body):
            problem(where, f'a listing of only {body[0].strip()!r} and the like '
                    f'({attrs.get("source")}:{attrs.get("startFrom")})')
        for name, text in functions_in(body):
            if text in seen and seen[text] != (path, line):
                problem(where, f'{name}() shown again unchanged (first at {seen[text][0]}:'
                        f'{seen[text][1]}): show it once, or its change (book:changes)')
            seen.setdefault(text, (path, line))
    close_change()
    return count


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: python3 tests/book/listings.py WOVEN.md...')
    seen, counts = {}, []
    for path in sys.argv[1:]:
        counts.append((path, check_file(path, seen)))
    for text in problems[:40]:
        print(text)
    if problems:
        print(f'{len(problems)} problems in the listings')
        sys.exit(1)
    for path, count in counts:
        print(f'{path}: {count} listings, each worth showing')


main()
