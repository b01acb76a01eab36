/** What `statewright mcp` refuses before it serves: each says what was wrong and what to do. */
import { StatewrightError } from '../errors.js';

/** The approval tool needs the statewright session it asks on. */
export class SessionIdMissingError extends StatewrightError {
  readonly kind = 'usage';
  override readonly name = 'SessionIdMissingError';
  constructor() {
    super(
      "statewright mcp serves the approve tool for one statewright session, and none is named: a session launched by statewright has STATEWRIGHT_SESSION_ID in its agent's environment (the MCP server inherits it). Give --session <id> otherwise, or --task <dir> --as <agent> for the task tools, or --run <id> for a run's events.",
    );
  }
}

/** Approvals wait for a person on the host of the session: a serve. */
export class ApprovalServerMissingError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'ApprovalServerMissingError';
  constructor(store: string | undefined) {
    super(
      `statewright mcp asks for approvals through the statewright serve that hosts the session, and none was found${store ? ` for the store ${store}` : ''}: set STATEWRIGHT_SERVER (and STATEWRIGHT_TOKEN) to its URL, give --server <url>, or start one with \`npx statewright serve${store ? ` --store ${store}` : ''}\`.`,
    );
  }
}

/** The run named for approvals is not a session. */
export class NotASessionError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'NotASessionError';
  constructor(
    readonly runId: string,
    readonly machine: string,
  ) {
    super(
      `Run ${runId} is a ${machine} run, not a session: the approve tool asks on a session. Check STATEWRIGHT_SESSION_ID (or --session), or serve the run's events with --run ${runId}.`,
    );
  }
}

/** Two tool sets asked for at once, or an option that belongs to another. */
export class McpModeError extends StatewrightError {
  readonly kind = 'usage';
  override readonly name = 'McpModeError';
}

/** `--run` with no serve found, for a run the store does not hold. */
export class RunNotReachableError extends StatewrightError {
  readonly kind = 'not-found';
  override readonly name = 'RunNotReachableError';
  constructor(
    readonly runId: string,
    store: string | undefined,
  ) {
    super(
      `Run '${runId}' is not in ${store ? `the store ${store}` : 'the default store'}, and no statewright serve was found to ask for it: give --server <url> (or set STATEWRIGHT_SERVER) for a run a serve hosts, or --store for the store that holds it. \`statewright status\` lists the runs of a store.`,
    );
  }
}
