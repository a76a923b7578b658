// A CLI `continue` in another process shows on an open session page without a reload.
import { ask, baseUrl, check, checkBehaved, liveOpen, newPage, run, scenario, screenshot } from "./harness.mjs";

await run(async (browser) => {
  const page = await newPage(await browser.newContext());
  await page.goto(`${baseUrl}/sessions/${scenario.session}`);
  await liveOpen(page);
  await screenshot(page, "session-live-before");
  const status = () => page.textContent('[data-testid="session-status"]');
  check((await status()).includes("active"), `the run starts active, the page says ${await status()}`);
  // A reload would drop this mark; an update in place keeps it.
  await page.evaluate(() => {
    window.notReloaded = true;
  });

  await ask("cli", { args: ["continue", scenario.continue_token, "--notes", "Planned the work."] });
  const answered = Date.now();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="session-status"]').textContent.includes("waiting gate"),
    null,
    { timeout: 10000 },
  );
  console.log(`the page showed the CLI's continue ${Date.now() - answered} ms after the command returned`);

  check(await page.evaluate(() => window.notReloaded === true), "the page reloaded instead of updating in place");
  check((await page.locator('[data-testid="approve-button"]').count()) === 1, "the gate's approve button appeared");
  await screenshot(page, "session-live-after");
  checkBehaved(page);
});
