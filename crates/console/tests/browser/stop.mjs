// Stopping a run asks first: Enter in "Reason to stop" does not stop it, and the Stop button
// stops it only once the box saying stopping is permanent is ticked.
import { ask, baseUrl, check, checkBehaved, newPage, run, scenario, screenshot } from "./harness.mjs";

async function status() {
  return (await ask("cli", { args: ["status", scenario.run] })).json;
}

await run(async (browser) => {
  const page = await newPage(await browser.newContext());
  await page.goto(`${baseUrl}/sessions/${scenario.session}`);
  await page.fill('[data-testid="stop-reason"]', "started the wrong workflow");
  await page.press('[data-testid="stop-reason"]', "Enter");
  // Had the form gone out, the page would have moved on to the redirect.
  await page.waitForTimeout(500);
  check(page.url().endsWith(`/sessions/${scenario.session}`), `Enter moved the page to ${page.url()}`);
  const afterEnter = await status();
  check(afterEnter.status !== "stopped" && afterEnter.control !== "stopped", `Enter in the reason stopped the run: ${JSON.stringify(afterEnter)}`);
  check(
    await page.$eval('[data-testid="stop-confirm"]', (box) => !box.validity.valid),
    "the unticked confirmation is what held the form back",
  );
  await screenshot(page, "stop-asks-first");

  await page.check('[data-testid="stop-confirm"]');
  await Promise.all([page.waitForNavigation(), page.click('[data-testid="stop-button"]')]);
  check((await page.textContent('[data-testid="flash"]')).startsWith("Stopped"), "the page says it stopped");
  const afterStop = await status();
  check(afterStop.status === "stopped" || afterStop.control === "stopped", `the run is stopped, not ${JSON.stringify(afterStop)}`);
  checkBehaved(page);
});
