#!/bin/sh
# Stand-in primary agent for the review loop. Reads its prompt on stdin, does one step of "work"
# (appends a line to work.txt in its working directory) and reports in stream-json.
#   LOOP_PRIMARY=work        (default) never finishes on its own: "Implemented step N."
#   LOOP_PRIMARY=done-at:N   says DONE once N steps are done
#   LOOP_PRIMARY=fail        says FAIL
#   LOOP_PRIMARY=crash|error|hang|stubborn|slow:SECONDS|gate:PATH  exits 1 with no result | reports an error | never ends | never ends, ignoring SIGTERM | sleeps first | waits for PATH.<its step> to exist
#   LOOP_PRIMARY_SAY=TEXT    says TEXT instead (after doing the step)
set -eu
. "$(dirname "$0")/review-loop-lib.sh"
start primary "$@"
mode=${LOOP_PRIMARY:-work}
behave "$mode"
echo "step" >> work.txt
steps=$(wc -l < work.txt | tr -d ' ')
if [ -n "${LOOP_PRIMARY_SAY:-}" ]; then
  finish "$LOOP_PRIMARY_SAY"
  exit 0
fi
case "$mode" in
  done-at:*)
    if [ "$steps" -ge "${mode#done-at:}" ]; then
      finish "Implemented step $steps of ${mode#done-at:}.
DONE: all ${mode#done-at:} steps are implemented"
    else
      finish "Implemented step $steps of ${mode#done-at:}; more to do."
    fi ;;
  fail) finish "FAIL: the task cannot be done in this repository" ;;
  *) finish "Implemented step $steps." ;;
esac
