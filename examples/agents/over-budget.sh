#!/bin/sh
# Stand-in agent that never stops spending: an assistant message with 100k input tokens every
# STANDIN_DELAY seconds (default 0.02) until it is stopped. A budget has to stop it.
set -eu
STANDIN_DELAY=${STANDIN_DELAY:-0.02}
. "$(dirname "$0")/lib.sh"
cat > /dev/null
say_init
n=0
while :; do
  n=$((n + 1))
  say_assistant "Spending, step $n." 100000 2000
  pause
done
