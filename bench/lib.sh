# shellcheck shell=bash
# Helpers the bench/ scripts share; sourced, not run. Each script sets BENCH_NAME (for its
# messages) before sourcing this file.
#
# Two variables from the caller (bench/suite.sh sets them) change what the scripts do:
#   BENCH_OUT=DIR   also write the raw results (hyperfine's and Google Benchmark's JSON, and small
#                   JSON files of their own) into DIR, for bench/report.py
#   BENCH_QUICK=1   fewer runs: to try the suite out, not for figures to publish

# Exits with a clear message unless every tool named is on PATH (or is an executable path).
bench_need() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null; then
      echo "$BENCH_NAME: $tool is missing (scripts/bootstrap --test installs the tools," \
        "make build the binaries)" >&2
      exit 1
    fi
  done
}

# A fresh work folder, printed. Not under /tmp: safesh makes /tmp writable to commands, and a home
# inside a writable root gets its start-up files and credential folders masked too, which is not
# what a user's machine looks like. The caller removes it (trap).
bench_workdir() {
  local state="${XDG_STATE_HOME:-$HOME/.local/state}"
  mkdir -p "$state"
  mktemp -d -p "$state" safesh-bench.XXXXXX
}

# bench_export NAME FILE: copies FILE to $BENCH_OUT/NAME when BENCH_OUT is set.
bench_export() {
  if [[ -n "${BENCH_OUT:-}" ]]; then
    cp "$2" "$BENCH_OUT/$1"
  fi
}

# bench_runs FULL QUICK: prints FULL, or QUICK under BENCH_QUICK=1.
bench_runs() {
  if [[ "${BENCH_QUICK:-}" == 1 ]]; then echo "$2"; else echo "$1"; fi
}

# bare_bwrap PLAN: from the command line `safesh run --dry-run` prints (PLAN), a bare bwrap with
# the same flags, without the seccomp descriptor (which a bare bwrap has no way to be given), and
# without safesh-confine and bash: two lines, the first running /bin/true, the second
# `/bin/bash -c true`.
bare_bwrap() {
  python3 - "$1" <<'PY'
import shlex, sys
a = shlex.split(sys.argv[1])
i = a.index("--seccomp")
del a[i:i + 2]
a = a[:a.index("--") + 1]
# Mounts safesh binds from descriptors, bound by path here (the same mount, opened by bwrap);
# the private /tmp and /var/tmp, whose source the line does not show, as a tmpfs.
out = []
i = 0
while i < len(a):
    if a[i] in ("--bind-fd", "--ro-bind-fd"):
        dest = a[i + 2]
        if dest in ("/tmp", "/var/tmp"):
            out += ["--tmpfs", dest]
        else:
            out += ["--bind" if a[i] == "--bind-fd" else "--ro-bind", dest, dest]
        i += 3
    else:
        out.append(a[i])
        i += 1
a = out
print(" ".join(shlex.quote(x) for x in a + ["/bin/true"]))
print(" ".join(shlex.quote(x) for x in a + ["/bin/bash", "-c", "true"]))
PY
}

# --- srt, Anthropic's sandbox runtime (@anthropic-ai/sandbox-runtime): the peer of the sandbox.

# srt_install BUILD_DIR: installs srt as pinned by bench/node/package-lock.json into
# BUILD_DIR/bench-node/srt with `npm ci` (again only when the lock file changes), and prints the
# path of its program. On failure it prints why on stderr and returns 1.
srt_install() {
  local here dir stamp
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/node"
  dir="$(realpath -m "$1")/bench-node/srt"
  for tool in node npm; do
    if ! command -v "$tool" >/dev/null; then
      echo "$tool is missing (scripts/bootstrap --test installs it)" >&2
      return 1
    fi
  done
  mkdir -p "$dir"
  stamp="$dir/node_modules/.safesh-package-lock.json"
  if ! cmp -s "$here/package-lock.json" "$stamp"; then
    cp "$here/package.json" "$here/package-lock.json" "$dir/"
    if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2); then
      echo "npm ci of bench/node/package-lock.json failed" >&2
      return 1
    fi
    cp "$here/package-lock.json" "$stamp"
  fi
  echo "$dir/node_modules/.bin/srt"
}

