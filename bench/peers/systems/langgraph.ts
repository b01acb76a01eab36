/**
 * LangGraph with its Postgres and SQLite checkpointers, as its docs advise (a saver from a
 * connection string, `setup()` once, the graph compiled with it, a `thread_id` per conversation):
 * one step = one `invoke` of a one-node graph on the workflow's thread. Run once at its default
 * durability ("async") and once at "sync"; the SQLite saver once as it comes (WAL, and
 * better-sqlite3's build default synchronous=NORMAL in WAL mode: no fsync at commit) and once with
 * `PRAGMA synchronous=FULL`, as statewright's SQLite store runs.
 */
import { Annotation, END, START, StateGraph, interrupt, type BaseCheckpointSaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { randomUUID } from 'node:crypto';
import { dropSchema, freshSchema, postgresUrl } from '../postgres.js';
import { dropSqliteFile, freshSqliteFile } from '../sqlite-files.js';
import type { Sleepers, StoreKind, System } from '../system.js';

type Durability = 'async' | 'sync';
type SqliteSync = 'default' | 'FULL';

const State = Annotation.Root({ count: Annotation<number> });

const counter = new StateGraph(State)
  .addNode('increment', (state) => ({ count: state.count + 1 }))
  .addEdge(START, 'increment')
  .addEdge('increment', END);

const waiting = new StateGraph(State)
  .addNode('wait', () => {
    interrupt('waiting for an event');
    return {};
  })
  .addEdge(START, 'wait')
  .addEdge('wait', END);

interface OpenSaver {
  saver: BaseCheckpointSaver;
  close(): Promise<void>;
}

async function openSaver(kind: StoreKind, location: string, sqliteSync: SqliteSync): Promise<OpenSaver> {
  if (kind === 'postgres') {
    const saver = PostgresSaver.fromConnString(postgresUrl, { schema: location });
    await saver.setup();
    return { saver, close: () => saver.end() };
  }
  const saver = SqliteSaver.fromConnString(location);
  // The saver sets itself up (WAL) on first use; read once so the pragma below is set after that.
  await saver.getTuple({ configurable: { thread_id: 'setup' } });
  if (sqliteSync === 'FULL') saver.db.pragma('synchronous = FULL');
  // The row's label says which it is: hold it to what the connection really does (NORMAL = 1, FULL = 2).
  const synchronous = saver.db.pragma('synchronous', { simple: true });
  const expected = sqliteSync === 'FULL' ? 2 : 1;
  if (synchronous !== expected)
    throw new Error(
      `LangGraph's SQLite saver runs with synchronous=${String(synchronous)}, the table expects ${expected}: relabel the row`,
    );
  return {
    saver,
    close: async () => {
      saver.db.close();
    },
  };
}

const freshLocation = (kind: StoreKind) =>
  kind === 'postgres' ? freshSchema('langgraph') : freshSqliteFile('langgraph');

async function dropLocation(kind: StoreKind, location: string) {
  if (kind === 'postgres') await dropSchema(location);
  else dropSqliteFile(location);
}

export function langgraph(kind: StoreKind, durability: Durability, sqliteSync: SqliteSync = 'default'): System {
  const settings = [`durability ${durability}${durability === 'async' ? ' (default)' : ''}`];
  if (kind === 'sqlite')
    settings.push(sqliteSync === 'FULL' ? 'synchronous=FULL' : 'saver as it comes (synchronous=NORMAL)');
  return {
    name: `LangGraph, ${settings.join(', ')}`,
    store: kind,
    async open() {
      const location = freshLocation(kind);
      const { saver, close } = await openSaver(kind, location, sqliteSync);
      const graph = counter.compile({ checkpointer: saver });
      return {
        async workflows(count) {
          const threads = Array.from({ length: count }, () => ({
            configurable: { thread_id: randomUUID() },
            durability,
          }));
          const counts = threads.map(() => 0);
          return async (i) => {
            counts[i] = (await graph.invoke({ count: counts[i]! }, threads[i]!)).count;
          };
        },
        async close() {
          await close();
          await dropLocation(kind, location);
        },
      };
    },
  };
}

/** Waiting LangGraph threads: each stopped at an `interrupt()` in its one node. */
export function langgraphSleepers(kind: StoreKind): Sleepers {
  const threadId = (n: number) => `waiter-${n}`;
  return {
    freshLocation: () => freshLocation(kind),
    async open(location) {
      const { saver } = await openSaver(kind, location, 'default');
      const graph = waiting.compile({ checkpointer: saver });
      let started = 0;
      return {
        async wait(count) {
          for (let done = 0; done < count; done += 100) {
            const batch = Array.from({ length: Math.min(100, count - done) }, () => threadId(started++));
            await Promise.all(batch.map((thread_id) => graph.invoke({ count: 0 }, { configurable: { thread_id } })));
          }
        },
      };
    },
    async recover(location, count) {
      // Ready: the saver is open and the graph compiled. LangGraph keeps nothing in memory between
      // invocations, so a thread is read from the store only when it is next invoked.
      const { saver } = await openSaver(kind, location, 'default');
      const graph = waiting.compile({ checkpointer: saver });
      return async () => {
        for (const n of [0, count - 1]) {
          const state = await graph.getState({ configurable: { thread_id: threadId(n) } });
          if (!state.next.includes('wait'))
            throw new Error(
              `LangGraph thread ${threadId(n)} is not waiting after restart (next: ${state.next.join(', ')})`,
            );
        }
      };
    },
    drop: (location) => dropLocation(kind, location),
  };
}
