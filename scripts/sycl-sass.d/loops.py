"""Per-kernel summary of SASS listings (cuobjdump -sass): for each loop of the first function
(a backward branch), its static instruction count, the Philox multiplies in it (IMAD.WIDE.U32 and
IMAD.HI.U32: 2 per round, 20 per Philox call when fused) and its MUFU (transcendental) count.

    loops.py OUT.md FILE.sass...   (file names: <stack>-<kernel>.sass, resource usage beside
                                    them in <stack>-<kernel>.res)
Writes a Markdown table (atomically: a temporary file, then a rename)."""
import os
import re
import sys


def parse(path):
    code = []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            code.append((int(m.group(1), 16), m.group(2)))
        elif code and "Function :" in line:
            break  # first function only
    return code


def loops(code):
    out = []
    for addr, ins in code:
        m = re.search(r"\bBRA (?:`?!?U?P\d, )?`?\(?0x([0-9a-f]+)", ins)
        if m and int(m.group(1), 16) < addr:
            start = int(m.group(1), 16)
            body = [i for a, i in code if start <= a <= addr]
            mul = sum(1 for i in body if re.search(r"IMAD\.(WIDE\.U32|HI\.U32)", i))
            mufu = sum(1 for i in body if "MUFU" in i)
            out.append((len(body), mul, mufu))
    return out


def resources(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return "-", "-"
    reg = re.search(r"REG:(\d+)", text)
    stack = re.search(r"STACK:(\d+)", text)
    return (reg.group(1) if reg else "-", stack.group(1) if stack else "-")


def main():
    out, files = sys.argv[1], sys.argv[2:]
    rows = ["| kernel | stack | registers | stack bytes | instructions | loops: instructions / Philox multiplies / MUFU |",
            "| --- | --- | --- | --- | --- | --- |"]
    for f in sorted(files, key=lambda p: (os.path.basename(p).split("-", 1)[1], p)):
        stack, kernel = os.path.basename(f)[: -len(".sass")].split("-", 1)
        code = parse(f)
        reg, st = resources(f[: -len(".sass")] + ".res")
        ls = "; ".join(f"{n} / {m} / {u}" for n, m, u in loops(code)) or "-"
        rows.append(f"| {kernel} | {stack} | {reg} | {st} | {len(code)} | {ls} |")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(rows) + "\n")
    os.replace(tmp, out)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
