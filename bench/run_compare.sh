#!/usr/bin/env bash
# What `safesh run` costs over bash itself, measured in one run with hyperfine:
#   1. start-up: `safesh run -- true` against `bash -c true` (whole processes);
#   2. capture: `safesh run -- 'cat FILE'` with 1 GB of output against `cat FILE > /dev/null`,
#      and against `cat FILE > SPOOLFILE` (writing the bytes to the spool's file system at all).
#   bench/run_compare.sh [SAFESH_BINARY] [BYTES]
# Both run with a clean environment (PATH, HOME), no sandbox, and a rule that auto-approves the
# commands. BYTES defaults to 1000000000.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
safesh="$(realpath "${1:-$root/build/safesh}")"
bytes=${2:-1000000000}
command -v hyperfine >/dev/null || { echo "run_compare: hyperfine is missing (scripts/bootstrap --test)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
cat >"$work/rules.toml" <<'TOML'
[commands]
auto_approve = ["true", "cat *"]
[sandbox]
shell = "off"
TOML
# hyperfine itself runs in the clean environment, so neither side pays for an extra `env`.
clean=(env -i "PATH=/usr/bin:/bin" "HOME=$work/home")
run=("$safesh" run --config "$work/rules.toml" --workspace "$work")

echo "== start-up: safesh run -- true against bash -c true"
"${clean[@]}" hyperfine -N --warmup 50 --runs 1000 --export-json "$work/startup.json" \
  "bash -c true" "${run[*]} -- true"

echo "== capture: $bytes bytes of output"
head -c "$((bytes * 3 / 4 + 100))" /dev/urandom | base64 -w 100 >"$work/data"
truncate -s "$bytes" "$work/data"
spooldir="$work/home/.local/state"
mkdir -p "$spooldir"
"${clean[@]}" hyperfine --warmup 1 --runs 5 --export-json "$work/capture.json" \
  --prepare "rm -rf $spooldir/safesh/spool/run-* $spooldir/copy" \
  "cat $work/data > /dev/null" \
  "cat $work/data > $spooldir/copy" \
  "${run[*]} -- 'cat $work/data' > /dev/null"

python3 - "$work/startup.json" "$work/capture.json" <<'PY'
import json, statistics, sys
def medians(path):
    return [statistics.median(r["times"]) for r in json.load(open(path))["results"]]
b, s = medians(sys.argv[1])
print(f"start-up: bash -c true {b*1000:.2f} ms, safesh run -- true {s*1000:.2f} ms: "
      f"{s/b:.2f}x (median)")
null, copy, cap = medians(sys.argv[2])
print(f"capture: cat > /dev/null {null:.3f} s, cat > file {copy:.3f} s, safesh run {cap:.3f} s: "
      f"{cap/null:.2f}x cat > /dev/null, {cap/copy:.2f}x cat > file (median)")
PY
