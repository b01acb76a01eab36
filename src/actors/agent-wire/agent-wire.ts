/**
 * One agent's metering proxy, as its supervisor holds it: started before the agent is spawned
 * (its command line or environment pointed at it: agent-endpoint.ts), recorded in the agent's pid
 * record (port and path secret), and its metered calls appended to `<logPath>.wire`, one JSON line
 * each. An agent adopted after a restart is served again: in this process by the same proxy (its
 * listener moved to the adopting supervisor), after a crash by a new one on the recorded port and
 * secret, its spent cost taken from the wire log, whose calls are reported again (their ids make
 * the reports idempotent). Between a host's end and the next host's start the agent's calls find
 * nobody at the port and the CLI retries them, as it retries any failed connection.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import type { AgentInput } from '../../../machines/agent-input.js';
import { PRIVATE_FILE_MODE } from '../../os/private-files.js';
import { findAgentEndpoint } from './agent-endpoint.js';
import { MeteringProxy, type MeteredCall, type WireListener } from './metering-proxy.js';

/** Proxies of agents handed over within this process, by port: the adopting supervisor takes them. */
const handedOver = new Map<number, MeteringProxy>();

export interface OpenedWire {
  proxy: MeteringProxy;
  /** The agent's command line and environment pointed at the proxy (for a spawn). */
  command: string[];
  env: Record<string, string>;
  /** Calls metered before this supervisor (from the wire log), to report again. */
  earlier: MeteredCall[];
}

/** `<logPath>.wire`'s calls, in order; a torn last line is skipped. */
export function readWireLog(path: string): MeteredCall[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      const call = JSON.parse(line) as MeteredCall;
      return typeof call.id === 'string' && typeof call.costUsd === 'number' ? [call] : [];
    } catch {
      return [];
    }
  });
}

export function appendWireLog(path: string, call: MeteredCall): void {
  appendFileSync(path, `${JSON.stringify(call)}\n`, { mode: PRIVATE_FILE_MODE });
}

/**
 * The proxy for `input`'s agent, or `{ unmetered }` when its endpoint cannot be found. `recorded`:
 * the port and secret of an adopted agent's proxy; the wire log seeds what was spent.
 */
export async function openWire(
  input: AgentInput,
  listener: WireListener,
  recorded?: { port: number; secret: string },
): Promise<OpenedWire | { unmetered: string }> {
  const env = { ...process.env, ...input.env };
  const endpoint = findAgentEndpoint(input.command, env);
  if ('unmetered' in endpoint) return endpoint;
  const earlier = recorded ? readWireLog(`${input.logPath}.wire`) : [];
  const last = earlier.at(-1);
  const own = recorded && handedOver.get(recorded.port);
  let proxy: MeteringProxy;
  if (own && own.secret === recorded.secret) {
    handedOver.delete(recorded.port);
    own.listener = listener;
    proxy = own;
  } else {
    proxy = await MeteringProxy.start({
      api: endpoint.api,
      upstream: endpoint.upstream,
      ...(recorded && { port: recorded.port, secret: recorded.secret }),
      ...(input.pricing && { pricing: input.pricing }),
      ...(input.wire?.budgetUsd !== undefined && { budgetUsd: input.wire.budgetUsd }),
      ...(last && { spentUsd: last.spentUsd, calls: last.calls }),
      listener,
    });
  }
  const pointed = endpoint.point(proxy.url);
  return { proxy, command: pointed.command, env: pointed.env, earlier };
}

/** The supervisor lets go of a running agent within this process: its proxy waits for the adopter. */
export function handOverWire(proxy: MeteringProxy): void {
  handedOver.set(proxy.port, proxy);
}

/** An agent handed over but found gone: nobody will adopt its proxy. */
export function closeHandedOverWire(port: number): void {
  const proxy = handedOver.get(port);
  handedOver.delete(port);
  void proxy?.close();
}
