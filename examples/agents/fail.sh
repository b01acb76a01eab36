#!/bin/sh
# Stand-in agent that fails: an assistant message, an error result, a line on stderr, exit code 1.
set -eu
. "$(dirname "$0")/lib.sh"
cat > /dev/null
say_init
pause
say_assistant "Trying." 900 40
echo "stand-in agent: the task failed" >&2
say_result error_during_execution true "${STANDIN_COST:-0.004}" "The task failed."
exit 1
