import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/actor-contract/clock.js';
import {
  BROADCAST,
  CURSORS_FILE,
  CursorError,
  MESSAGE_LOG_FILE,
  MessageLog,
} from '../../src/review-loop/message-log.js';

let dir: string;
const open: MessageLog[] = [];
const openLog = async (clock = new ManualClock()) => {
  const log = await MessageLog.open(dir, { clock });
  open.push(log);
  return log;
};
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statewright-bridge-'));
});
afterEach(async () => {
  for (const log of open.splice(0)) await log.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

const contents = (messages: ReadonlyArray<{ content: string }>) => messages.map((m) => m.content);

describe('the bridge message log', () => {
  it('delivers messages addressed to an agent, and broadcasts from others, once per cursor', async () => {
    const log = await openLog();
    await log.send({ from: 'system', to: 'primary', type: 'task', content: 'fix the bug' });
    await log.send({ from: 'primary', to: 'reviewer', type: 'result', content: 'fixed' });
    await log.send({ from: 'primary', to: BROADCAST, type: 'note', content: 'touched the parser' });
    expect(contents(await log.drain('primary'))).toEqual(['fix the bug']); // not its own broadcast
    expect(contents(await log.drain('reviewer'))).toEqual(['fixed', 'touched the parser']);
    expect(await log.drain('primary')).toEqual([]);
    expect(await log.drain('reviewer')).toEqual([]);

    await log.send({ from: 'reviewer', to: 'primary', type: 'review', content: 'add a test', iteration: 1 });
    expect(contents(await log.drain('primary'))).toEqual(['add a test']);
    expect(await log.drain('reviewer')).toEqual([]);
  });

  it('does not append a message whose id is already in the log', async () => {
    const log = await openLog();
    const first = await log.send({
      id: 'run-1:1:result',
      from: 'primary',
      to: 'reviewer',
      type: 'result',
      content: 'v1',
    });
    const again = await log.send({
      id: 'run-1:1:result',
      from: 'primary',
      to: 'reviewer',
      type: 'result',
      content: 'v2',
    });
    expect([first.delivered, again.delivered, again.message.content]).toEqual([true, false, 'v1']);
    const concurrent = await Promise.all(
      [1, 2, 3].map((n) => log.send({ id: 'same', from: 'a', to: 'b', type: 'note', content: `${n}` })),
    );
    expect(concurrent.filter((r) => r.delivered)).toHaveLength(1);
    expect(log.messages).toHaveLength(2);
    expect((await readFile(join(dir, MESSAGE_LOG_FILE), 'utf8')).trim().split('\n')).toHaveLength(2);
  });

  it('keeps messages and cursors across a reopen, so a resumed run neither loses nor repeats them', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const log = await openLog(clock);
    await log.send({ from: 'system', to: 'primary', type: 'task', content: 'one' });
    await log.drain('primary');
    clock.advance(1000);
    await log.send({ from: 'reviewer', to: 'primary', type: 'review', content: 'two' });
    await log.close();

    const reopened = await openLog();
    expect(reopened.problems).toEqual([]);
    expect(reopened.messages.map((m) => [m.content, m.at])).toEqual([
      ['one', Date.UTC(2026, 0, 1)],
      ['two', Date.UTC(2026, 0, 1) + 1000],
    ]);
    expect(reopened.cursor('primary')).toBe(1);
    expect(contents(await reopened.drain('primary'))).toEqual(['two']);
  });

  it('delivers again what was not acknowledged before a crash', async () => {
    const log = await openLog();
    await log.send({ from: 'system', to: 'primary', type: 'task', content: 'task' });
    const pending = log.pending('primary');
    expect(contents(pending.messages)).toEqual(['task']);
    await log.close(); // the runner dies before the agent used the messages

    const reopened = await openLog();
    const again = reopened.pending('primary');
    expect(contents(again.messages)).toEqual(['task']);
    await reopened.ack('primary', again.cursor);
    expect(reopened.pending('primary').messages).toEqual([]);
  });

  it('refuses a cursor beyond the log or behind the agent', async () => {
    const log = await openLog();
    await log.send({ from: 'a', to: 'b', type: 'note', content: 'x' });
    await log.ack('b', 1);
    await expect(log.ack('b', 2)).rejects.toThrow(CursorError);
    await expect(log.ack('b', 0)).rejects.toThrow(/it is at 1 and the log has 1 messages/);
    await expect(log.ack('b', 0.5)).rejects.toThrow(CursorError);
  });

  it('reports a torn last line and a corrupt line with path and line, and appends cleanly after them', async () => {
    const log = await openLog();
    await log.send({ from: 'a', to: 'b', type: 'note', content: 'kept' });
    await log.close();
    const path = join(dir, MESSAGE_LOG_FILE);
    await appendFile(path, 'not json\n{"id":"x","from":"a","to":"b","type":"note","content":"half');

    const reopened = await openLog();
    expect(reopened.problems).toEqual([
      { path, line: 2, reason: expect.stringMatching(/^not valid JSON/) },
      { path, line: 3, reason: expect.stringMatching(/^torn last line/) },
    ]);
    expect(contents(reopened.messages)).toEqual(['kept']);
    await reopened.send({ from: 'a', to: 'b', type: 'note', content: 'after' });
    await reopened.close();
    const third = await openLog();
    expect(contents(third.messages)).toEqual(['kept', 'after']);
    expect(third.problems.map((p) => p.line)).toEqual([2]);
  });

  it('reports damaged cursors and falls back to their last good copy', async () => {
    const log = await openLog();
    for (const content of ['1', '2']) await log.send({ from: 'a', to: 'b', type: 'note', content });
    await log.ack('b', 1);
    await log.ack('b', 2);
    await log.close();
    await writeFile(join(dir, CURSORS_FILE), '{"b": ');

    const reopened = await openLog();
    expect(reopened.problems).toEqual([
      { path: join(dir, CURSORS_FILE), line: 1, reason: expect.stringContaining('cursors unreadable') },
    ]);
    expect(reopened.cursor('b')).toBe(1);
    expect(contents(reopened.pending('b').messages)).toEqual(['2']);
  });

  it('refuses a message it could not read back', async () => {
    const log = await openLog();
    await expect(log.send({ from: 'a', to: 'b', type: 'gossip' as 'note', content: 'x' })).rejects.toThrow(/type/);
    expect(log.messages).toEqual([]);
  });
});
