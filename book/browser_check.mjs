// book/browser_check.mjs - opens the HTML book in the distribution's
// headless Chromium and reads it as a reader would, page by page: from the
// first page it follows every link inside the book (pages, the source pages,
// anchors), and checks on each page that it loads, logs no page error and no
// console error, that every image loaded (naturalWidth > 0), that every
// figure shows one, and that no code block cuts its lines off (one wider
// than the window must scroll). Every internal link must reach a page that
// exists and, for page.html#id, an element with that id. Then it types a word
// into the search box and follows the first result. It saves a screenshot of
// the top of each page. Links out of the book (https:) are counted, not
// followed: the network here is closed and the book must not need it.
//
// The browser is driven by playwright-core (book/package.json pins it;
// `make book-check` installs it into book/node_modules when missing):
//
//   node book/browser_check.mjs [--browser /usr/bin/chromium] [--min-figures N]
//        [--search WORD] [--screenshots DIR] [--timeout SECONDS] FIRST.html
//
// Exit status: 0 the book passed, 1 it did not (each failure is printed),
// 2 a usage error or a browser that would not start.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const usage = 'usage: node book/browser_check.mjs [--browser PATH] [--min-figures N] ' +
  '[--search WORD] [--screenshots DIR] [--timeout SECONDS] FIRST.html';
const options = { browser: '/usr/bin/chromium', minFigures: 0, search: null, screenshots: null, timeout: 120 };
let first_page = null;
const args = process.argv.slice(2);
for (let k = 0; k < args.length; k++) {
  const value = () => {
    if (k + 1 >= args.length) { console.error(usage); process.exit(2); }
    return args[++k];
  };
  if (args[k] === '--browser') options.browser = value();
  else if (args[k] === '--min-figures') options.minFigures = Number(value());
  else if (args[k] === '--search') options.search = value();
  else if (args[k] === '--screenshots') options.screenshots = value();
  else if (args[k] === '--timeout') options.timeout = Number(value());
  else if (!args[k].startsWith('-') && !first_page) first_page = args[k];
  else { console.error(usage); process.exit(2); }
}
if (!first_page || !Number.isInteger(options.minFigures) || !(options.timeout > 0)) {
  console.error(usage);
  process.exit(2);
}

// A fresh profile each time, and none of the browser's own traffic: this
// machine's network is closed, and a refused connection is logged as an error.
const profile = mkdtempSync(join(tmpdir(), 'browser-check-'));
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: options.browser, headless: true, args: flags,
    viewport: { width: 1280, height: 900 }, timeout: options.timeout * 1000,
  });
} catch (error) {
  console.error(`browser_check: ${options.browser} would not start: ${error.message}`);
  rmSync(profile, { recursive: true, force: true });
  process.exit(2);
}

const failures = [];
const root = dirname(resolve(first_page));
const name_of = (file) => relative(root, file) || file;  // a page as the messages name it
const ids = new Map();       // page file -> the ids on it
const links = [];            // { from, file, id, text }: every link inside the book
const queue = [resolve(first_page)];
const seen = new Set(queue);
let outside = 0, figure_count = 0, image_count = 0, code_count = 0, scrolled = 0;
let status = 0;

// a link's target: a file and an id, or null for a link out of the book
function target_of(href) {
  const url = new URL(href);
  if (url.protocol !== 'file:') return null;
  return { file: fileURLToPath(url), id: decodeURIComponent(url.hash.slice(1)) };
}

