#!/usr/bin/env python3
"""tests/book/chart_overlaps.py - a chart reads at a glance: no line through
a label, no label on another, the key clear of the axes' titles, the file
small.

    python3 tests/book/chart_overlaps.py [--max-kb 200] FILE.svg...

For SVG files as gnuplot and graphviz write them. Each text's box is laid
out from its position, anchor, rotation and font size, and the advance
widths of DejaVu Sans (the font every plot and figure names; the table
below is its hmtx for ASCII and the few other characters the plots print,
read from DejaVuSans.ttf 2.37): from the baseline up 0.76 em (DejaVu's cap
and ascender height), and down 0.24 em where a character descends. The
lines are every stroked path, line, polyline and stroked polygon or rect,
cut into segments (a curve into 16 chords), that is not white. A file
fails, each fault on a line of its own, when

  - a line crosses a text's box, shrunk by 1 px a side (a tick that ends
    at its label's edge touches, it does not strike): "NAME: line through
    'TEXT'";
  - two texts' boxes overlap or come within 1 px (two labels that touch
    read as one: "0.10.2"): "NAME: 'A' on 'B'";
  - the key (gnuplot's: a plot's first text, followed at its height by
    the sample of its line or box) comes within 4 px of any text outside
    it (an axis's title, a tick's label, the title): "NAME: the key
    touches 'TEXT'";
  - it is over MAX_KB kilobytes: "NAME: N KB, over the MAX_KB KB limit".

A text left empty (gnuplot's " " spacers) has no box. It prints each fault,
then "checked N charts, M faults", and exits 1 when there is a fault.
"""
import math
import re
import sys
import xml.etree.ElementTree as ET

# DejaVu Sans advance widths, 1/1000 em, for ' ' (32) to '~' (126)
ASCII = [317, 400, 459, 837, 636, 950, 779, 274, 390, 390, 500, 837, 317, 360, 317, 336, 636, 636, 636,
         636, 636, 636, 636, 636, 636, 636, 336, 336, 837, 837, 837, 530, 1000, 684, 686, 698, 770, 631,
         575, 774, 751, 294, 294, 655, 557, 862, 748, 787, 603, 787, 694, 634, 610, 731, 684, 988, 685,
         610, 685, 390, 336, 390, 837, 500, 500, 612, 634, 549, 634, 615, 352, 634, 633, 277, 277, 579,
         277, 974, 633, 611, 634, 634, 411, 520, 392, 633, 591, 817, 591, 591, 524, 636, 336, 636, 837]
OTHER = {'×': 837, '–': 500, '—': 1000, '−': 837, '≤': 837, '≥': 837, 'μ': 636, '²': 400, '·': 317,
         '…': 1000, '≈': 837, '°': 500, '\u00a0': 317}
WIDE = 1000          # a character the table lacks: counted as wide as the widest
DESCENDERS = set('gjpqy,;()[]{}|/@$Q_')
ASCENT, DESCENT = 0.76, 0.24
SHRINK = 1.0         # px: boxes that only touch do not overlap
KEY_GAP = 4.0        # px: the least room between the key and any other text
TEXT_GAP = 1.0       # px: two texts closer than this read as one ("0.10.2")


def advance(text):
    return sum(ASCII[ord(c) - 32] if 32 <= ord(c) < 127 else OTHER.get(c, WIDE) for c in text) / 1000.0


# ---------------------------------------------------------------- transforms
def multiply(a, b):  # a then b applied to a point: a * b as 2x3 matrices (a outer)
    return (a[0] * b[0] + a[2] * b[1], a[1] * b[0] + a[3] * b[1],
            a[0] * b[2] + a[2] * b[3], a[1] * b[2] + a[3] * b[3],
            a[0] * b[4] + a[2] * b[5] + a[4], a[1] * b[4] + a[3] * b[5] + a[5])


IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def parse_transform(text):
    m = IDENTITY
    for name, args in re.findall(r'(\w+)\s*\(([^)]*)\)', text or ''):
        v = [float(x) for x in re.split(r'[\s,]+', args.strip()) if x]
        if name == 'translate':
            t = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0)
        elif name == 'scale':
            t = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == 'rotate':
            a = math.radians(v[0])
            t = (math.cos(a), math.sin(a), -math.sin(a), math.cos(a), 0, 0)
            if len(v) == 3:
                t = multiply(multiply((1, 0, 0, 1, v[1], v[2]), t), (1, 0, 0, 1, -v[1], -v[2]))
        elif name == 'matrix':
            t = tuple(v)
        else:
            continue
        m = multiply(m, t)
    return m


def apply(m, x, y):
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


# ---------------------------------------------------------------- the SVG's shapes
def local(tag):
    return tag.rsplit('}', 1)[-1]


def number(value, default=0.0):
    match = re.match(r'\s*(-?[0-9.]+(?:e-?[0-9]+)?)', value or '')
    return float(match.group(1)) if match else default