# srt_settings FILE WORKSPACE [hide-names]: writes srt's settings for the policy safesh applies by
# default: the workspace, /tmp and /var/tmp writable, nothing else, and no network (no allowed
# domain). With `hide-names`, also safesh's built-in blocked names (DefaultBlockedNames in
# src/sandbox/blocked_names.cc, read from there) as `denyRead` globs beneath the workspace, and
# its exceptions (`!.env.example`, ...) as `allowRead` globs: the same protection, as srt
# expresses it.
srt_settings() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  python3 - "$1" "$2" "${3:-}" "$root/src/sandbox/blocked_names.cc" <<'PY'
import json, re, sys
out, ws, mode, source = sys.argv[1:5]
fs = {"denyRead": [], "allowWrite": [ws, "/tmp", "/var/tmp"], "denyWrite": []}
if mode == "hide-names":
    text = open(source).read()
    body = re.search(r"DefaultBlockedNames\(\) \{(.*?)\};", text, re.S)
    names = re.findall(r'"([^"]+)"', body.group(1)) if body else []
    if len(names) < 10:
        sys.exit(f"cannot read the built-in blocked names from {source}")
    fs["denyRead"] = [f"{ws}/**/{n}" for n in names if not n.startswith("!")]
    fs["allowRead"] = [f"{ws}/**/{n[1:]}" for n in names if n.startswith("!")]
json.dump({"network": {"allowedDomains": [], "deniedDomains": []}, "filesystem": fs},
          open(out, "w"), indent=1)
PY
}

# srt_environment HOME: sets srt_env, the clean environment srt runs in: PATH, HOME, and a TMPDIR
# of its own inside HOME (made here), so that what srt leaves in its temporary folder (its proxy's
# sockets, the mount points of its binds) goes with the bench's work folder, not into /tmp. srt
# hands the command a TMPDIR of its own (/tmp/claude) whatever it is given.
srt_environment() {
  mkdir -p "$1/t"
  srt_env=(env -i "PATH=/usr/bin:/bin" "HOME=$1" "TMPDIR=$1/t")
}

# srt_verify SRT SETTINGS WORKSPACE HOME: checks that srt really sandboxes before it is timed: it
# runs `true`, a write in the workspace works, a write outside it (in HOME) fails, and a TCP
# connection to a port listening on this machine's loopback, which works without srt, fails under
# it. Run from WORKSPACE (srt's working directory is what it scans). On failure it prints why on
# stderr and returns 1.
srt_verify() {
  local srt="$1" settings="$2" ws="$3" home="$4" out port listener status=0
  srt_environment "$home"
  if ! out=$(cd "$ws" && "${srt_env[@]}" "$srt" --settings "$settings" true 2>&1); then
    echo "srt cannot run \`true' here: $out" >&2
    return 1
  fi
  local srt_run=("${srt_env[@]}" "$srt" --settings "$settings")
  rm -f "$ws/.srt-probe" "$home/.srt-probe"
  (cd "$ws" && "${srt_run[@]}" -c "touch $ws/.srt-probe" >/dev/null 2>&1) || true
  if [[ ! -e "$ws/.srt-probe" ]]; then
    echo "srt does not let a command write in its workspace ($ws)" >&2
    return 1
  fi
  rm -f "$ws/.srt-probe"
  (cd "$ws" && "${srt_run[@]}" -c "touch $home/.srt-probe" >/dev/null 2>&1) || true
  if [[ -e "$home/.srt-probe" ]]; then
    rm -f "$home/.srt-probe"
    echo "srt DOES NOT SANDBOX here: a command under it wrote outside its workspace ($home)" >&2
    return 1
  fi
  # A listener on the host's loopback for 60 s at most, ended below.
  python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$home/.srt-port" &
  listener=$!
  for _ in $(seq 50); do [[ -s "$home/.srt-port" ]] && break; sleep 0.1; done
  port=$(cat "$home/.srt-port")
  if ! bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
    echo "the loopback listener for srt's network check cannot be reached even without srt" >&2
    status=1
  elif (cd "$ws" && "${srt_run[@]}" -c "exec 3<>/dev/tcp/127.0.0.1/$port" >/dev/null 2>&1); then
    echo "srt DOES NOT SANDBOX here: a command under it reached a port on the host's loopback" >&2
    status=1
  fi
  kill "$listener" 2>/dev/null || true
  wait "$listener" 2>/dev/null || true
  rm -f "$home/.srt-port"
  return "$status"
}
