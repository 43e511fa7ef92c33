// book/tex2svg.mjs - the book's mathematics, TeX to SVG, once, at build time
// (book/math.lua runs it): no reader of the HTML, the EPUB or the PDF needs
// a script, a web font or the network to see a formula.
//
//   node book/tex2svg.mjs DIR < FORMULAS
//
// FORMULAS is a list of records, each ended by a NUL byte: a name, a tab,
// "display" or "inline", a tab, the TeX (newlines and all). Each becomes
// DIR/NAME.svg, and DIR/NAME.txt its text as a reader would type it
// (book/math_text.mjs: T × T, x_small, 2⁻¹¹), which the page carries under
// the image for the PDF's text layer, copying, finding and the search. MathJax (the npm package mathjax-full, pinned in
// book/package.json) draws every glyph as a path in the file itself
// (fontCache 'none'), so each SVG stands alone: as an <img> in a browser, in
// an EPUB reader and in weasyprint, which draws SVG but knows no MathJax font.
// A TeX error stops the build with the formula; MathJax would otherwise
// print it in red in the book.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// mathjax-full 3 is CommonJS; its direct API, without the browser's loader
const require = createRequire(import.meta.url);
const { mathjax } = require('mathjax-full/js/mathjax.js');
const { TeX } = require('mathjax-full/js/input/tex.js');
const { SVG } = require('mathjax-full/js/output/svg.js');
const { liteAdaptor } = require('mathjax-full/js/adaptors/liteAdaptor.js');
const { RegisterHTMLHandler } = require('mathjax-full/js/handlers/html.js');
const { AllPackages } = require('mathjax-full/js/input/tex/AllPackages.js');
const { STATE } = require('mathjax-full/js/core/MathItem.js');
import { math_text } from './math_text.mjs';

if (process.argv.length !== 3) {
  console.error('usage: node book/tex2svg.mjs DIR < FORMULAS');
  process.exit(2);
}
const dir = process.argv[2];
mkdirSync(dir, { recursive: true });

const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
const tex = new TeX({ packages: AllPackages, formatError: (jax, error) => { throw error; } });
const document = mathjax.document('', { InputJax: tex, OutputJax: new SVG({ fontCache: 'none' }) });

let failed = 0;
for (const record of readFileSync(0, 'utf8').split('\0')) {
  if (record.trim() === '') continue;
  const [name, kind, ...rest] = record.replace(/^\n+/, '').split('\t');
  const source = rest.join('\t');
  if (!/^[0-9a-f]+$/.test(name) || !['display', 'inline'].includes(kind)) {
    console.error(`tex2svg: a malformed record: ${JSON.stringify(record.slice(0, 80))}`);
    process.exit(2);
  }
  let svg, text;
  try {
    const display = kind === 'display';
    svg = adaptor.innerHTML(document.convert(source, { display }));
    text = math_text(document.convert(source, { display, end: STATE.CONVERT }));
  } catch (error) {
    console.error(`tex2svg: TeX error in $${source}$: ${error.message}`);
    failed++;
    continue;
  }
  // each written under a temporary name, then renamed: a stopped build leaves
  // no half file; the text first, as book/math.lua takes a formula whose SVG
  // is there as drawn
  for (const [path, content] of [[join(dir, `${name}.txt`), text], [join(dir, `${name}.svg`), svg]]) {
    writeFileSync(`${path}.partial`, `${content}\n`);
    renameSync(`${path}.partial`, path);
  }
}
process.exit(failed ? 1 : 0);
