#!/usr/bin/env bash
# What `safesh run` costs over bash itself, measured in one run with hyperfine:
#   1. start-up: `safesh run -- true` against `bash -c true` (whole processes);
#   2. capture: `safesh run -- 'cat FILE'` with 1 GB of output against `cat FILE > /dev/null`,
#      against `cat FILE > SPOOLFILE` (writing the bytes to the spool's file system at all), and
#      against `cat FILE | cat > SPOOLFILE` (what any tool that reads a command's output from a
#      pipe and keeps all of it does at the least);
#   3. memory: the peak RSS (/usr/bin/time's %M: getrusage of the largest process of the tree it
#      waited for, here safesh, its guard, bash and cat) of `safesh run -- 'cat FILE'` with all
#      BYTES of output and with 1 MB of it, against `cat FILE > /dev/null`. Flat memory means the
#      same peak for both sizes: the output goes to a spool file, not into memory.
#   bench/run_compare.sh [SAFESH_BINARY] [BYTES]
# Both run with a clean environment (PATH, HOME), no sandbox, and a rule that auto-approves the
# commands. BYTES defaults to 1000000000 (250000000 with BENCH_QUICK=1).
set -euo pipefail
BENCH_NAME=run_compare
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
safesh="$(realpath "${1:-$root/build/safesh}")"
bytes=${2:-$(bench_runs 1000000000 250000000)}
bench_need hyperfine python3 /usr/bin/time "$safesh"

work="$(bench_workdir)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
cat >"$work/rules.toml" <<'TOML'
[commands]
auto_approve = ["true", "cat *"]
[sandbox]
shell = "off"
[approvals]
headless = "allow"  # without the sandbox auto_approve asks; this lets it through
TOML
# hyperfine itself runs in the clean environment, so neither side pays for an extra `env`.
clean=(env -i "PATH=/usr/bin:/bin" "HOME=$work/home")
run=("$safesh" run --config "$work/rules.toml" --workspace "$work")

echo "== start-up: safesh run -- true against bash -c true"
"${clean[@]}" hyperfine -N --warmup 50 --runs "$(bench_runs 1000 100)" \
  --export-json "$work/startup.json" \
  "bash -c true" "${run[*]} -- true"

echo "== capture: $bytes bytes of output"
head -c "$((bytes * 3 / 4 + 100))" /dev/urandom | base64 -w 100 >"$work/data"
truncate -s "$bytes" "$work/data"
spooldir="$work/home/.local/state"
mkdir -p "$spooldir"
"${clean[@]}" hyperfine --warmup 1 --runs "$(bench_runs 5 3)" --export-json "$work/capture.json" \
  --prepare "rm -rf $spooldir/safesh/spool/run-* $spooldir/copy" \
  "cat $work/data > /dev/null" \
  "cat $work/data > $spooldir/copy" \
  "${run[*]} -- 'cat $work/data' > /dev/null" \
  "cat $work/data | cat > $spooldir/copy"

echo "== memory: peak RSS"
head -c 1000000 "$work/data" >"$work/small"
rss() {  # rss FILE: the largest of three peaks, in KiB
  local max=0 kib
  for _ in 1 2 3; do
    kib=$("${clean[@]}" /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1)
    ((kib > max)) && max=$kib
    rm -rf "$spooldir"/safesh/spool/run-*
  done
  echo "$max"
}
python3 - "$work/rss.json" "$bytes" "$(rss cat "$work/data")" \
  "$(rss "${run[@]}" -- "cat $work/data")" "$(rss "${run[@]}" -- "cat $work/small")" <<'PY'
import json, sys
out, n, cat, big, small = sys.argv[1], *map(int, sys.argv[2:])
json.dump({"bytes": n, "small_bytes": 1000000, "cat_kib": cat, "safesh_kib": big,
           "safesh_small_kib": small}, open(out, "w"))
print(f"peak RSS: cat {cat} KiB; safesh run with {n} bytes of output {big} KiB, "
      f"with 1000000 bytes {small} KiB")
PY
bench_export run-startup.json "$work/startup.json"
bench_export run-capture.json "$work/capture.json"
bench_export run-rss.json "$work/rss.json"

python3 - "$work/startup.json" "$work/capture.json" <<'PY'
import json, statistics, sys
def medians(path):
    return [statistics.median(r["times"]) for r in json.load(open(path))["results"]]
b, s = medians(sys.argv[1])
print(f"start-up: bash -c true {b*1000:.2f} ms, safesh run -- true {s*1000:.2f} ms: "
      f"{s/b:.2f}x (median)")
null, copy, cap, piped = medians(sys.argv[2])
print(f"capture: cat > /dev/null {null:.3f} s, cat > file {copy:.3f} s, cat | cat > file "
      f"{piped:.3f} s, safesh run {cap:.3f} s: {cap/null:.2f}x cat > /dev/null, {cap/copy:.2f}x "
      f"cat > file, {cap/piped:.2f}x cat | cat > file (median)")
PY
