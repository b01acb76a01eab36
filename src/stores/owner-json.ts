import type { OwnerInfo } from './store.js';

/** A runtime writes the same owner on every commit: its JSON is made once, and again only when another owner comes. */
export function ownerJsonCache(): (owner: OwnerInfo | undefined) => string | null {
  let lastOwner: OwnerInfo | undefined;
  let lastOwnerJson: string | null = null;
  return (owner) => {
    if (owner !== lastOwner) {
      lastOwner = owner;
      lastOwnerJson = owner ? JSON.stringify(owner) : null;
    }
    return lastOwnerJson;
  };
}
