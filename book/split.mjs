// book/split.mjs - cuts the HTML book, which pandoc renders once into the
// frame book/page.html, into a page per chapter and appendix (pandoc 2.17
// has no writer that does it), in a folder a reader opens at index.html:
//
//   node book/split.mjs BOOK.html OUTDIR [--sources LIST]
//
// - index.html: the title and the contents; then one page per top-level
//   section of the book (pandoc --section-divs: each level-1 heading opens a
//   <section class="level1">), named by its id: the-race.html, ...
// - every page keeps the frame: the contents in the sidebar with its own
//   chapter marked (and its sections shown), previous and next links;
// - every link to an #id goes to the page that holds that id;
// - every local image (the plots, the formulas) is copied into images/ and
//   linked from there, not inlined: pages stay small and load fast;
// - search-index.js: the text of each section (its code aside), for the
//   offline search of book/search.js;
// - LIST (--sources): the source pages the book links to (src/NAME.html),
//   one a line, for book/build.sh to write.
//
// It reads only what pandoc writes, with regular expressions: section tags
// (a tag in the text would be escaped, &lt;section), ids, hrefs and srcs.
// Whatever it cannot place is an error, with exit status 1.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const usage = 'usage: node book/split.mjs BOOK.html OUTDIR [--sources LIST]';
const args = process.argv.slice(2);
let sources_list = null;
const sources_at = args.indexOf('--sources');
if (sources_at >= 0) [, sources_list] = args.splice(sources_at, 2);
if (args.length !== 2 || (sources_at >= 0 && !sources_list)) {
  console.error(usage);
  process.exit(2);
}
const [book_path, out] = args;
const fail = (message) => { console.error(`split: ${message}`); process.exit(1); };

const book = readFileSync(book_path, 'utf8');
// the part between <!--NAME--> and <!--/NAME-->, and the text around it
function region(text, name) {
  const open = `<!--${name}-->`, close = `<!--/${name}-->`;
  const start = text.indexOf(open), end = text.indexOf(close);
  if (start < 0 || end < start) fail(`${book_path}: no ${open} ... ${close} (book/page.html)`);
  return { before: text.slice(0, start), inside: text.slice(start + open.length, end),
           after: text.slice(end + close.length) };
}
const content = region(book, 'book:content');
const front = region(content.before, 'book:front');
const toc = region(front.before, 'book:toc');
// the frame around the contents and the body, and the title block (index.html only)
const frame = { head: toc.before, between: toc.after + front.after, tail: content.after };
const title_block = front.inside;

// ------------------------------------------------------------ the pages
// top-level sections, by counting <section> and </section>
const pages = [];
const tags = /<section\b[^>]*>|<\/section>/g;
let depth = 0, start = 0, opening = null, stray = '';
for (let match; (match = tags.exec(content.inside));) {
  if (match[0] !== '</section>') {
    if (depth === 0) {
      stray += content.inside.slice(start, match.index);
      start = match.index;
      opening = match[0];
    }
    depth++;
  } else if (--depth === 0) {
    const html = stray + content.inside.slice(start, match.index + match[0].length);
    stray = '';
    start = match.index + match[0].length;
    const id = (opening.match(/\bid="([^"]*)"/) || [])[1];
    if (!id) fail(`a top-level section without an id: ${opening}`);
    pages.push({ id, file: `${id === 'index' ? 'index-page' : id}.html`, html });
  } else if (depth < 0) {
    fail('a </section> that closes nothing');
  }
}
if (depth !== 0) fail('a <section> never closed');
stray += content.inside.slice(start);
if (stray.trim() !== '') {  // text outside every section (none from pandoc): kept on the last page
  if (pages.length === 0) fail('no level-1 section in the book');
  pages[pages.length - 1].html += stray;
}
if (pages.length === 0) fail('no level-1 section in the book');

const strip = (html) => html.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim();
const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const decode = (text) => text.replace(/&(#x?[0-9a-f]+|\w+);/gi, (whole, name) => {
  if (name[0] === '#') return String.fromCodePoint(parseInt(name.slice(1).replace(/^x/i, ''),
    /^#x/i.test(name) ? 16 : 10));
  return entities[name] ?? whole;
});
for (const page of pages) {
  const heading = page.html.match(/<h1\b[^>]*>([\s\S]*?)<\/h1>/);
  page.heading = heading ? heading[1] : page.id;  // with its number's span, for the links
  page.title = decode(strip(page.heading));
}

// ------------------------------------------------------------ links
const page_of_id = new Map();
for (const page of pages) {
  for (const [, id] of page.html.matchAll(/\sid="([^"]+)"/g)) {
    if (page_of_id.has(id) && page_of_id.get(id) !== page) fail(`the id "${id}" is on two pages`);
    page_of_id.set(id, page);
  }
}
// href="#id": on this page as it is; on another, that page's file (the
// page's own section id: the file alone, its top)
function link(html, here) {
  return html.replace(/href="#([^"]+)"/g, (whole, id) => {
    const page = page_of_id.get(decodeURIComponent(id)) ?? page_of_id.get(id);
    if (!page) return whole;  // left for the browser check to report
    if (page === here) return whole;
    return `href="${page.file}${page.id === id ? '' : `#${id}`}"`;
  });
}

