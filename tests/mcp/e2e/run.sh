#!/usr/bin/env bash
# The MCP end-to-end tests: the official TypeScript SDK client (pinned by package-lock.json)
# drives `safesh mcp` under `node --test`. The SDK is installed with `npm ci` into WORK_DIR (in
# the build folder, never the source tree), again only when the lockfile changes.
#   tests/mcp/e2e/run.sh SAFESH_BINARY WORK_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
safesh="$1"
work="$2"
for tool in node npm; do
  command -v "$tool" >/dev/null || {
    echo "mcp e2e: $tool is missing (scripts/bootstrap --test installs it)" >&2
    exit 1
  }
done
mkdir -p "$work"
cp "$here"/package.json "$here"/package-lock.json "$here"/*.mjs "$work"/
stamp="$work/node_modules/.safesh-package-lock.json"
if ! cmp -s "$here/package-lock.json" "$stamp"; then
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$stamp"
fi
cd "$work"
SAFESH_BINARY="$safesh" exec node --test --test-reporter=spec ./*.test.mjs
