/**
 * Runs the agent process actor in a process of its own, printing every report as a JSON line, so a
 * test can kill this host with SIGKILL (a runtime crash) and see what survives.
 * Usage: node dist-test/test/support/agent-host.js '<AgentProcessInput as JSON>'
 */
import { createActor } from 'xstate';
import { createAgentProcess, type AgentProcessInput } from '../../src/actors/agent-process.js';
import { systemClock } from '../../src/actor-contract/clock.js';

const input = JSON.parse(process.argv[2]!) as AgentProcessInput;
const run = {
  runId: 'host-run',
  machine: 'codon',
  clock: systemClock,
  send: (event: unknown, options: unknown) => process.stdout.write(`${JSON.stringify({ event, options })}\n`),
  afterCommit: (effect: () => void) => queueMicrotask(effect),
  afterStop: (effect: () => void) => effect(),
  log: () => {},
};
createActor(createAgentProcess({ pollMs: 20 })(run), { input }).start();
