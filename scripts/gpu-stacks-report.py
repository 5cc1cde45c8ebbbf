#!/usr/bin/env python3
"""Renders a `scripts/gpu-stacks run` output folder (log.txt, results.json, reports.tgz) into
docs/results/stacks-<device>-<date>.md and docs/results/stacks-<device>-<date>/ (the pilot's
report and charts, the AOT-vs-JIT lines, the code evidence).

    scripts/gpu-stacks report DIR        (calls this: DIR holds the run's $OUT files)

The verdict section is generated from the measured figures only: the ratio of each stack to
CUDA at the largest size both measured on the fused Monte Carlo workloads against the 85 %
target, cold start, agreement, the AOT-vs-JIT lines, and the code evidence (registers and spills
from ptxas/cuobjdump, SASS instruction mix) where the device had the tools.
"""
import collections
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile

FUSED = ["mc_european_f64", "mc_european_f32", "mc_asian_f64", "mc_asian_f32"]


def sass_mix(path):
    """Counts of SASS opcodes (first word of each instruction) in a cuobjdump -sass listing."""
    mix = collections.Counter()
    for line in open(path, errors="replace"):
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?P\d\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m:
            mix[m.group(1).split(".")[0]] += 1
    return mix


def main():
    src, dest_root = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "docs/results"
    log = open(os.path.join(src, "log.txt"), errors="replace").read()
    results = json.load(open(os.path.join(src, "results.json")))
    work = tempfile.mkdtemp()
    with tarfile.open(os.path.join(src, "reports.tgz")) as t:
        t.extractall(work)
    date = re.search(r"^date: (\d{4}-\d{2}-\d{2})", log, re.M)
    date = date.group(1) if date else "undated"
    gpu = re.search(r"^(NVIDIA [^,]+),", log, re.M)
    device = (gpu.group(1).split()[-1].lower() if gpu else "gpu")
    name = f"stacks-{device}-{date}"
    out_dir = os.path.join(dest_root, name)
    os.makedirs(out_dir, exist_ok=True)
    pilot = os.path.join(work, "pilot")
    if os.path.isdir(pilot):
        for f in os.listdir(pilot):
            shutil.copy(os.path.join(pilot, f), out_dir)
    pj = json.load(open(os.path.join(pilot, "pilot.json"))) if os.path.isfile(os.path.join(pilot, "pilot.json")) else {}
    vs = pj.get("versus_cuda") or {}
    lines = [f"# CUDA, SYCL (AdaptiveCpp) and OpenCL on the same {gpu.group(1) if gpu else 'GPU'} ({date})", ""]
    lines += ["Produced by `scripts/gpu-stacks run` (one command on the device), rendered by "
              "`scripts/gpu-stacks report`. The pilot's full report is "
              f"[{name}/pilot.md]({name}/pilot.md).", ""]
    steps = re.findall(r"^=== ([\w.-]+): (ok|FAILED)", log, re.M)
    lines += ["## Steps", ""] + [f"- `{s}`: {r}" for s, r in steps] + [""]
    for m in re.finditer(r"^(stack \w+: NOT BUILT.*|backend \w+: .*)$", log, re.M):
        lines.append(f"- {m.group(1)}")
    lines.append("")
    bk = os.path.join(work, "backends.txt")
    if os.path.isfile(bk):
        lines += ["## `tenor backends`", "", "```", open(bk).read().rstrip(), "```", ""]
    head = vs.get("headline", [])
    lines += ["## Warm throughput against CUDA at the largest size both measured", "",
              "| backend | workload | size | ratio to CUDA | target |", "|---|---|---|---|---|"]
    for r in head:
        tgt = "-" if r.get("target") is None else ("met" if r["ratio"] >= r["target"] else "NOT met")
        lines.append(f"| {r['backend']} | {r['workload']} | {r['size']} | {100 * r['ratio']:.1f} % | {tgt} |")
    lines.append("")
    lines += ["## Cold start against CUDA (open + first call)", "", "| backend | workload | seconds | CUDA seconds | ratio |",
              "|---|---|---|---|---|"]
    for c in vs.get("cold", []):
        lines.append(f"| {c['backend']} | {c['workload']} | {c['cold_s']:.3f} | {c['base_cold_s']:.3f} | {c['ratio']:.2f}x |")
    lines.append("")
    lines += ["## Agreement with the CPU reference", "", "| backend | pilot rows agreed | book and strategy |", "|---|---|---|"]
    agree = results.get("agree", {})
    for a in vs.get("agreement", []):
        g = agree.get(a["backend"], {})
        bs = ("agrees" if g.get("agrees") else f"DIFFERS {g}") if g else "-"
        lines.append(f"| {a['backend']} | {a['agreed']}/{a['rows']} | {bs} |")
    lines.append("")
    aot = []
    for f in ("acpp-targets-generic.jsonl", "acpp-targets-generic-portable.jsonl", "acpp-targets-sm90.jsonl"):
        p = os.path.join(work, f)
        if os.path.isfile(p):
            aot += [json.loads(l) for l in open(p) if l.strip().startswith("{")]
    if aot:
        lines += ["## AdaptiveCpp targets: generic (JIT to PTX; NVIDIA math, and portable math) against cuda:sm_90 (ahead of time)", "",
                  "| target | kernel | pairs | cold s | warm median s | rate | price |", "|---|---|---|---|---|---|---|"]
        for a in aot:
            lines.append(f"| {a['target']} | {a['kernel']} | {a['pairs']} | {a['cold_s']:.3f} | {a['warm_median_s']:.4f} | "
                         f"{a['rate']:.3e} {a['unit']} | {a['price']:.6f} |")
        lines.append("")
        shutil.copy(p, out_dir) if os.path.isfile(p) else None
    code = os.path.join(work, "code")
    evidence = []
    if os.path.isdir(code):
        for root, _, files in os.walk(code):
            for f in sorted(files):
                p = os.path.join(root, f)
                if f.endswith(".ptxas.txt") or f.endswith(".res.txt"):
                    regs = re.findall(r"(?:Used (\d+) registers|REG:(\d+))", open(p, errors="replace").read())
                    spill = re.findall(r"(\d+) bytes spill stores", open(p, errors="replace").read())
                    if regs:
                        evidence.append(f"- `{f}`: registers {sorted({int(a or b) for a, b in regs})}, spill stores {spill or ['0']}")
                if f.endswith(".sass"):
                    mix = sass_mix(p)
                    if mix:
                        top = ", ".join(f"{k} {v}" for k, v in mix.most_common(12))
                        evidence.append(f"- `{f}`: {sum(mix.values())} instructions; {top}")
        dest_code = os.path.join(out_dir, "code")
        shutil.copytree(code, dest_code, dirs_exist_ok=True)
    lines += ["## Code evidence (generated PTX, SASS, registers)", ""]
    lines += evidence or ["- none: the device had no ptxas/cuobjdump under /usr/local/cuda/bin "
                          "(see code/cuda-bin.txt), or the JIT cache held no PTX"]
    lines.append("")
    lines += ["## Libraries for what the pricing code needs", "",
              "- gemm (the LSM regression's normal equations): CUDA has cuBLAS; SYCL under AdaptiveCpp has no "
              "BLAS (oneMKL's SYCL interfaces are not available for NVIDIA here), so Tenor's own register-tiled "
              "`gemm.cpp` (ADR 0004); OpenCL has no CLBlast here, so Tenor's own kernel.", "",
              "## Verdict (generated from the figures above)", ""]
    for b in sorted({r["backend"] for r in head}):
        rows = [r for r in head if r["backend"] == b and r["workload"] in FUSED]
        if rows:
            parts = ", ".join(f"{100 * r['ratio']:.0f} % on {r['workload']}" for r in rows)
            met = all(r["ratio"] >= 0.85 for r in rows)
            lines.append(f"- On this GPU, {b} reaches {parts} of CUDA's warm throughput at device-filling sizes: "
                         f"the 85 % target is {'met' if met else 'NOT met'} on "
                         f"{'all' if met else 'some'} fused Monte Carlo workloads.")
    lines.append("")
    md = os.path.join(dest_root, name + ".md")
    open(md + ".tmp", "w").write("\n".join(lines) + "\n")
    os.replace(md + ".tmp", md)
    print(md)


if __name__ == "__main__":
    main()
