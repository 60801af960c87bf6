// Embeds in course pages, in Firefox: the host pages of tests/browser/embed_hosts.py (one per host kind,
// language and scheme, each holding every widget), loaded once each. The same JavaScript as the
// Chromium test reads the host and each frame (config.js, from embed_hosts.py); the pytest side
// judges the answers with embed_hosts.problems, so both browsers are held to one rule.
//
// Per load: wait until every frame posted its height, the host applied it (when it resizes) and no
// message came for 600 ms, and every frame's scripts, fonts and datasets are ready; read the host and
// every frame; on the page with the slimmer explorer, scroll its diagram into a VIEW-high viewport,
// click the T slider where it shows and read the slider again.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (source, arg) => `(${source})(${arg === undefined ? '' : JSON.stringify(arg)})`;

function settled(load, state) {
  const frames = state.frames;
  if (frames.length !== load.frames.length || frames.some((f) => !f.posts.length) || state.quiet < 600) return false;
  return load.kind === 'fixed' || frames.every((f) => Math.abs(f.height - f.posts[f.posts.length - 1]) < 1);
}

async function frames(page) {
  const handles = await page.$$('iframe');
  return Promise.all(handles.map((handle) => handle.contentFrame()));
}

async function measure(page, load, js) {
  const deadline = Date.now() + 40000;
  for (;;) {
    const state = await page.evaluate(call(js.hostState));
    if (settled(load, state) || Date.now() > deadline) {
      const probes = await Promise.all((await frames(page)).map((f) => f.evaluate(call(js.frameProbe))));
      const again = await page.evaluate(call(js.hostState));
      const same = JSON.stringify(again.frames) === JSON.stringify(state.frames);
      if ((same && probes.every((p) => p.ready)) || Date.now() > deadline) return { state: again, probes };
      // a browser defers an off-screen cross-origin frame's work: bring each frame not ready into view
      await page.evaluate((ready) => {
        Array.from(document.getElementsByTagName('iframe')).forEach((f, i) => { if (!ready[i]) f.scrollIntoView(); });
      }, probes.map((p) => p.ready));
    }
    await sleep(200);
  }
}

async function slider(page, load, js, view) {
  await page.setViewport({ width: load.width, height: view });
  const frame = (await frames(page))[load.slim];
  const before = await frame.evaluate(call(js.sliderProbe));
  const [, , , frameTop] = await page.evaluate(call(js.scrollTo, [load.slim, 0]));
  const bottom = frameTop + before.diagram[1] + before.diagram[3];
  const [left, top] = await page.evaluate(call(js.scrollTo, [load.slim, bottom - view + 8]));
  await sleep(100);
  const geometry = { frame: [left, top], ...(await frame.evaluate(call(js.sliderProbe))) };
  const [x, y, width, height] = geometry.slider;
  await page.mouse.click(left + x + 0.8 * width, top + y + height / 2);
  let after = before;
  for (let i = 0; i < 50 && after.drawing === before.drawing; i += 1) {
    await sleep(100);
    after = await frame.evaluate(call(js.sliderProbe));
  }
  return { before, after, geometry };
}

// Every load of config.loads on config.hostUrl: [{file, state, probes, slider, seen}] (seen: the page's
// errors, failed and external requests, as the smoke run's summary gives them).
export async function embedHosts(browser, config, watchedPage, summary) {
  const results = [];
  for (const load of config.loads) {
    const { page, seen } = await watchedPage(browser);
    try {
      await page.setViewport({ width: load.width, height: config.tall });
      await page.goto(config.hostUrl + load.file, { waitUntil: 'load' });
      const { state, probes } = await measure(page, load, config.js);
      const result = { file: load.file, state, probes, slider: null };
      if (load.slim !== null) result.slider = await slider(page, load, config.js, config.view);
      await sleep(200); // late errors
      // a copy: requests still open are reported failed once the page closes, after the load was judged
      results.push({ ...result, seen: JSON.parse(JSON.stringify(summary(seen))) });
    } catch (error) {
      results.push({ file: load.file, crash: String(error && error.stack || error), seen: summary(seen) });
    } finally {
      await page.close();
    }
  }
  return results;
}
