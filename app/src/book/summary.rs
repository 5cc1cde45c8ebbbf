//! The summary of a book run: the figures ([`Summary::of`]) and their text ([`Summary::render`]),
//! the same for the command line and `tenor serve`.

use std::collections::BTreeMap;
use std::time::Duration;

use tenor_pricing::portfolio::{self, Kind};

use super::open::Exit;
use super::request::{BookRequest, EngineChoice};
use super::run::{BookRun, Written};

/// Per-kind line of the summary.
#[derive(Default)]
struct KindTotal {
    trades: usize,
    pv: f64,
    mc: usize,
    /// Where its rows ran (the `backend` column: `host` or the backend's name), in first-seen order.
    ran_on: Vec<String>,
}

/// The summary of one book run: every line of `tenor price`'s summary, in order.
pub struct Summary {
    lines: Vec<String>,
    /// What happened to the backend at the end (set by the caller that finished it); `None`
    /// for a resident server's backend, which stays open.
    pub exit: Option<Exit>,
    resident: Option<(String, u32)>,
}

impl Summary {
    /// The figures of `run` (priced for `req`), its rows `written`, `elapsed` since the command
    /// started.
    pub fn of(req: &BookRequest, run: &BookRun, written: &Written, elapsed: Duration) -> Self {
        let mut lines = Vec::new();
        lines.extend(head(req, run));
        lines.extend(kinds(req, run));
        lines.extend(phases(req, run, written, elapsed));
        Self { lines, exit: None, resident: run.resident.clone() }
    }

    /// The summary as text, one line per figure, ending with the exit line.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s += l;
            s.push('\n');
        }
        s += &match (&self.resident, self.exit) {
            (Some((selector, pid)), _) => {
                format!("exit        backend {selector} stays open in `tenor serve` (pid {pid}) for the next request\n")
            }
            (None, Some(Exit::TornDown(t))) => format!("exit        backend torn down in {:.3} s\n", t.as_secs_f64()),
            (None, _) => "exit        backend left to the operating system (no teardown before exit; \
                 TENOR_EXIT_TEARDOWN=1 tears it down and times it)\n"
                .to_owned(),
        };
        s
    }
}

/// Portfolio, header, backend, devices and engine lines.
fn head(req: &BookRequest, run: &BookRun) -> Vec<String> {
    let (parsed, book) = (&run.parsed, &run.book);
    let mut l = vec![format!(
        "portfolio   {}: {} rows, {} priced, {} rejected",
        run.file,
        parsed.rows,
        book.rows.len(),
        book.bad_lines.len()
    )];
    let header_problems = parsed.header_errors().count();
    if header_problems > 0 {
        let rows_fate = if parsed.rejected_by_header.is_empty() {
            "the unknown columns were ignored and the data rows read as usual"
        } else {
            "no data row was priced: a required column is missing or a column is named twice"
        };
        l.push(format!(
            "header      line {}: {header_problems} problem(s), listed below; {rows_fate}",
            parsed.header_line
        ));
    }
    let info = run.compute.info();
    l.push(format!("backend     {} ({})", info.backend, info.name));
    if let Some(split) = &run.split {
        let shares: Vec<String> = run
            .device_labels
            .iter()
            .zip(&split.sharding.shards)
            .zip(split.device_loads.iter().zip(&split.host_loads))
            .map(|((label, shard), (d, h))| format!("{label} {} trades ({d:.3e} path-steps, host {h:.0})", shard.len()))
            .collect();
        l.push(format!(
            "devices     {} over {} devices, split by cost (device work {:.1} % over the mean, host work {:.1} %): {}",
            req.backend,
            run.device_labels.len(),
            100.0 * split.device_imbalance(),
            100.0 * split.host_imbalance(),
            shares.join("; ")
        ));
    }
    l.push(format!(
        "engine      {}, paths {}, seed {}, greeks {}",
        match req.engine {
            EngineChoice::Auto => "auto (closed forms where they exist)",
            EngineChoice::Mc => "mc (Monte Carlo for every row)",
        },
        req.paths,
        req.seed,
        if req.greeks { "on" } else { "off" }
    ));
    l
}

