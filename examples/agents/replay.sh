#!/bin/sh
# Stand-in that replays a recorded agent transcript: reads its prompt on stdin, writes FILE to
# stdout as the agent once did, then ends as ENDING says:
#   exit       (default) exits 0
#   interrupt  ends itself with SIGINT, as a run interrupted by a person
#   crash      ends itself with SIGKILL (give it a FILE whose last line is cut short)
# Usage: replay.sh FILE [exit|interrupt|crash]
set -eu
file=${1:?usage: replay.sh FILE [exit|interrupt|crash]}
cat > /dev/null
cat "$file"
case "${2:-exit}" in
  exit) exit 0 ;;
  interrupt) kill -INT $$ ;;
  crash) kill -KILL $$ ;;
  *) echo "replay.sh: unknown ending '$2' (exit, interrupt or crash)" >&2; exit 2 ;;
esac
