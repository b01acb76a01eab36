/**
 * The live view's credentials (src/serve/view-sessions.ts): signed by the token, so a serve started
 * again with the same token takes them and one with another token does not; lapsed after their
 * lifetime; refused when altered anywhere.
 */
import { describe, expect, it } from 'vitest';
import { ViewSessions } from '../../src/serve/view-sessions.js';

const TOKEN = 'view-sessions-test-token-0123456789';

describe('view credentials', () => {
  it('are taken by a serve of the same token until they lapse, and by no other', () => {
    let now = 1_000_000;
    const issuer = new ViewSessions(TOKEN, { lifetimeMs: 60_000, now: () => now });
    const { credential, lifetimeMs } = issuer.issue();
    expect(lifetimeMs).toBe(60_000);
    expect(credential).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(issuer.verify(credential)).toBe(true);
    // The next serve on the same token (a restart with --token): the same verdict.
    expect(new ViewSessions(TOKEN, { now: () => now }).verify(credential)).toBe(true);
    expect(new ViewSessions(`${TOKEN}-other`, { now: () => now }).verify(credential)).toBe(false);
    now += 59_999;
    expect(issuer.verify(credential)).toBe(true);
    now += 1;
    expect(issuer.verify(credential)).toBe(false);
  });

  it('refuses a credential changed anywhere: its expiry moved, its nonce or its signature', () => {
    const issuer = new ViewSessions(TOKEN);
    const { credential } = issuer.issue();
    const [expiry, nonce, mac] = credential.split('.') as [string, string, string];
    const later = (Number.parseInt(expiry, 36) + 86_400_000).toString(36);
    for (const changed of [
      `${later}.${nonce}.${mac}`,
      `${expiry}.${nonce.slice(1)}x.${mac}`,
      `${expiry}.${nonce}.${mac.slice(0, -1)}`,
      `${expiry}.${nonce}`,
      '',
      TOKEN,
    ])
      expect(issuer.verify(changed), changed).toBe(false);
  });
});
