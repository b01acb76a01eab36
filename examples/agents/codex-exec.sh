#!/bin/sh
# Stand-in for `codex exec --json` in the review loop: the review-loop stand-in of ROLE (primary or
# reviewer, with the same LOOP_PRIMARY / LOOP_REVIEWER behaviours), speaking Codex's exec JSON.
# The thread id is new, or the one after `resume` (`codex exec --json resume <thread>`).
# Usage: codex-exec.sh primary|reviewer [exec --json [resume THREAD]]
set -eu
role=${1:?usage: codex-exec.sh primary|reviewer [exec --json [resume THREAD]]}
shift
case "$role" in
  primary | reviewer) ;;
  *) echo "codex-exec.sh: the role is primary or reviewer, not '$role'" >&2; exit 2 ;;
esac
AGENT_FORMAT=codex
export AGENT_FORMAT
exec "$(dirname "$0")/review-loop-$role.sh" "$@"
