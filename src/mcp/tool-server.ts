/**
 * A tool set as an MCP server (the SDK's low-level `Server`): `tools/list` answers the tools offered
 * now, `tools/call` runs one, and a change of the set is sent as `notifications/tools/list_changed`.
 * A call that throws answers as a tool error (`isError`) with the error's message, so the agent
 * reads the refusal (the machine's words for a refused event) instead of a protocol failure.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { errorResult, type ToolSet } from './mcp-tool.js';

export interface ToolServerInfo {
  readonly name: string;
  readonly version: string;
  /** What the server is for, shown to the agent. */
  readonly instructions?: string;
}

export function toolServer(tools: ToolSet, info: ToolServerInfo): Server {
  const server = new Server(
    { name: info.name, version: info.version },
    { capabilities: { tools: { listChanged: true } }, ...(info.instructions && { instructions: info.instructions }) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await tools.tools()).map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      // Finding it may wait for the tools to load (lazy-tools.ts): a load that failed is this call's error too.
      const tool = tools.find
        ? await tools.find(request.params.name)
        : (await tools.tools()).find((t) => t.name === request.params.name);
      if (!tool) {
        const offered = await tools.tools();
        return errorResult(
          `There is no tool ${request.params.name} now: the tools offered are ${offered.map((t) => t.name).join(', ') || 'none'}. List the tools again and call one of them.`,
        );
      }
      return await tool.call(request.params.arguments ?? {}, extra.signal);
    } catch (error) {
      const e = error as Error;
      return errorResult(e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : e.message);
    }
  });
  const stop = tools.onToolsChanged?.(() => {
    // Told only once connected; a client that has gone hears nothing, and that is no error of the tool's.
    if (server.transport) server.sendToolListChanged().catch(() => {});
  });
  const close = server.onclose;
  server.onclose = () => {
    stop?.();
    close?.();
  };
  return server;
}
