import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, type Step } from './api.js';

type Listener = (step: Step) => void;

/**
 * One `/api/steps` stream for the whole page, shared by every view that listens. EventSource
 * reconnects by itself after the server restarts; `live` says whether it is connected now.
 */
const listeners = new Set<Listener>();
const liveListeners = new Set<(live: boolean) => void>();
let source: EventSource | undefined;
let live = false;

function setLive(value: boolean) {
  live = value;
  for (const listener of liveListeners) listener(value);
}

function connect() {
  if (source) return;
  source = new EventSource(api.stepsUrl());
  source.onopen = () => setLive(true);
  source.onerror = () => setLive(false);
  source.addEventListener('step', (message) => {
    const step = JSON.parse((message as MessageEvent<string>).data) as Step;
    for (const listener of listeners) listener(step);
  });
}

/** Calls `onStep` for every committed step while the component is shown. */
export function useSteps(onStep: Listener) {
  useEffect(() => {
    connect();
    listeners.add(onStep);
    return () => void listeners.delete(onStep);
  }, [onStep]);
}

/** Whether the step stream is connected, for the header's live dot. */
export function useLive() {
  const [value, setValue] = useState(live);
  useEffect(() => {
    connect();
    liveListeners.add(setValue);
    return () => void liveListeners.delete(setValue);
  }, []);
  return value;
}

/**
 * Loads `load()` now and again after every step that `matters`, so a view shows what the server
 * committed last. Steps that arrive while a load is in flight cause one more load, not one each.
 * A change of `key` starts over and drops answers meant for the old key.
 */
export function useLiveData<T>(load: () => Promise<T>, matters: (step: Step) => boolean, key: string) {
  const [state, setState] = useState<{ data?: T; error?: Error; key?: string }>({});
  const loader = useRef<{ key: string; inFlight: boolean; again: boolean; run: () => void }>(undefined);
  const latest = useRef({ load, matters });
  latest.current = { load, matters };
  useEffect(() => {
    const current = {
      key,
      inFlight: false,
      again: false,
      run() {
        if (current.inFlight) return void (current.again = true);
        current.inFlight = true;
        latest.current
          .load()
          .then(
            (data) => loader.current === current && setState({ data, key }),
            (error: Error) => loader.current === current && setState((s) => ({ ...s, error, key })),
          )
          .finally(() => {
            current.inFlight = false;
            if (current.again && loader.current === current) {
              current.again = false;
              current.run();
            }
          });
      },
    };
    loader.current = current;
    current.run();
  }, [key]);
  useSteps(
    useCallback((step: Step) => {
      if (latest.current.matters(step)) loader.current?.run();
    }, []),
  );
  const fresh = state.key === key;
  return {
    data: fresh ? state.data : undefined,
    error: fresh ? state.error : undefined,
    reload: () => loader.current?.run(),
  };
}
