#!/bin/sh
# Stand-in agent that crashes: one assistant message, half a line, then it dies by SIGKILL.
set -eu
. "$(dirname "$0")/lib.sh"
cat > /dev/null
say_init
say_assistant "About to crash." 700 20
printf '{"type":"assistant","message":{"id":"msg_torn'
kill -KILL $$
