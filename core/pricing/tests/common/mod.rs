//! Helpers shared by the Monte Carlo tests: oracle rows by column name, contract builders and a
//! binomial tree for American options.
#![allow(dead_code, missing_docs)]

use std::collections::HashMap;

use tenor_pricing::types::{BarrierType, OptionType, Vanilla};

/// One CSV row by column name, with the file and line for messages.
pub struct Row {
    pub file: String,
    pub line: usize,
    pub cells: HashMap<String, String>,
}

impl Row {
    pub fn str(&self, col: &str) -> &str {
        self.cells.get(col).map_or("", String::as_str)
    }
    pub fn f(&self, col: &str) -> f64 {
        self.str(col).trim().parse().unwrap_or_else(|e| panic!("{}:{} column {col}: {e}", self.file, self.line))
    }
    pub fn option(&self) -> OptionType {
        match self.str("type") {
            "call" => OptionType::Call,
            "put" => OptionType::Put,
            other => panic!("{}:{} type {other}", self.file, self.line),
        }
    }
    pub fn barrier_type(&self) -> BarrierType {
        match self.str("barrier_type") {
            "down_out" => BarrierType::DownOut,
            "down_in" => BarrierType::DownIn,
            "up_out" => BarrierType::UpOut,
            "up_in" => BarrierType::UpIn,
            other => panic!("{}:{} barrier_type {other}", self.file, self.line),
        }
    }
    /// Spot, strike, q, r, v and a maturity column as a Vanilla.
    pub fn vanilla(&self, maturity_col: &str) -> Vanilla {
        Vanilla {
            option: self.option(),
            spot: self.f("spot"),
            strike: if self.str("strike").is_empty() { 1.0 } else { self.f("strike") },
            maturity: self.f(maturity_col),
            rate: self.f("r"),
            dividend: self.f("q"),
            vol: self.f("v"),
        }
    }
}

/// All rows of `shared/oracles/<name>`; fails naming the path when it is missing.
pub fn oracle(name: &str) -> Vec<Row> {
    let path = tenor_testdata::shared(&format!("oracles/{name}"));
    let mut rd = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers = rd.headers().expect("header row").clone();
    rd.records()
        .enumerate()
        .map(|(i, r)| {
            let r = r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Row {
                file: name.to_owned(),
                line: i + 2,
                cells: headers.iter().zip(r.iter()).map(|(h, v)| (h.to_owned(), v.to_owned())).collect(),
            }
        })
        .collect()
}

/// A book of American rows, `am0, am1, ...` from `vs` (the portfolio CSV's first nine
/// columns), then the CSV lines `extra` as they are, parsed; panics on a row the reader refuses.
pub fn american_book(vs: &[Vanilla], extra: &str) -> Vec<tenor_pricing::portfolio::Trade> {
    let mut csv = String::from("id,kind,type,spot,strike,maturity,rate,dividend,vol\n");
    for (i, v) in vs.iter().enumerate() {
        let t = if v.option == OptionType::Call { "call" } else { "put" };
        csv +=
            &format!("am{i},american,{t},{},{},{},{},{},{}\n", v.spot, v.strike, v.maturity, v.rate, v.dividend, v.vol);
    }
    csv += extra;
    let p =
        tenor_pricing::portfolio::parse_portfolio(csv.as_bytes(), std::path::Path::new("am.csv")).expect("readable");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    p.trades
}

/// American option on a Jarrow-Rudd binomial tree with `n` steps:
/// `u, d = exp(mu dt +/- vol sqrt(dt))`, `mu = r - q - vol^2 / 2`, the probability of `u` the one
/// that makes the discounted spot a martingale (1/2 to first order in `dt`), early exercise of
/// `v`'s own payoff at every node (Jarrow and Rudd 1983; a call is priced as a call, not through
/// any symmetry). Well defined at any vol, unlike CRR at tiny vol.
pub fn tree(v: &Vanilla, n: usize) -> f64 {
    let dt = v.maturity / n as f64;
    let mu = v.rate - v.dividend - 0.5 * v.vol * v.vol;
    let (up, down) = (mu * dt + v.vol * dt.sqrt(), mu * dt - v.vol * dt.sqrt());
    // Risk-neutral probability that makes the discounted spot a martingale on this lattice.
    let p = (((v.rate - v.dividend) * dt).exp() - down.exp()) / (up.exp() - down.exp());
    let disc = (-v.rate * dt).exp();
    let s = |i: usize, j: usize| v.spot * (up * j as f64 + down * (i - j) as f64).exp();
    let mut values: Vec<f64> = (0..=n).map(|j| v.option.payoff(s(n, j), v.strike)).collect();
    for i in (0..n).rev() {
        for j in 0..=i {
            let cont = disc * (p * values[j + 1] + (1.0 - p) * values[j]);
            values[j] = cont.max(v.option.payoff(s(i, j), v.strike));
        }
    }
    values[0]
}
