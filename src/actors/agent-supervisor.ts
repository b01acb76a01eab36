/**
 * One agent process under supervision: spawned or adopted, its output read and reported, its
 * signals sent, its whole process tree ended. The actor that holds it is agent-process.ts, whose
 * opening comment says what it reports and when it acts.
 */
import { execa } from 'execa';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentInput } from '../../machines/agent-input.js';
import type { RunHandle, SendOptions } from '../actor-contract/run-handle.js';
import { LineTail } from './line-tail.js';
import { isSameProcessAlive, processStartTime, signalGroup } from '../os/process-identity.js';
import { endProcessTree, type TreeEnded } from '../os/end-process-tree.js';
import { canFindTrees, TREE_COOKIE_VARIABLE, type TreeMember } from '../os/process-tree.js';
import { inCgroup, makeTreeCgroup, removeTreeCgroup } from '../os/tree-cgroup.js';
import { makePrivateDirSync, PRIVATE_FILE_MODE } from '../os/private-files.js';
import { AgentOutputReader } from './agent-output.js';
import { LimitedWarnings } from './limited-warnings.js';
import { readPidRecord, writePidRecord, type PidRecord } from './pid-record.js';
import type { StreamReport } from './stream-json.js';
import { appendWireLog, closeHandedOverWire, handOverWire, openWire } from './agent-wire/agent-wire.js';
import type { MeteringProxy, WireListener } from './agent-wire/metering-proxy.js';
import type { AgentUsage } from '../../machines/agent-pricing.js';

/** The events the actor reports. */
export type AgentReport =
  | { type: 'agent.spawned'; pid: number; pidStart: string; logPath: string }
  | StreamReport
  | { type: 'agent.exited'; code: number | null; signal: string | null; reason: string }
  /** A model call through the metering proxy ended: its usage and cost, and the totals so far. */
  | { type: 'agent.metered'; callId: string; usage: AgentUsage; costUsd: number; calls: number; spentUsd: number }
  /** A model call the upstream did not take (unreachable, or a 5xx), `failures` in a row. */
  | { type: 'agent.upstreamFailed'; cause: string; failures: number }
  /** The agent has written nothing for `silentMs` (its input's `stallMs`). */
  | { type: 'agent.stalled'; silentMs: number };

/**
 * The exits of the agents this process spawned, by pid and start time: a supervisor that adopts
 * one of them after a hand-over (see `detach`) learns its exit status from here.
 */
const ownChildren = new Map<string, Promise<{ code: number | null; signal: string | null; reason: string }>>();

const DEFAULT_GRACE_MS = 5000;

const MAX_DETAIL = 300;

function exitedReason(code: number | null, detail: string): string {
  return `exited with code ${code}${detail ? `: ${detail.slice(0, MAX_DETAIL)}` : ''}`;
}

function lastLine(path: string): string {
  try {
    const text = readFileSync(path, 'utf8').trimEnd();
    return text.slice(text.lastIndexOf('\n') + 1);
  } catch {
    return '';
  }
}

export class AgentSupervisor {
  readonly #run: RunHandle;
  readonly #input: AgentInput;
  readonly #pollMs: number;
  readonly #pidPath: string;
  readonly #stderrPath: string;
  #process: PidRecord | undefined;
  #tail: LineTail | undefined;
  #reader: AgentOutputReader | undefined;
  #warnings: LimitedWarnings | undefined;
  #poll: NodeJS.Timeout | undefined;
  #watcher: FSWatcher | undefined;
  #cleanups: Array<() => void> = [];
  /** Set once the actor is stopped: nothing more is reported. */
  #stopped = false;
  #exited = false;
  #terminating = false;
  /** A signal asked for by the machine, delivered (or due) once its step is committed. */
  #signalled: NodeJS.Signals | undefined;
  #started = false;
  /** The metering proxy the agent's model calls go through, when its input asks for one. */
  #wire: MeteringProxy | undefined;
  /** When the agent last wrote a line (the runtime's clock), for the stall watchdog. */
  #lastOutputAt = 0;
  #stallReported = false;

