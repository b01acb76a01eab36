#!/usr/bin/env node
// `statewright mcp` starts from its bundle (scripts/build-mcp.mjs): an agent waits for its
// `initialize` answer only so long, and loading the modules one file at a time costs most of that.
if (process.argv[2] === 'mcp') await import('../dist/mcp/main.js');
else await import('../dist/src/cli/main.js');