def path_points(d):
    """The polylines of a path's d: a list of lists of points."""
    tokens = re.findall(r'[MmLlHhVvCcSsQqTtAaZz]|-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e-?[0-9]+)?', d)
    lines, line = [], []
    x = y = sx = sy = 0.0
    i, command = 0, None

    def take(n):
        nonlocal i
        values = [float(t) for t in tokens[i:i + n]]
        i += n
        return values
    while i < len(tokens):
        if re.match(r'[A-Za-z]', tokens[i]):
            command = tokens[i]
            i += 1
            if command in 'Zz':
                if line:
                    line.append((sx, sy))
                    lines.append(line)
                line = [(sx, sy)]
                x, y = sx, sy
                continue
        if command is None:
            break
        relative = command.islower()
        c = command.upper()
        if c in 'ML':
            px, py = take(2)
            if relative:
                px, py = x + px, y + py
            if c == 'M':
                if len(line) > 1:
                    lines.append(line)
                line = [(px, py)]
                sx, sy = px, py
                command = 'l' if relative else 'L'
            else:
                line.append((px, py))
            x, y = px, py
        elif c == 'H':
            px = take(1)[0]
            x = x + px if relative else px
            line.append((x, y))
        elif c == 'V':
            py = take(1)[0]
            y = y + py if relative else py
            line.append((x, y))
        elif c in 'CSQT':
            n = {'C': 6, 'S': 4, 'Q': 4, 'T': 2}[c]
            v = take(n)
            if relative:
                v = [v[k] + (x if k % 2 == 0 else y) for k in range(n)]
            controls = [(x, y)] + [(v[k], v[k + 1]) for k in range(0, n, 2)]
            for step in range(1, 17):
                t = step / 16.0
                pts = controls
                while len(pts) > 1:  # de Casteljau
                    pts = [((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1]) for a, b in zip(pts, pts[1:])]
                line.append(pts[0])
            x, y = v[-2], v[-1]
        elif c == 'A':
            v = take(7)
            x, y = (x + v[5], y + v[6]) if relative else (v[5], v[6])
            line.append((x, y))
        else:
            break
    if len(line) > 1:
        lines.append(line)
    return lines


def white(colour):
    colour = (colour or '').replace(' ', '').lower()
    return colour in ('#fff', '#ffffff', 'white', 'rgb(255,255,255)')


