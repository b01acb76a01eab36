import { useEffect, useState } from 'preact/hooks';

/** The three views, addressed by the location hash so any view can be bookmarked or pasted. */
export type Route =
  | { view: 'runs'; machine?: string }
  | { view: 'run'; id: string }
  | { view: 'lifecycle'; name: string };

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'runs' && parts[1]) return { view: 'run', id: parts[1] };
  if (parts[0] === 'lifecycles' && parts[1]) return { view: 'lifecycle', name: parts[1] };
  const machine = new URLSearchParams(search).get('machine') ?? undefined;
  return machine ? { view: 'runs', machine } : { view: 'runs' };
}

export const href = {
  runs: (machine?: string) => (machine ? `#/?machine=${encodeURIComponent(machine)}` : '#/'),
  run: (id: string) => `#/runs/${encodeURIComponent(id)}`,
  lifecycle: (name: string) => `#/lifecycles/${encodeURIComponent(name)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    // The hash may have changed between the first render and this effect (a busy page runs effects
    // late): read it again now that every later change is heard.
    onChange();
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
