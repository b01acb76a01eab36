/**
 * The Postgres store's tables, indexes and commit function, created or brought up to date when a
 * store opens. A schema already at `SCHEMA_VERSION` is left alone (no DDL, so no table lock while
 * other hosts commit); an older one gains the columns, indexes and function it lacks. Hosts opening
 * at once take turns (an advisory lock), so two never race on the same DDL.
 */
import type pg from 'pg';

/** Raised whenever the DDL below changes, so that opening a store brings older schemas up to date. */
const SCHEMA_VERSION =
  'statewright schema 7: a credential on each event; schema 6: leases, timer index (runs from before it due at once), commit_steps(bigint, jsonb, jsonb) reading fields with -> and locking several runs in run_id order, fillfactor 80, steps that claim a released run, pages of runs newest first';

/** The SQLSTATE `commit_steps` raises when it refuses a batch (stale seq or lost lease); its DETAIL lists the refused runs. */
export const COMMIT_REFUSED = 'SWREF';

const tables = (s: string) => `
  CREATE SCHEMA IF NOT EXISTS ${s};
  CREATE TABLE IF NOT EXISTS ${s}.runs (
    run_id text PRIMARY KEY, machine text NOT NULL, version integer NOT NULL, status text NOT NULL,
    state text NOT NULL, seq integer NOT NULL, snapshot jsonb NOT NULL, input jsonb NOT NULL,
    owner jsonb, created_at bigint NOT NULL, updated_at bigint NOT NULL);
  CREATE INDEX IF NOT EXISTS runs_by_machine_status ON ${s}.runs (machine, status, created_at);
  CREATE INDEX IF NOT EXISTS runs_by_status ON ${s}.runs (status, created_at);
  CREATE TABLE IF NOT EXISTS ${s}.events (
    run_id text NOT NULL, seq integer NOT NULL, event jsonb NOT NULL, at bigint NOT NULL,
    actor text, reason text, idempotency_key text, before_state text NOT NULL, after_state text NOT NULL,
    result jsonb, PRIMARY KEY (run_id, seq));
  CREATE UNIQUE INDEX IF NOT EXISTS events_by_idempotency_key ON ${s}.events (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

  -- Leases and the timer index (schema 2). commit_id: the random id of the commit that last wrote
  -- the row, by which a commit whose reply was lost is found (see postgres-commit-outcome.ts).
  -- A run stored before leases is due at once (wake_at 0), so the first sweep looks at it: the
  -- default is only what the column holds for the rows there when it is added.
  ALTER TABLE ${s}.runs
    ADD COLUMN IF NOT EXISTS lease_holder text, ADD COLUMN IF NOT EXISTS lease_state text,
    ADD COLUMN IF NOT EXISTS lease_epoch integer, ADD COLUMN IF NOT EXISTS lease_expires bigint,
    ADD COLUMN IF NOT EXISTS lease_renewed bigint, ADD COLUMN IF NOT EXISTS wake_at bigint DEFAULT 0,
    ADD COLUMN IF NOT EXISTS commit_id bigint;
  ALTER TABLE ${s}.runs ALTER COLUMN wake_at DROP DEFAULT;
  ALTER TABLE ${s}.events ADD COLUMN IF NOT EXISTS commit_id bigint;
  -- Who sent each event, by the credential it came with (schema 7; EventRecord.credential).
  ALTER TABLE ${s}.events ADD COLUMN IF NOT EXISTS credential text;
  -- Room in each page for a run's next version: a step that changes no indexed column (most do
  -- not, see \`keeps\`) is then a HOT update, which writes no index.
  ALTER TABLE ${s}.runs SET (fillfactor = 80);

  -- claimDue's four ways in, each a partial index holding only the runs it can find, so a sweep is
  -- an index read however many runs sleep in the table. The predicates are written exactly as the
  -- queries in statements.ts write them: the planner matches them by their text.
  CREATE INDEX IF NOT EXISTS runs_held_by_expiry ON ${s}.runs (lease_expires) WHERE status = 'active' AND lease_state = 'held';
  CREATE INDEX IF NOT EXISTS runs_held_by_holder ON ${s}.runs (lease_holder) WHERE status = 'active' AND lease_state = 'held';
  CREATE INDEX IF NOT EXISTS runs_asleep_by_wake ON ${s}.runs (wake_at) WHERE status = 'active' AND wake_at IS NOT NULL AND lease_state IS DISTINCT FROM 'held';
  CREATE INDEX IF NOT EXISTS runs_handed_over ON ${s}.runs (run_id) WHERE status = 'active' AND lease_state = 'handedOver';

  -- What a page of runs walks backwards, newest first (schema 6; listPage in statements.ts): by
  -- creation time, then run id in byte order ("C", as SQLite compares), for all runs and for one
  -- machine's. A page of one status walks runs_by_status or runs_by_machine_status, sorting only
  -- the runs of one millisecond. Columns that never change: a step's update stays HOT.
  CREATE INDEX IF NOT EXISTS runs_newest ON ${s}.runs (created_at, run_id COLLATE "C");
  CREATE INDEX IF NOT EXISTS runs_newest_by_machine ON ${s}.runs (machine, created_at, run_id COLLATE "C");
`;

