// What every browser scenario shares: Chromium through playwright-core, the conversation with the
// Rust test that started `switchyard serve` (crates/cli/tests/console_browser.rs), screenshots,
// and a watch on everything a page must never do (open a dialog, throw, log an error).
//
// The Rust test passes, in the environment:
//   CONSOLE_URL       the console's address, e.g. http://127.0.0.1:43125
//   PLAYWRIGHT_CORE   a file: URL of playwright-core's entry point (installed in target/test-tools)
//   CHROMIUM          the Chromium executable (Debian's /usr/bin/chromium)
//   SCREENSHOT_DIR    where screenshots go (target/console-screenshots)
//   SCENARIO          what the Rust test set up for this script, as JSON
// A script asks the Rust test to act (run a CLI command in another process, restart the server)
// by printing `@@harness {json}` on stdout; the answer comes back as one JSON line on stdin.
import { createInterface } from "node:readline";

const { chromium } = await import(process.env.PLAYWRIGHT_CORE);

export const baseUrl = process.env.CONSOLE_URL;
export const scenario = JSON.parse(process.env.SCENARIO || "{}");

const answers = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

/** Asks the Rust test to do `action` and waits for its answer. */
export async function ask(action, details = {}) {
  console.log(`@@harness ${JSON.stringify({ action, ...details })}`);
  const { value, done } = await answers.next();
  if (done) {
    throw new Error(`the harness closed stdin instead of answering ${action}`);
  }
  const answer = JSON.parse(value);
  if (answer.error) {
    throw new Error(`the harness could not ${action}: ${answer.error}`);
  }
  return answer;
}

export function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

/** Chromium as Debian ships it, headless, with nothing that reaches the network by itself. */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/**
 * A page that records what must never happen on a console page: a dialog (alert, confirm,
 * prompt), an uncaught exception, an error logged to the console, a request the server answered
 * with 404 (a missing asset, a `/favicon.ico` the page failed to declare). `page.misdeeds` lists
 * them.
 */
export async function newPage(context) {
  const page = await context.newPage();
  page.misdeeds = [];
  page.on("dialog", async (dialog) => {
    page.misdeeds.push(`dialog ${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on("pageerror", (error) => page.misdeeds.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") {
      page.misdeeds.push(`console error: ${message.text()} (${message.location().url || ""})`);
    }
  });
  page.on("response", (response) => {
    if (response.status() === 404) page.misdeeds.push(`404 for ${response.url()}`);
  });
  return page;
}

/** Fails if the page did anything it must never do; `allowed` filters expected console errors. */
export function checkBehaved(page, allowed = () => false) {
  const misdeeds = page.misdeeds.filter((misdeed) => !allowed(misdeed));
  check(misdeeds.length === 0, `the page misbehaved:\n  ${misdeeds.join("\n  ")}`);
}

/** Waits until live.js has its event stream open. */
export async function liveOpen(page) {
  await page.waitForFunction(() => document.documentElement.getAttribute("data-live-state") === "open", null, {
    timeout: 10000,
  });
}

export async function screenshot(page, name) {
  await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/${name}.png`, fullPage: true });
}

/** Runs a scenario: the browser is closed and the process exits 0 only if `main` succeeded. */
export async function run(main) {
  const browser = await launch();
  let failed = false;
  try {
    await main(browser);
  } catch (error) {
    failed = true;
    console.error(error && error.stack ? error.stack : String(error));
    // What the pages showed when it failed: their address, their text and a screenshot.
    const name = process.argv[1].split("/").pop().replace(/\.mjs$/, "");
    let index = 0;
    for (const context of browser.contexts()) {
      for (const page of context.pages()) {
        index += 1;
        const text = await page.evaluate(() => document.body && document.body.innerText).catch(() => "");
        console.error(`\npage ${index} at ${page.url()}:\n${String(text).slice(0, 2000)}`);
        await screenshot(page, `failed-${name}-${index}`).catch(() => {});
      }
    }
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
}
