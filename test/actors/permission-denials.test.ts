/**
 * The tool calls Claude Code refuses, as it reports them (2.1.328's shapes): a
 * `system/permission_denied` line per refusal, and `result.permission_denials`, the authoritative
 * list. The reader reports each line's refusal once per tool call, and the result carries the list.
 */
import { describe, expect, it } from 'vitest';
import { AgentOutputReader } from '../../src/actors/agent-output.js';
import { parseStreamJsonLine } from '../../src/actors/stream-json.js';

const denied = JSON.stringify({
  type: 'system',
  subtype: 'permission_denied',
  tool_name: 'Write',
  tool_use_id: 'toolu_1',
  decision_reason_type: 'mode',
  message: 'Claude requested permissions to write to /tmp/x, but you have not granted it yet.',
  uuid: 'u1',
  session_id: 's1',
});

const result = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'I could not write the file.',
  total_cost_usd: 0.01,
  usage: { input_tokens: 10, output_tokens: 5 },
  permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_1', tool_input: { file_path: '/tmp/x' } }],
  session_id: 's1',
});

describe("Claude's permission denials", () => {
  it('reads a system/permission_denied line as one refusal with its message', () => {
    expect(parseStreamJsonLine(denied)).toEqual({
      kind: 'report',
      report: {
        type: 'agent.permission_denied',
        toolName: 'Write',
        toolUseId: 'toolu_1',
        message: 'Claude requested permissions to write to /tmp/x, but you have not granted it yet.',
      },
    });
    expect(parseStreamJsonLine('{"type":"system","subtype":"permission_denied","tool_name":"Write"}')).toEqual({
      kind: 'invalid',
      problem: 'system/permission_denied without a tool_name and tool_use_id',
    });
  });

  it('carries result.permission_denials on the result, and leaves it out when there are none', () => {
    const parsed = parseStreamJsonLine(result);
    expect(
      parsed.kind === 'report' && parsed.report.type === 'agent.result' && parsed.report.permissionDenials,
    ).toEqual([{ toolName: 'Write', toolUseId: 'toolu_1', toolInput: { file_path: '/tmp/x' } }]);
    const none = parseStreamJsonLine(result.replace(/"permission_denials":\[.*?\]\]?,/, '"permission_denials":[],'));
    expect(none.kind === 'report' && 'permissionDenials' in none.report).toBe(false);
  });

  it('reports a refusal once per tool call', () => {
    const reader = new AgentOutputReader();
    expect(reader.read(denied).report?.type).toBe('agent.permission_denied');
    expect(reader.read(denied)).toEqual({});
    expect(reader.read(result).report).toMatchObject({
      type: 'agent.result',
      permissionDenials: [{ toolName: 'Write', toolUseId: 'toolu_1' }],
    });
  });
});
