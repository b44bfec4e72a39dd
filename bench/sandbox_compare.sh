#!/usr/bin/env bash
# What the sandbox costs, measured in one run with hyperfine: `safesh run -- true` through
# bubblewrap against a bare `bwrap` with the same flags running `true` (the target is 1.25x), and
# against srt, Anthropic's sandbox runtime (@anthropic-ai/sandbox-runtime, pinned by
# bench/node/package-lock.json), running `true` under the same policy (the workspace, /tmp and
# /var/tmp writable, no network; the target is 10x faster). For scale: `bash -c true`, the same
# bare bwrap running `bash -c true` (what a shell command costs inside the sandbox before safesh
# adds anything: its own process, the guard and safesh-confine), safesh with its limits set by
# rlimits instead of cgroups (SAFESH_LIMITS=rlimit: no cgroup to make and join), and safesh through
# the Landlock launcher.
#   bench/sandbox_compare.sh [SAFESH_BINARY] [RUNS]
# The bare bwrap's flags are safesh's own, taken from `safesh run --dry-run` in the same
# workspace and home, without the two descriptors safesh hands it (the seccomp filter and the
# Landlock ruleset, which a bare bwrap has no way to be given) and without safesh-confine.
# srt is installed with `npm ci` into the build folder (BUILD/bench-node/srt), checked to really
# sandbox first (srt_verify in bench/lib.sh), and timed with RUNS/10 runs (at least 10): a run
# takes about a quarter of a second. If it cannot be installed or run, or does not sandbox, the
# reason is printed (and written to BENCH_OUT), the rest is still measured, and the script exits 1.
set -euo pipefail
BENCH_NAME=sandbox_compare
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/bench/lib.sh"
safesh="$(realpath "${1:-$root/build/safesh}")"
runs=${2:-$(bench_runs 300 30)}
srt_runs=$((runs / 10 > 10 ? runs / 10 : 10))
# The floor under any tool that runs a shell command in this sandbox and returns its output:
# bench/spawn_floor (posix_spawn, read the output pipe, wait) around the bare bwrap running bash.
floor="$(dirname "$safesh")/bench/spawn_floor"
bench_need hyperfine python3 bwrap "$safesh" "$floor"

# Not under /tmp: a home inside a writable root gets its start-up files masked too, which would
# flatter neither side but is not what a user's machine looks like.
work="$(bench_workdir)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/ws"
cat >"$work/rules.toml" <<'TOML'
[commands]
auto_approve = ["true"]
[sandbox]
shell = "required"
TOML
clean=(env -i "PATH=/usr/bin:/bin" "HOME=$work/home")
run=("$safesh" run --config "$work/rules.toml" --workspace "$work/ws")

plan=$("${clean[@]}" "${run[@]}" --dry-run -- true 2>/dev/null)
case "$plan" in
  *bwrap*) ;;
  *) echo "sandbox_compare: safesh does not use bubblewrap here: $plan" >&2; exit 1 ;;
esac
# The same flags; `true` instead of safesh-confine and bash.
bare=$(bare_bwrap "$plan")
bare_bash=$(sed -n 2p <<<"$bare")
bare=$(sed -n 1p <<<"$bare")
echo "bare: $bare"

"${clean[@]}" hyperfine -N --warmup "$(bench_runs 30 5)" --runs "$runs" \
  --export-json "$work/sandbox.json" \
  "bash -c true" \
  "$bare" \
  "$bare_bash" \
  "${run[*]} -- true" \
  "env SAFESH_LIMITS=rlimit ${run[*]} -- true" \
  "env SAFESH_SANDBOX_LAUNCHER=landlock ${run[*]} -- true" \
  "$floor $bare_bash"
bench_export sandbox.json "$work/sandbox.json"

# srt under the same policy, from the same (empty) workspace: its working directory is what its
# built-in write protection scans.
srt_status=0
if srt=$(srt_install "$(dirname "$safesh")" 2>"$work/srt.err") &&
   srt_settings "$work/srt.json" "$work/ws" 2>"$work/srt.err" &&
   srt_verify "$srt" "$work/srt.json" "$work/ws" "$work/home" 2>"$work/srt.err"; then
  echo "srt: $("$srt" --version) on node $(node --version), checked: it sandboxes"
  srt_environment "$work/home"
  (cd "$work/ws" && "${srt_env[@]}" hyperfine -N --warmup 3 --runs "$srt_runs" \
     --export-json "$work/srt-run.json" \
     "$srt --settings $work/srt.json true")
else
  srt_status=1
  srt_error=$(tr '\n' ' ' <"$work/srt.err")
  echo "sandbox_compare: srt NOT MEASURED: $srt_error" >&2
  python3 -c 'import json, sys; json.dump({"error": sys.argv[1]}, open(sys.argv[2], "w"))' \
    "$srt_error" "$work/srt-run.json"
fi
bench_export srt.json "$work/srt-run.json"

python3 - "$work/sandbox.json" "$work/srt-run.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
m = [statistics.median(x["times"]) * 1000 for x in r]
bash, bare, bare_bash, safesh, rlimit, landlock, floor = m
print(f"bash -c true {bash:.2f} ms; bare bwrap (safesh's flags) {bare:.2f} ms; "
      f"the same bwrap running bash -c true {bare_bash:.2f} ms = {bare_bash / bare:.2f}x; "
      f"safesh run -- true (bubblewrap) {safesh:.2f} ms = {safesh / bare:.2f}x bare bwrap; "
      f"with limits by rlimits instead of cgroups {rlimit:.2f} ms = {rlimit / bare:.2f}x; "
      f"safesh through Landlock {landlock:.2f} ms; the floor (spawn_floor around the bare "
      f"bwrap running bash) {floor:.2f} ms = {floor / bare:.2f}x (medians)")
s = json.load(open(sys.argv[2]))
if "results" in s:
    srt = statistics.median(s["results"][0]["times"]) * 1000
    print(f"srt running true under the same policy {srt:.2f} ms: safesh run is {srt / safesh:.1f}x "
          f"faster (medians)")
else:
    print(f"srt: not measured: {s['error']}")
PY
exit "$srt_status"