/// The per-kind table, the total, and the notes on rows priced another way than asked.
fn kinds(req: &BookRequest, run: &BookRun) -> Vec<String> {
    let rows = &run.book.rows;
    let mut by_kind: BTreeMap<Kind, KindTotal> = BTreeMap::new();
    for (kind, row) in run.book.kinds.iter().zip(rows) {
        let k = by_kind.entry(*kind).or_default();
        k.trades += 1;
        k.pv += row.price;
        k.mc += usize::from(portfolio::is_monte_carlo(&row.method));
        if !k.ran_on.contains(&row.backend) {
            k.ran_on.push(row.backend.clone());
        }
    }
    let mut l = vec!["kind           trades    mc rows            PV  ran on".to_owned()];
    for (k, t) in &by_kind {
        l.push(format!(
            "{:<12} {:>8} {:>10} {:>13}  {}",
            k.as_str(),
            t.trades,
            t.mc,
            pv_text(t.pv),
            t.ran_on.join(", ")
        ));
    }
    let total_pv: f64 = rows.iter().map(|r| r.price).sum();
    let mc_rows = rows.iter().filter(|r| portfolio::is_monte_carlo(&r.method)).count();
    l.push(format!("{:<12} {:>8} {:>10} {:>13}", "total", rows.len(), mc_rows, pv_text(total_pv)));
    l.push("(PV: one unit of each trade, long, in index points)".to_owned());
    let not_mc = rows.len() - mc_rows;
    if req.engine == EngineChoice::Mc && not_mc > 0 {
        l.push(format!(
            "note        {not_mc} row(s) have no Monte Carlo engine and were priced on the host \
             (at expiry: the payoff; an American never worth exercising early, as a call without \
             dividends: the European closed form, Merton 1973); see the method column"
        ));
    }
    let engine = req.engine.into();
    let bad = &run.book.bad_lines;
    let as_puts = run
        .parsed
        .trades
        .iter()
        .filter(|t| portfolio::priced_as_symmetric_put(t, engine) && bad.binary_search(&t.line).is_err())
        .count();
    if as_puts > 0 {
        l.push(format!(
            "note        {as_puts} American call row(s) priced by Longstaff-Schwartz as the American put of the \
             put-call symmetry C(S, K, r, q) = P(K, S, q, r) (McDonald and Schroder 1998; its payoff is bounded); \
             method lsm"
        ));
    }
    let max_stderr = rows.iter().filter_map(|r| r.stderr).fold(0.0_f64, f64::max);
    if max_stderr > 0.0 {
        l.push(format!("largest MC standard error {}", pv_text(max_stderr)));
    }
    l
}

/// Time, phases, where, memory, rejected and output lines.
fn phases(req: &BookRequest, run: &BookRun, written: &Written, elapsed: Duration) -> Vec<String> {
    let info = run.compute.info();
    let mut l = vec![format!("time        {:.3} s", elapsed.as_secs_f64())];
    l.push(format!(
        "phases      open backend {:.3} s ({}; waited {:.3} s), read {:.3} s, \
         pricing {:.3} s ({}), write {:.3} s (formatted, synced and renamed)",
        run.open_time.as_secs_f64(),
        if run.resident.is_some() { "once, when `tenor serve` started" } else { "on a thread beside the read" },
        run.open_wait.as_secs_f64(),
        run.read_time.as_secs_f64(),
        run.pricing_time.as_secs_f64(),
        if req.batch { "batch launches" } else { "one launch per job" },
        written.time.as_secs_f64(),
    ));
    let t = &run.book.times;
    l.push(format!(
        "where       {} row(s) by closed form on the host's {} core(s) in {:.3} s ({}); {} Monte Carlo row(s) on {} in {:.3} s",
        t.host_rows,
        rayon::current_num_threads(),
        t.host.as_secs_f64(),
        if req.batch { "beside the device's work" } else { "in sequence" },
        t.device_rows,
        info.backend,
        t.device.as_secs_f64(),
    ));
    let alloc = run.compute.allocator();
    let mem = alloc.report();
    l.push(format!(
        "memory      {}: peak {:.1} MiB used, {:.1} MiB reserved, {} block(s) live after pricing; \
         {} allocation(s) of {:.1} MiB in all while pricing",
        alloc.name(),
        mem.peak_used as f64 / 1048576.0,
        mem.peak_reserved as f64 / 1048576.0,
        mem.live_blocks,
        t.allocations,
        t.allocated_bytes as f64 / 1048576.0
    ));
    let bad = &run.book.bad_lines;
    if !bad.is_empty() {
        let lines: Vec<String> = bad.iter().map(u64::to_string).collect();
        l.push(format!("rejected    {} row(s) on line(s): {}", bad.len(), lines.join(", ")));
    }
    if let Some(note) = &written.kept_note {
        l.push(format!("output      {note}"));
    }
    l
}

/// A summary figure: 4 decimals, or 6 significant digits in scientific notation from 1e12 on
/// (so an absurd trade does not print hundreds of digits).
fn pv_text(x: f64) -> String {
    if x.abs() >= 1e12 {
        format!("{x:.5e}")
    } else {
        format!("{x:.4}")
    }
}
