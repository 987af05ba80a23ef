#!/bin/sh
# docdeck's example agent, run by `docdeck demo` (and usable with `docdeck serve
# --agent-command`). It is not an AI: it makes one small, visible, honest edit from the
# prompt, so the whole loop (worktree, commit, link to the change) can be seen working.
#
# - A prompt that names a page (introduction, quickstart, api-keys, or any other .mdx
#   file's name) edits that page; otherwise introduction.mdx (or the first .mdx file).
# - It appends a <Note> that quotes the request and says that this agent only records it.
# - A prompt that starts with "fail" exits 1 (to show a failed turn); one that ends with
#   "?" changes nothing (to show a turn with nothing to change).
# - Its one argument is how many seconds it takes first (default 2), as a real agent
#   takes a while: the job is seen active before it completes.
set -eu
delay=${1:-2}

prompt=$(cat)
[ -n "$prompt" ] || prompt=${DOCDECK_PROMPT:-}
first_line=$(printf '%s\n' "$prompt" | sed -n '/[^[:space:]]/{p;q;}')

case "$first_line" in
  fail*|Fail*)
    echo "example agent: asked to fail, so this turn fails" >&2
    exit 1
    ;;
  *\?)
    echo "example agent: a question, not a change; nothing edited"
    exit 0
    ;;
esac

page=""
for file in $(find . -name '*.mdx' -not -path './.git/*' | sort); do
  name=$(basename "$file" .mdx)
  case "$prompt" in
    *"$name"*) page=$file; break ;;
  esac
done
if [ -z "$page" ]; then
  if [ -f introduction.mdx ]; then
    page=./introduction.mdx
  else
    page=$(find . -name '*.mdx' -not -path './.git/*' | sort | head -n 1)
  fi
fi
if [ -z "$page" ]; then
  echo "example agent: no .mdx page in this repository to edit" >&2
  exit 1
fi

sleep "$delay"

{
  printf '\n<Note>\n'
  printf 'Requested in docdeck job %s, turn %s: %s\n' \
    "${DOCDECK_JOB_ID:-?}" "${DOCDECK_TURN:-?}" "$first_line"
  printf '(docdeck example agent: it records the request here; a real agent would make the edit.)\n'
  printf '</Note>\n'
} >> "$page"

echo "example agent: added a note to ${page#./}"
