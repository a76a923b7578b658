// The server restarts while a page is open: the page says it is reconnecting, reconnects by itself
// and shows what changed while the server was down.
import { ask, baseUrl, check, checkBehaved, liveOpen, newPage, run, screenshot } from "./harness.mjs";

await run(async (browser) => {
  const page = await newPage(await browser.newContext());
  await page.goto(`${baseUrl}/`);
  await liveOpen(page);
  await page.evaluate(() => {
    window.notReloaded = true;
    window.liveStates = [];
    new MutationObserver(() => {
      window.liveStates.push(document.documentElement.getAttribute("data-live-state"));
    }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-live-state"] });
  });

  await ask("stop-server");
  await page.waitForFunction(() => document.documentElement.getAttribute("data-live-state") === "reconnecting", null, {
    timeout: 10000,
  });
  check(
    (await page.textContent('[data-testid="live-status"]')).includes("Reconnecting"),
    "the page says it is reconnecting",
  );
  await screenshot(page, "sessions-reconnecting");
  const { goal } = await ask("start-while-down");
  await ask("start-server");

  await page.waitForSelector(`[data-testid="session-row"]:has-text("${goal}")`, { timeout: 15000 });
  check(await page.evaluate(() => window.notReloaded === true), "the page reloaded instead of updating in place");
  check(await page.isHidden('[data-testid="live-status"]'), "the reconnecting notice is gone");
  const states = await page.evaluate(() => window.liveStates);
  check(states.includes("reconnecting") && states.at(-1) === "open", `live states went ${states.join(" → ")}`);
  await screenshot(page, "sessions-after-restart");
  // While the server was down, the browser logged its failed attempts to reach /events.
  checkBehaved(page, (misdeed) => misdeed.includes("ERR_CONNECTION_REFUSED") || misdeed.includes("/events"));
});
