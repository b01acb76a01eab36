# Shared by the review-loop stand-in agents: speaks Claude Code's stream-json on stdout, or, with
# AGENT_FORMAT=codex, Codex's `codex exec --json` (thread.started, item.completed agent_message,
# turn.completed with the thread's usage in all / turn.failed). Sourced, not run. POSIX sh.

# json_string TEXT: TEXT as a JSON string literal (quotes, backslashes, tabs and newlines escaped).
json_string() {
  printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' | awk 'BEGIN { ORS = ""; print "\"" } NR > 1 { print "\\n" } { print } END { print "\"" }'
}

# session_id ARGS...: the id after --resume (Claude) or resume (Codex), else a new one.
session_id() {
  while [ "$#" -gt 0 ]; do
    if { [ "$1" = "--resume" ] || [ "$1" = "resume" ]; } && [ "$#" -gt 1 ]; then printf '%s' "$2"; return; fi
    shift
  done
  printf '%s-%s' "$ROLE" "$$"
}

codex() { [ "${AGENT_FORMAT:-claude}" = codex ]; }

emit_init() {
  if codex; then
    printf '{"type":"thread.started","thread_id":"%s"}\n{"type":"turn.started"}\n' "$SESSION"
    return
  fi
  printf '{"type":"system","subtype":"init","session_id":"%s","model":"stand-in","tools":[]}\n' "$SESSION"
}

# emit_assistant TEXT
emit_assistant() {
  if codex; then
    printf '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":%s}}\n' "$(json_string "$1")"
    return
  fi
  printf '{"type":"assistant","session_id":"%s","message":{"role":"assistant","content":[{"type":"text","text":%s}],"usage":{"input_tokens":%s,"output_tokens":%s}}}\n' \
    "$SESSION" "$(json_string "$1")" "$INPUT_TOKENS" "$(printf '%s' "$1" | wc -c | tr -d ' ')"
}

# emit_result TEXT IS_ERROR (Codex's turn.completed has no text: its answer is the last agent message)
emit_result() {
  if codex; then
    if [ "$2" = true ]; then
      printf '{"type":"turn.failed","error":{"message":%s}}\n' "$(json_string "$1")"
    else
      # Like Codex, the usage counts the whole thread: a resumed thread's turn adds to its total,
      # kept (as Codex keeps its threads) under CODEX_HOME, by default .codex in the working folder.
      threads="${CODEX_HOME:-.codex}/stand-in-threads"
      thread_in=0
      thread_out=0
      [ -f "$threads/$SESSION" ] && read -r thread_in thread_out < "$threads/$SESSION"
      thread_in=$((thread_in + INPUT_TOKENS))
      thread_out=$((thread_out + $(printf '%s' "$1" | wc -c | tr -d ' ')))
      mkdir -p "$threads"
      printf '%s %s\n' "$thread_in" "$thread_out" > "$threads/$SESSION"
      printf '{"type":"turn.completed","usage":{"input_tokens":%s,"cached_input_tokens":0,"output_tokens":%s}}\n' "$thread_in" "$thread_out"
    fi
    return
  fi
  printf '{"type":"result","subtype":"%s","is_error":%s,"num_turns":1,"result":%s,"session_id":"%s","total_cost_usd":0.0012,"usage":{"input_tokens":%s,"output_tokens":%s}}\n' \
    "$([ "$2" = true ] && echo error || echo success)" "$2" "$(json_string "$1")" "$SESSION" "$INPUT_TOKENS" "$(printf '%s' "$1" | wc -c | tr -d ' ')"
}

# start ROLE ARGS...: reads the prompt from stdin and announces the session.
start() {
  ROLE=$1
  shift
  SESSION=$(session_id "$@")
  PROMPT=$(cat)
  INPUT_TOKENS=$(printf '%s' "$PROMPT" | wc -c | tr -d ' ')
  emit_init
}

# behave MODE: the failure modes both agents share. Returns when MODE is not one of them.
behave() {
  case "$1" in
    crash) echo "stand-in $ROLE: crashing as asked" >&2; exit 1 ;;
    error) emit_result "stand-in $ROLE: the model is overloaded" true; exit 0 ;;
    hang) exec sleep 3600 ;;
    # Ignores SIGTERM (so do its children): only the SIGKILL after the grace period ends it.
    stubborn) trap '' TERM; echo "stand-in $ROLE: ignoring SIGTERM" >&2; while :; do sleep 1; done ;;
    slow:*) sleep "${1#slow:}" ;;
    # Waits until the file PATH.N exists, N the step it works on (the primary's next one, the one the
    # reviewer reviews): a test holds an agent mid-iteration for as long as it needs, not for a time.
    gate:*)
      n=0
      [ -f work.txt ] && n=$(wc -l < work.txt | tr -d ' ')
      [ "$ROLE" = primary ] && n=$((n + 1))
      while [ ! -e "${1#gate:}.$n" ]; do sleep 0.05; done ;;
  esac
}

# finish TEXT: reports TEXT as the assistant's message and as the final result.
finish() {
  emit_assistant "$1"
  emit_result "$1" false
}
