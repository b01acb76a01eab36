#!/bin/sh
# Stand-in Claude for a session with an approval: it starts, says it wants to run a tool, waits
# (up to STANDIN_DECISION_WAIT_S seconds, default 10) for the daemon's decision in $STATEWRIGHT_SESSION_DECISIONS (one JSON line per
# decision, the file a permission prompt tool would read), and finishes with a success result
# that says what was decided (cost STANDIN_COST, default 0.0123).
set -eu
. "$(dirname "$0")/lib.sh"
cat > /dev/null
decisions=${STATEWRIGHT_SESSION_DECISIONS:?the session daemon sets STATEWRIGHT_SESSION_DECISIONS}
say_init
say_assistant "I need to run npm test." 900 40
i=0
ticks=$(( ${STANDIN_DECISION_WAIT_S:-10} * 50 ))
until [ -s "$decisions" ]; do
  i=$((i + 1))
  if [ "$i" -gt "$ticks" ]; then
    say_result error_during_execution true 0 "No decision came."
    exit 1
  fi
  sleep 0.02
done
case $(cat "$decisions") in
  *'"decision":"approved"'*) verdict=approved ;;
  *'"decision":"denied"'*) verdict=denied ;;
  *) verdict=answered ;;
esac
say_assistant "npm test was $verdict." 1200 60
say_result success false "${STANDIN_COST:-0.0123}" "Tests pass; npm test was $verdict."
