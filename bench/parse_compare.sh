#!/usr/bin/env bash
# Times `bash -n`, `shfmt` and `safesh parse` on the same large input, side by side.
#
# The input is every shell script on this machine (under /usr/bin, /usr/sbin, /etc, /usr/share,
# /usr/lib, first line naming sh, bash or dash) that all three accept, joined into one file.
#   bench/parse_compare.sh [SAFESH_BINARY]      (default build/safesh)
# Needs hyperfine and shfmt (scripts/bootstrap --test installs them). Prints two tables:
#   1. syntax check only: bash -n, shfmt (parse and print back), safesh parse --check
#   2. the whole tree as JSON: shfmt --to-json, safesh parse --json (not with BENCH_QUICK=1)
set -euo pipefail
BENCH_NAME=parse_compare
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
safesh="$(realpath "${1:-$root/build/safesh}")"
bench_need hyperfine shfmt python3 "$safesh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
big="$work/all-scripts.sh"

# Each script alone must pass all three, and the joined file is checked once more at the end.
count=0
commands=0
# One awk per batch of files keeps the scan quick: it prints the names whose first line names
# a shell, and skips the rest of each file.
while IFS= read -r f; do
  grep -q -P '\x00' "$f" 2>/dev/null && continue
  # No message at all from bash: a script that leaves a here-document open (bash only warns)
  # would swallow every script joined after it.
  [[ -z "$(bash -n "$f" 2>&1)" ]] || continue
  # Nor one that ends in a backslash, which would join its last line with the next script's.
  [[ "$(tail -c 2 "$f" | tr -d '\n')" != *\\ ]] || continue
  shfmt -ln bash "$f" >/dev/null 2>&1 || continue
  "$safesh" parse --check -f "$f" 2>/dev/null || continue
  # Top-level lines of the text tree: one per command of the script's own lists.
  commands=$((commands + $("$safesh" parse -f "$f" | grep -c '^[0-9]')))
  cat "$f" >>"$big"
  # A script need not end with a newline; the next one must start on a line of its own.
  printf '\n' >>"$big"
  count=$((count + 1))
done < <(find /usr/bin /usr/sbin /etc /usr/share /usr/lib -xdev -type f -size -1024k -size +0 \
           -exec awk 'FNR == 1 { if ($0 ~ /^#!.*[\/ ](sh|bash|dash)([ \t\r]|$)/) print FILENAME;
                                 nextfile }' {} + 2>/dev/null | sort)

# The joined file must parse as the scripts did one by one: accepted by all three, and with as
# many top-level commands as they had together.
bash -n "$big"
shfmt -ln bash "$big" >/dev/null
"$safesh" parse --check -f "$big"
joined=$("$safesh" parse -f "$big" | grep -c '^[0-9]')
if [[ $joined -ne $commands ]]; then
  echo "parse_compare: the joined file has $joined top-level commands, the scripts $commands" >&2
  exit 1
fi
bytes=$(stat -c %s "$big")
echo "input: $count scripts that bash, shfmt and safesh all accept, $bytes bytes in one file"
echo "versions: $(bash --version | head -n 1); shfmt $(shfmt --version); $("$safesh" --version)"
echo

cd "$work"
echo "## Syntax check"
hyperfine -N --warmup 3 --min-runs "$(bench_runs 20 5)" --export-markdown check.md \
  --export-json check.json \
  "bash -n $big" \
  "shfmt -ln bash $big" \
  "$safesh parse --check -f $big" >/dev/null
sed "s|$big|FILE|g; s|$safesh|safesh|g" check.md
python3 - check.json "$count" "$bytes" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["scripts"], r["bytes"] = int(sys.argv[2]), int(sys.argv[3])
json.dump(r, open(sys.argv[1], "w"))
PY
bench_export parse.json check.json
[[ "${BENCH_QUICK:-}" == 1 ]] && exit 0
echo
echo "## The whole tree as JSON (written to /dev/null)"
hyperfine --warmup 1 --min-runs 5 --export-markdown json.md \
  "shfmt -ln bash --to-json <$big >/dev/null" \
  "$safesh parse --json -f $big >/dev/null" >/dev/null
sed "s|$big|FILE|g; s|$safesh|safesh|g" json.md