/**
 * Whether a step leaves the stored lease as it is: written without a lease, or under one that still
 * has more than two thirds of its time left (the heartbeat, \`renew\`, keeps it anyway). Renewing at
 * every step would change an indexed column at every step, and so rule out HOT updates.
 */
export const keeps = (row: string, holder: string, expires: string, now: string) =>
  `${holder} IS NULL OR ${row}.lease_expires - ${now} > (${expires} - ${now}) * 2 / 3`;

/** The writer's lease in a step's statement, as SQL expressions: its fields of `CommitLease`, each null for an unfenced write. */
interface LeaseParams {
  holder: string;
  epoch: string;
  expires: string;
  now: string;
  claims: string;
}

/**
 * Where a step may write run `r`, by its writer's lease: no lease (one host); the lease held at its
 * epoch; or, for a step that also claims the run (`CommitLease.claims`), the run active and its
 * lease still released at the epoch the writer read.
 */
export const leaseFence = (r: string, p: Omit<LeaseParams, 'expires' | 'now'>) => `(${p.holder} IS NULL
  OR (${r}.lease_state = 'held' AND ${r}.lease_holder = ${p.holder} AND ${r}.lease_epoch = ${p.epoch})
  OR (${p.claims} IS NOT NULL AND ${r}.status = 'active' AND ${r}.lease_state = 'released' AND ${r}.lease_epoch = ${p.claims}))`;

/**
 * The lease a step leaves on run `r`: a claiming step stores the lease it takes; any other keeps
 * holder, state and epoch, and renews as `keeps` says. A column set to the value it has keeps the
 * update HOT: Postgres compares values, not the SET list.
 */
export const leaseSet = (r: string, p: LeaseParams) => {
  const claiming = `${p.claims} IS NOT NULL`;
  const kept = `${p.claims} IS NULL AND (${keeps(r, p.holder, p.expires, p.now)})`;
  return `lease_holder = CASE WHEN ${claiming} THEN ${p.holder} ELSE ${r}.lease_holder END,
  lease_state = CASE WHEN ${claiming} THEN 'held' ELSE ${r}.lease_state END,
  lease_epoch = CASE WHEN ${claiming} THEN ${p.epoch} ELSE ${r}.lease_epoch END,
  lease_expires = CASE WHEN ${kept} THEN ${r}.lease_expires ELSE ${p.expires} END,
  lease_renewed = CASE WHEN ${kept} THEN ${r}.lease_renewed ELSE ${p.now} END`;
};

/** The batch's run `u` of `commit_steps`: its lease fields. */
const batchLease: LeaseParams = {
  holder: 'u.lease_holder',
  epoch: 'u.lease_epoch',
  expires: 'u.lease_expires',
  now: 'u.lease_now',
  claims: 'u.lease_claims',
};

/**
 * Each field of a run in `commit_steps`' p_runs (`u.x`), and of an event in its p_events (`e`), read
 * with `->` and `->>`: `jsonb_to_recordset` would print every jsonb field (a snapshot) to text and
 * parse it back, which was a third of the server's time for a batch of 100 runs. A JSON null in a
 * nullable jsonb field is stored as SQL NULL, as before.
 */
const runField = {
  machine: `u.x ->> 'machine'`,
  version: `(u.x ->> 'version')::integer`,
  status: `u.x ->> 'status'`,
  state: `u.x ->> 'state'`,
  seq: `(u.x ->> 'seq')::integer`,
  snapshot: `u.x -> 'snapshot'`,
  input: `coalesce(u.x -> 'input', 'null')`,
  owner: `nullif(u.x -> 'owner', 'null')`,
  createdAt: `(u.x ->> 'created_at')::bigint`,
  updatedAt: `(u.x ->> 'updated_at')::bigint`,
  wakeAt: `(u.x ->> 'wake_at')::bigint`,
};
const EVENT_VALUES = `e ->> 'run_id', (e ->> 'seq')::integer, e -> 'event', (e ->> 'at')::bigint, e ->> 'actor', e ->> 'reason', e ->> 'idempotency_key',
  e ->> 'before_state', e ->> 'after_state', nullif(e -> 'result', 'null'), e ->> 'credential'`;

/** What a step writes to its run's row; `u` is the batch's run (its lease fields as columns, its JSON as `x`). */
const stepSet = (
  r: string,
) => `version = ${runField.version}, status = ${runField.status}, state = ${runField.state}, seq = ${runField.seq},
  snapshot = ${runField.snapshot}, owner = ${runField.owner}, updated_at = ${runField.updatedAt}, wake_at = ${runField.wakeAt}, commit_id = p_commit_id,
  ${leaseSet(r, batchLease)}`;

/** Where a step may write: the seq the writer saw and, for a writer with a lease, its lease (see \`leaseFence\`). */
const stepWhere = (r: string) =>
  `u.expected_seq IS NOT NULL AND ${r}.seq = u.expected_seq AND ${leaseFence(r, batchLease)}`;

