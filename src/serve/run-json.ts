/** A run as the HTTP API shows it: its committed row read out, without the raw XState snapshot. */
import type { RunSnapshot } from '../runtime/index.js';

export interface RunJson {
  readonly runId: string;
  readonly machine: string;
  readonly version: number;
  readonly status: string;
  readonly state: string;
  readonly seq: number;
  readonly value: unknown;
  readonly context: unknown;
  readonly input: unknown;
  readonly owner: { id: string; pid: number; host: string } | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function runJson(run: RunSnapshot): RunJson {
  return {
    runId: run.runId,
    machine: run.machine,
    version: run.version,
    status: run.status,
    state: run.state,
    seq: run.seq,
    value: run.value,
    context: run.context,
    input: run.input ?? null,
    owner: run.owner ? { id: run.owner.id, pid: run.owner.pid, host: run.owner.host } : null,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}