  constructor(run: RunHandle, input: AgentInput, pollMs: number) {
    this.#run = run;
    this.#input = input;
    this.#pollMs = pollMs;
    this.#pidPath = `${input.logPath}.pid`;
    this.#stderrPath = `${input.logPath}.stderr`;
  }

  start(): void {
    // Stopped before the invoking step was committed (or rolled back): never start.
    if (this.#stopped) return;
    this.#started = true;
    try {
      const recorded = this.#recorded();
      if (recorded) this.#resume(recorded);
      else if (this.#input.wire) this.#spawnWired();
      else this.#spawn();
    } catch (error) {
      this.#exit(null, null, `spawn failed: ${(error as Error).message}`);
    }
  }

  /** What the metering proxy tells: each call's usage (also kept in `<logPath>.wire`), upstream failures. */
  #wireListener(): WireListener {
    return {
      onCall: (call) => {
        appendWireLog(`${this.#input.logPath}.wire`, call);
        this.#reportCall(call);
      },
      onUpstreamFailure: ({ cause, failures }) =>
        this.#report(
          { type: 'agent.upstreamFailed', cause, failures },
          undefined,
          `a model call failed at the metering proxy: ${cause}`,
        ),
      onRefused: (message) => this.#run.log('warn', message, { logPath: this.#input.logPath }),
    };
  }

