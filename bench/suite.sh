#!/usr/bin/env bash
# The performance suite: each thing safesh does, measured beside the tool people would pick
# instead, in the same run, and the table at the top of docs/performance.md written from the
# results (bench/report.py, between the `bench:begin` and `bench:end` markers).
#   parse        safesh parse --check against bash -n and shfmt on the machine's scripts
#                (bench/parse_compare.sh)
#   judge        a typical agent command judged in process (build/bench/policy_bench), and
#                `safesh check --jsonl` on one core against cat (bench/check_jsonl.sh)
#   spawn        sandboxed `safesh run -- true` against a bare bwrap with the same flags, srt
#                (Anthropic's sandbox runtime) under the same policy, and bash -c true
#                (bench/sandbox_compare.sh); in process (build/bench/run_bench)
#   mcp          tools/call round trips through `safesh mcp` with the SDK client
#                (bench/mcp_roundtrip.sh)
#   output       1 GB through `safesh run` against cat, and safesh's peak RSS
#                (bench/run_compare.sh)
#   scan         the blocked-name scan of a 50,000-entry workspace (build/bench/scan_bench), and
#                what hiding credential files costs a command, safesh against srt
#                (bench/scan_compare.sh)
#
#   bench/suite.sh [--quick] [--no-doc]
# --quick: fewer runs, about two minutes, to try it out (its table says so). --no-doc: print
# the table, leave docs/performance.md alone. The raw results (JSON) and each part's output stay
# in build/bench-results/. A part that fails is reported and the others still run; the table
# says what was not measured and why, and the script exits 1. Needs a release build (make build)
# and the test tools (scripts/bootstrap --test). The whole suite takes about five minutes on two
# cores; it uses its own homes and state folders, never the user's.
set -euo pipefail
BENCH_NAME=suite
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
doc=1
for arg in "$@"; do
  case "$arg" in
    --quick) export BENCH_QUICK=1 ;;
    --no-doc) doc=0 ;;
    *) echo "usage: bench/suite.sh [--quick] [--no-doc]" >&2; exit 64 ;;
  esac
done
build="$root/build"
safesh="$build/safesh"
bench_need hyperfine shfmt bwrap python3 node npm socat rg taskset /usr/bin/time "$safesh" \
  "$build/bench/policy_bench" "$build/bench/run_bench" "$build/bench/scan_bench"
# The command recorded in the table: what the user ran (scripts/bench and make bench say).
command="${SAFESH_BENCH_COMMAND:-bench/suite.sh${*:+ $*}}"

export BENCH_OUT="$build/bench-results"
rm -rf "$BENCH_OUT"
mkdir -p "$BENCH_OUT"
python3 - "$BENCH_OUT/machine.json" "$command" "${BENCH_QUICK:-0}" "$safesh" "$root" <<'PY'
import json, os, platform, subprocess, sys, time
out, command, quick, safesh, root = sys.argv[1:6]
def run(*a):
    try:
        return subprocess.run(a, capture_output=True, text=True, cwd=root).stdout.strip()
    except OSError:
        return ""
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
            if line.startswith("model name")), "")
osname = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release")
               if l.startswith("PRETTY_NAME=")), "")
json.dump({
    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(), "os": osname,
    "loadavg": open("/proc/loadavg").read().split()[:3],
    "safesh": run(safesh, "--version"), "commit": run("git", "rev-parse", "--short", "HEAD"),
    # Local changes other than the table this run rewrites.
    "dirty": bool(run("git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                      ":(exclude)docs/performance.md")),
    "bwrap": run("bwrap", "--version"), "node": run("node", "--version"),
    "command": command, "quick": quick == "1",
}, open(out, "w"), indent=1)
PY

failed=()
# part NAME COMMAND...: runs one part, its output on the terminal and in BENCH_OUT/NAME.log.
part() {
  local name="$1"
  shift
  echo
  echo "=== $name: $*"
  if ! "$@" 2>&1 | tee "$BENCH_OUT/$name.log"; then
    echo "=== $name FAILED (see $BENCH_OUT/$name.log)" >&2
    failed+=("$name")
  fi
}
gbench() {  # gbench NAME BINARY ARGS...: a Google Benchmark, its JSON kept as NAME.json
  local name="$1" bin="$2"
  shift 2
  "$bin" --benchmark_out="$BENCH_OUT/$name.json" --benchmark_out_format=json "$@"
}
if [[ "${BENCH_QUICK:-}" == 1 ]]; then
  reps=(--benchmark_min_time=0.1)
else
  reps=(--benchmark_repetitions=3 --benchmark_min_time=0.5)
fi

part policy gbench policy "$build/bench/policy_bench" "${reps[@]}"
part parse "$root/bench/parse_compare.sh" "$safesh"
part check-jsonl "$root/bench/check_jsonl.sh" "$safesh"
part sandbox "$root/bench/sandbox_compare.sh" "$safesh"
part run-bench gbench run-bench "$build/bench/run_bench" --benchmark_filter='Bwrap|Sandboxed' \
  "${reps[@]}"
part mcp "$root/bench/mcp_roundtrip.sh" "$safesh"
part run "$root/bench/run_compare.sh" "$safesh"
part scan gbench scan "$build/bench/scan_bench" "${reps[@]}"
part scan-compare "$root/bench/scan_compare.sh" "$safesh"

echo
report=(python3 "$root/bench/report.py" "$BENCH_OUT")
((doc)) && report+=(--doc "$root/docs/performance.md")
"${report[@]}"
if ((${#failed[@]})); then
  echo "suite: these parts failed: ${failed[*]} (their logs are in $BENCH_OUT)" >&2
  exit 1
fi