class Chart:
    def __init__(self, path):
        self.path = path
        self.name = path.rsplit('/', 1)[-1]
        self.texts = []     # (x0, y0, x1, y1, text, key)
        self.segments = []  # (x0, y0, x1, y1)
        self.order = []     # per gnuplot plot group: its drawings in order, ('text', i) or ('shape', box)
        root = ET.parse(path).getroot()
        self.walk(root, IDENTITY, {'stroke': 'none', 'fill': 'black', 'font-size': '16',
                                   'text-anchor': 'start', 'color': 'black'}, None)
        self.find_key()

    def walk(self, node, matrix, style, group):
        tag = local(node.tag)
        if tag in ('defs', 'title', 'desc', 'filter', 'clipPath', 'marker', 'pattern', 'symbol', 'mask'):
            return
        matrix = multiply(matrix, parse_transform(node.get('transform')))
        style = dict(style)
        for key in ('stroke', 'fill', 'font-size', 'text-anchor', 'color', 'visibility', 'display'):
            if node.get(key) is not None:
                style[key] = node.get(key).strip()
        for item in (node.get('style') or '').split(';'):
            if ':' in item:
                key, value = (s.strip() for s in item.split(':', 1))
                style[key] = value
        if style.get('visibility') == 'hidden' or style.get('display') == 'none':
            return
        if style.get('stroke') == 'currentColor':
            style['stroke'] = style.get('color', 'black')
        if tag == 'g' and re.match(r'gnuplot_plot_\d+$', node.get('id') or ''):
            group = []
            self.order.append(group)
        if tag == 'text':
            self.add_text(node, matrix, style, group)
            return
        self.add_shape(node, tag, matrix, style, group)
        for child in node:
            self.walk(child, matrix, style, group)

    def add_text(self, node, matrix, style, group):
        pieces = []  # (text, size)
        size = number(style['font-size'], 16)
        if node.text:
            pieces.append((node.text, size))
        for child in node.iter():
            if child is node:
                continue
            child_size = number(child.get('font-size'), size) if child.get('font-size') else size
            if child.text:
                pieces.append((child.text, child_size))
            if child.tail:
                pieces.append((child.tail, size))
        text = ''.join(p[0] for p in pieces)
        if not text.strip():
            return
        width = sum(advance(p[0]) * p[1] for p in pieces)
        # the leading and trailing blanks gnuplot pads tick labels with take room but show nothing
        lead = advance(text[:len(text) - len(text.lstrip())]) * size
        trail = advance(text[len(text.rstrip()):]) * size
        x, y = number(node.get('x')), number(node.get('y'))
        anchor = style.get('text-anchor', 'start')
        left = x - (width / 2 if anchor == 'middle' else width if anchor == 'end' else 0)
        descends = any(c in DESCENDERS for c in text)
        corners = [apply(matrix, px, py) for px in (left + lead, left + width - trail)
                   for py in (y - ASCENT * size, y + (DESCENT if descends else 0.05) * size)]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        self.texts.append([min(xs), min(ys), max(xs), max(ys), text.strip(), False])
        if group is not None:
            group.append(('text', len(self.texts) - 1))

    def add_shape(self, node, tag, matrix, style, group):
        points = []
        if tag == 'path':
            points = path_points(node.get('d') or '')
        elif tag == 'line':
            points = [[(number(node.get('x1')), number(node.get('y1'))),
                       (number(node.get('x2')), number(node.get('y2')))]]
        elif tag in ('polyline', 'polygon'):
            values = [float(v) for v in re.findall(r'-?[0-9.]+(?:e-?[0-9]+)?', node.get('points') or '')]
            line = list(zip(values[0::2], values[1::2]))
            if tag == 'polygon' and line:
                line.append(line[0])
            points = [line]
        elif tag == 'rect':
            x, y = number(node.get('x')), number(node.get('y'))
            w, h = number(node.get('width')), number(node.get('height'))
            points = [[(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]]
        if not points:
            return
        points = [[apply(matrix, *p) for p in line] for line in points]
        stroked = style.get('stroke', 'none') not in ('none', '') and not white(style.get('stroke'))
        filled = style.get('fill', 'none') not in ('none', '') and not white(style.get('fill'))
        if stroked:
            for line in points:
                for (x0, y0), (x1, y1) in zip(line, line[1:]):
                    if abs(x1 - x0) + abs(y1 - y0) > 0.01:
                        self.segments.append((x0, y0, x1, y1))
        if group is not None and (stroked or filled):
            xs = [p[0] for line in points for p in line]
            ys = [p[1] for line in points for p in line]
            group.append(('shape', (min(xs), min(ys), max(xs), max(ys))))

    def find_key(self):
        """gnuplot's key: a plot's first drawing is its title's text, and the
        next is its sample, at the text's height."""
        for group in self.order:
            if len(group) < 2 or group[0][0] != 'text' or group[1][0] != 'shape':
                continue
            text = self.texts[group[0][1]]
            sx0, sy0, sx1, sy1 = group[1][1]
            middle = (sy0 + sy1) / 2
            if text[1] - 2 <= middle <= text[3] + 2 and min(abs(sx0 - text[2]), abs(text[0] - sx1)) < 40:
                text[5] = True
                self.texts.append([sx0, sy0, sx1, sy1, None, True])  # the sample: part of the key's box


def crosses(segment, box):
    """Whether the segment passes through the box's inside (Liang-Barsky)."""
    x0, y0, x1, y1 = segment
    bx0, by0, bx1, by1 = box
    if bx1 <= bx0 or by1 <= by0:
        return False
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - bx0), (dx, bx1 - x0), (-dy, y0 - by0), (dy, by1 - y0)):
        if p == 0:
            if q <= 0:
                return False
        else:
            r = q / p
            if p < 0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 >= t1:
                return False
    return True


def shrunk(box, by):
    return (box[0] + by, box[1] + by, box[2] - by, box[3] - by)


def overlap(a, b, gap=0.0):
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def faults(chart):
    found = []
    labels = [t for t in chart.texts if t[4] is not None]
    for text in labels:
        box = shrunk(text, SHRINK)
        for segment in chart.segments:
            if crosses(segment, box):
                found.append("line through '%s' (%.0f,%.0f to %.0f,%.0f)" % ((text[4],) + tuple(segment)))
                break
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if overlap(a, b, TEXT_GAP):
                found.append("'%s' on '%s'" % (a[4], b[4]))
    key = [t for t in chart.texts if t[5]]
    if key:
        box = (min(t[0] for t in key), min(t[1] for t in key), max(t[2] for t in key), max(t[3] for t in key))
        for text in labels:
            if not text[5] and overlap(box, text, KEY_GAP):
                found.append("the key touches '%s'" % text[4])
    return found


def main(argv):
    max_kb = 200
    if len(argv) > 1 and argv[0] == '--max-kb':
        max_kb = float(argv[1])
        argv = argv[2:]
    if not argv:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    total = 0
    for path in argv:
        problems = []
        try:
            problems = faults(Chart(path))
        except (ET.ParseError, OSError, ValueError, IndexError) as error:
            problems = ['cannot be read: %s' % error]
        try:
            with open(path, 'rb') as svg:
                size = len(svg.read())
            if size > max_kb * 1000:
                problems.append('%d KB, over the %g KB limit' % (size // 1000, max_kb))
        except OSError:
            pass
        for problem in problems:
            print('%s: %s' % (path.rsplit('/', 1)[-1], problem))
        total += len(problems)
    print('checked %d charts, %d faults' % (len(argv), total))
    return 1 if total else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
