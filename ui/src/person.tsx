/**
 * The person at the view: their name, set once and kept in this browser, and the reason they give
 * for the next event; and what their lifecycle lets them send (`GET /api/machines`: its
 * `personEvents`, and the `endingEvents` the view asks about before sending).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type MachineInfo } from './api.js';

const NAME_KEY = 'statewright.actor';
/** The actor of an event sent by someone who gave no name. */
export const ANONYMOUS = 'ui';

function storedName() {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

export interface Sender {
  name: string;
  setName: (name: string) => void;
  reason: string;
  setReason: (reason: string) => void;
}

/** The name (kept in localStorage) and the reason, which is for one event: cleared once it is sent. */
export function useSender(): Sender {
  const [name, setNameState] = useState(storedName);
  const [reason, setReason] = useState('');
  const setName = (next: string) => {
    setNameState(next);
    try {
      if (next.trim()) localStorage.setItem(NAME_KEY, next.trim());
      else localStorage.removeItem(NAME_KEY);
    } catch {
      // A browser that keeps nothing: the name lasts as long as the page.
    }
  };
  return { name, setName, reason, setReason };
}

/** Who sends and why, above the buttons: every event the view sends carries them into the audit trail. */
export function SenderFields({ sender }: { sender: Sender }) {
  return (
    <div class="sender">
      <label>
        <span>your name</span>
        <input
          name="actor"
          autocomplete="name"
          placeholder={`sent as "${ANONYMOUS}" without one`}
          value={sender.name}
          onInput={(e) => sender.setName(e.currentTarget.value)}
        />
      </label>
      <label>
        <span>reason (optional)</span>
        <input
          name="reason"
          placeholder="why: goes into the audit trail"
          value={sender.reason}
          onInput={(e) => sender.setReason(e.currentTarget.value)}
        />
      </label>
    </div>
  );
}

let machines: Promise<MachineInfo[]> | undefined;

/** The lifecycle as `GET /api/machines` lists it, read once per page load. */
export function useMachineInfo(name: string | undefined) {
  const [info, setInfo] = useState<MachineInfo>();
  useEffect(() => {
    if (!name) return;
    machines ??= api.machines().catch((error) => {
      machines = undefined;
      throw error;
    });
    let current = true;
    machines.then(
      (list) => current && setInfo(list.find((m) => m.name === name)),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [name]);
  return info;
}

/** Internal events, when the lifecycle does not list its person's events (an older server). */
const INTERNAL_EVENT = /^(agent|xstate|done|error)\./;

/** Whether a person may send `type`: the lifecycle's `personEvents`, or any event but the internal ones. */
export const isPersonEvent = (info: MachineInfo | undefined, type: string) =>
  info?.personEvents ? info.personEvents.includes(type) : !INTERNAL_EVENT.test(type);

/** Whether `type` ends or cancels a run resting in `state`, so the view asks first. */
export const isEnding = (info: MachineInfo | undefined, state: string, type: string) =>
  info?.endingEvents?.[state]?.includes(type) ?? /(^|[._])(cancel|abort|stop|kill|terminate|skip)([._]|$)/i.test(type);
