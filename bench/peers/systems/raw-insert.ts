/**
 * The floor: one row per step, inserted in its own autocommit transaction, about as many bytes as
 * a statewright commit. Postgres through a `pg` pool of 10 (its default size); SQLite through
 * better-sqlite3 in WAL mode with synchronous=FULL, as statewright's SQLite store runs. SQLite's
 * driver is synchronous, so its "100 concurrent" inserts run one after another.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { dropSchema, freshSchema, postgresUrl } from '../postgres.js';
import { dropSqliteFile, freshSqliteFile } from '../sqlite-files.js';
import type { StoreKind, System } from '../system.js';

const BODY = 'x'.repeat(400);

export function rawInsert(kind: StoreKind): System {
  return {
    name: 'raw insert, autocommit',
    store: kind,
    async open() {
      if (kind === 'postgres') {
        const schema = freshSchema('raw');
        const pool = new pg.Pool({ connectionString: postgresUrl, max: 10 });
        await pool.query(
          `CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".steps (id bigserial PRIMARY KEY, workflow int NOT NULL, body text NOT NULL)`,
        );
        const insert = `INSERT INTO "${schema}".steps (workflow, body) VALUES ($1, $2)`;
        return {
          async workflows() {
            return async (i) => {
              await pool.query(insert, [i, BODY]);
            };
          },
          async close() {
            await pool.end();
            await dropSchema(schema);
          },
        };
      }
      const file = freshSqliteFile('raw');
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE steps (id INTEGER PRIMARY KEY, workflow INTEGER NOT NULL, body TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO steps (workflow, body) VALUES (?, ?)');
      return {
        async workflows() {
          return async (i) => {
            insert.run(i, BODY);
          };
        },
        async close() {
          db.close();
          dropSqliteFile(file);
        },
      };
    },
  };
}
