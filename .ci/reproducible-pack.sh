#!/usr/bin/env bash
# Reproducible `npm pack` across builds (issue 14, docs/decisions/package.md P14): packs this
# checkout's build, builds the same sources a second time in a temporary copy (sharing
# node_modules), packs that, and fails unless the two tarballs are byte-identical.
# Run after `npm run build` (.ci/run runs it after `npm test`); prints how long the second build took.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a" "$work/b" "$work/copy"
npm pack --ignore-scripts --pack-destination "$work/a" >/dev/null 2>&1
# The sources as they are (tracked or not), without what a build writes or installs.
tar -c --exclude=./node_modules --exclude=./dist --exclude=./build --exclude=./.git . | tar -x -C "$work/copy"
ln -s "$PWD/node_modules" "$work/copy/node_modules"
start=$(date +%s)
(cd "$work/copy" && npm run build >/dev/null 2>&1)
echo "second build: $(($(date +%s) - start)) s"
(cd "$work/copy" && npm pack --ignore-scripts --pack-destination "$work/b" >/dev/null 2>&1)
if cmp "$work"/a/*.tgz "$work"/b/*.tgz; then
  echo "npm pack: reproducible across two builds"
else
  echo "npm pack differs between two builds; files that differ:" >&2
  mkdir -p "$work/ua" "$work/ub"
  tar -xzf "$work"/a/*.tgz -C "$work/ua" && tar -xzf "$work"/b/*.tgz -C "$work/ub"
  diff -rq "$work/ua" "$work/ub" >&2 || true
  exit 1
fi
