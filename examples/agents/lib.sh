# Shared by the stand-in agents: Claude Code stream-json lines on stdout. Sourced, not run.
# STANDIN_SESSION_ID names the session (default standin-<pid>); STANDIN_DELAY pauses between
# messages, in seconds (default 0). With STANDIN_SPAWN_LOG set, each stand-in appends its pid to
# that file as it starts, so a test can count how many agents were spawned.
session=${STANDIN_SESSION_ID:-standin-$$}
delay=${STANDIN_DELAY:-0}

if [ -n "${STANDIN_SPAWN_LOG:-}" ]; then echo "$$" >> "$STANDIN_SPAWN_LOG"; fi

pause() { if [ "$delay" != 0 ]; then sleep "$delay"; fi; }

say_init() {
  printf '{"type":"system","subtype":"init","session_id":"%s","model":"stand-in","cwd":"%s","tools":[]}\n' "$session" "$PWD"
}

messages=0

# say_assistant TEXT INPUT_TOKENS OUTPUT_TOKENS [CACHE_READ_TOKENS]: a message with an id of its own.
say_assistant() {
  messages=$((messages + 1))
  printf '{"type":"assistant","message":{"id":"msg_%s_%s","type":"message","role":"assistant","model":"stand-in","content":[{"type":"text","text":"%s"}],"usage":{"input_tokens":%s,"output_tokens":%s,"cache_creation_input_tokens":0,"cache_read_input_tokens":%s}},"session_id":"%s"}\n' \
    "$$" "$messages" "$1" "$2" "$3" "${4:-0}" "$session"
}

# say_result SUBTYPE IS_ERROR COST_USD TEXT
say_result() {
  printf '{"type":"result","subtype":"%s","is_error":%s,"duration_ms":1,"num_turns":2,"result":"%s","session_id":"%s","total_cost_usd":%s,"usage":{"input_tokens":2700,"output_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":3000}}\n' \
    "$1" "$2" "$4" "$session" "$3"
}