try {
  const page = context.pages()[0] ?? await context.newPage();
  let here = null;
  page.on('pageerror', (error) => failures.push(`${name_of(here)}: page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`${name_of(here)}: console error: ${message.text()}`);
  });
  if (options.screenshots) mkdirSync(options.screenshots, { recursive: true });

  while (queue.length > 0) {
    here = queue.shift();
    await page.goto(pathToFileURL(here).href, { waitUntil: 'load', timeout: options.timeout * 1000 });
    const name = name_of(here);
    const found = await page.evaluate(() => ({
      ids: [...document.querySelectorAll('[id], a[name]')].map((element) => element.id || element.name),
      links: [...document.querySelectorAll('a[href]')].map((a) => ({ href: a.href, text: a.textContent.slice(0, 40) })),
      images: [...document.querySelectorAll('img')].map((image) => ({
        source: image.currentSrc.slice(-60), loaded: image.complete && image.naturalWidth > 0 })),
      figures: [...document.querySelectorAll('figure')].map((figure) => {
        const image = figure.querySelector('img');
        return Boolean(image && image.complete && image.naturalWidth > 0);
      }),
      code: [...document.querySelectorAll('div.sourceCode')].map((block) => ({
        wider: block.scrollWidth > block.clientWidth + 1,
        scrolls: ['auto', 'scroll'].includes(getComputedStyle(block).overflowX) })),
    }));
    ids.set(here, new Set(found.ids));
    found.images.forEach((image, k) => {
      if (!image.loaded) failures.push(`${name}: image ${k + 1} of ${found.images.length} did not load: ...${image.source}`);
    });
    found.figures.forEach((loaded, k) => {
      if (!loaded) failures.push(`${name}: figure ${k + 1} of ${found.figures.length} shows no image`);
    });
    const clipped = found.code.filter((block) => block.wider && !block.scrolls).length;
    if (clipped) failures.push(`${name}: ${clipped} of ${found.code.length} code blocks cut their lines off`);
    image_count += found.images.length;
    figure_count += found.figures.length;
    code_count += found.code.length;
    scrolled += found.code.filter((block) => block.wider).length;
    for (const link of found.links) {
      const target = target_of(link.href);
      if (!target) { outside++; continue; }
      links.push({ from: here, ...target, text: link.text });
      if (target.file.endsWith('.html') && existsSync(target.file) && !seen.has(target.file)) {
        seen.add(target.file);
        queue.push(target.file);
      }
    }
    if (options.screenshots) {
      await page.screenshot({ path: join(options.screenshots, `${name.replace(/[/\\]/g, '_').replace(/\.html$/, '')}.png`) });
    }
  }

  // the search: a word in the box, at least one result, and the first one leads somewhere
  if (options.search) {
    here = resolve(first_page);
    await page.goto(pathToFileURL(here).href, { waitUntil: 'load' });
    let results = [];
    if (await page.$('#search-box') === null) failures.push(`${name_of(here)}: no search box (#search-box)`);
    else try {
      await page.fill('#search-box', options.search, { timeout: 10000 });
      await page.waitForSelector('#search-results a', { timeout: 10000 });
      results = await page.$$eval('#search-results a', (all) => all.map((a) => ({ href: a.href, text: a.textContent })));
    } catch { /* none: reported below */ }
    if (results.length === 0) failures.push(`the search for "${options.search}" found nothing`);
    else {
      console.log(`browser_check: the search for "${options.search}" found ${results.length}, ` +
        `first "${results[0].text}"`);
      const target = target_of(results[0].href);
      links.push({ from: here, ...target, text: `search result "${results[0].text}"` });
      if (!ids.has(target.file) && existsSync(target.file)) {  // a page the walk did not reach
        failures.push(`the search result ${name_of(target.file)} is a page no link leads to`);
      }
    }
  }

  // every link inside the book reaches a page, and an element with its id
  let broken = 0;
  for (const link of links) {
    let problem = null;
    if (!existsSync(link.file)) problem = 'no such page';
    else if (link.id && ids.has(link.file) && !ids.get(link.file).has(link.id)) problem = `no id "${link.id}" there`;
    else if (link.id && !ids.has(link.file)) problem = 'a page that is not HTML';
    if (problem) {
      broken++;
      if (broken <= 20) failures.push(`${name_of(link.from)}: a broken link "${link.text}" to ` +
        `${name_of(link.file)}${link.id ? `#${link.id}` : ''}: ${problem}`);
    }
  }
  if (broken > 20) failures.push(`... ${broken} broken links in all`);
  if (figure_count < options.minFigures) failures.push(`${figure_count} figures, expected at least ${options.minFigures}`);

  console.log(`browser_check: ${seen.size} pages, ${links.length} links inside the book (${broken} broken), ` +
    `${outside} out of it; ${image_count} images, ${figure_count} figures, ${code_count} code blocks ` +
    `(${scrolled} wider than the window, scrolled)`);
  if (options.screenshots) console.log(`browser_check: ${seen.size} screenshots in ${options.screenshots}`);
  for (const failure of failures) console.log(`browser_check: ${failure}`);
  console.log(`browser_check: ${first_page}: ` +
    (failures.length ? `${failures.length} failures` : 'every page, link and image checked, no error logged'));
  status = failures.length ? 1 : 0;
} catch (error) {
  console.error(`browser_check: ${name_of(first_page)}: ${error.message}`);
  status = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(status);
