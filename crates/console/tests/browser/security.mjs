// A server bound off loopback with a token: a wrong token is refused at the login form, and a
// form posted from a foreign origin (another local server's page, with the person logged in) is
// refused and moves nothing.
import { createServer } from "node:http";

import { ask, baseUrl, check, checkBehaved, newPage, run, scenario, screenshot } from "./harness.mjs";

function foreignSite(target) {
  const page = `<!doctype html><title>elsewhere</title>
<form id="attack" method="post" action="${target}/gates/approve">
<input name="run" value="${scenario.run}"><input name="session" value="${scenario.session}">
<input name="node" value="${scenario.node}"><input name="csrf" value="guessed"><input name="from" value="gates">
</form><script>document.getElementById("attack").submit()</script>`;
  const server = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(page);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

await run(async (browser) => {
  const context = await browser.newContext();
  const page = await newPage(context);
  const refusedStatuses = [];
  page.on("response", (response) => {
    if (response.status() >= 400) {
      refusedStatuses.push(`${response.status()} ${response.url()}`);
    }
  });

  const events = await context.request.get(`${baseUrl}/events`, { maxRedirects: 0 });
  check(events.status() === 401 || events.status() === 303, `/events without a login answers ${events.status()}`);

  await page.goto(`${baseUrl}/`);
  await page.waitForSelector('[data-testid="login-form"]');
  await page.fill('[data-testid="login-token"]', "not-the-token");
  await page.click('[data-testid="login-submit"]');
  await page.waitForSelector('[data-testid="login-refused"]');
  await screenshot(page, "login-refused");

  await page.fill('[data-testid="login-token"]', scenario.token);
  await Promise.all([page.waitForNavigation(), page.click('[data-testid="login-submit"]')]);
  await page.goto(`${baseUrl}/gates`);
  check((await page.locator('[data-testid="gate-item"]').count()) === 1, "logged in, the inbox shows the waiting run");

  const site = await foreignSite(baseUrl);
  const foreign = `http://127.0.0.1:${site.address().port}/`;
  const posted = page.waitForResponse((response) => response.url().endsWith("/gates/approve"));
  await page.goto(foreign);
  const answer = await posted;
  check(answer.status() === 403, `the foreign form's post answered ${answer.status()}, not 403`);
  await screenshot(page, "foreign-origin-refused");
  site.close();

  const after = (await ask("cli", { args: ["status", scenario.run] })).json;
  check(after.status === "waiting_gate", `the foreign post moved the run to ${after.status}`);
  // The refusals above are what this scenario provokes; nothing else may fail.
  checkBehaved(page, (misdeed) => misdeed.includes("401") || misdeed.includes("403"));
});
