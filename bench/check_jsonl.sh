#!/usr/bin/env bash
# Throughput of `safesh check --jsonl` on one core: commands judged per second, with the time
# to copy the same input through `cat` as the baseline measured in the same run.
#   bench/check_jsonl.sh [SAFESH_BINARY] [LINES]
# The input is the policy corpus's commands and a typical agent command, repeated to LINES
# lines (default 200000), judged under the corpus's reference policy.
set -euo pipefail
BENCH_NAME=check_jsonl
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
safesh="$(realpath "${1:-$root/build/safesh}")"
lines=${2:-200000}
bench_need hyperfine taskset python3 "$safesh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Each verdict is recorded in the audit log: in a state folder of the bench's own, not the user's.
export XDG_STATE_HOME="$work/state"
seed="$work/seed.jsonl"
# The corpus's command columns are JSON strings already.
tail -n +2 "$root/tests/data/corpus/bypass.tsv" | cut -f2 >"$seed"
tail -n +2 "$root/tests/data/corpus/benign.tsv" | cut -f1 >>"$seed"
printf '%s\n' '"cd /work/app && git status --short && git diff --stat HEAD~1 -- src/ | head -50 && rg -n \"TODO|FIXME\" src/ --glob '"'"'*.ts'"'"' | wc -l && NODE_ENV=test npm test -- --runInBand \"$TEST_FILE\" 2>&1 | tail -20"' >>"$seed"
input="$work/input.jsonl"
n=0
: >"$input"
while ((n < lines)); do
  cat "$seed" >>"$input"
  n=$((n + $(wc -l <"$seed")))
done
head -n "$lines" "$input" >"$work/in" && mv "$work/in" "$input"
config="$root/tests/data/corpus/reference-policy.toml"

# Every line must get a verdict line, in order.
out_lines=$(taskset -c 0 "$safesh" check --jsonl --config "$config" <"$input" | wc -l)
if [[ $out_lines -ne $lines ]]; then
  echo "check_jsonl: $lines lines in, $out_lines verdicts out" >&2
  exit 1
fi

hyperfine --warmup 1 --min-runs "$(bench_runs 5 3)" --export-json "$work/r.json" \
  "taskset -c 0 cat $input" \
  "taskset -c 0 $safesh check --jsonl --config $config <$input" >/dev/null
python3 - "$work/r.json" "$lines" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["lines"] = int(sys.argv[2])
json.dump(r, open(sys.argv[1], "w"))
PY
bench_export check-jsonl.json "$work/r.json"
mean_cat=$(grep -o '"mean": *[0-9.e-]*' "$work/r.json" | head -1 | grep -o '[0-9.e-]*$')
mean_check=$(grep -o '"mean": *[0-9.e-]*' "$work/r.json" | sed -n 2p | grep -o '[0-9.e-]*$')
awk -v n="$lines" -v c="$mean_check" -v b="$mean_cat" 'BEGIN {
  printf "safesh check --jsonl: %d commands in %.3f s on one core = %.0f commands/s\n", n, c, n / c
  printf "baseline (cat of the same input): %.3f s; check takes %.1fx as long\n", b, c / b
}'
