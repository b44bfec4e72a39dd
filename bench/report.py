#!/usr/bin/env python3
"""The table of docs/performance.md, from the raw results of one run of bench/suite.sh.

    bench/report.py RESULTS_DIR [--doc docs/performance.md]

Reads the JSON files the suite's parts leave in RESULTS_DIR (hyperfine's, Google Benchmark's
and their own), prints the table in Markdown and, with --doc, puts it between the
`<!-- bench:begin -->` and `<!-- bench:end -->` lines of the document (after its first
paragraph when the markers are not there yet). Every ratio is between two figures of the same
run; all figures are medians. A part that did not run gives a row that says so.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"


class Missing(Exception):
    pass


def load(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        raise Missing(f"not measured: {name} is missing (see the part's log in "
                      f"build/bench-results/)")
    with open(path) as f:
        data = json.load(f)
    if "error" in data:
        raise Missing(f"not measured: {data['error'].strip()}")
    return data


def hyperfine(results, name):
    """The median of each command of a hyperfine export, in seconds, in order."""
    return [statistics.median(r["times"]) for r in load(results, name)["results"]]


def gbench(results, name):
    """Each benchmark's real time in seconds: the median of the repetitions when there are
    several, else the one run."""
    data = load(results, name)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    out, medians = {}, {}
    for b in data["benchmarks"]:
        key = b.get("run_name", b["name"]).removesuffix("/real_time")
        t = b["real_time"] * scale[b["time_unit"]]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = t
        else:
            out.setdefault(key, t)
    out.update(medians)
    return out


def t(seconds):
    """A time with three significant digits in a unit that suits it."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(seconds) >= scale or unit == "ns":
            v = seconds / scale
            return f"{v:.3g} {unit}" if abs(v) < 1000 else f"{v:,.0f} {unit}"
    return str(seconds)


def x(ratio):
    if ratio < 10:
        return f"{ratio:.2f}×"
    return f"{ratio:.1f}×" if ratio < 100 else f"{ratio:,.0f}×"


def verdict(ok):
    return "met" if ok else "**not met**"


