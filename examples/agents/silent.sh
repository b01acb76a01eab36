#!/bin/sh
# Stand-in agent that never starts a session: it reads the prompt and then says nothing, so the
# session's start timeout decides. It sleeps (no polling: many of them cost nothing) for at most
# STANDIN_LIFETIME_S seconds (default 300), so one left behind by a test ends by itself.
set -eu
. "$(dirname "$0")/lib.sh"
cat > /dev/null
exec sleep "${STANDIN_LIFETIME_S:-300}"
