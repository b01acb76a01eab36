/**
 * A run's events as tools: the events its machine accepts in the state it is in now, each a tool
 * whose input schema is the event's metadata schema (the one its guard checks, as JSON Schema:
 * src/graph/event-needs.ts), so an agent can move any run the way a person does in the live view.
 * The list follows the run: after each committed step it is read again and the client is told
 * (`notifications/tools/list_changed`). A refusal (InvalidTransitionError, MetadataValidationError,
 * a role or lease the machine refuses) is the tool's error, in the runtime's words.
 */
import type { AcceptedEvent } from '../graph/event-needs.js';
import type { RunJson } from '../serve/run-json.js';
import { textResult, type McpTool, type ToolInputSchema, type ToolSet } from './mcp-tool.js';
import type { RunAccess } from './run-access.js';

/** Stamped by the runtime, never sent. */
const STAMPED = new Set(['type', 'at']);

/** MCP tool names are `[A-Za-z0-9_-]{1,64}`: an event type's other characters (`agent.result`) become `_`. */
export const toolNameOf = (eventType: string) => eventType.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

/** The event's schema as the tool's input: its payload, without what the runtime stamps. */
function inputSchemaOf(needs: AcceptedEvent['needs']): ToolInputSchema {
  const {
    $schema: _,
    properties,
    required,
    ...rest
  } = (needs.schema ?? {}) as {
    $schema?: unknown;
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return {
    ...rest,
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties ?? {}).filter(([field]) => !STAMPED.has(field))),
    ...(required && { required: required.filter((field) => !STAMPED.has(field)) }),
  };
}

export interface RunEventToolsOptions {
  /** Who sends the events, in the audit trail (default "agent"). */
  readonly actor?: string;
}

export function runEventTools(access: RunAccess, runId: string, options: RunEventToolsOptions = {}): ToolSet {
  const actor = options.actor ?? 'agent';
  let current: Promise<{ run: RunJson; accepts: AcceptedEvent[] }> | undefined;
  // Every event offered so far, by tool name: a call from a list the run has left is still sent, and refused by the runtime.
  const offered = new Map<string, AcceptedEvent>();
  const read = () =>
    (current = Promise.all([access.run(runId), access.explain(runId)]).then(([run, explanation]) => ({
      run,
      accepts: explanation.accepts,
    })));

  const toolOf = (run: RunJson, accepted: AcceptedEvent): McpTool => {
    const { needs } = accepted;
    const from = needs.roles?.length ? ` from ${needs.roles.join(' or ')}` : '';
    const fields = needs.fields.length ? `; it needs ${needs.fields.join(', ')}` : '';
    return {
      name: toolNameOf(accepted.type),
      description: `Sends ${accepted.type}${from} to ${run.machine} run ${runId}, now in ${run.state}${fields}.`,
      inputSchema: inputSchemaOf(needs),
      async call(args) {
        const { type: _, at: __, ...payload } = args;
        const after = await access.send(
          runId,
          { ...payload, type: accepted.type },
          { actor, reason: `${accepted.type} through statewright mcp` },
        );
        // A list asked for after this answer is the new state's, not the one the step stream has yet to bring.
        void read().catch(() => {});
        return textResult(
          JSON.stringify({ runId, state: after.state, status: after.status, seq: after.seq, context: after.context }),
        );
      },
    };
  };

  return {
    async tools() {
      const { run, accepts } = await (current ?? read());
      for (const accepted of accepts) offered.set(toolNameOf(accepted.type), accepted);
      return accepts.map((accepted) => toolOf(run, accepted));
    },
    async find(name) {
      const listed = (await this.tools()).find((tool) => tool.name === name);
      const before = offered.get(name);
      return listed ?? (before && toolOf((await (current ?? read())).run, before));
    },
    onToolsChanged(listener) {
      let stop: (() => void) | undefined;
      let stopped = false;
      void (current ?? read()).then(
        ({ run }) => {
          if (stopped) return;
          stop = access.watch(
            runId,
            run.seq,
            () => {
              // The list is told changed once it is read for the new state, so a client that lists at once sees it.
              read().then(listener, () => listener());
            },
            () => {},
          );
        },
        () => {},
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
    close: () => access.close(),
  };
}
