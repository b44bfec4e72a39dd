#!/usr/bin/env bash
# What hiding credential files in the workspace costs a command, safesh against srt (Anthropic's
# sandbox runtime, pinned by bench/node/package-lock.json), on the same generated 50,000-entry
# workspace as build/bench/scan_bench (`scan_bench --make-workspace`: 42,000 entries in 2,799
# folders up to 10 deep, 8,000 more in node_modules and .git, 139 files named like credentials).
# Each tool runs `true` with that workspace and with an empty one (hyperfine, medians); the
# difference is what the workspace costs, which is the scan:
#   1. `safesh run -- true` through bubblewrap: the one-shot CLI loads its cache of the last scan
#      and checks each folder (one lstat each); the names it finds are hidden (the built-in list:
#      .env, *.pem, id_rsa, ...; up to 12 levels deep, not in .git, node_modules, ...), a mount
#      each; and for scale, a bare bwrap with safesh's flags for each workspace (from `safesh run
#      --dry-run`: the same masks) running /bin/true, which is what the masks alone cost;
#   2. srt with its default settings (the workspace writable, no network): its built-in
#      "mandatory deny" search, one ripgrep run over the working directory, 4 levels deep, for
#      files to make read-only (.bashrc, .gitconfig, .git/hooks, .vscode, ...): another
#      protection, the only scan srt makes on its own;
#   3. srt with safesh's built-in names as `denyRead` globs beneath the workspace (`WS/**/.env`,
#      ...): the same protection, which srt expands by walking the tree before every command.
# Before timing, a file named .env deep in the tree is given a secret, and each of safesh and srt
# (3) must hide it; srt must pass srt_verify (bench/lib.sh). If srt cannot be installed or run,
# or does not sandbox, the reason is printed (and written to BENCH_OUT), safesh is still measured,
# and the script exits 1.
#   bench/scan_compare.sh [SAFESH_BINARY] [RUNS]     (RUNS for safesh; srt gets fewer)
set -euo pipefail
BENCH_NAME=scan_compare
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
safesh="$(realpath "${1:-$root/build/safesh}")"
build="$(dirname "$safesh")"
runs=${2:-$(bench_runs 100 20)}
srt_runs=$(bench_runs 20 5)
srt_names_runs=$(bench_runs 10 3)
bench_need hyperfine python3 bwrap "$safesh" "$build/bench/scan_bench"

work="$(bench_workdir)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/empty"
"$build/bench/scan_bench" --make-workspace "$work/big"
secret_file=$(find "$work/big" -name .env -not -path '*/node_modules/*' -print -quit)
echo "SAFESH-BENCH-SECRET" >"$secret_file"
cat >"$work/rules.toml" <<'TOML'
[commands]
auto_approve = ["true", "cat *"]
[sandbox]
shell = "required"
TOML
clean=(env -i "PATH=/usr/bin:/bin" "HOME=$work/home")
run=("$safesh" run --config "$work/rules.toml")

if "${clean[@]}" "${run[@]}" --workspace "$work/big" -- "cat $secret_file" 2>/dev/null |
     grep -q SAFESH-BENCH-SECRET; then
  echo "scan_compare: safesh did not hide $secret_file" >&2
  exit 1
fi
bare_empty=$(bare_bwrap "$("${clean[@]}" "${run[@]}" --workspace "$work/empty" --dry-run -- true \
  2>/dev/null)" | sed -n 1p)
bare_big=$(bare_bwrap "$("${clean[@]}" "${run[@]}" --workspace "$work/big" --dry-run -- true \
  2>/dev/null)" | sed -n 1p)
echo "masks: $(grep -o -- '--ro-bind /dev/null' <<<"$bare_big" | wc -l) in the big workspace," \
  "$(grep -o -- '--ro-bind /dev/null' <<<"$bare_empty" | wc -l) in the empty one"
"${clean[@]}" hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/scan-safesh.json" \
  "${run[*]} --workspace $work/empty -- true" \
  "${run[*]} --workspace $work/big -- true" \
  "$bare_empty" \
  "$bare_big"
bench_export scan-safesh.json "$work/scan-safesh.json"

# srt: time_srt NAME RUNS [hide-names]: hyperfine of srt running `true` from the empty workspace,
# then from the big one, each with settings of its own.
time_srt() {
  local name="$1" n="$2" mode="${3:-}" ws
  for ws in empty big; do
    srt_settings "$work/srt-$name-$ws.json" "$work/$ws" "$mode"
  done
  (cd "$work/empty" && "${srt_env[@]}" hyperfine -N --warmup 1 --runs "$n" \
     --export-json "$work/$name-empty.json" "$srt --settings $work/srt-$name-empty.json true")
  (cd "$work/big" && "${srt_env[@]}" hyperfine -N --warmup 1 --runs "$n" \
     --export-json "$work/$name-big.json" "$srt --settings $work/srt-$name-big.json true")
  python3 - "$work/$name-empty.json" "$work/$name-big.json" "$work/scan-$name.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a["results"] += b["results"]
json.dump(a, open(sys.argv[3], "w"))
PY
  bench_export "scan-$name.json" "$work/scan-$name.json"
}

status=0
if srt=$(srt_install "$build" 2>"$work/srt.err") &&
   srt_settings "$work/srt-check.json" "$work/empty" 2>"$work/srt.err" &&
   srt_verify "$srt" "$work/srt-check.json" "$work/empty" "$work/home" 2>"$work/srt.err" &&
   srt_settings "$work/srt-check.json" "$work/big" hide-names 2>"$work/srt.err"; then
  srt_environment "$work/home"
  if (cd "$work/big" && "${srt_env[@]}" "$srt" --settings "$work/srt-check.json" \
        -c "cat $secret_file" 2>/dev/null) | grep -q SAFESH-BENCH-SECRET; then
    echo "srt DOES NOT HIDE $secret_file with safesh's names as denyRead globs" >"$work/srt.err"
    status=1
  fi
else
  status=1
fi
if [[ $status -eq 0 ]]; then
  echo "srt: $("$srt" --version) on node $(node --version), checked: it sandboxes, hides the file"
  time_srt srt "$srt_runs"
  time_srt srt-names "$srt_names_runs" hide-names
else
  srt_error=$(tr '\n' ' ' <"$work/srt.err")
  echo "scan_compare: srt NOT MEASURED: $srt_error" >&2
  for name in srt srt-names; do
    python3 -c 'import json, sys; json.dump({"error": sys.argv[1]}, open(sys.argv[2], "w"))' \
      "$srt_error" "$work/scan-$name.json"
    bench_export "scan-$name.json" "$work/scan-$name.json"
  done
fi

python3 - "$work"/scan-safesh.json "$work"/scan-srt.json "$work"/scan-srt-names.json <<'PY'
import json, statistics, sys
for path, what in zip(sys.argv[1:], ["safesh run -- true", "srt true (its own scan)",
                                     "srt true (safesh's names as denyRead)"]):
    r = json.load(open(path))
    if "error" in r:
        print(f"{what}: not measured: {r['error']}")
        continue
    m = [statistics.median(x["times"]) * 1000 for x in r["results"]]
    print(f"{what}: empty workspace {m[0]:.1f} ms, 50,000 entries {m[1]:.1f} ms: "
          f"the workspace costs {m[1] - m[0]:.1f} ms (medians)")
    if len(m) == 4:
        print(f"a bare bwrap with safesh's flags: {m[2]:.1f} ms and {m[3]:.1f} ms: the masks "
              f"cost {m[3] - m[2]:.1f} ms (medians)")
PY
exit "$status"
