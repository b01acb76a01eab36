/**
 * A network namespace joined to this one by a veth pair (iproute2, as root): a host on a network of
 * its own on this machine. The root side of the pair has `outside`, the namespace's side `inside`
 * (a /30 of 10.x.y.z); `cut()` takes the root side's link down while everything on both sides keeps
 * running, `mend()` brings it back. `remove()` deletes the namespace, and with it the pair.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/** Why namespaces cannot be made here, or undefined when they can (root, `ip` and `unshare` installed). */
export function networkNamespacesUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'making network namespaces needs root (CI runs as root)';
  if (!['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].some(existsSync))
    return "iproute2's `ip` is not installed (apt-get install -y iproute2)";
  if (!['/usr/bin/unshare', '/bin/unshare'].some(existsSync)) return "util-linux's `unshare` is not installed";
  try {
    const probe = `swprobe${randomBytes(3).toString('hex')}`;
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
  } catch (error) {
    return `\`ip netns add\` failed: ${(error as Error).message.trim()} (the container may lack CAP_SYS_ADMIN or CAP_NET_ADMIN)`;
  }
  return undefined;
}

export interface NetworkNamespace {
  readonly name: string;
  /** The root namespace's address on the pair: what the namespace reaches this side at. */
  readonly outside: string;
  /** The namespace's own address: what this side reaches it at. */
  readonly inside: string;
  /** Runs a command inside the namespace (its arguments for `startCommand` and the like). */
  readonly exec: readonly string[];
  /**
   * Runs a command inside the namespace as a machine of its own: in a UTS namespace named
   * `hostname`, so that other hosts cannot tell by its pid whether it is alive, as with a host on
   * another machine. The command is exec'd: it keeps the pid.
   */
  execAs(hostname: string): readonly string[];
  /** Takes the root side's link down: packets between the two sides are lost, nothing is told. */
  cut(): void;
  mend(): void;
  remove(): void;
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The second and third octets of a 10.x.y.0/24 that no interface here uses yet. */
function freeSubnet(): string {
  const used = ip('-o', '-4', 'addr', 'show');
  for (;;) {
    const subnet = `10.${200 + (randomBytes(1)[0]! % 50)}.${randomBytes(1)[0]!}`;
    if (!used.includes(` ${subnet}.`)) return subnet;
  }
}

export function createNetworkNamespace(): NetworkNamespace {
  const tag = randomBytes(3).toString('hex');
  const name = `sw-${tag}`;
  // Interface names hold at most 15 characters.
  const [outer, inner] = [`swo${tag}`, `swi${tag}`];
  const subnet = freeSubnet();
  const [outside, inside] = [`${subnet}.1`, `${subnet}.2`];
  ip('netns', 'add', name);
  try {
    ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
    ip('link', 'set', inner, 'netns', name);
    ip('addr', 'add', `${outside}/30`, 'dev', outer);
    ip('link', 'set', outer, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${inside}/30`, 'dev', inner);
    ip('netns', 'exec', name, 'ip', 'link', 'set', inner, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    remove();
    throw error;
  }
  function remove() {
    // Deleting the namespace deletes the end inside it, and a veth pair goes with either end.
    try {
      ip('netns', 'del', name);
    } catch {
      // Already gone.
    }
    try {
      ip('link', 'del', outer);
    } catch {
      // Went with the namespace.
    }
  }
  return {
    name,
    outside,
    inside,
    exec: ['ip', 'netns', 'exec', name],
    execAs: (hostname) => [
      'ip',
      'netns',
      'exec',
      name,
      'unshare',
      '--uts',
      'sh',
      '-c',
      'hostname "$0" && exec "$@"',
      hostname,
    ],
    cut: () => void ip('link', 'set', outer, 'down'),
    mend: () => void ip('link', 'set', outer, 'up'),
    remove,
  };
}
