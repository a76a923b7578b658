// The sessions list and its search, a session's graph after a fork, a node's detail, the workflow
// catalog and verify: each page renders, behaves, and is kept as a screenshot.
import { baseUrl, check, checkBehaved, liveOpen, newPage, run, scenario, screenshot } from "./harness.mjs";

await run(async (browser) => {
  const page = await newPage(await browser.newContext({ viewport: { width: 1280, height: 900 } }));
  await page.goto(`${baseUrl}/`);
  await liveOpen(page);
  const rows = await page.locator('[data-testid="session-row"]').count();
  check(rows === scenario.sessions.length, `the list shows ${rows} sessions, ${scenario.sessions.length} were started`);
  await screenshot(page, "sessions");

  await page.fill('[data-testid="search-input"]', scenario.search.word);
  await Promise.all([page.waitForURL(/[?&]q=/), page.click('[data-testid="filter-submit"]')]);
  const found = await page.locator('[data-testid="session-row"]').allTextContents();
  check(found.length === 1, `the search for ${scenario.search.word} finds one session, not ${found.length}`);
  check(found[0].includes(scenario.search.goal), `the search finds the session whose goal it names: ${found[0]}`);
  await screenshot(page, "sessions-search");

  await page.goto(`${baseUrl}/sessions/${scenario.forked.session}`);
  const nodes = await page.locator('#run-graph [data-testid="node-link"]').count();
  check(nodes === scenario.forked.nodes, `the graph draws ${nodes} nodes of ${scenario.forked.nodes}`);
  check((await page.locator('[data-testid="run-diagram"]').count()) === 1, "the run diagram is drawn");
  const tip = page.locator('#run-graph [data-testid="node-link"][aria-current="step"]');
  check((await tip.count()) === 1, "the tip is marked");
  await screenshot(page, "session-fork");

  await Promise.all([page.waitForURL(/\/nodes\//), tip.click()]);
  await screenshot(page, "node");

  await page.goto(`${baseUrl}/workflows`);
  check((await page.locator('[data-testid="workflow-row"]').count()) > 0, "the catalog lists workflows");
  await screenshot(page, "workflows");
  await page.click('[data-testid="workflow-link"] >> nth=0');
  await page.waitForSelector('[data-testid="workflow-title"]');
  await screenshot(page, "workflow");

  await page.goto(`${baseUrl}/verify`);
  check((await page.textContent('[data-testid="verify-summary"]')).length > 0, "verify says something");
  await screenshot(page, "verify");
  checkBehaved(page);
});
