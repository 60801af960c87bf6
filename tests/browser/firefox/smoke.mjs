// Firefox smoke suite: Debian's firefox-esr driven over WebDriver BiDi by puppeteer-core.
//
// Run by tests/browser/test_firefox.py, which builds and serves the site and passes one JSON argument:
//   {firefox, fileUrl, httpUrl, explorer: {index, expected: {metric: text}}, hosts: {…} (hosts.mjs)}
// Prints one JSON object on stdout (progress goes to stderr); the pytest side asserts on it. Every
// check records what it saw rather than throwing, so one failure does not hide the others.
import puppeteer from 'puppeteer-core';
import { embedHosts } from './hosts.mjs';

const config = JSON.parse(process.argv[2]);
const log = (...args) => console.error('firefox-smoke:', ...args);
const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isLocal(url) {
  const { protocol, hostname } = new URL(url);
  if (['file:', 'data:', 'blob:', 'about:'].includes(protocol)) return true;
  return (protocol === 'http:' || protocol === 'https:') && LOCAL.has(hostname);
}

// A page with a record of everything that went wrong on it.
async function watchedPage(browser) {
  const page = await browser.newPage();
  page.setDefaultTimeout(15000);
  const seen = { errors: [], requests: [], failed: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => seen.errors.push(`uncaught: ${error.message || error}`));
  page.on('request', (request) => seen.requests.push(request.url()));
  page.on('requestfailed', (request) => seen.failed.push(`${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) seen.failed.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return { page, seen };
}

function summary(seen) {
  return {
    errors: seen.errors,
    failed: seen.failed,
    external: seen.requests.filter((url) => !isLocal(url)),
    requests: seen.requests.length,
  };
}

async function waitFor(page, fn, arg, timeout = 10000) {
  try {
    await page.waitForFunction(fn, { timeout, polling: 100 }, arg);
    return true;
  } catch {
    return false;
  }
}

// The page's scripts ran (main.js marks the document); explorers start when they come near the viewport.
const pageReady = () => document.documentElement.classList.contains('js-ready');

// ------------------------------------------------------------------ loading

async function load(browser, url) {
  const { page, seen } = await watchedPage(browser);
  await page.goto(url, { waitUntil: 'load' });
  const ready = await waitFor(page, pageReady);
  await new Promise((resolve) => setTimeout(resolve, 500)); // late errors from deferred work
  return { page, seen, ready };
}

// ------------------------------------------------------------------ the main explorer at six's fitted T

async function fittedSix(page, { index, expected }) {
  await page.$eval('#ex1', (e) => e.scrollIntoView({ block: 'center' }));
  // its controls are built once widgets.js has loaded, which a busy machine can take seconds to do
  await page.waitForSelector('#ex1-fit', { timeout: 30000 });
  await page.click('#ex1-fit');
  const moved = await waitFor(page, (i) => Number(document.getElementById('ex1-t').value) === i, index);
  const readCards = (metrics) => Object.fromEntries(metrics.map((m) => [
    m, document.querySelector(`#ex1 [data-metric="${m}"] .value`)?.textContent.trim() ?? null]));
  const metrics = Object.keys(expected);
  await waitFor(page, ([ms, want]) => ms.every(
    (m) => document.querySelector(`#ex1 [data-metric="${m}"] .value`)?.textContent.trim() === want[m]),
  [metrics, expected], 5000);
  return {
    index: await page.$eval('#ex1-t', (e) => Number(e.value)),
    moved,
    shown: await page.evaluate(readCards, metrics),
  };
}

// ------------------------------------------------------------------ every control changes its readout

// What a reader sees of a control's widget: its markup without the form controls themselves
// (their own state is not a readout), so text, SVG geometry and hidden/shown parts all count; for a
// range input, also the text of its <output>. Installed in the page as window.smokeReadout(id).
function installReadout() {
  window.smokeReadout = (id) => {
    const control = document.getElementById(id);
    const widget = control.closest('[data-component]') || document.body;
    const copy = widget.cloneNode(true);
    copy.querySelectorAll('input, select').forEach((e) => e.remove());
    const output = control.type === 'range' ? document.querySelector(`output[for="${id}"]`) : null;
    // a textarea's value (the Embed box's snippet) is not in innerHTML: read it too
    const texts = Array.from(widget.querySelectorAll('textarea'), (e) => e.value);
    return JSON.stringify([output ? output.textContent : null, copy.innerHTML, texts]);
  };
}

async function controls(page) {
  // A widget's controls wait in a <template> until it comes near the viewport (static/js/main.js): bring
  // each widget there, opening a deep dive around it as a reader would, so that every control is built.
  await page.evaluate(async () => {
    for (const root of document.querySelectorAll('[data-component="explorer"]')) {
      for (let d = root.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
      for (let i = 0; i < 50 && root.querySelector(':scope > template[data-widget-markup]'); i += 1) {
        root.scrollIntoView();
        await new Promise((resolve) => { setTimeout(resolve, 100); });
      }
    }
  });
  await page.evaluate(installReadout);
  // Give every control an id (radios have only a name) so each can be found again.
  const list = await page.evaluate(() => {
    const found = [];
    const kinds = ['range', 'radio', 'checkbox', 'number'].map((t) => `input[type="${t}"]`).concat('select');
    document.querySelectorAll(kinds.join(', '))
      .forEach((e, i) => {
        if (!e.id) e.id = `smoke-control-${i}`;
        found.push({ id: e.id, kind: e.tagName === 'SELECT' ? 'select' : e.type, name: e.name || null });
      });
    return found;
  });
  // Each radio must be clicked while unchecked: in each group, start after the checked one and end on it.
  const order = [];
  const groups = new Map();
  for (const control of list) {
    if (control.kind !== 'radio') { order.push(control); continue; }
    if (!groups.has(control.name)) { groups.set(control.name, []); order.push({ group: control.name }); }
    groups.get(control.name).push(control);
  }
  const results = [];
  for (const item of order) {
    let batch = [item];
    if (item.group) {
      const radios = groups.get(item.group);
      const checked = await page.evaluate((ids) => ids.findIndex((id) => document.getElementById(id).checked),
        radios.map((r) => r.id));
      batch = radios.slice(checked + 1).concat(radios.slice(0, checked + 1));
    }
    for (const control of batch) results.push(await operate(page, control));
  }
  return results;
}

async function operate(page, control) {
  const { id, kind } = control;
  const selector = `[id="${id}"]`;
  // a panel may hide a control while its dataset's analyses load: give it a few seconds to come back
  // and a deep dive's widget is operated as a reader would: with its <details> opened first
  const shown = (e) => {
    for (let d = e.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
    e.scrollIntoView({ block: 'center' });
    return e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  let visible = await page.$eval(selector, shown);
  for (let i = 0; i < 50 && !visible; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    visible = await page.$eval(selector, shown);
  }
  if (!visible) return { id, kind, hidden: true, changed: false };
  const before = await page.evaluate((i) => window.smokeReadout(i), id);
  if (kind === 'range') {
    const atEnd = await page.$eval(selector, (e) => Number(e.value) >= Number(e.max));
    await page.focus(selector);
    for (let i = 0; i < 3; i += 1) await page.keyboard.press(atEnd ? 'ArrowLeft' : 'ArrowRight');
  } else if (kind === 'number') {
    // the bin-count box: typed over and committed with Enter, as a keyboard reader does
    const value = await page.$eval(selector, (e) => (Number(e.value) === 10 ? '5' : '10'));
    await page.focus(selector);
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type(value);
    await page.keyboard.press('Enter');
  } else if (kind === 'select') {
    // a dataset picker goes to the mixed population, whose group controls come next; any other select to
    // its last option (or its first, when it is already there)
    const value = await page.$eval(selector, (e) => {
      const values = Array.from(e.options).map((o) => o.value);
      const target = e.id.endsWith('-dataset') && values.includes('mixed') ? 'mixed' : values[values.length - 1];
      return target !== e.value ? target : values[0];
    });
    await page.select(selector, value);
  } else {
    await clickOn(page, selector);
  }
  const changed = await waitFor(page, ([i, old]) => window.smokeReadout(i) !== old, [id, before], 10000);
  // Put a checkbox back as it was: a box such as "each group at its own fitted T" sets the slider
  // aside while it is checked, and the controls after it must be operated in the page's usual state.
  if (kind === 'checkbox') await clickOn(page, selector);
  // Put the calibrator back to temperature scaling: another calibrator sets the temperature panels aside.
  if (kind === 'select' && id.endsWith('-method')) await page.select(selector, 'temperature');
  return { id, kind, changed };
}

// A control whose box WebDriver BiDi finds no clickable point in (a styled box drawn by its label, say) is
// clicked as its label would click it: through the DOM.
async function clickOn(page, selector) {
  try {
    await page.click(selector);
  } catch (error) {
    if (!String(error).includes('not clickable')) throw error;
    await page.$eval(selector, (e) => e.click());
  }
}

// ------------------------------------------------------------------ MathML

async function mathml(page) {
  return page.evaluate(() => {
    const all = Array.from(document.querySelectorAll('math'));
    const sizes = all.map((e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; });
    const mathNs = all.every((e) => e.namespaceURI === 'http://www.w3.org/1998/Math/MathML');
    const display = all.findIndex((e) => e.getAttribute('display') === 'block');
    return {
      count: all.length,
      sized: sizes.filter(([w, h]) => w > 0 && h > 0).length,
      first: sizes[0] || null,
      firstDisplay: display >= 0 ? sizes[display] : null,
      mathNamespace: mathNs,
    };
  });
}

// ------------------------------------------------------------------ the run

const result = {};
const browser = await puppeteer.launch({
  browser: 'firefox',
  executablePath: config.firefox,
  headless: true,
});
try {
  result.version = await browser.version();
  log('started', result.version);

  const fromDisk = await load(browser, config.fileUrl);
  result.file = { ready: fromDisk.ready, ...summary(fromDisk.seen) };
  await fromDisk.page.close();
  log('file:// done');

  const overHttp = await load(browser, config.httpUrl);
  result.math = await mathml(overHttp.page);
  result.fitted = await fittedSix(overHttp.page, config.explorer);
  log('fitted T done');
  result.controls = await controls(overHttp.page);
  log('controls done');
  result.http = { ready: overHttp.ready, ...summary(overHttp.seen) };
  await overHttp.page.close();

  const hostsStarted = Date.now();
  result.hosts = await embedHosts(browser, config.hosts, watchedPage, summary);
  result.hostSeconds = (Date.now() - hostsStarted) / 1000;
  log('embed hosts done in', result.hostSeconds, 's');
} catch (error) {
  result.crash = String(error && error.stack || error);
} finally {
  await browser.close();
}
process.stdout.write(`${JSON.stringify(result)}\n`);
