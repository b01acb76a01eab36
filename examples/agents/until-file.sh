#!/bin/sh
# Stand-in agent that works until told to finish: it starts a session, says one thing, then waits
# for the file STANDIN_RELEASE_FILE to exist (checked twice a second) and finishes with a success
# result. Without the file after STANDIN_LIFETIME_S seconds (default 300) it gives up with an error.
set -eu
. "$(dirname "$0")/lib.sh"
release=${STANDIN_RELEASE_FILE:?set STANDIN_RELEASE_FILE to the file that tells this agent to finish}
cat > /dev/null
say_init
say_assistant "Working until $release appears." 500 10
i=0
ticks=$(( ${STANDIN_LIFETIME_S:-300} * 2 ))
until [ -e "$release" ]; do
  i=$((i + 1))
  if [ "$i" -gt "$ticks" ]; then
    say_result error_during_execution true 0 "Never released."
    exit 1
  fi
  sleep 0.5
done
say_assistant "Released." 600 20
say_result success false "${STANDIN_COST:-0.0123}" "Done when released."
