import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { RunJson, Step } from './api.js';
import { retryDelayMs, worthRetrying } from './retry.js';
import { readEvents, type ServerSentEvent } from './sse-reader.js';
import { authHeaders, viewClosed } from './view-session.js';

/** A step as the stream sends it: with the run as the API shows it after the step (absent on a step replayed from the trail). */
export type LiveStep = Step & { run?: RunJson };

type Listener = (step: LiveStep) => void;

/**
 * One `/api/steps` stream for the whole page, shared by every view that listens, read with `fetch`
 * (its credential rides in a header, which EventSource cannot send: sse-reader.ts). It reconnects
 * by itself after the server restarts, as EventSource would; `live` says whether it is connected
 * now. The steps committed while it was away are not replayed on the stream of every run (the
 * store keeps no order across runs), so after every reconnect, and whenever the server says
 * `resync`, each view that resyncs (`useResync`, every `useLiveData`) reads again what it shows.
 * A refusal (401) closes the view (view-session.ts) and ends the stream.
 */
const listeners = new Set<Listener>();
const liveListeners = new Set<(live: boolean) => void>();
const resyncListeners = new Set<() => void>();
let connecting = false;
let live = false;
/** Whether the stream has been open before: an open after that is a reconnect. */
let opened = false;
/** Whether this connection has resynced already (a reconnect, then the server's `resync`: once). */
let resynced = false;
/** The last event id the stream set, sent back on a reconnect as EventSource does. */
let lastEventId = '';

/** How long to wait before connecting again: EventSource's usual few seconds, shorter for a page a person watches. */
const RECONNECT_MS = 1000;

function setLive(value: boolean) {
  live = value;
  for (const listener of liveListeners) listener(value);
}

function resync() {
  if (resynced) return;
  resynced = true;
  for (const listener of resyncListeners) listener();
}

function onOpen() {
  resynced = false;
  // The steps committed while it was away were not seen, whether or not the server says so.
  if (opened) resync();
  opened = true;
  setLive(true);
}

function onEvent({ event, data }: ServerSentEvent) {
  if (event === 'resync') return resync();
  if (event !== 'step') return;
  const step = JSON.parse(data) as LiveStep;
  for (const listener of listeners) listener(step);
}

async function stream(): Promise<'again' | 'closed'> {
  const response = await fetch('api/steps', {
    headers: {
      accept: 'text/event-stream',
      ...(await authHeaders()),
      ...(lastEventId && { 'last-event-id': lastEventId }),
    },
    cache: 'no-store',
  });
  if (response.status === 401) {
    const { message } = (await response.json().catch(() => ({}))) as { message?: string };
    viewClosed(message ?? 'the server refused the step stream');
    return 'closed';
  }
  if (!response.ok || !response.body) return 'again';
  onOpen();
  await readEvents(response.body, onEvent, (id) => (lastEventId = id));
  return 'again';
}

