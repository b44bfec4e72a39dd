#!/usr/bin/env bash
# What the sandbox costs, measured in one run with hyperfine: `safesh run -- true` through
# bubblewrap against a bare `bwrap` with the same flags running `true` (the target is 1.25x),
# and, for scale, `bash -c true`, the same bare bwrap running `bash -c true` (what a shell
# command costs inside the sandbox before safesh adds anything: its own process, the guard and
# safesh-confine), safesh with its limits set by rlimits instead of cgroups
# (SAFESH_LIMITS=rlimit: no cgroup to make and join), and safesh through the Landlock launcher.
#   bench/sandbox_compare.sh [SAFESH_BINARY] [RUNS]
# The bare bwrap's flags are safesh's own, taken from `safesh run --dry-run` in the same
# workspace and home, without the two descriptors safesh hands it (the seccomp filter and the
# Landlock ruleset, which a bare bwrap has no way to be given) and without safesh-confine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
safesh="$(realpath "${1:-$root/build/safesh}")"
runs=${2:-300}
command -v hyperfine >/dev/null || { echo "sandbox_compare: hyperfine is missing (scripts/bootstrap --test)" >&2; exit 1; }

# Not under /tmp: a home inside a writable root gets its start-up files masked too, which would
# flatter neither side but is not what a user's machine looks like.
state="${XDG_STATE_HOME:-$HOME/.local/state}"
mkdir -p "$state"
work="$(mktemp -d -p "$state" safesh-bench.XXXXXX)"
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
bare=$(python3 - "$plan" <<'PY'
import shlex, sys
a = shlex.split(sys.argv[1])
i = a.index("--seccomp")
del a[i:i + 2]
a = a[:a.index("--") + 1]
print(" ".join(shlex.quote(x) for x in a + ["/bin/true"]))
print(" ".join(shlex.quote(x) for x in a + ["/bin/bash", "-c", "true"]))
PY
)
bare_bash=$(sed -n 2p <<<"$bare")
bare=$(sed -n 1p <<<"$bare")
echo "bare: $bare"

"${clean[@]}" hyperfine -N --warmup 30 --runs "$runs" --export-json "$work/sandbox.json" \
  "bash -c true" \
  "$bare" \
  "$bare_bash" \
  "${run[*]} -- true" \
  "env SAFESH_LIMITS=rlimit ${run[*]} -- true" \
  "env SAFESH_SANDBOX_LAUNCHER=landlock ${run[*]} -- true"

python3 - "$work/sandbox.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
m = [statistics.median(x["times"]) * 1000 for x in r]
bash, bare, bare_bash, safesh, rlimit, landlock = m
print(f"bash -c true {bash:.2f} ms; bare bwrap (safesh's flags) {bare:.2f} ms; "
      f"the same bwrap running bash -c true {bare_bash:.2f} ms = {bare_bash / bare:.2f}x; "
      f"safesh run -- true (bubblewrap) {safesh:.2f} ms = {safesh / bare:.2f}x bare bwrap; "
      f"with limits by rlimits instead of cgroups {rlimit:.2f} ms = {rlimit / bare:.2f}x; "
      f"safesh through Landlock {landlock:.2f} ms (medians)")
PY
