#!/usr/bin/env bash
# The test suite on a busy machine: keeps both cores busy with two spinning node processes and runs
# `npm test` N times in a row (default 5), printing each run's exit code, time and test count; with
# a test file, runs `npx vitest run <file>` N times instead (one test made to pass 50 times in a row).
# Exits non-zero unless every run was green.
# Usage: bash bench/test-under-load.sh [runs] [test file]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
file=${2:-}
if [ -n "$file" ] && [ ! -f "$file" ]; then
  echo "test-under-load: no test file '$file' (give a path from the repository's root, e.g. test/runtime/leases.test.ts)" >&2
  exit 2
fi
node -e 'for(;;){}' & spin1=$!
node -e 'for(;;){}' & spin2=$!
trap 'kill $spin1 $spin2 2>/dev/null' EXIT
logs=$(mktemp -d)
failed=0
echo "load before: $(uptime | sed 's/.*load average: /load average /')"
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  if [ -n "$file" ]; then
    npx vitest run "$file" > "$logs/run-$i.log" 2>&1
  else
    npm test > "$logs/run-$i.log" 2>&1
  fi
  code=$?
  [ "$code" -eq 0 ] || failed=$((failed + 1))
  tests=$(sed 's/\x1b\[[0-9;]*m//g' "$logs/run-$i.log" | grep -E '^ +Tests ' | tail -1 | sed 's/^ *//')
  echo "run $i of $runs: exit $code, $(( $(date +%s) - start )) s, $tests (log: $logs/run-$i.log)"
done
echo "$((runs - failed)) of $runs green with both cores busy${file:+ ($file)}; $(uptime | sed 's/.*load average: /load average /')"
[ "$failed" -eq 0 ]
