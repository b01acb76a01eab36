/** `--as`, the agent doing a task action: `statewright task`'s and `statewright mcp --task`'s. */
import { InvalidArgumentError, Option } from 'commander';
// The agent id's own module, not machines/index.js: `statewright mcp` loads it before it answers.
import { agentIdSchema, type AgentId } from '../../../machines/task/agent.js';

const AGENT_ID = 'role:vendor:index with role supervisor, executor or human';

/** `--as`: the agent doing the action, checked as an agent id while the command line is parsed. */
export const agentOption = () =>
  new Option('--as <agent>', `the agent doing it: ${AGENT_ID}`).argParser((value): AgentId => {
    const parsed = agentIdSchema.safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError(`Expected ${AGENT_ID}, e.g. --as executor:codex:1.`);
    return parsed.data;
  });
