#!/usr/bin/env python3
"""The CUDA baseline's warm time and phases, run by run, as one SVG chart.

Reads the `log.txt` of each run folder that `scripts/gpu-basket run` wrote (the `time cold ..,
warm W s` line and the `phases (..): paths P s, backward induction B s [..], valuation V s,
sensitivities S s` line after `=== cuda-baseline: basket cuda baseline`), and draws per run a
stacked bar of the phases (one more job, the device synchronised after each) beside the warm
median, with the 7.4 ms of the audited 8x H100 record (STAC-A2 NVDA231030) as a line.

    python3 benches/basket/gpu_phases_chart.py OUT.svg RUN_DIR [RUN_DIR ...]

Standard library only. Exits 2 naming the folder and what is missing when a log lacks a line.
"""

import html
import os
import re
import sys
import tempfile
from pathlib import Path

RECORD_MS = 7.4
PHASES = [("paths", "#4c78a8"), ("backward induction", "#f58518"), ("valuation", "#54a24b"), ("sensitivities", "#b279a2")]
TIME = re.compile(r"warm ([0-9.]+) s")
PHASE = {name: re.compile(re.escape(name) + r" ([0-9.]+) s") for name, _ in PHASES}


def run_figures(folder: Path):
    """(warm ms, {phase: ms}) of the CUDA baseline in `folder`/log.txt."""
    log = folder / "log.txt"
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        sys.stderr.write(f"{log}: {e.strerror}\n")
        sys.exit(2)
    start = next((i for i, l in enumerate(lines) if l.startswith("=== cuda-baseline: basket cuda baseline")), None)
    if start is None:
        sys.stderr.write(f"{log}: no '=== cuda-baseline: basket cuda baseline' step\n")
        sys.exit(2)
    warm = phases = None
    for line in lines[start + 1 :]:
        if line.startswith("=== "):
            break
        if warm is None and line.startswith("time ") and TIME.search(line):
            warm = float(TIME.search(line).group(1)) * 1e3
        if phases is None and line.startswith("phases"):
            phases = {}
            for name, rx in PHASE.items():
                m = rx.search(line)
                if m is None:
                    sys.stderr.write(f"{log}: the phases line has no '{name}'\n")
                    sys.exit(2)
                phases[name] = float(m.group(1)) * 1e3
    if warm is None or phases is None:
        sys.stderr.write(f"{log}: the cuda-baseline step has no {'warm time' if warm is None else 'phases'} line\n")
        sys.exit(2)
    return warm, phases


def chart(runs):
    """The SVG text for [(label, warm ms, {phase: ms})]."""
    width, height, left, bottom, top = 160 + 120 * len(runs), 420, 70, 90, 40
    plot_h = height - bottom - top
    top_ms = max(max(w, sum(p.values())) for _, w, p in runs) * 1.1
    y = lambda ms: top + plot_h * (1 - ms / top_ms)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<text x="{left}" y="20" font-size="14">STAC-A2 baseline (5 x 25,000 x 252, every Greek), CUDA on one H100: phases and warm time</text>',
    ]
    for k in range(0, int(top_ms) + 1, 5):
        out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(k):.1f}" y2="{y(k):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y(k) + 4:.1f}" text-anchor="end">{k} ms</text>')
    out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(RECORD_MS):.1f}" y2="{y(RECORD_MS):.1f}" stroke="#d62728" stroke-dasharray="6 4"/>')
    out.append(f'<text x="{width - 22}" y="{y(RECORD_MS) - 5:.1f}" text-anchor="end" fill="#d62728">7.4 ms: 8x H100 record (NVDA231030)</text>')
    for i, (label, warm, phases) in enumerate(runs):
        x = left + 30 + 120 * i
        base = 0.0
        for name, colour in PHASES:
            ms = phases[name]
            if ms > 0:
                out.append(f'<rect x="{x}" y="{y(base + ms):.1f}" width="40" height="{y(base) - y(base + ms):.1f}" fill="{colour}"/>')
            base += ms
        out.append(f'<rect x="{x + 44}" y="{y(warm):.1f}" width="14" height="{y(0) - y(warm):.1f}" fill="#333"/>')
        out.append(f'<text x="{x + 51}" y="{y(warm) - 4:.1f}" text-anchor="middle">{warm:.1f}</text>')
        out.append(f'<text x="{x + 29}" y="{height - bottom + 16}" text-anchor="middle">{html.escape(label)}</text>')
    lx = left
    for name, colour in PHASES + [("warm median", "#333")]:
        out.append(f'<rect x="{lx}" y="{height - 40}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="{height - 30}">{name}</text>')
        lx += 30 + 7 * len(name)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out = Path(argv[1])
    runs = []
    for d in argv[2:]:
        folder = Path(d)
        warm, phases = run_figures(folder)
        m = re.search(r"run(\d+)", folder.name)
        runs.append((f"run {m.group(1)}" if m else folder.name, warm, phases))
    # Written beside the target under an unpredictable name created exclusively, then renamed
    # over it: a failed run leaves an earlier chart whole.
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(chart(runs))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    print(f"wrote {out} ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
