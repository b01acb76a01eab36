/**
 * A real Claude Code session's tool call, approved and denied by a person in the live view: the
 * real `claude` (test/real-agents) as a session's agent on a real `statewright serve`, answered by
 * the scripted model server, asks serve's `statewright mcp` (its default permission prompt tool)
 * before its Bash command; the session waits in waiting_input with the call shown, and the view's
 * approve button lets the command run, its deny button keeps it from running and Claude's model is
 * told it was denied. Needs `npm run build` (the bin and dist/ui).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { assertRealAgentsInstalled } from '../real-agents/real-agents.js';
import { bashThenFinish, runWhen, startClaudeSession } from '../real-agents/served-claude-session.js';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage, keepScreenshot, openView } from '../support/live-page.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';

beforeAll(assertRealAgentsInstalled);

/** The run's page, once its tool call waits there for a person; returns the pending call's text. */
async function pendingCall(page: Page, serve: ServeProcess, id: string): Promise<string> {
  await page.goto(`${serve.url}/#/runs/${id}`);
  await page.locator('[data-pending] button[name="approve"]').waitFor({ timeout: 60_000 });
  return (await page.locator('[data-pending]').textContent()) ?? '';
}

const finished = (serve: ServeProcess, id: string) => runWhen(serve, id, (run) => run.status !== 'active');

it("a real claude's Bash call waits in waiting_input until a person approves it in the live view; a denied one never runs", async () => {
  expect(existsSync(new URL('../../dist/ui/index.html', import.meta.url)), 'run npm run build').toBe(true);
  const dir = testDir('real-claude-view');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  const browser = await launchBrowser(join(dir, 'chromium-profile'));
  const page = await browser.newPage();
  await openView(page, serve.url, serve.token);

  const approved = await startClaudeSession(
    serve,
    dir,
    'claude-approve',
    bashThenFinish('echo approved > approved.txt'),
  );
  expect(await pendingCall(page, serve, 'claude-approve')).toContain('echo approved > approved.txt');
  expect(await page.locator('.state-now').textContent()).toBe('waiting_input');
  // Waiting for the person, Claude has not run the command.
  expect(existsSync(join(approved.work, 'approved.txt'))).toBe(false);
  await keepScreenshot(page, 'real-claude-approval.png');
  await page.locator('[data-pending] button[name="approve"]').click();
  const done = await finished(serve, 'claude-approve');
  expect(done.state, JSON.stringify(done.context)).toBe('completed');
  expect(readFileSync(join(approved.work, 'approved.txt'), 'utf8')).toBe('approved\n');
  await inPage(page, `document.querySelector('.state-now')?.textContent === 'completed'`);
  approved.model.assertAllAnswered();

  const denied = await startClaudeSession(serve, dir, 'claude-deny', bashThenFinish('echo denied > denied.txt'));
  expect(await pendingCall(page, serve, 'claude-deny')).toContain('echo denied > denied.txt');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('[data-pending] button[name="deny"]').click();
  const after = await finished(serve, 'claude-deny');
  expect(after.state, JSON.stringify(after.context)).toBe('completed');
  expect(existsSync(join(denied.work, 'denied.txt'))).toBe(false);
  // The model was told, in the tool's result, that the call was denied; the session records the denial.
  expect(denied.model.requests[1]!.texts.at(-1)).toMatch(/denied/i);
  expect(after.context.permission_denials).toEqual([expect.objectContaining({ tool_name: 'Bash' })]);
  const history = (await api(serve.url, 'GET', '/api/runs/claude-deny/history')).body.events as {
    event: { type: string; decision?: string };
    actor?: string;
  }[];
  expect(history.find((entry) => entry.event.type === 'APPROVAL_RESOLVED')).toMatchObject({
    event: { decision: 'denied' },
  });
});
