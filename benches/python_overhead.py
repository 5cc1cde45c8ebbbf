"""The Python path's overhead against the command line for pricing the example book, and a
Python strategy's time per bar against the same strategy in Rust (docs/python.md, Measured).

usage (from the repository root, in a venv with the package installed):
    SPY=../shared/data/equities/spy_daily_1999_2020.csv python benches/python_overhead.py target/release/tenor
"""
import math, os, subprocess, sys, time, statistics
import tenor
book = "examples/spx_book.csv"
cli = sys.argv[1]
spy = os.environ["SPY"]
res = {}
def wall(cmd):
    t = time.perf_counter(); subprocess.run(cmd, check=True, capture_output=True); return time.perf_counter() - t
cli_t, py_call, py_proc = [], [], []
dev = tenor.open("cpu")
for i in range(3):
    cli_t.append(wall([cli, "price", "--portfolio", book, "--out", "/tmp/bindings-m/cli.csv"]))
    t = time.perf_counter(); df = dev.price(book); py_call.append(time.perf_counter() - t)
    py_proc.append(wall([sys.executable, "-c", f"import tenor; tenor.open('cpu').price({book!r}).to_csv('/tmp/bindings-m/py.csv', index=False)"]))
print("cli wall (s)", [round(x, 3) for x in cli_t], "median", round(statistics.median(cli_t), 3))
print("python price() call (s)", [round(x, 3) for x in py_call], "median", round(statistics.median(py_call), 3))
print("python process incl. import+to_csv (s)", [round(x, 3) for x in py_proc], "median", round(statistics.median(py_proc), 3))
print("overhead call vs cli: %+.1f %%" % (100 * (statistics.median(py_call) / statistics.median(cli_t) - 1)))
print("overhead process vs cli: %+.1f %%" % (100 * (statistics.median(py_proc) / statistics.median(cli_t) - 1)))

class PySma:
    def __init__(self, fast=50, slow=200):
        self.fast, self.slow, self.closes = fast, slow, []
    def on_bar(self, ctx):
        b = ctx.bar(0)
        if b is None: return
        self.closes.append(b.close)
        n = len(self.closes)
        if n < self.slow or ctx.open_orders(): return
        long = sum(self.closes[-self.fast:]) / self.fast > sum(self.closes[-self.slow:]) / self.slow
        held = ctx.position(0)
        if long and held == 0: ctx.order(0, math.floor(ctx.equity() * 0.99 / b.close))
        elif not long and held > 0: ctx.order(0, -held)
rt, pt = [], []
for i in range(5):
    t = time.perf_counter(); r = tenor.backtest("sma_crossover", spy); rt.append(time.perf_counter() - t)
    t = time.perf_counter(); p = tenor.backtest(PySma(), spy); pt.append(time.perf_counter() - t)
bars = len(r.equity)
assert p.fills.equals(r.fills)
print(f"backtest sma on SPY: {bars} bars; rust {statistics.median(rt)*1e6/bars:.2f} us/bar (median of 5, incl. loading), python {statistics.median(pt)*1e6/bars:.2f} us/bar; ratio {statistics.median(pt)/statistics.median(rt):.1f}x")
