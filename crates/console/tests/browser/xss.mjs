// Agent-written text is never run: notes with <script>, event handlers and javascript: links show
// as text on the session and node pages, and clicking what looks like a link runs nothing.
import { baseUrl, check, checkBehaved, newPage, run, scenario, screenshot } from "./harness.mjs";

async function checkInert(page) {
  check(await page.evaluate(() => window.xssRan === undefined), "an injected script ran");
  const scripts = await page.evaluate(() => Array.from(document.scripts, (script) => script.src || "inline"));
  check(scripts.every((src) => src.endsWith("/assets/live.js")), `unexpected scripts: ${scripts.join(", ")}`);
  const injected = await page.evaluate(
    () => document.querySelectorAll("[onerror], [onclick], [onload], iframe, object, embed, img[src='x']").length,
  );
  check(injected === 0, `${injected} injected elements exist`);
  const javascriptLinks = await page.evaluate(
    () => Array.from(document.querySelectorAll("a[href]")).filter((a) => /^\s*javascript:/i.test(a.getAttribute("href"))).length,
  );
  check(javascriptLinks === 0, `${javascriptLinks} javascript: links exist`);
}

await run(async (browser) => {
  const page = await newPage(await browser.newContext());
  await page.goto(`${baseUrl}/sessions/${scenario.session}`);
  await checkInert(page);
  check((await page.textContent('[data-testid="session-goal"]')).includes("<script>"), "the goal shows as text");
  await screenshot(page, "xss-session");

  await page.goto(`${baseUrl}/sessions/${scenario.session}/nodes/${scenario.node}`);
  await page.waitForSelector('[data-testid="notes"]');
  await checkInert(page);
  const notes = await page.textContent('[data-testid="notes"]');
  check(notes.includes("<script>"), `the notes show the script as text: ${notes}`);
  const bait = page.locator('[data-testid="notes"] a', { hasText: "bait" });
  if ((await bait.count()) > 0) {
    await bait.first().click();
  }
  await checkInert(page);
  await screenshot(page, "xss-node");
  checkBehaved(page);
});
