#!/bin/sh
# A device call sends the checkout's tracked files, at most 64 MiB with what it carries; traces/ alone is over
# 60 MB and no device run reads it. `slim` takes traces/ out of the index (files stay on disk) and ignores it
# for the call; `unslim` puts both back. Never commit between the two. Usage: scripts/device-slim.sh slim|unslim
cd "$(git rev-parse --show-toplevel)" || exit 1
case "$1" in
  slim) git rm -r -q --cached traces && echo '/traces/' >> .git/info/exclude ;;
  unslim) git reset -q -- traces && sed -i '\#^/traces/$#d' .git/info/exclude && git status --short | head ;;
  *) echo "usage: scripts/device-slim.sh slim|unslim" >&2; exit 2 ;;
esac
