/**
 * A run object's state read as what it is: a `RestatePromise`, so that several reads can be awaited
 * together with `RestatePromise.all` (one round trip to Restate with lazy state). The SDK types
 * `ctx.get` as a plain Promise.
 */
import type * as restate from '@restatedev/restate-sdk';

export const readState = <T>(
  ctx: Pick<restate.ObjectSharedContext, 'get'>,
  key: string,
): restate.RestatePromise<T | null> => ctx.get<T>(key) as restate.RestatePromise<T | null>;