// ------------------------------------------------------------ images
mkdirSync(join(out, 'images'), { recursive: true });
const copied = new Map();  // file name in images/ -> the source it came from
function localise_images(html) {
  return html.replace(/(<img\b[^>]*?\ssrc=")([^"]+)"/g, (whole, before, source) => {
    if (/^(data:|[a-z]+:\/\/)/i.test(source)) return whole;
    const path = decodeURI(source);
    if (!existsSync(path)) fail(`an image that is not there: ${path}`);
    let name = basename(path);
    for (let k = 2; copied.has(name) && copied.get(name) !== path; k++)
      name = basename(path).replace(/(\.[^.]*)?$/, `-${k}$1`);
    if (!copied.has(name)) {
      copyFileSync(path, join(out, 'images', name));
      copied.set(name, path);
    }
    return `${before}images/${encodeURI(name)}"`;
  });
}

// ------------------------------------------------------------ the frame
const toc_html = toc.inside;
function sidebar(here) {
  let html = link(toc_html, null);
  if (here) {
    html = html.replace(`<li><a href="${here.file}"`,
      `<li class="current"><a href="${here.file}" aria-current="page"`);
  }
  return html;
}
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const book_title = decode(strip(title_block.match(/<h1\b[^>]*>([\s\S]*?)<\/h1>/)?.[1] ?? ''));
function prevnext(previous, next) {
  const side = (page, rel, arrow) => {
    if (page === undefined) return '<span></span>';
    const file = page ? page.file : 'index.html';
    const label = page ? page.heading.replace(/\sid="[^"]*"/g, '') : 'Contents';
    return `<a class="${rel}" rel="${rel}" href="${file}">${arrow === '←' ? `${arrow} ` : ''}` +
      `${label}${arrow === '→' ? ` ${arrow}` : ''}</a>`;
  };
  return `<nav class="prevnext" aria-label="Previous and next">${side(previous, 'prev', '←')}` +
    `${side(next, 'next', '→')}</nav>`;
}
function page_html(title, here, body, previous, next) {
  const nav = prevnext(previous, next);
  const head = frame.head.replace('<!--book:title-->', escape(title));
  const between = frame.between.replace('<!--book:prevnext-->', nav);
  const tail = frame.tail.replace('<!--book:prevnext-->', nav);
  return `${head}${sidebar(here)}${between}${body}${tail}`;
}

const links_to_sources = new Set();
const index_body = `${title_block}<nav id="TOC" class="contents" role="doc-toc">` +
  `<h2 id="toc-title">Contents</h2>${link(toc_html, null)}</nav>`;
writeFileSync(join(out, 'index.html'), page_html(book_title, null, index_body, undefined, pages[0]));
pages.forEach((page, k) => {
  const body = localise_images(link(page.html, page));
  for (const [, target] of body.matchAll(/href="(src\/[^"#]+)/g)) links_to_sources.add(target);
  const previous = k === 0 ? null : pages[k - 1];
  writeFileSync(join(out, page.file),
    page_html(`${page.title} – ${book_title}`, page, body, previous, pages[k + 1]));
});

// ------------------------------------------------------------ the search index
// one entry per section of levels 1 to 3: where it is, its heading, its
// chapter, and its words (code blocks and formulas aside)
const entries = [];
for (const page of pages) {
  const html = page.html.replace(/<pre\b[\s\S]*?<\/pre>/g, ' ');
  const starts = [...html.matchAll(/<section\b[^>]*\sid="([^"]+)"[^>]*class="level([1-3])\b/g)];
  starts.forEach((match, k) => {
    const part = html.slice(match.index, k + 1 < starts.length ? starts[k + 1].index : undefined);
    const heading = part.match(/<h[1-6]\b[^>]*>([\s\S]*?)<\/h[1-6]>/);
    const title = heading ? decode(strip(heading[1])) : page.title;
    const words = decode(strip(part.replace(/<h[1-6]\b[^>]*>[\s\S]*?<\/h[1-6]>/, ' ')));
    entries.push({ u: `${page.file}${match[1] === page.id ? '' : `#${match[1]}`}`, t: title,
                   c: page.title, x: words });
  });
}
writeFileSync(join(out, 'search-index.js'),
  `// the book's words for book/search.js, written by book/split.mjs\n` +
  `window.BOOK_SEARCH_INDEX = ${JSON.stringify(entries)};\n`);

if (sources_list) writeFileSync(sources_list, [...links_to_sources].sort().map((s) => `${s}\n`).join(''));
console.log(`split: ${pages.length} pages, ${copied.size} images, ${entries.length} search entries ` +
  `in ${out}`);
