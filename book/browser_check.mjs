// book/browser_check.mjs - opens a page of the book in the distribution's
// headless Chromium and checks what a reader would see: the page loads, it
// logs no page error and no console error, every image loaded (naturalWidth
// > 0), at least as many as expected, every figure shows one, and no code
// block cuts its lines off (one wider than the window scrolls). Then it saves a
// screenshot of the top of the page and one per chapter (each chapter's
// numbered h1 scrolled to the top of the window).
//
// The browser is driven by playwright-core (book/package.json pins it;
// `make book-check` installs it into book/node_modules when missing):
//
//   node book/browser_check.mjs [--browser /usr/bin/chromium] [--min-images N]
//        [--screenshot OUT.png] [--chapter-screenshots DIR] [--timeout SECONDS] PAGE.html
//
// Exit status: 0 the page passed, 1 it did not (each failure is printed),
// 2 a usage error or a browser that would not start.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const usage = 'usage: node book/browser_check.mjs [--browser PATH] [--min-images N] ' +
  '[--screenshot OUT.png] [--chapter-screenshots DIR] [--timeout SECONDS] PAGE.html';
const options = { browser: '/usr/bin/chromium', minImages: 0, screenshot: null, chapters: null, timeout: 120 };
let page_path = null;
const args = process.argv.slice(2);
for (let k = 0; k < args.length; k++) {
  const value = () => {
    if (k + 1 >= args.length) { console.error(usage); process.exit(2); }
    return args[++k];
  };
  if (args[k] === '--browser') options.browser = value();
  else if (args[k] === '--min-images') options.minImages = Number(value());
  else if (args[k] === '--screenshot') options.screenshot = value();
  else if (args[k] === '--chapter-screenshots') options.chapters = value();
  else if (args[k] === '--timeout') options.timeout = Number(value());
  else if (!args[k].startsWith('-') && !page_path) page_path = args[k];
  else { console.error(usage); process.exit(2); }
}
if (!page_path || !Number.isInteger(options.minImages) || !(options.timeout > 0)) {
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
let status = 0;
try {
  const page = context.pages()[0] ?? await context.newPage();
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
  });
  await page.goto(pathToFileURL(resolve(page_path)).href, { waitUntil: 'load', timeout: options.timeout * 1000 });

  const images = await page.$$eval('img', (all) => all.map((image) => ({
    source: image.currentSrc.slice(0, 60), loaded: image.complete && image.naturalWidth > 0 })));
  images.forEach((image, k) => {
    if (!image.loaded) failures.push(`image ${k + 1} of ${images.length} did not load: ${image.source}...`);
  });
  if (images.length < options.minImages)
    failures.push(`${images.length} images, expected at least ${options.minImages}`);
  // every figure shows its plot; no code block cuts its lines off (a block
  // wider than the page must scroll), and how many need to scroll at all
  const figures = await page.$$eval('figure', (all) => all.map((figure) => {
    const image = figure.querySelector('img');
    return Boolean(image && image.complete && image.naturalWidth > 0);
  }));
  figures.forEach((loaded, k) => {
    if (!loaded) failures.push(`figure ${k + 1} of ${figures.length} shows no image`);
  });
  const code = await page.$$eval('div.sourceCode', (all) => all.map((block) => ({
    wider: block.scrollWidth > block.clientWidth + 1,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(block).overflowX) })));
  const clipped = code.filter((block) => block.wider && !block.scrolls).length;
  if (clipped) failures.push(`${clipped} of ${code.length} code blocks cut their lines off`);
  console.log(`browser_check: ${figures.length} figures, ${code.length} code blocks ` +
    `(${code.filter((block) => block.wider).length} wider than the window, scrolled)`);

  if (options.screenshot) await page.screenshot({ path: options.screenshot });
  if (options.chapters) {
    mkdirSync(options.chapters, { recursive: true });
    const chapters = await page.$$('h1[data-number]');
    for (let k = 0; k < chapters.length; k++) {
      await chapters[k].evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(options.chapters, `chapter-${k + 1}.png`) });
    }
    console.log(`browser_check: ${chapters.length} chapter screenshots in ${options.chapters}`);
  }
  for (const failure of failures) console.log(`browser_check: ${failure}`);
  console.log(`browser_check: ${page_path}: ${images.length} images, ` +
    (failures.length ? `${failures.length} failures` : 'every image loaded, no error logged'));
  status = failures.length ? 1 : 0;
} catch (error) {
  console.error(`browser_check: ${page_path}: ${error.message}`);
  status = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(status);