  #reportCall({ id, usage, costUsd, calls, spentUsd }: Parameters<WireListener['onCall']>[0]): void {
    this.#report(
      { type: 'agent.metered', callId: id, usage, costUsd, calls, spentUsd },
      `wire:${id}`,
      `model call ${calls} metered at the wire: ${costUsd.toFixed(6)} USD, ${spentUsd.toFixed(6)} USD in all`,
    );
  }

  /** Starts the metering proxy, then the agent pointed at it (as it is, when its endpoint is not found). */
  #spawnWired(): void {
    openWire(this.#input, this.#wireListener()).then(
      (opened) => {
        if ('unmetered' in opened) {
          this.#run.log('info', `the agent's model calls are not metered: ${opened.unmetered}`);
          if (!this.#stopped) this.#spawnOrFail();
          return;
        }
        this.#wire = opened.proxy;
        if (this.#stopped) {
          void opened.proxy.close();
          return;
        }
        this.#spawnOrFail(opened.command, opened.env, { port: opened.proxy.port, secret: opened.proxy.secret });
      },
      (error: unknown) => this.#exit(null, null, `spawn failed: the metering proxy: ${(error as Error).message}`),
    );
  }

  #spawnOrFail(pointed?: string[], wireEnv?: Record<string, string>, wire?: { port: number; secret: string }): void {
    try {
      this.#spawn(pointed, wireEnv, wire);
    } catch (error) {
      this.#exit(null, null, `spawn failed: ${(error as Error).message}`);
    }
  }

  /** The process a previous incarnation of this actor started, from the input or the pid file. */
  #recorded(): PidRecord | undefined {
    const onDisk = readPidRecord(this.#pidPath);
    const { recordedPid, recordedPidStart } = this.#input;
    if (recordedPid === undefined) return onDisk;
    const same = onDisk?.pid === recordedPid ? onDisk : undefined;
    return {
      pid: recordedPid,
      pidStart: recordedPidStart ?? onDisk?.pidStart ?? '',
      logOffset: same?.logOffset ?? 0,
      ...(same?.cookie !== undefined && { cookie: same.cookie }),
      ...(same?.cgroup !== undefined && { cgroup: same.cgroup }),
    };
  }

  /** Spawns the agent; `pointed` and `wireEnv` replace and add to the input's (the metering proxy's). */
  #spawn(pointed?: string[], wireEnv?: Record<string, string>, wire?: { port: number; secret: string }): void {
    const { cwd, prompt, logPath } = this.#input;
    const command = pointed ?? this.#input.command;
    const env = wireEnv ? { ...this.#input.env, ...wireEnv } : this.#input.env;
    if (command.length === 0 || !command[0])
      throw new Error('the command is empty: give the program to run and its arguments');
    makePrivateDirSync(dirname(logPath));
    const logOffset = existsSync(logPath) ? statSync(logPath).size : 0;
    const out = openSync(logPath, 'a', PRIVATE_FILE_MODE);
    const err = openSync(this.#stderrPath, 'a', PRIVATE_FILE_MODE);
    const cookie = randomUUID();
    // Its own cgroup where one can be made: what the agent starts stays in it, whatever it does (tree-cgroup.ts).
    let cgroup = canFindTrees() ? makeTreeCgroup() : undefined;
    const wrapped = cgroup && inCgroup(cgroup, command, { cwd, path: env?.PATH ?? process.env.PATH });
    if (cgroup && !wrapped) {
      removeTreeCgroup(cgroup);
      cgroup = undefined;
    }
    const [program, ...args] = wrapped ?? command;
    let subprocess;
    try {
      subprocess = execa(program!, args, {
        ...(cwd !== undefined && { cwd }),
        // Added to the runtime's own environment (execa's extendEnv), as `env` alone would be.
        env: { ...env, [TREE_COOKIE_VARIABLE]: cookie },
        detached: true,
        stdin: prompt === undefined ? 'ignore' : 'pipe',
        ...(prompt !== undefined && { input: prompt }),
        // An integer descriptor goes straight to spawn (execa's "native" stdio); its types name only 3-9.
        stdout: out as 3,
        stderr: err as 3,
        reject: false,
      });
    } finally {
      // The child holds its own copies of the descriptors.
      closeSync(out);
      closeSync(err);
    }
    const pid = subprocess.pid;
    if (pid === undefined) {
      void subprocess.then((result) =>
        this.#exit(null, null, `spawn failed: ${result.shortMessage ?? result.message}`),
      );
      return;
    }
    const pidStart = processStartTime(pid) ?? '';
    this.#process = { pid, pidStart, logOffset, cookie, ...(cgroup && { cgroup }), ...(wire && { wire }) };
    writePidRecord(this.#pidPath, this.#process);
    const exit = subprocess.then((result) => {
      if (result.signal) return { code: null, signal: result.signal, reason: `was killed by ${result.signal}` };
      const code = result.exitCode ?? null;
      return { code, signal: null, reason: exitedReason(code, code === 0 ? '' : lastLine(this.#stderrPath)) };
    });
    const key = `${pid}:${pidStart}`;
    ownChildren.set(key, exit);
    void exit.then(() => ownChildren.delete(key));
    this.#report(
      { type: 'agent.spawned', pid, pidStart, logPath },
      `agent.spawned:${pid}:${pidStart}`,
      `spawned ${command[0]} as pid ${pid}`,
    );
    this.#follow(logOffset);
    void exit.then(({ code, signal, reason }) => this.#exit(code, signal, reason, true));
  }

  /** A restarted actor: adopt the recorded process if it still runs, else report what it left. */
  #resume(recorded: PidRecord): void {
    this.#process = recorded;
    const alive = isSameProcessAlive(recorded.pid, recorded.pidStart);
    this.#run.log(
      'info',
      alive ? 'adopting the running agent instead of spawning another' : 'the recorded agent is gone',
      {
        pid: recorded.pid,
        pidStart: recorded.pidStart,
      },
    );
    this.#report(
      { type: 'agent.spawned', pid: recorded.pid, pidStart: recorded.pidStart, logPath: this.#input.logPath },
      `agent.spawned:${recorded.pid}:${recorded.pidStart}`,
      alive ? `adopted pid ${recorded.pid} after a restart` : `pid ${recorded.pid} recorded before a restart`,
    );
    if (!existsSync(this.#input.logPath))
      writeFileSync(this.#input.logPath, '', { flag: 'a', mode: PRIVATE_FILE_MODE });
    this.#follow(recorded.logOffset);
    if (!alive) {
      if (recorded.wire) closeHandedOverWire(recorded.wire.port);
      this.#exit(null, null, 'process gone before restart');
      return;
    }
    if (recorded.wire && this.#input.wire) this.#adoptWire(recorded.wire);
    // Handed over within this process (see `detach`): it is still our child, and its exit status is known.
    const ours = ownChildren.get(`${recorded.pid}:${recorded.pidStart}`);
    if (ours) {
      void ours.then(({ code, signal, reason }) => this.#exit(code, signal, reason, true));
      return;
    }
    // Not our child: its exit is seen only as its disappearance, its status is unknown.
    const check = setInterval(() => {
      if (!isSameProcessAlive(recorded.pid, recorded.pidStart)) {
        clearInterval(check);
        this.#exit(null, null, 'ended while adopted (exit status unknown)');
      }
    }, this.#pollMs);
    this.#cleanups.push(() => clearInterval(check));
  }

  /** Serves an adopted agent's proxy again (the same port and secret), and reports its calls from the wire log. */
  #adoptWire(recorded: { port: number; secret: string }): void {
    openWire(this.#input, this.#wireListener(), recorded).then(
      (opened) => {
        if ('unmetered' in opened) return;
        if (this.#stopped || this.#exited) {
          void opened.proxy.close();
          return;
        }
        this.#wire = opened.proxy;
        for (const call of opened.earlier) this.#reportCall(call);
      },
      (error: unknown) =>
        this.#run.log(
          'error',
          `could not serve the adopted agent's metering proxy on port ${recorded.port} again: ${(error as Error).message}; its model calls fail until it ends`,
          { pid: this.#process?.pid },
        ),
    );
  }

  #closeWire(): void {
    void this.#wire?.close();
    this.#wire = undefined;
  }

  /** Reads the log as it grows: on every change notice, and on a timer in case a notice is missed. */
  #follow(offset: number): void {
    this.#tail = new LineTail(this.#input.logPath, offset);
    // From where this process's output starts: an adopting actor's reader rebuilds the same state.
    this.#reader = new AgentOutputReader(this.#input.pricing, this.#input.threadUsage);
    this.#warnings = new LimitedWarnings(
      (message, data) => this.#run.log('warn', message, { logPath: this.#input.logPath, ...data }),
      () => this.#run.clock.now(),
    );
    this.#lastOutputAt = this.#run.clock.now();
    this.#drain();
    this.#poll = setInterval(() => {
      this.#drain();
      this.#watchStall();
    }, this.#pollMs);
    try {
      this.#watcher = watch(this.#input.logPath, () => this.#drain());
      this.#watcher.on('error', () => this.#watcher?.close());
    } catch {
      // No change notices on this file system: the timer alone reads the log.
    }
  }

  #drain(final = false): void {
    if (!this.#tail || this.#stopped) return;
    const lines = final ? this.#tail.finish() : this.#tail.read();
    if (lines.length > 0) this.#lastOutputAt = this.#run.clock.now();
    const { pid, pidStart } = this.#process!;
    for (const { line, offset } of lines) {
      const { report, warning, released = [] } = this.#reader!.read(line);
      if (warning) this.#warnings!.warn(warning, { offset });
      // Messages held for their final usage come before the line that releases them (a result).
      for (const [i, message] of released.entries())
        this.#report(
          message,
          `agent:${pid}:${pidStart}:${offset}:released:${i}`,
          `a message held for its final usage, released by the line at byte ${offset} of the agent log`,
        );
      if (report)
        this.#report(
          report,
          `agent:${pid}:${pidStart}:${offset}`,
          `stream-json line at byte ${offset} of the agent log`,
        );
    }
    if (!final) return;
    // The output has ended: what is still held (a stream cut before its final usage) is reported as it is.
    for (const [i, message] of this.#reader!.finish().entries())
      this.#report(
        message,
        `agent:${pid}:${pidStart}:end:${i}`,
        'a message whose final usage never came, at the end of the agent log',
      );
  }

  /** Reports `agent.stalled` once, when the agent has been silent for its input's `stallMs`. */
  #watchStall(): void {
    const { stallMs } = this.#input;
    if (stallMs === undefined || this.#stallReported || this.#exited) return;
    const silentMs = this.#run.clock.now() - this.#lastOutputAt;
    if (silentMs < stallMs) return;
    this.#stallReported = true;
    this.#report(
      { type: 'agent.stalled', silentMs },
      undefined,
      `the agent wrote nothing for ${Math.round(silentMs / 1000)} s (stall bound ${stallMs} ms)`,
    );
  }

  /** `justExited`: the exit is seen as it happens (our child's exit status), not found out later. */
  #exit(code: number | null, signal: string | null, reason: string, justExited = false): void {
    if (this.#exited) return;
    this.#exited = true;
    // Stopped or handed over: the machine hears nothing more, the log says how the agent ended.
    if (this.#stopped)
      this.#run.log('info', `the agent ${reason} after its supervisor stopped (not reported)`, {
        logPath: this.#input.logPath,
      });
    this.#drain(true);
    // The error the agent wrote on stdout says more than its stderr (Codex's last line there is
    // "Reading prompt from stdin..."): a failed exit is explained by it, when there is one.
    const agentError = code !== 0 && code !== null ? this.#reader?.lastError : undefined;
    const why = agentError === undefined ? reason : exitedReason(code, agentError);
    this.#unfollow();
    this.#closeWire();
    const key = this.#process ? `agent.exited:${this.#process.pid}:${this.#process.pidStart}` : undefined;
    this.#report({ type: 'agent.exited', code, signal, reason: why }, key, `the agent ${why}`);
    // What it started ends with it, also after a hand-over: nobody adopts an exited agent's descendants.
    if (this.#process) this.#endTree(justExited);
  }

  /** Ends whatever is left of the agent's process tree, and logs what that took. */
  #endTree(leaderJustExited: boolean): void {
    const { pid, pidStart, cookie, cgroup } = this.#process!;
    const graceMs = this.#input.graceMs ?? DEFAULT_GRACE_MS;
    const ending = endProcessTree(
      { pid, pidStart, ...(cookie !== undefined && { cookie }), ...(cgroup !== undefined && { cgroup }) },
      { graceMs, pollMs: this.#pollMs, clock: this.#run.clock, leaderJustExited },
    );
    void ending?.then(
      (ended) => {
        // Empty once the whole tree has ended (the leader too); else it stays for the next ending to find.
        if (cgroup !== undefined) removeTreeCgroup(cgroup);
        this.#logTreeEnded(ended);
      },
      (error: unknown) =>
        this.#run.log('error', `could not end the agent's processes: ${(error as Error).message}`, { pid }),
    );
  }

  #logTreeEnded({ terminated, killed, left }: TreeEnded): void {
    if (terminated.length === 0) return;
    const pids = (members: readonly TreeMember[]) => members.map((m) => m.pid);
    const data = {
      pid: this.#process!.pid,
      terminated: pids(terminated),
      killed: pids(killed),
      logPath: this.#input.logPath,
    };
    if (left.length > 0) {
      this.#run.log(
        'error',
        `processes of the agent still run after SIGKILL: ${pids(left).join(', ')}; end them by hand (kill -KILL)`,
        { ...data, left: pids(left) },
      );
      return;
    }
    this.#run.log(
      'info',
      `the agent's process tree has ended (${terminated.length} got SIGTERM, ${killed.length} SIGKILL)`,
      data,
    );
  }

  /** `reason` goes to the audit trail: why the run moved, in words. */
  #report(event: AgentReport, idempotencyKey: string | undefined, reason: string): void {
    if (this.#stopped) return;
    const options: SendOptions = {
      actor: 'agent',
      reason,
      ifAccepted: true,
      ...(idempotencyKey && { idempotencyKey }),
    };
    try {
      this.#run.send(event, options);
    } catch (error) {
      this.#run.log('error', `could not report ${event.type}: ${(error as Error).message}`, {
        logPath: this.#input.logPath,
      });
    }
  }

  /** Sends `signal` to the group once the step that asked for it is committed. */
  signal(signal: unknown): void {
    if (typeof signal !== 'string' || !/^SIG[A-Z0-9]+$/.test(signal)) {
      this.#run.log('error', `agent.signal ignored: ${JSON.stringify(signal)} is not a signal name such as "SIGINT"`);
      return;
    }
    this.#signalled = signal as NodeJS.Signals;
    this.#run.afterCommit(() => {
      const target = this.#process;
      if (!target || this.#exited || !isSameProcessAlive(target.pid, target.pidStart)) return;
      this.#run.log('info', `sending ${signal} to the agent`, { pid: target.pid });
      signalGroup(target.pid, signal as NodeJS.Signals);
    });
  }

  /**
   * Ends the agent's whole process tree: SIGTERM now, SIGKILL after the grace period to what is
   * left (see end-process-tree.ts).
   */
  terminate(why: string): void {
    const target = this.#process;
    if (!target || this.#exited || this.#terminating) return;
    this.#terminating = true;
    const grace = this.#input.graceMs ?? DEFAULT_GRACE_MS;
    const alive = () => isSameProcessAlive(target.pid, target.pidStart);
    // Ended meanwhile (a stopped actor no longer watches an adopted process): only its descendants may be left.
    if (!alive()) {
      this.#endTree(false);
      return;
    }
    // Timers are not cleared on stop: when the actor is stopped, the escalation must still happen.
    if (this.#signalled) {
      // The agent was just signalled (a session's SIGINT): let it act on that before SIGTERM.
      this.#run.log(
        'info',
        `stopping the agent (${why}) after ${this.#signalled}, SIGTERM in ${grace} ms if it is still running`,
        { pid: target.pid },
      );
      // Exited meanwhile, as our child: its exit ended the rest of the tree.
      this.#run.clock.setTimeout(() => this.#exited || this.#endTree(false), grace);
      return;
    }
    this.#run.log('info', `stopping the agent (${why})`, { pid: target.pid });
    this.#endTree(false);
  }

  /**
   * The actor is stopped: nothing more is reported. The agent is ended by `end`, once the step that
   * stopped the actor is durable. Returns whether the actor had started (see `end`).
   */
  stop(): boolean {
    const started = this.#started || this.#stopped;
    this.#stopped = true;
    this.#unfollow();
    return started;
  }

  /** Ends the agent of a stopped actor; `started` is what `stop` returned. */
  end(started: boolean): void {
    // Stopped before it started (a restored run that recovery ended): the agent it stands for is
    // the one recorded on disk, left by a host that died. Nobody supervises it any more: end it.
    if (!started) {
      const recorded = this.#recorded();
      if (recorded) {
        this.#process = recorded;
        this.terminate('its codon ended before the restored actor resumed it');
      }
    }
    this.terminate('the actor was stopped');
    this.#closeWire();
  }

  /**
   * Stops supervising without ending the agent: the runtime is replacing this actor with one
   * restored from the last commit (`RunHandle.handingOver`), whose supervisor adopts the process
   * from its pid record and reads its log again from the start (reports already committed are
   * recognised by their idempotency keys; those of the rolled-back steps are applied anew).
   */
  detach(): void {
    if (this.#process && !this.#exited)
      this.#run.log('info', 'handing the agent over to the restored actor', { pid: this.#process.pid });
    if (this.#wire && !this.#exited) handOverWire(this.#wire);
    else this.#closeWire();
    this.#wire = undefined;
    this.#stopped = true;
    this.#unfollow();
  }

  #unfollow(): void {
    if (this.#poll) clearInterval(this.#poll);
    this.#poll = undefined;
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#tail?.close();
    this.#tail = undefined;
    this.#warnings?.flush();
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
  }
}
