// Lighthouse on several URLs with one Chrome, for tools/bench.py (the gate test and `make bench`).
//   node tools/lighthouse_many.mjs OUT_DIR CATEGORIES PROFILE_DIR URL...
// Writes OUT_DIR/0.json, 1.json, ...: each URL's report as `lighthouse URL --output=json` writes it
// (the default, mobile config; storage is reset before each audit, as for a fresh CLI run).
// One Chrome for all: launching Chrome once per URL, as the CLI does, cost the test suite time.
import {writeFileSync} from 'node:fs';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';

const [outDir, categories, profile, ...urls] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH, userDataDir: profile,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
                '--disable-background-networking', '--disable-component-update', '--disable-sync']});
// An error outside the awaited calls (a socket to Chrome refused as it starts) ends node without the
// `finally` below: Chrome is killed here too, or it outlives the run.
process.on('uncaughtException', (err) => {
  console.error(err);
  Promise.resolve(chrome.kill()).finally(() => process.exit(1));
});
try {
  for (const [i, url] of urls.entries()) {
    const result = await lighthouse(url, {port: chrome.port, output: 'json', logLevel: 'error',
      onlyCategories: categories.split(','), disableFullPageScreenshot: true, maxWaitForLoad: 60000});
    if (!result) throw new Error(`lighthouse returned nothing for ${url}`);
    writeFileSync(`${outDir}/${i}.json`, result.report);
  }
} finally {
  await chrome.kill();
}