def rows(results):
    """(what, safesh, peer, peer's figure, ratio, target, verdict) rows; a Missing in a block
    becomes one row saying why."""
    out = []

    def block(title, fn):
        try:
            out.extend(fn())
        except Missing as e:
            out.append((title, "—", "—", "—", "—", "—", str(e)))
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as e:
            out.append((title, "—", "—", "—", "—", "—",
                        f"not measured: unexpected results ({e!r})"))

    def parse():
        d = load(results, "parse.json")
        bash_n, shfmt, safesh = hyperfine(results, "parse.json")
        mb = d["bytes"] / 1e6
        what = (f"**parse**: `safesh parse --check` of the machine's shell scripts "
                f"({d['scripts']} scripts, {mb:.2f} MB in one file), whole process")
        return [
            (what, f"{t(safesh)} ({mb / safesh:.0f} MB/s)", "`shfmt -ln bash`", t(shfmt),
             f"shfmt takes {x(shfmt / safesh)}", "≥ 3× faster than shfmt",
             verdict(shfmt / safesh >= 3)),
            ("", "", "`bash -n`", t(bash_n), f"bash takes {x(bash_n / safesh)}", "—", ""),
        ]

    def judge():
        g = gbench(results, "policy.json")
        judge, parse = g["BM_JudgeAgentCommand"], g["BM_ParseAgentCommand"]
        return [(
            "**judge**: a 198-byte agent command (`cd … && git … | head … && rg … | wc … "
            "&& npm test … | tail`) under the corpus's reference policy: parse, extract every "
            "command, match the rules, verdict; in process (`policy_bench`)",
            t(judge), "parsing it alone", t(parse), x(judge / parse), "< 20 µs",
            verdict(judge < 20e-6))]

    def jsonl():
        d = load(results, "check-jsonl.json")
        cat, check = hyperfine(results, "check-jsonl.json")
        rate = d["lines"] / check
        return [(
            f"**judge**: `safesh check --jsonl`, {d['lines']:,} commands on one core "
            "(an audit record each)",
            f"{rate:,.0f} a second ({t(check)})", "`cat` of the same input", t(cat),
            x(check / cat), "≥ 50,000 a second", verdict(rate >= 50000))]

    def spawn():
        bash, bare, bare_bash, safesh, rlimit, landlock, floor = hyperfine(results,
                                                                          "sandbox.json")
        r = [(
            "**spawn**: `safesh run -- true` through bubblewrap (seccomp, Landlock, limits by "
            "cgroup; whole process)",
            t(safesh), "bare `bwrap`, safesh's flags, `/bin/true`", t(bare), x(safesh / bare),
            "≤ 1.25×", verdict(safesh / bare <= 1.25))]
        try:
            srt = hyperfine(results, "srt.json")[0]
            r.append(("", "", f"`srt` {srt_version(results)} running `true` (workspace, /tmp "
                      "and /var/tmp writable, no network)",
                      t(srt), f"srt takes {x(srt / safesh)}", "≥ 10× faster than srt",
                      verdict(srt / safesh >= 10)))
        except Missing as e:
            r.append(("", "", "`srt` running `true`", "—", "—", "≥ 10× faster than srt",
                      str(e)))
        r += [
            ("", "", "`bash -c true`, no sandbox", t(bash), x(safesh / bash), "—", ""),
            ("", "", "the bare `bwrap` running `bash -c true`", t(bare_bash),
             x(safesh / bare_bash), "—", ""),
            ("the floor under any tool that runs a shell command in this sandbox: "
             "`spawn_floor` (`posix_spawn`, read the output, wait) around the bare `bwrap` "
             "running `bash -c true`", t(floor), "bare `bwrap`", t(bare), x(floor / bare), "—",
             ""),
            ("the same with limits by rlimits (`SAFESH_LIMITS=rlimit`)", t(rlimit),
             "bare `bwrap`", t(bare), x(rlimit / bare), "—", ""),
            ("the same through the Landlock launcher (no bubblewrap)", t(landlock),
             "bare `bwrap`", t(bare), x(landlock / bare), "—", ""),
        ]
        return r

    def unsandboxed():
        bash, ours = hyperfine(results, "run-startup.json")
        return [(
            "**spawn**, no sandbox (`[sandbox] shell = \"off\"`): `safesh run -- true`, whole "
            "process (cgroups for the limits, an audit record)", t(ours), "`bash -c true`",
            t(bash), x(ours / bash), "≤ 1.5×", verdict(ours / bash <= 1.5))]

    def in_process():
        g = gbench(results, "run-bench.json")
        ours, bare = g["BM_RunShellCommandSandboxedTrue"], g["BM_BareBwrapTrue"]
        return [(
            "**spawn**, in process: `RunShellCommand(\"true\")` through bubblewrap "
            "(`run_bench`: what `safesh mcp` does per command)",
            t(ours), "`posix_spawn` of the bare `bwrap`", t(bare), x(ours / bare), "—", "")]

    def mcp():
        a, b = load(results, "mcp-bwrap.json"), load(results, "mcp-off.json")
        return [(
            f"**MCP** round trip: `tools/call` of run_shell_command `true` through `safesh mcp`, "
            f"the SDK client, sandboxed ({a['calls']} calls after warm-up)",
            f"{t(a['median_ms'] / 1e3)}, p99 {t(a['p99_ms'] / 1e3)}",
            "the same with `[sandbox] shell = \"off\"`",
            f"{t(b['median_ms'] / 1e3)}, p99 {t(b['p99_ms'] / 1e3)}",
            x(a["median_ms"] / b["median_ms"]), "—", "")]

    def output():
        null, copy, cap, piped = hyperfine(results, "run-capture.json")
        m = load(results, "run-rss.json")
        gb = m["bytes"] / 1e9
        share = null / cap
        flat = m["safesh_kib"] <= max(m["safesh_small_kib"] * 1.1, m["safesh_small_kib"] + 1024)
        return [
            (f"**output**: {gb:g} GB through `safesh run -- 'cat FILE'` (no sandbox, spooled)",
             f"{t(cap)} ({gb / cap:.2f} GB/s)", "`cat FILE > /dev/null`", t(null),
             f"{x(cap / null)}: {share:.2f} of cat's throughput", "≥ 0.5 of cat's throughput",
             verdict(share >= 0.5)),
            ("", "", "`cat FILE > FILE2` (writing it at all)", t(copy), x(cap / copy), "—", ""),
            ("", "", "`cat FILE | cat > FILE2` (the floor: read from a pipe, keep every byte)",
             t(piped), x(cap / piped), "—", ""),
            (f"**output**: peak RSS (`/usr/bin/time -f %M`) with {gb:g} GB of output",
             f"{m['safesh_kib'] / 1024:.1f} MiB",
             "the same with 1 MB of output", f"{m['safesh_small_kib'] / 1024:.1f} MiB",
             f"{m['safesh_kib'] / m['safesh_small_kib']:.2f}× (cat: "
             f"{m['cat_kib'] / 1024:.1f} MiB)", "flat", verdict(flat)),
        ]

    def scan():
        g = gbench(results, "scan.json")
        first, find = g["BM_FirstScan"], g["BM_FindBaseline"]
        incr, floor = g["BM_IncrementalNothingChanged"], g["BM_StatEveryDirectory"]
        cli = g["BM_CliLoadAndScan"]
        watched, touched = g["BM_WatchedNothingChanged"], g["BM_WatchedOneFileAddedOrRemoved"]
        return [
            ("**scan**: the blocked-name scan of a generated 50,000-entry workspace, first "
             "scan, in process (`scan_bench`)", t(first),
             "`find` with the same names and pruned folders", t(find),
             f"find takes {x(find / first)}", "—", ""),
            ("**scan**: incremental, nothing changed, one-shot `safesh run` (one lstat per "
             f"folder; {t(cli)} with loading the cache file)", t(incr),
             "its floor: one `fstatat` per folder, nothing else", t(floor), x(incr / floor),
             "< 1 ms", verdict(incr < 1e-3)),
            ("**scan**: incremental, nothing changed, long-lived (`safesh mcp`: inotify; "
             f"{t(touched)} after a file was added or removed)", t(watched),
             "the one-shot lstat walk", t(incr), f"1/{incr / watched:,.0f}", "< 1 ms",
             verdict(watched < 1e-3 and touched < 1e-3)),
        ]

    def scan_compare():
        e, b, bare_e, bare_b = hyperfine(results, "scan-safesh.json")
        ours = b - e
        r = [(
            "**scan**, per command end to end: `safesh run -- true` (bubblewrap) in the 50,000-"
            "entry workspace minus in an empty one (the incremental scan, and 139 files hidden, "
            "a mount each)",
            f"+{t(ours)} ({t(e)} → {t(b)})", "`srt` with safesh's names as `denyRead` globs, "
            "the same difference", None, None, "—", "")]
        try:
            se, sb = hyperfine(results, "scan-srt-names.json")
            r[0] = r[0][:3] + (f"+{t(sb - se)} ({t(se)} → {t(sb)})",
                               f"srt takes {x((sb - se) / ours)}") + r[0][5:]
        except Missing as err:
            r[0] = r[0][:3] + ("—", "—", "—", str(err))
        try:
            de, db = hyperfine(results, "scan-srt.json")
            r.append(("", "", "`srt` with its own scan only (the mandatory deny: ripgrep, "
                      "4 levels, other names)", f"{'+' if db >= de else '−'}{t(abs(db - de))} "
                      f"({t(de)} → {t(db)})", "—", "—", ""))
        except Missing:
            pass
        r.append(("", "", "a bare `bwrap` with safesh's flags for each workspace (the same "
                  "masks, no scan), the same difference", f"+{t(bare_b - bare_e)} "
                  f"({t(bare_e)} → {t(bare_b)})", x(ours / (bare_b - bare_e)), "—", ""))
        return r

    for title, fn in (("parse", parse), ("judge", judge), ("judge: check --jsonl", jsonl),
                      ("spawn", spawn), ("spawn in process", in_process),
                      ("spawn without a sandbox", unsandboxed), ("MCP", mcp),
                      ("output", output), ("scan", scan), ("scan end to end", scan_compare)):
        block(f"**{title}**", fn)
    return out


