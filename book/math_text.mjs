// book/math_text.mjs - a formula as a reader would type it, for the text
// under its image (book/tex2svg.mjs writes it beside the SVG, book/math.lua
// puts it in the page): what the PDF's text layer, a copy and paste, a
// browser's find, a screen reader and the HTML book's search read, where
// they would otherwise find nothing.
//
// It reads the tree MathJax parsed the TeX into (MathML's elements), so it
// knows every macro MathJax knows: \times is ×, \le is ≤, \ell is ℓ,
// \mathrm{sigmoid} is sigmoid, \hat X is X̂. No TeX is left in it (no
// backslash, brace or dollar): tests/book/tex_left.sh would find it.
//
//   x_{\text{small}}   x_small       a script of letters after _ or ^
//   y_{s,f}            y_(s,f)       one of several symbols in parentheses
//   2^{-11}, r_0, W^T  2⁻¹¹, r₀, Wᵀ  digits, signs and ᵀ as Unicode scripts
//   \frac{2mn}{4(m+n)} 2mn/(4(m + n))
//   \sqrt{HS}          √(HS)
//   \ell'              ℓ′
//   a_i b_j            a_i b_j       a space after a script a letter follows
//
// Relations and binary operators have a space on each side (a + b, i ≤ j),
// as in the typeset formula, inside scripts none (e^(s_j−m)); the rows of an
// aligned display are separated by "; ".
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { TEXCLASS } = require('mathjax-full/js/core/MmlTree/MmlNode.js');
const { length2em } = require('mathjax-full/js/util/lengths.js');

const SUPERSCRIPT = { 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹',
  '−': '⁻', '+': '⁺', T: 'ᵀ', '⊤': 'ᵀ' };
const SUBSCRIPT = { 0: '₀', 1: '₁', 2: '₂', 3: '₃', 4: '₄', 5: '₅', 6: '₆', 7: '₇', 8: '₈', 9: '₉' };
const NONE = {};
// an accent over its base as Unicode's combining mark: \hat X is X̂
const ACCENT = { '^': '\u0302', 'ˆ': '\u0302', '~': '\u0303', '˜': '\u0303', '¯': '\u0304',
  '‾': '\u0305', '→': '\u20d7', '˙': '\u0307', '¨': '\u0308' };
const INVISIBLE = /[\u2061-\u2064]/g;  // function application, invisible times
// after a script written with _ or ^ and after a function's name, where a
// letter or digit follows: a space there, none elsewhere (a_i b_j, log₂ e,
// but a_i, b and exp(x))
const SEAM = '\u0001';
const seams = (text) => text.replace(/\u0001+(?=[\p{L}\p{N}√∑∏])/gu, ' ').replace(/\u0001/g, '');
// an operator made a relation with the one after it: \mathrel{+}= is +=
const JOIN = '\u0002';

const tidy = (text) => text.replace(/\s+/g, ' ').trim();
const balanced = (text) => {
  let depth = 0;
  for (const c of text) {
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth < 0) return false;
  }
  return depth === 0;
};
// in parentheses already, and nothing after them
const enclosed = (text) => /^\(.*\)$/.test(text) && balanced(text.slice(1, -1));
// one symbol, a number, a word, a root of one, or something in parentheses
const single = (text) => [...text].length <= 1 || /^[0-9.]+$/.test(text) ||
  /^[\p{L}\p{M}]+$/u.test(text) || enclosed(text) || (text[0] === '√' && single(text.slice(1)));
// under a root: one symbol or a number
const root_of = (text) => [...text].length <= 1 || /^[0-9.]+$/.test(text) || enclosed(text);
// an operand of / : one with no space and no operator at its top level
const operand = (text) => {
  let depth = 0;
  for (const c of text) {
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (depth === 0 && /[\s+\-−=<>≤≥≈×⋅·/,;:±⊕⊙∈]/.test(c)) return false;
  }
  return true;
};
const group = (text, fits) => {
  const t = tidy(seams(text));
  return fits(t) ? t : `(${t})`;
};

