import type { Explanation } from '../api.js';
import { age, payload, time } from '../format.js';

/** Why the run is where it is: the explain verdict and every fact behind it. */
export function ExplainPanel({ explanation: x }: { explanation: Explanation }) {
  return (
    <section class="explain">
      <h2>Why it is here</h2>
      <p class="verdict">{x.verdict}</p>
      <dl>
        <dt>state</dt>
        <dd>
          <code>{x.state}</code> ({x.status}) since {time(x.since)}, {age(x.since)} ago
        </dd>
        <dt>accepts</dt>
        <dd>
          {x.accepts.length === 0
            ? 'no event'
            : x.accepts.map((a) => (
                <span key={a.type} class="accept">
                  <code>{a.type}</code>
                  {a.needs.fields.length > 0 && ` needs ${a.needs.fields.join(', ')}`}
                  {a.needs.roles?.length ? ` from ${a.needs.roles.join(' or ')}` : ''}
                </span>
              ))}
        </dd>
        {(x.movesOnItsOwn?.length ?? 0) > 0 && (
          <>
            <dt>moves on its own</dt>
            <dd class="own-moves">
              {x.movesOnItsOwn!.map((move) => (
                <span key={move.event} class="accept" title={move.event}>
                  {move.label} {move.to.length > 0 ? `→ ${move.to.join(', ')}` : '(stays)'}
                </span>
              ))}
            </dd>
          </>
        )}
        {x.actors && (
          <>
            <dt>actors</dt>
            <dd>
              {x.actors.awaited.map((name) => (
                <span key={`a:${name}`} class="accept">
                  {name} (it waits on it)
                </span>
              ))}
              {x.actors.spawned.map((name) => (
                <span key={`s:${name}`} class="accept">
                  {name} (spawned, runs beside it)
                </span>
              ))}
            </dd>
          </>
        )}
        {x.deadlines.length > 0 && (
          <>
            <dt>deadlines</dt>
            <dd>
              {x.deadlines.map((d) => (
                <span key={d.name} class="accept">
                  {d.name} at {time(d.at)}
                  {d.target ? `, to ${d.target}` : ''}
                </span>
              ))}
            </dd>
          </>
        )}
        <dt>owner</dt>
        <dd>
          {x.owner
            ? `${x.owner.id}, pid ${x.owner.pid} on ${x.owner.host}, ${x.owner.alive ? 'alive' : 'gone'}`
            : x.hostedOn
              ? `on Restate: its virtual object ${x.hostedOn.object} (key ${x.hostedOn.key}), served by the worker`
              : 'none: the run sleeps in the store'}
        </dd>
        {x.lease && (
          <>
            <dt>lease</dt>
            <dd>
              held by {x.lease.holder} until {time(x.lease.expiresAt)}, last heartbeat {age(x.lease.lastHeartbeat)} ago
            </dd>
          </>
        )}
        {x.agent && (
          <>
            <dt>agent</dt>
            <dd>
              pid {x.agent.pid}, {x.agent.alive ? 'alive' : 'not running'}
              {x.agent.lastWriteAt != null && `, last wrote ${age(x.agent.lastWriteAt)} ago`}
            </dd>
          </>
        )}
        {x.lastRefused && (
          <>
            <dt>last refused</dt>
            <dd class="refused">
              <code>{x.lastRefused.event.type}</code> {payload(x.lastRefused.event)} at {time(x.lastRefused.at)}:{' '}
              {x.lastRefused.error}: {x.lastRefused.message}
            </dd>
          </>
        )}
        {x.setAside && (
          <>
            <dt>set aside</dt>
            <dd class="refused">{x.setAside.reason}</dd>
          </>
        )}
      </dl>
    </section>
  );
}
