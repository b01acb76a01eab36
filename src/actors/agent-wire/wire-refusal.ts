/**
 * The error bodies the metering proxy answers a model call with when it does not pass it on (the
 * budget is spent, the upstream cannot be reached), in the shape of the API the agent speaks, so
 * the CLI reports the message as it reports any API error.
 */
import type { WireApi } from './call-usage.js';

export function wireRefusal(api: WireApi, status: number, message: string): Record<string, unknown> {
  if (api === 'messages') {
    const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  return { error: { type: status >= 500 ? 'server_error' : 'invalid_request_error', message, code: null } };
}