// BASE with TEXT as its sub- or superscript: Unicode's script characters
// where TABLE has one for every character, else MARK (_ or ^) and the script
function script(base, text, table, mark) {
  const t = tidy(seams(text));
  if (t === '') return base;
  const after = /[\s\u0001]$/.test(base) ? SEAM : '';  // a function's name: log₂ e
  const b = base.replace(/[\s\u0001]+$/, '');
  if (/^[′″‴]+$/.test(t)) return b + t + after;  // \ell' is ℓ′, no ^
  if ([...t].every((c) => table[c])) return b + [...t].map((c) => table[c]).join('') + after;
  return `${b}${mark}${group(t, single)}${SEAM}`;
}

function text_of(node, tight) {
  const children = (n, inner = tight) => n.childNodes.map((c) => text_of(c, inner)).join('');
  const child = (k, inner = tight) => text_of(node.childNodes[k], inner);
  if (!node) return '';
  if (node.isKind('mspace')) {  // a thin space (\,) or wider is a space
    const width = node.attributes.get('width');
    return width && length2em(String(width)) >= 0.16 ? ' ' : '';
  }
  if (node.isToken) {
    const text = node.getText().replace(INVISIBLE, '');
    if (node.isKind('mo') && !tight) {
      if (text === ':' || node.texClass === TEXCLASS.PUNCT) return `${text} `;
      if (node.texClass === TEXCLASS.BIN || node.texClass === TEXCLASS.REL) return ` ${text} `;
      if (node.texClass === TEXCLASS.OP && text.length > 1) return ` ${text} `;  // mod
    }
    if (node.isKind('mi') && node.texClass === TEXCLASS.OP) return ` ${text}${SEAM}`;  // log x, exp(x)
    return text;
  }
  switch (node.kind) {
    case 'msub': return script(child(0), child(1, true), SUBSCRIPT, '_');
    case 'msup': return script(child(0), child(1, true), SUPERSCRIPT, '^');
    case 'msubsup': return script(script(child(0), child(1, true), SUBSCRIPT, '_'), child(2, true), SUPERSCRIPT, '^');
    case 'munder': return script(child(0), child(1, true), NONE, '_');
    case 'mover': {
      const over = tidy(child(1, true));
      if (ACCENT[over]) return tidy(child(0)) + ACCENT[over];
      return script(child(0), over, NONE, '^');
    }
    case 'munderover': return script(script(child(0), child(1, true), NONE, '_'), child(2, true), NONE, '^');
    case 'mfrac': return `${group(child(0), operand)}/${group(child(1), single)}`;
    case 'msqrt': return `√${group(children(node), root_of)}`;
    case 'mroot': return `${group(child(1, true), single)}√${group(child(0), root_of)}`;
    case 'mphantom': return '';
    case 'mtable': return node.childNodes.map((row) => tidy(text_of(row, tight))).join('; ');
    case 'mlabeledtr': return node.childNodes.slice(1).map((c) => text_of(c, tight)).join(' ');
    case 'mtr': return node.childNodes.map((c) => text_of(c, tight)).join(' ');
    case 'TeXAtom': {
      const one = node.childNodes[0]?.childNodes?.length === 1;
      if (one && node.texClass === TEXCLASS.REL && !tight) return ` ${children(node, true)}${JOIN}`;
      // {,} in 262{,}144: the comma of a number, no space after it
      return children(node, tight || (one && node.texClass === TEXCLASS.ORD));
    }
    default: return children(node);
  }
}

// ROOT: the tree of a formula MathJax has parsed (STATE.CONVERT), whose
// operators' classes are still to be set (a leading minus is no binary one)
export function math_text(root) {
  root.setTeXclass(null);
  return tidy(seams(text_of(root, false)).replace(/\u0002\s*/g, ''))
    .replace(/ +([,;.!?)\]])/g, '$1')
    .replace(/([([]) +/g, '$1');
}
