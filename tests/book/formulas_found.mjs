// tests/book/formulas_found.mjs - is each formula's text (book/math.lua
// lays it under the formula's image, span.math-text) where a reader looks
// for it: in the PDF's text (pdftotext) and in the HTML book's search index
// (book/split.mjs)?
//
//   node tests/book/formulas_found.mjs SITE PDF.txt
//
// SITE: the HTML book's folder (its pages and search-index.js); PDF.txt:
// pdftotext of the PDF. Prints "formulas N, not in the PDF's text A, not in
// the search index B" (N: the formulas' texts, each once), then each one
// missing, and "images I, texts T" where a formula's image has no text;
// exits 1 if a text is missing anywhere, or if the pages hold no formula.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [site, pdf_text] = process.argv.slice(2);
if (!site || !pdf_text) {
  console.error('usage: node tests/book/formulas_found.mjs SITE PDF.txt');
  process.exit(2);
}
const entities = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const decode = (text) => text.replace(/&(amp|lt|gt|quot|#39);/g, (whole, name) => entities[name]);
// spaces as one, and none around what pdftotext may set apart: (x, y) or
// ( x , y ); no accent (pdftotext may put X̂'s before its letter)
const flat = (text) => text.replace(/\p{M}/gu, '').replace(/\s+/g, ' ').replace(/ ?([(),]) ?/g, '$1');

const formulas = new Set();
let images = 0, texts = 0;
for (const page of readdirSync(site).filter((name) => name.endsWith('.html'))) {
  const html = readFileSync(join(site, page), 'utf8');
  images += html.match(/<img\s[^>]*class="math"/g)?.length ?? 0;
  for (const [, text] of html.matchAll(/<span\s+class="math-text"[^>]*>([^<]*)<\/span>/g)) {
    formulas.add(decode(text).replace(/\s+/g, ' '));
    texts++;
  }
}
const pdf = flat(readFileSync(pdf_text, 'utf8'));
const window = {};
new Function('window', readFileSync(join(site, 'search-index.js'), 'utf8'))(window);
const index = flat(window.BOOK_SEARCH_INDEX.map((entry) => entry.x).join(' '));
const missing = { pdf: [], index: [] };
for (const formula of formulas) {
  if (!pdf.includes(flat(formula))) missing.pdf.push(formula);
  if (!index.includes(flat(formula))) missing.index.push(formula);
}
console.log(`formulas ${formulas.size}, not in the PDF's text ${missing.pdf.length}, ` +
  `not in the search index ${missing.index.length}`);
for (const formula of missing.pdf) console.log(`not in the PDF's text: ${formula}`);
for (const formula of missing.index) console.log(`not in the search index: ${formula}`);
if (images !== texts) console.log(`images ${images}, texts ${texts}: a formula without its text`);
process.exit(formulas.size > 0 && images === texts && missing.pdf.length + missing.index.length === 0 ? 0 : 1);
