/**
 * The layout's import rules (DESIGN.md, "Which way the imports run"), checked by `npm run lint:deps`.
 * TypeScript is parsed with swc: dependency-cruiser reads .ts through the TypeScript compiler API
 * only for TypeScript < 7, and TypeScript 7 (native) has none. Type-only imports are kept
 * (`tsPreCompilationDeps`), so a cycle made of `import type` is a cycle too.
 */
const LIFECYCLE_SERVICES = '^src/(session|codon|review-loop|task)/';
// src/restate hosts the lifecycles on Restate (its endpoint, worker and client), beside serve and the CLI.
// src/client (the client of a running serve, and the task project's session) is what the CLI and
// `statewright mcp` share: a host's part, below both of them.
const HOSTS = '^src/(cli|serve|mcp|restate|inspect|client|testing|index[.]ts)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A module must not reach itself again through its imports, type imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'machines-are-pure',
      severity: 'error',
      comment:
        'machines/ holds the XState definitions, schemas and pure helpers: it imports xstate, zod, ' +
        "src/graph's derivation helpers, the error base (src/errors.ts) and itself, nothing with I/O (no node: modules, no runtime, store or actor).",
      from: { path: '^machines/' },
      to: { pathNot: ['^machines/', '^src/graph/', '^src/errors[.]ts$', 'node_modules/(xstate|zod)/'] },
    },
    {
      name: 'graph-imports-no-lifecycle',
      severity: 'error',
      comment: 'src/graph derives tables and diagrams from any machine: it knows no lifecycle and no runtime.',
      from: { path: '^src/graph/' },
      to: { path: ['^machines/', '^src/(runtime|stores|actors|os|inspect)/', LIFECYCLE_SERVICES, HOSTS] },
    },
    {
      name: 'runtime-names-no-lifecycle',
      severity: 'error',
      comment:
        'src/runtime knows machines only through the registry it is handed: from machines/ it imports ' +
        'the registry types (machines/lifecycle.ts) and nothing else, not even the registry file machines/index.ts.',
      from: { path: '^src/runtime/' },
      to: { path: ['^machines/', LIFECYCLE_SERVICES, HOSTS], pathNot: '^machines/lifecycle[.]ts$' },
    },
    {
      name: 'runtime-imports-no-actor',
      comment:
        'src/runtime hosts the actors it is given (createRuntime({ actors })): it imports no actor implementation, ' +
        'only the actor contract (src/actor-contract). Its own durable timer lives with its timers (src/runtime/timers).',
      severity: 'error',
      from: { path: '^src/runtime/' },
      to: { path: '^src/actors/' },
    },
    {
      name: 'actors-import-the-contract',
      severity: 'error',
      comment:
        'An actor sees the runtime only through the actor contract (RunHandle, ActorFactory, the clock): src/actors never imports src/runtime.',
      from: { path: '^src/actors/' },
      to: { path: '^src/runtime/' },
    },
    {
      name: 'actor-contract-stands-alone',
      severity: 'error',
      comment:
        'The actor contract is what the runtime and the actors share, so it imports neither (nor anything else of the project).',
      from: { path: '^src/actor-contract/' },
      to: { path: '^(src|machines)/', pathNot: '^src/actor-contract/' },
    },
    {
      name: 'stores-below-runtime',
      severity: 'error',
      comment: 'The runtime depends on the Store interface, not the other way round.',
      from: { path: '^src/stores/' },
      to: { path: ['^machines/', '^src/(runtime|actors|graph|inspect)/', LIFECYCLE_SERVICES, HOSTS] },
    },
    {
      name: 'actors-serve-every-lifecycle',
      severity: 'error',
      comment: 'src/actors holds actors any lifecycle may use: it names none of the lifecycle services, nor the hosts.',
      from: { path: '^src/actors/' },
      to: { path: [LIFECYCLE_SERVICES, HOSTS] },
    },
    {
      name: 'os-helpers-stand-alone',
      severity: 'error',
      comment: 'src/os (process identity) is used by the runtime and the actors alike, so it imports neither.',
      from: { path: '^src/os/' },
      to: { path: '^(src|machines)/', pathNot: '^src/os/' },
    },
    {
      name: 'lifecycles-below-hosts',
      severity: 'error',
      comment:
        "Imports run from the hosts (src/cli, src/serve, src/mcp: the agents' MCP server, src/restate, src/inspect: the inspector bridge, the root export) down: nothing below imports them.",
      from: { path: '^(src|machines)/', pathNot: HOSTS },
      to: { path: HOSTS },
    },
    {
      name: 'client-below-cli-and-mcp',
      severity: 'error',
      comment:
        'src/client is what the CLI and `statewright mcp` share (the client of a running serve, the task session): it imports neither.',
      from: { path: '^src/client/' },
      to: { path: '^src/(cli|mcp)/' },
    },
    {
      name: 'mcp-imports-no-cli',
      severity: 'error',
      comment: '`statewright mcp` is started by the CLI, not the other way round: what both need lives in src/client.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'lifecycle-services-apart',
      severity: 'error',
      comment: "One lifecycle's service does not import another's: each is wired on the runtime on its own.",
      from: { path: '^src/(session|codon|review-loop|task)/' },
      to: { path: LIFECYCLE_SERVICES, pathNot: ['^src/$1/'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a broken build, or a dependency missing from package.json.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // bench/peers has its own package.json and node_modules, installed only by `npm run bench:peers`
    // (CI never installs it): its imports of DBOS and LangGraph would not resolve here.
    exclude: { path: '^(dist|node_modules|bench/peers)/' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
    },
  },
};
