#!/bin/sh
# Stand-in reviewer for the review loop. Reads its prompt on stdin, "reviews" the primary's work
# (counts the lines of work.txt in its working directory) and reports a verdict in stream-json.
#   LOOP_REVIEWER=pass-at:N  (default pass-at:2) PASS once N steps are done, else NEEDS CHANGES
#   LOOP_REVIEWER=fail       FAIL
#   LOOP_REVIEWER=crash|error|hang|stubborn|slow:SECONDS|gate:PATH  as for the primary
#   LOOP_REVIEWER_SAY=TEXT   says TEXT instead
set -eu
. "$(dirname "$0")/review-loop-lib.sh"
start reviewer "$@"
mode=${LOOP_REVIEWER:-pass-at:2}
behave "$mode"
steps=0
[ -f work.txt ] && steps=$(wc -l < work.txt | tr -d ' ')
if [ -n "${LOOP_REVIEWER_SAY:-}" ]; then
  finish "$LOOP_REVIEWER_SAY"
  exit 0
fi
case "$mode" in
  pass-at:*)
    if [ "$steps" -ge "${mode#pass-at:}" ]; then
      finish "Reviewed $steps steps.
PASS: all ${mode#pass-at:} steps are in and tested"
    else
      finish "Reviewed $steps steps.
NEEDS CHANGES: only $steps of ${mode#pass-at:} steps are implemented"
    fi ;;
  fail) finish "FAIL: the change deletes user data" ;;
  *) echo "stand-in reviewer: unknown LOOP_REVIEWER '$mode'" >&2; exit 2 ;;
esac
