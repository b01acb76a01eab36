/** The systems whose waiting workflows are measured, by the key `idle.ts` is called with. */
import type { Sleepers } from './system.js';

export const sleeperKeys = [
  'statewright-sqlite',
  'statewright-postgres',
  'dbos-postgres',
  'langgraph-sqlite',
  'langgraph-postgres',
] as const;
export type SleeperKey = (typeof sleeperKeys)[number];

/** Imported on demand, so that a child loads only the system it measures. */
export async function sleepersFor(key: SleeperKey): Promise<Sleepers> {
  switch (key) {
    case 'statewright-sqlite':
    case 'statewright-postgres':
      return (await import('./systems/statewright.js')).statewrightSleepers(
        key === 'statewright-sqlite' ? 'sqlite' : 'postgres',
      );
    case 'dbos-postgres':
      return (await import('./systems/dbos.js')).dbosSleepers();
    case 'langgraph-sqlite':
    case 'langgraph-postgres':
      return (await import('./systems/langgraph.js')).langgraphSleepers(
        key === 'langgraph-sqlite' ? 'sqlite' : 'postgres',
      );
  }
}
