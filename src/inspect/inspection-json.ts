/**
 * An inspection event as JSON text, whatever a run's context or event holds: a function as
 * `{ type: its name }` (as @statelyai/inspect writes it), a bigint as its digits, an object met
 * again on its own path as "[Circular]", and nothing deeper than `maxDepth` (10, as @statelyai/inspect).
 * Actor references and snapshots write themselves through their own toJSON.
 */
export function inspectionJson(value: unknown, maxDepth = 10): string {
  // The objects from the root to the one being written: `this` of the replacer is the holder.
  const path: object[] = [];
  return JSON.stringify(value, function (this: unknown, _key: string, item: unknown) {
    if (typeof item === 'function') return { type: item.name };
    if (typeof item === 'bigint') return item.toString();
    if (item === null || typeof item !== 'object') return item;
    while (path.length > 0 && path.at(-1) !== this) path.pop();
    if (path.includes(item)) return '[Circular]';
    if (path.length >= maxDepth) return Array.isArray(item) ? '[Array]' : '[Object]';
    path.push(item);
    return item;
  });
}
