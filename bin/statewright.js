#!/usr/bin/env node
// The command starts from its bundle (scripts/build-cli.mjs): loading the modules one file at a
// time costs more than most commands do.
await import('../dist/cli/main.js');
