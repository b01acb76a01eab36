import { moveWords } from '../graph/move-words.js';
import type { Explanation, HostedOn } from './explanation.js';
import { span, type HostLease } from './host-lease.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** An explanation as a person reads it in a terminal: the verdict first, then each part that applies. */
export function explanationText(e: Explanation): string {
  const lines = [
    `${e.runId} (${e.machine}) is in '${e.state}' since ${iso(e.since)} (${e.status})`,
    `verdict: ${e.verdict}`,
  ];
  if (e.setAside) lines.push(`set aside: ${e.setAside.reason}`);
  if (e.waitingFor?.length) {
    lines.push('waiting for a person:');
    for (const w of e.waitingFor) {
      lines.push(`  ${w.kind} ${w.id}: ${w.summary}${w.detail ? ` ${w.detail}` : ''}`);
      if (w.approve) lines.push(`    approve: ${JSON.stringify(w.approve)}`);
      if (w.deny) lines.push(`    deny:    ${JSON.stringify(w.deny)}`);
    }
  }
  if (e.accepts.length) {
    lines.push('accepts:');
    const width = Math.max(...e.accepts.map((a) => a.type.length));
    for (const a of e.accepts) {
      const needs = [
        a.needs.roles?.length ? `from ${a.needs.roles.join(' or ')}` : '',
        a.needs.fields.length ? `needs ${a.needs.fields.join(', ')}` : 'needs nothing more',
      ];
      lines.push(`  ${a.type.padEnd(width)}  ${needs.filter(Boolean).join('; ')}`);
    }
  } else lines.push('accepts: nothing');
  // Older servers' explanations have no movesOnItsOwn.
  const own = e.movesOnItsOwn ?? [];
  if (own.length) {
    lines.push('moves on its own:');
    for (const move of own) lines.push(`  ${moveWords(move)}`);
  }
  if (e.actors)
    lines.push(
      `actors: ${[
        ...e.actors.awaited.map((name) => `${name} (it waits on it)`),
        ...e.actors.spawned.map((name) => `${name} (spawned, runs beside it)`),
      ].join(', ')}`,
    );
  lines.push(e.deadlines.length ? 'deadlines:' : 'deadlines: none armed');
  for (const d of e.deadlines)
    lines.push(`  ${d.name}: ${d.event ?? 'fires'} at ${iso(d.at)}${d.target ? `, to ${d.target}` : ''}`);
  lines.push(
    e.owner
      ? `owner: ${e.owner.id} (pid ${e.owner.pid} on ${e.owner.host}, ${e.owner.alive ? 'alive' : 'gone'})`
      : e.hostedOn
        ? `owner: ${hostedOnLine(e.hostedOn)}`
        : 'owner: none',
  );
  // Older servers' explanations have no severalHosts: they spoke of the lease always.
  if (e.hostLease && e.severalHosts !== false) lines.push(`host: ${hostLine(e.hostLease)}`);
  if (e.wakeAt !== undefined) lines.push(`wakes at: ${iso(e.wakeAt)} (its next deadline, in the store's timer index)`);
  if (e.lease)
    lines.push(
      `lease: ${e.lease.holder} until ${iso(e.lease.expiresAt)} (last heartbeat ${iso(e.lease.lastHeartbeat)})`,
    );
  if (e.agent)
    lines.push(
      `agent: pid ${e.agent.pid}, ${e.agent.alive ? 'alive' : 'gone'}, last wrote ${e.agent.lastWriteAt === null ? 'never' : iso(e.agent.lastWriteAt)}`,
    );
  if (e.lastRefused)
    lines.push(
      `last refused: ${e.lastRefused.event.type} at ${iso(e.lastRefused.at)}: ${e.lastRefused.error}: ${e.lastRefused.message}`,
    );
  return `${lines.join('\n')}\n`;
}

/** Where a run an engine hosts lives, as one line (the live view's explain panel says the same). */
export function hostedOnLine(h: HostedOn): string {
  return `on Restate: its virtual object ${h.object} (key ${h.key}), served by the worker`;
}

/** The host lease as one line: who, which epoch, until when, and the age of its last heartbeat. */
function hostLine(l: HostLease): string {
  const heartbeat = `last heartbeat ${span(l.heartbeatAgeMs)} ago, at ${iso(l.renewedAt)}`;
  if (l.state === 'released')
    return `released by '${l.holder}' at epoch ${l.epoch}: asleep, held by no host (${heartbeat})`;
  if (l.state === 'handedOver')
    return `handed over by '${l.holder}' at epoch ${l.epoch}, for the next host to adopt (${heartbeat})`;
  return `'${l.holder}' holds it at epoch ${l.epoch}, ${l.expired ? 'expired at' : 'until'} ${iso(l.expiresAt)} (${heartbeat})`;
}
