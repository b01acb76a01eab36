#!/bin/sh
# Stand-in agent that hangs: starts a session, says one thing, then waits forever. With
# STANDIN_IGNORE_TERM=1 it (and the sleep it runs) ignores SIGTERM, so only SIGKILL ends it.
set -eu
. "$(dirname "$0")/lib.sh"
# The trap comes before the init line, its readiness: a SIGTERM after that line is ignored for sure.
if [ "${STANDIN_IGNORE_TERM:-0}" = 1 ]; then trap '' TERM; fi
cat > /dev/null
say_init
say_assistant "Thinking..." 500 10
while :; do sleep 1; done
