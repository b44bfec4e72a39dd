#!/usr/bin/env bash
# The MCP round trip: an agent's `tools/call` of run_shell_command with `true`, through `safesh
# mcp` (one long-lived server over stdio), from the official TypeScript SDK client's call to its
# result: median and p99 of CALLS calls after WARMUP, sandboxed (bubblewrap, the default) and,
# for scale, with `[sandbox] shell = "off"` (the same server, bash run directly).
#   bench/mcp_roundtrip.sh [SAFESH_BINARY] [CALLS] [WARMUP]     (default 300 and 30)
# The client is @modelcontextprotocol/sdk as pinned by tests/mcp/e2e/package-lock.json, installed
# with `npm ci` into the build folder (BUILD/bench-node/mcp), again only when that lock file
# changes; bench/mcp_roundtrip.mjs makes the calls.
set -euo pipefail
BENCH_NAME=mcp_roundtrip
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
safesh="$(realpath "${1:-$root/build/safesh}")"
calls=${2:-$(bench_runs 300 50)}
warmup=${3:-$(bench_runs 30 5)}
bench_need node npm python3 "$safesh"

lock="$root/tests/mcp/e2e/package-lock.json"
dir="$(dirname "$safesh")/bench-node/mcp"
mkdir -p "$dir"
stamp="$dir/node_modules/.safesh-package-lock.json"
if ! cmp -s "$lock" "$stamp"; then
  cp "$root/tests/mcp/e2e/package.json" "$lock" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$lock" "$stamp"
fi
cp "$root/bench/mcp_roundtrip.mjs" "$dir/"

work="$(bench_workdir)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/ws"
# Without the sandbox auto_approve asks: the headless answer lets it through.
for shell in required off; do
  cat >"$work/$shell.toml" <<TOML
[commands]
auto_approve = ["true"]
[sandbox]
shell = "$shell"
[approvals]
headless = "$([ "$shell" = off ] && echo allow || echo deny)"
TOML
done
(cd "$dir" && node mcp_roundtrip.mjs "$safesh" "$work/required.toml" "$work/ws" "$work/home" \
   bwrap "$warmup" "$calls") >"$work/mcp-bwrap.json"
(cd "$dir" && node mcp_roundtrip.mjs "$safesh" "$work/off.toml" "$work/ws" "$work/home" \
   off "$warmup" "$calls") >"$work/mcp-off.json"
bench_export mcp-bwrap.json "$work/mcp-bwrap.json"
bench_export mcp-off.json "$work/mcp-off.json"

python3 - "$work/mcp-bwrap.json" "$work/mcp-off.json" <<'PY'
import json, sys
for path, what in zip(sys.argv[1:], ["sandboxed (bubblewrap)", "[sandbox] shell = \"off\""]):
    r = json.load(open(path))
    print(f"MCP tools/call run_shell_command `true`, {what}: median {r['median_ms']:.2f} ms, "
          f"p99 {r['p99_ms']:.2f} ms over {r['calls']} calls")
PY
