import { Graphviz } from '@hpcc-js/wasm-graphviz';

let graphviz: Promise<Graphviz> | undefined;

/** Renders DOT to SVG with Graphviz compiled to WebAssembly: offline and byte-for-byte repeatable. */
export async function renderSvg(dot: string): Promise<string> {
  graphviz ??= Graphviz.load();
  return (await graphviz).dot(dot, 'svg');
}
