#!/bin/sh
# Stand-in Claude that works until it is signalled: it starts, says one thing, then waits. Each
# signal it gets (INT, TERM) is appended to $STANDIN_SIGNAL_LOG; it then exits the way a shell
# killed by that signal does (130 for INT, 143 for TERM), unless STANDIN_IGNORE_SIGNALS=1, with
# which it carries on and only SIGKILL ends it.
set -eu
. "$(dirname "$0")/lib.sh"
# The traps come first, and the init line (its readiness) after them: a signal that arrives once
# the init line is out is always logged.
log=${STANDIN_SIGNAL_LOG:-/dev/null}
if [ "${STANDIN_IGNORE_SIGNALS:-0}" = 1 ]; then
  trap 'echo INT >> "$log"' INT
  trap 'echo TERM >> "$log"' TERM
else
  trap 'echo INT >> "$log"; exit 130' INT
  trap 'echo TERM >> "$log"; exit 143' TERM
fi
cat > /dev/null
say_init
say_assistant "Working..." 500 10
while :; do sleep 1 || true; done
