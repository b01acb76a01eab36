/**
 * What `statewright mcp` offers an agent: a set of tools, each with a JSON Schema for its input
 * and a call that answers with text. A refusal is an answer too (`isError: true` with the
 * machine's message), so the agent reads why and can act on it; only a broken request is a
 * protocol error. A tool set may change with the run it works on, and says so.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { StatewrightError } from '../errors.js';

/** A tool's input as JSON Schema: always an object (what MCP requires of `inputSchema`). */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
  readonly [keyword: string]: unknown;
}

export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  /** `signal` aborts when the client cancels the call (or the server closes). */
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export interface ToolSet {
  /** The tools offered now. */
  tools(): Promise<McpTool[]>;
  /**
   * The tool a call names, where it may be one offered before and no longer listed (a run's event
   * after the run moved on): called, its refusal comes from the runtime. Default: the listed ones.
   */
  find?(name: string): Promise<McpTool | undefined>;
  /** Tells `listener` when the tools may have changed (the run took a step); returns how to stop. */
  onToolsChanged?(listener: () => void): () => void;
  close(): Promise<void>;
}

export const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** A refusal the agent reads: the error's own message, which says what was wrong and what to do. */
export const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** A zod object schema as a tool's input schema (what a caller sends, defaults optional). */
export function inputSchemaOf(schema: z.ZodObject): ToolInputSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return { ...json, type: 'object' };
}

/** A tool's arguments that its schema refuses. */
export class ToolArgumentsError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'ToolArgumentsError';
  constructor(tool: string, error: z.ZodError) {
    super(
      `The arguments of ${tool} are not what it takes: ${error.issues
        .map((issue) => `${issue.path.length ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
        .join('; ')}. Call it again with them as its input schema says.`,
    );
  }
}

/** `args` parsed by `schema`, or `ToolArgumentsError` naming each bad field. */
export function parseArguments<S extends z.ZodType>(tool: string, schema: S, args: unknown): z.infer<S> {
  const parsed = schema.safeParse(args ?? {});
  if (!parsed.success) throw new ToolArgumentsError(tool, parsed.error);
  return parsed.data;
}
