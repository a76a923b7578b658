// Approving and rejecting a gate from the inbox: the run moves, as `switchyard status` confirms.
import { ask, baseUrl, check, checkBehaved, liveOpen, newPage, run, scenario, screenshot } from "./harness.mjs";

async function status(run) {
  return (await ask("cli", { args: ["status", run] })).json;
}

await run(async (browser) => {
  const page = await newPage(await browser.newContext());
  await page.goto(`${baseUrl}/gates`);
  await liveOpen(page);
  check((await page.locator('[data-testid="gate-item"]').count()) === 2, "two runs wait at a gate");
  await screenshot(page, "gates");

  const approved = page.locator(`[data-testid="gate-item"][data-run="${scenario.approve}"]`);
  await Promise.all([page.waitForNavigation(), approved.locator('[data-testid="approve-button"]').click()]);
  check((await page.textContent('[data-testid="flash"]')).startsWith("Approved"), "the inbox says it approved");
  check((await approved.count()) === 0, "the approved run left the inbox");
  const afterApproval = await status(scenario.approve);
  check(afterApproval.status === "active", `the approved run is active again, not ${afterApproval.status}`);

  const rejected = page.locator(`[data-testid="gate-item"][data-run="${scenario.reject}"]`);
  await rejected.locator('[data-testid="reject-reason"]').fill("The plan skips the tests.");
  await Promise.all([page.waitForNavigation(), rejected.locator('[data-testid="reject-button"]').click()]);
  check((await page.textContent('[data-testid="flash"]')).startsWith("Rejected"), "the inbox says it rejected");
  check((await page.locator('[data-testid="gate-item"]').count()) === 0, "nothing waits any more");
  const afterRejection = await status(scenario.reject);
  check(afterRejection.status === "active", `the rejected run went back to its agent, not ${afterRejection.status}`);
  await screenshot(page, "gates-after");
  checkBehaved(page);
});
