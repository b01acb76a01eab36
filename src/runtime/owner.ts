/** Who a runtime is, as recorded on every commit: an id, and the process that can be checked for life. */
import { randomUUID } from 'node:crypto';
import type { OwnerInfo } from '../stores/store.js';
import { processStartTime, thisHost } from '../os/process-identity.js';

/** This process on this host, with a fresh id unless `owner` names one; its other fields override. */
export function resolveOwner(owner: string | Partial<OwnerInfo> | undefined): OwnerInfo {
  const pid = process.pid;
  const base: OwnerInfo = {
    id: `${thisHost()}:${pid}:${randomUUID().slice(0, 8)}`,
    pid,
    pidStart: processStartTime(pid) ?? 'unknown',
    host: thisHost(),
  };
  if (typeof owner === 'string') return { ...base, id: owner };
  return { ...base, ...owner };
}