async function connect() {
  if (connecting) return;
  connecting = true;
  for (;;) {
    const outcome = await stream().catch(() => 'again' as const);
    setLive(false);
    // Closed: a view opened again in this tab connects anew.
    if (outcome === 'closed') return void (connecting = false);
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/** Calls `onStep` for every committed step while the component is shown. */
export function useSteps(onStep: Listener) {
  useEffect(() => {
    void connect();
    listeners.add(onStep);
    return () => void listeners.delete(onStep);
  }, [onStep]);
}

/** Calls `onResync` after the step stream reconnects, when steps may have been missed: the view reads again what it shows. */
export function useResync(onResync: () => void) {
  useEffect(() => {
    void connect();
    resyncListeners.add(onResync);
    return () => void resyncListeners.delete(onResync);
  }, [onResync]);
}

/** Whether the step stream is connected, for the header's live dot. */
export function useLive() {
  const [value, setValue] = useState(live);
  useEffect(() => {
    void connect();
    liveListeners.add(setValue);
    return () => void liveListeners.delete(setValue);
  }, []);
  return value;
}

/**
 * What a view does with a step that matters (`useLiveData`'s `apply`): 'ignore' it (seen already),
 * 'reload' everything, or take the step in: `data` as it is after the step, and `follow`, when the
 * step lacks part of what the view shows, a read of that part (its answer merged into the data then).
 */
export type StepUpdate<T> = 'ignore' | 'reload' | { readonly data: T; readonly follow?: () => Promise<(data: T) => T> };

/**
 * Loads `load()` now and again after every step that `matters`, so a view shows what the server
 * committed last, and again after every reconnect of the stream. Steps that arrive while a load is
 * in flight cause one more load, not one each. With `apply`, a step is taken in from its payload
 * (see `StepUpdate`) instead of a load, while no load is in flight; its follow-up reads are one at
 * a time, steps meanwhile causing one more. A change of `key` starts over and drops answers meant
 * for the old key. A load that fails is shown as the error and tried again after a wait that
 * doubles (retry.ts) until one answers: nothing else may come to load again.
 */
export function useLiveData<T>(
  load: () => Promise<T>,
  matters: (step: LiveStep) => boolean,
  key: string,
  apply?: (data: T, step: LiveStep) => StepUpdate<T>,
) {
  const [state, setState] = useState<{ data?: T; error?: Error; key?: string }>({});
  const loader = useRef<{
    key: string;
    inFlight: boolean;
    again: boolean;
    data?: T;
    run: () => void;
    take: (step: LiveStep) => void;
  }>(undefined);
  const latest = useRef({ load, matters, apply });
  latest.current = { load, matters, apply };
  useEffect(() => {
    const show = (data: T) => {
      current.data = data;
      setState({ data, key });
    };
    let follow: { inFlight: boolean; next?: () => Promise<(data: T) => T> } = { inFlight: false };
    /** The failed loads since the last that answered, and the retry after the last of them. */
    let failures = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const current = {
      key,
      inFlight: false,
      again: false,
      data: undefined as T | undefined,
      run() {
        if (current.inFlight) return void (current.again = true);
        current.inFlight = true;
        clearTimeout(retry);
        // A load answers for the follow-ups too: any still to come are dropped.
        follow = { inFlight: false };
        latest.current
          .load()
          .then(
            (data) => {
              failures = 0;
              if (loader.current === current) show(data);
            },
            (error: Error) => {
              if (loader.current !== current) return;
              // An error keeps the data shown only if it is this key's: another run's page must not stay under this one's address.
              setState((s) => (s.key === key ? { ...s, error, key } : { error, key }));
              // Shown meanwhile, and tried again: no step may come to reload a page whose first load failed.
              if (worthRetrying(error)) retry = setTimeout(() => current.run(), retryDelayMs(failures++));
            },
          )
          .finally(() => {
            current.inFlight = false;
            if (current.again && loader.current === current) {
              current.again = false;
              current.run();
            }
          });
      },
      take(step: LiveStep) {
        const apply = latest.current.apply;
        if (!apply || current.inFlight || current.data === undefined) return current.run();
        const update = apply(current.data, step);
        if (update === 'ignore') return;
        if (update === 'reload') return current.run();
        show(update.data);
        if (!update.follow) return;
        const mine = follow;
        mine.next = update.follow;
        if (mine.inFlight) return;
        mine.inFlight = true;
        const read = async (): Promise<void> => {
          const next = mine.next;
          mine.next = undefined;
          if (!next) return void (mine.inFlight = false);
          try {
            const merge = await next();
            if (loader.current === current && follow === mine && current.data !== undefined) show(merge(current.data));
          } catch (error) {
            if (loader.current === current) setState((s) => ({ ...s, error: error as Error, key }));
          }
          if (follow === mine) return read();
          mine.inFlight = false;
        };
        void read();
      },
    };
    loader.current = current;
    current.run();
    return () => {
      clearTimeout(retry);
      if (loader.current === current) loader.current = undefined;
    };
  }, [key]);
  useSteps(
    useCallback((step: LiveStep) => {
      if (latest.current.matters(step)) loader.current?.take(step);
    }, []),
  );
  useResync(useCallback(() => loader.current?.run(), []));
  const fresh = state.key === key;
  return {
    data: fresh ? state.data : undefined,
    error: fresh ? state.error : undefined,
    reload: () => loader.current?.run(),
  };
}
