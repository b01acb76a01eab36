import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

/**
 * One HTTP call with node:http, its whole answer read as text. Not `fetch`: loading Node's fetch
 * (undici) costs more CPU than the rest of a CLI call through a serve (bench/cli-startup.bench.ts).
 * Rejects with the socket's error (its `code`, e.g. ECONNREFUSED) when there is no answer.
 */
export function httpCall(
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body?: string,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(body);
  });
}
