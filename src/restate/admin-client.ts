/**
 * Restate's admin API, for what statewright needs of it: registering a worker's endpoint
 * (`POST /deployments`) and reading runs across every object with the SQL query API (`POST /query`):
 * listing runs reads only their `run` state keys, never their histories.
 */
import { RestateCallError, RestateUnreachableError } from './restate-errors.js';

export interface AdminOptions {
  /**
   * How long a query keeps trying while the admin API is unreachable or answers 5xx (default
   * 30 000 ms): a cluster refuses SQL queries while one of its partitions is still starting, as after a
   * node's restart, and answers them again once it has.
   */
  readonly queryPatienceMs?: number;
}

export class AdminClient {
  readonly url: string;
  readonly #queryPatienceMs: number;
  constructor(url: string, options: AdminOptions = {}) {
    this.url = url.replace(/\/+$/, '');
    this.#queryPatienceMs = options.queryPatienceMs ?? 30_000;
  }

  /** Registers (or registers again, replacing) the endpoint at `uri`; resolves with the services it serves. */
  async register(uri: string): Promise<string[]> {
    const body = await this.#post<{ services?: Array<{ name: string }> }>('/deployments', { uri, force: true });
    return (body.services ?? []).map((service) => service.name);
  }

  /** Rows of a SQL query over Restate's system tables (`state`, `sys_invocation`...). */
  async query<Row>(sql: string): Promise<Row[]> {
    const until = Date.now() + this.#queryPatienceMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const body = await this.#post<{ rows?: Row[] }>('/query', { query: sql }, { accept: 'application/json' });
        return body.rows ?? [];
      } catch (error) {
        // A read is safe to send again; a 4xx is the query's own fault and answers the same every time.
        const notNow =
          error instanceof RestateUnreachableError || (error instanceof RestateCallError && error.status >= 500);
        if (!notNow || Date.now() > until) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 1000)));
    }
  }

  async #post<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new RestateUnreachableError(this.url + path, error);
    }
    const text = await response.text();
    if (!response.ok) throw new RestateCallError(this.url + path, response.status, text.slice(0, 500) || 'no body');
    return JSON.parse(text) as T;
  }
}

/** A string as a SQL literal. */
export const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;
