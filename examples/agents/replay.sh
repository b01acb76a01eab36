#!/bin/sh
# Stand-in that replays a recorded agent transcript: reads its prompt on stdin, writes FILE to
# stdout as the agent once did, then ends as REPLAY_ENDING says:
#   exit       (default) exits 0
#   interrupt  ends itself with SIGINT, as a run a person interrupted
#   crash      ends itself with SIGKILL (give it a FILE whose last line is cut short)
# Arguments after FILE (the flags a lifecycle adds for Claude Code) are ignored.
# Usage: [REPLAY_ENDING=exit|interrupt|crash] replay.sh FILE [ARGS...]
set -eu
file=${1:?usage: [REPLAY_ENDING=exit|interrupt|crash] replay.sh FILE [ARGS...]}
cat > /dev/null
cat "$file"
case "${REPLAY_ENDING:-exit}" in
  exit) exit 0 ;;
  interrupt) kill -INT $$ ;;
  crash) kill -KILL $$ ;;
  *) echo "replay.sh: unknown REPLAY_ENDING '$REPLAY_ENDING' (exit, interrupt or crash)" >&2; exit 2 ;;
esac
