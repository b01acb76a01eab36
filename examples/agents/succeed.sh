#!/bin/sh
# Stand-in agent that succeeds: reads the prompt on stdin, reports two assistant messages and a
# success result (total_cost_usd: STANDIN_COST, default 0.0123), exits 0. With STANDIN_WRITE set,
# it writes that file in its working directory first, as the work a checkpoint should capture.
set -eu
. "$(dirname "$0")/lib.sh"
prompt=$(cat)
say_init
pause
say_assistant "Read ${#prompt} bytes of prompt." 1200 80 3000
pause
if [ -n "${STANDIN_WRITE:-}" ]; then printf 'written by the stand-in agent\n' > "$STANDIN_WRITE"; fi
say_assistant "Done." 1500 120
say_result success false "${STANDIN_COST:-0.0123}" "Done."
