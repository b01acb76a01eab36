/** `statewright/mcp`: the MCP server of `statewright mcp`, to serve on a runtime of one's own (see mcp-server.ts). */
export {
  createMcpServer,
  serveOverStdio,
  type McpServerOptions,
  type McpTarget,
  type McpToolChoice,
  type StatewrightMcpServer,
} from './mcp-server.js';
export type { McpTool, ToolInputSchema, ToolSet } from './mcp-tool.js';
export { ToolArgumentsError } from './mcp-tool.js';
export {
  ApprovalServerMissingError,
  McpModeError,
  NotASessionError,
  RunNotReachableError,
  SessionIdMissingError,
} from './mcp-errors.js';
export type { ClaudePermissionAnswer } from './approval-answer.js';