/**
 * One batch of commits in one statement (so one round trip and, run in autocommit, one implicit
 * transaction). The batch comes as two JSON arrays, one object a run and one an event: one parameter
 * each, parsed by the server in C, where arrays of JSON texts cost the client an escaping pass over
 * every snapshot. A run is created when its expected seq is null, else updated only where the stored
 * seq is the expected one and, when it names a lease holder, the stored lease is held by it at that
 * epoch (which it renews). If any run was not written, nothing is: the function raises
 * COMMIT_REFUSED with the refused runs' stored seq and lease in its DETAIL, for the store to say
 * which error it is. Then the events are appended.
 */
const commitFunction = (s: string) => `
  CREATE OR REPLACE FUNCTION ${s}.commit_steps(p_commit_id bigint, p_runs jsonb, p_events jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
  DECLARE
    runs integer := jsonb_array_length(p_runs);
    ids text[];
    written bigint := 0;
    refused jsonb;
  BEGIN
    -- A single run (the usual batch: one run stepped) is found by its key, never by a join the
    -- planner may answer with a scan (the table is small and full of dead versions while a run is busy).
    IF runs = 1 THEN
      ids := ARRAY[p_runs -> 0 ->> 'run_id'];
    ELSE
      ids := ARRAY(SELECT x ->> 'run_id' FROM jsonb_array_elements(p_runs) AS x);
      -- Several runs are locked in run_id order, as renewals and releases lock them (lockedInOrder
      -- in statements.ts): no lock cycle with them.
      PERFORM 1 FROM ${s}.runs WHERE run_id = ANY(ids) ORDER BY run_id FOR UPDATE;
    END IF;

    WITH u AS (
      SELECT x ->> 'run_id' AS run_id, (x ->> 'expected_seq')::integer AS expected_seq, x ->> 'lease_holder' AS lease_holder,
        (x ->> 'lease_epoch')::integer AS lease_epoch, (x ->> 'lease_expires')::bigint AS lease_expires, (x ->> 'lease_now')::bigint AS lease_now,
        (x ->> 'lease_claims')::integer AS lease_claims, x
      FROM jsonb_array_elements(p_runs) AS x
    ), created AS (
      INSERT INTO ${s}.runs (run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at, wake_at,
          lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, commit_id)
        SELECT u.run_id, ${runField.machine}, ${runField.version}, ${runField.status}, ${runField.state}, ${runField.seq}, ${runField.snapshot},
          ${runField.input}, ${runField.owner}, ${runField.createdAt}, ${runField.updatedAt}, ${runField.wakeAt},
          u.lease_holder, CASE WHEN u.lease_holder IS NOT NULL THEN 'held' END, u.lease_epoch, u.lease_expires, u.lease_now, p_commit_id
        FROM u WHERE u.expected_seq IS NULL
        ON CONFLICT (run_id) DO NOTHING
        RETURNING 1
    ), updated AS (
      UPDATE ${s}.runs AS r SET ${stepSet('r')}
        FROM u WHERE r.run_id = ANY(ids) AND r.run_id = u.run_id AND ${stepWhere('r')}
        RETURNING 1
    )
    SELECT (SELECT count(*) FROM created) + (SELECT count(*) FROM updated) INTO written;

    IF written < runs THEN
      SELECT jsonb_agg(jsonb_build_object('runId', u.run_id, 'storedSeq', r.seq, 'lease',
          CASE WHEN r.lease_holder IS NOT NULL THEN jsonb_build_object('holder', r.lease_holder, 'state', r.lease_state,
            'epoch', r.lease_epoch, 'expiresAt', r.lease_expires, 'renewedAt', r.lease_renewed) END))
        INTO refused
        FROM (SELECT x ->> 'run_id' AS run_id FROM jsonb_array_elements(p_runs) AS x) AS u LEFT JOIN ${s}.runs r ON r.run_id = u.run_id
        WHERE r.commit_id IS DISTINCT FROM p_commit_id;
      RAISE EXCEPTION 'statewright: commit refused' USING ERRCODE = '${COMMIT_REFUSED}', DETAIL = refused::text;
    END IF;

    INSERT INTO ${s}.events (run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result, credential, commit_id)
      SELECT ${EVENT_VALUES}, p_commit_id FROM jsonb_array_elements(p_events) AS e;
  END
  $fn$;
  COMMENT ON FUNCTION ${s}.commit_steps(bigint, jsonb, jsonb) IS '${SCHEMA_VERSION}';
`;

/** Creates the schema, or brings it up to date; resolves once it is at `SCHEMA_VERSION`. */
export async function ensureSchema(pool: pg.Pool, schema: string): Promise<void> {
  const current = await pool.query(
    `SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 AND p.proname = 'commit_steps' AND obj_description(p.oid, 'pg_proc') = $2`,
    [schema, SCHEMA_VERSION],
  );
  if (current.rowCount) return;
  // One simple query is one transaction: the lock is held until all of it is done.
  await pool.query(
    `SELECT pg_advisory_xact_lock(hashtext('statewright schema ' || '${schema}')); ${tables(schema)} ${commitFunction(schema)}`,
  );
}
