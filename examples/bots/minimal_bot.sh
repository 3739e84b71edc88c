#!/bin/sh
# A minimal outside bot in shell (needs jq): win when possible, else take the first legal action.
while IFS= read -r line; do
  type=$(printf '%s' "$line" | jq -r '.type')
  if [ "$type" = "request" ]; then
    printf '%s' "$line" | jq -c '.legal as $l
      | {action: ((($l | map(select(.type == "hu"))) + $l)[0])}'
  fi
done
