#!/bin/sh
# Stand-in Claude that works until it is signalled: it starts, says one thing, then waits. The
# first signal it gets (INT, TERM) is appended to $STANDIN_SIGNAL_LOG before it exits the way a
# shell killed by that signal does (130 for INT, 143 for TERM).
set -eu
. "$(dirname "$0")/lib.sh"
cat > /dev/null
log=${STANDIN_SIGNAL_LOG:-/dev/null}
trap 'echo INT >> "$log"; exit 130' INT
trap 'echo TERM >> "$log"; exit 143' TERM
say_init
say_assistant "Working..." 500 10
while :; do sleep 1 || true; done