def versions(results):
    def first_line(*cmd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True)
            return (r.stdout or r.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "?"

    srt = srt_version(results)
    try:
        socat = subprocess.run(["socat", "-V"], capture_output=True, text=True).stdout
        socat = next(line.split(" on ")[0].replace("socat version", "socat")
                     for line in socat.splitlines() if line.startswith("socat version"))
    except (OSError, StopIteration):
        socat = "socat ?"
    bash = first_line("bash", "--version").replace("GNU bash, version ", "bash ")
    return (f"{bash}, shfmt {first_line('shfmt', '--version')}, "
            f"{first_line('hyperfine', '--version')}, srt {srt}, "
            f"{first_line('rg', '--version')}, {socat}")


def srt_version(results):
    pkg = os.path.join(os.path.dirname(os.path.abspath(results)), "bench-node/srt/node_modules/"
                       "@anthropic-ai/sandbox-runtime/package.json")
    return json.load(open(pkg))["version"] if os.path.exists(pkg) else "?"


def render(results):
    m = load(results, "machine.json")
    lines = [
        BEGIN,
        "<!-- Written by bench/report.py from one run of bench/suite.sh: run it again rather "
        "than edit this by hand. -->",
        "",
    ]
    if m["quick"]:
        lines += ["**A quick run (`--quick`, fewer runs): to try the suite, not to quote.**", ""]
    lines += [
        f"Produced by `{m['command']}` on {m['date']}: {m['nproc']} cores ({m['cpu']}), "
        f"Linux {m['kernel']}, {m['os']}, load average {' / '.join(m['loadavg'])} at the start; "
        f"{m['safesh']} at {m['commit']}{' with local changes' if m['dirty'] else ''}, "
        f"{m['bwrap']}, node {m['node']}; {versions(results)}. Medians; each ratio is between "
        "two figures of this run. Raw results: `build/bench-results/`.",
        "",
        "| What | safesh | Compared with | Its figure | Ratio | Target | |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows(results):
        cells = ("—" if c is None else c.replace("|", "\\|") for c in row)
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", END]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--doc")
    a = ap.parse_args()
    try:
        block = render(a.results)
    except Missing as e:
        sys.exit(f"report: {e}")
    print(block)
    if not a.doc:
        return
    text = open(a.doc).read()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + block + "\n" + tail
    else:
        # After the title and the first paragraph.
        parts = text.split("\n\n", 2)
        text = "\n\n".join(parts[:2]) + "\n\n" + block + "\n" + (parts[2] if len(parts) > 2 else "")
    with open(a.doc, "w") as f:
        f.write(text)
    print(f"report: wrote the table into {a.doc}")


if __name__ == "__main__":
    main()
