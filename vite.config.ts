import { defineConfig } from 'vitest/config';

/**
 * The test files that start processes: agents, CLI calls, crash children, lease holders, git,
 * shell checks, the examples. They wait on other processes, so they get longer timeouts and run
 * after the in-process tests, never alongside them, so that two cores are not oversubscribed.
 * A new test file that starts processes (directly, or through real agents and checks) belongs here.
 */
const processTests = [
  'test/actors/agent-process.test.ts',
  'test/actors/agent-process-tree.test.ts',
  'test/actors/agent-transcripts.test.ts',
  'test/cli/**/*.test.ts',
  'test/codon/codon-actors.test.ts',
  'test/codon/codon-crash.test.ts',
  'test/codon/codon-lifecycle.test.ts',
  'test/codon/git-checkpoint.test.ts',
  'test/codon/validate-state.test.ts',
  'test/examples/**/*.test.ts',
  'test/foreign/diagrams-serve.test.ts',
  'test/foreign/serve-restart.test.ts',
  'test/mcp/**/*.test.ts',
  'test/lint/import-rules.test.ts',
  'test/model/crash-boundary-kill.test.ts',
  'test/os/process-identity.test.ts',
  'test/os/private-files.test.ts',
  'test/os/process-tree.test.ts',
  'test/package/**/*.test.ts',
  'test/real-agents/**/*.test.ts',
  'test/restate/**/*.test.ts',
  'test/review-loop/codex-agents.test.ts',
  'test/review-loop/example.test.ts',
  'test/review-loop/manifest.test.ts',
  'test/review-loop/runner.test.ts',
  'test/review-loop/stand-in-agents.test.ts',
  'test/review-loop/start-agents.test.ts',
  'test/runtime/hand-over.test.ts',
  'test/runtime/one-runtime.test.ts',
  'test/runtime/recovery.test.ts',
  'test/session/example.test.ts',
  'test/session/session-agents.test.ts',
  'test/serve/api.test.ts',
  'test/serve/config-reload.test.ts',
  'test/serve/diagrams.test.ts',
  'test/serve/serve-security.test.ts',
  'test/serve/chaos-*.test.ts',
  'test/serve/hosting.test.ts',
  'test/serve/several-hosts.test.ts',
  'test/stores/crash.test.ts',
  'test/stores/file-lock.test.ts',
  'test/stores/postgres-restart.test.ts',
  'test/stores/sqlite-full-disk.test.ts',
  'test/task/check-runner.test.ts',
  'test/task/lease-takeover.test.ts',
  'test/task/state-file.test.ts',
  'test/ui/**/*.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/postgres-skip-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: processTests,
          testTimeout: 30_000,
          hookTimeout: 30_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: processTests,
          // A child starts in about 0.1 s at rest and 1-2 s with both cores busy; the longest test here
          // takes about 35 s then (the Postgres crash test), so these only catch a hang.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
