/**
 * A tool set loaded once the server has answered `initialize`: what only the tools need (a runtime
 * on the store and the registry's every lifecycle machine) costs more CPU than an agent waits for
 * its first answer (bench/mcp-startup.bench.ts). `load` starts loading, once; each list and call
 * waits for it, and a load that failed is their error (a call's is the agent's tool error).
 */
import type { ToolSet } from './mcp-tool.js';

export interface LazyToolSet extends ToolSet {
  /** Loads the tools if not yet loading; rejects with why they cannot be served. */
  load(): Promise<void>;
}

export function lazyToolSet(open: () => Promise<ToolSet>): LazyToolSet {
  let loading: Promise<ToolSet> | undefined;
  // Told of changes once loaded: asking before that does not start the loading.
  const watches: Array<{ listener: () => void; stop?: (() => void) | undefined; stopped: boolean }> = [];
  const watch = (tools: ToolSet, w: (typeof watches)[number]) => {
    if (!w.stopped) w.stop = tools.onToolsChanged?.(w.listener);
  };
  const loaded = () =>
    (loading ??= open().then((tools) => {
      for (const w of watches) watch(tools, w);
      return tools;
    }));
  return {
    load: async () => {
      await loaded();
    },
    tools: async () => (await loaded()).tools(),
    async find(name) {
      const tools = await loaded();
      return tools.find ? tools.find(name) : (await tools.tools()).find((tool) => tool.name === name);
    },
    onToolsChanged(listener) {
      const w: (typeof watches)[number] = { listener, stopped: false };
      if (loading)
        loading.then(
          (tools) => watch(tools, w),
          () => {},
        );
      else watches.push(w);
      return () => {
        w.stopped = true;
        w.stop?.();
      };
    },
    async close() {
      const tools = await loading?.catch(() => undefined);
      await tools?.close();
    },
  };
}
