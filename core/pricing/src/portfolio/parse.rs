//! Reading a portfolio CSV exactly per `shared/spec/portfolio-csv.md`: columns in any order,
//! unknown columns rejected by name, empty cells meaning "not applicable", and every bad row
//! collected (file, line, column) while the good rows are kept.

use rustc_hash::FxHashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::{Location, PortfolioError, RowError, RowProblem};
use super::trade::{parse_barrier_type, AsianTrade, BarrierTrade, HestonParams, HestonTrade, Kind, Trade, TradeKind};
use crate::types::{OptionType, Vanilla};
use tenor_ports::text::excerpt;

/// Every column the format defines, in the order [`super::write_portfolio`] writes them.
pub const COLUMNS: [&str; 18] = [
    "id",
    "kind",
    "type",
    "spot",
    "strike",
    "maturity",
    "rate",
    "dividend",
    "vol",
    "barrier",
    "barrier_type",
    "rebate",
    "fixings",
    "v0",
    "kappa",
    "theta",
    "xi",
    "rho",
];

/// Columns every portfolio must have, whatever its kinds. The others are needed only by the
/// kinds that use them (`vol` by all but heston, `barrier`/`barrier_type` by barrier, `fixings`
/// by the Asians, the Heston parameters by heston); `dividend` and `rebate` default to 0.
pub const REQUIRED_COLUMNS: [&str; 7] = ["id", "kind", "type", "spot", "strike", "maturity", "rate"];

/// The outcome of reading a portfolio: the good trades in file order and every problem found.
#[derive(Debug, Clone, Default)]
pub struct ParsedPortfolio {
    /// Trades that parsed, in file order.
    pub trades: Vec<Trade>,
    /// Every bad header cell or row, in file order. A row may contribute several (one per bad
    /// cell).
    pub errors: Vec<RowError>,
    /// Data rows read (good and bad; the header is not one).
    pub rows: usize,
    /// The header's line (1 unless blank lines precede it).
    pub header_line: u64,
    /// Lines of the data rows left unread because the header lacks a required column or names
    /// one twice (every row, then): the header errors say why; no error is repeated per row.
    pub rejected_by_header: Vec<u64>,
}

impl ParsedPortfolio {
    /// Lines of the data rows that have at least one error or were left unread because of the
    /// header, ascending, without repeats. The header's own problems are not counted here (see
    /// [`ParsedPortfolio::header_errors`]).
    pub fn bad_lines(&self) -> Vec<u64> {
        let mut lines: Vec<u64> = self
            .errors
            .iter()
            .map(|e| e.location.line)
            .filter(|l| *l != self.header_line)
            .chain(self.rejected_by_header.iter().copied())
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }

    /// The problems of the header row (unknown, missing or repeated columns).
    pub fn header_errors(&self) -> impl Iterator<Item = &RowError> {
        self.errors.iter().filter(|e| e.location.line == self.header_line)
    }
}

/// Reads the portfolio at `path`.
///
/// # Errors
/// [`PortfolioError::Io`] when the file cannot be read, [`PortfolioError::Empty`] without a
/// header row, [`PortfolioError::NoRows`] with a sound header but no data row. Problems with the header or rows are not errors of this call: they are collected
/// in [`ParsedPortfolio::errors`] so one run reports them all.
pub fn read_portfolio(path: &Path) -> Result<ParsedPortfolio, PortfolioError> {
    let file = std::fs::File::open(path).map_err(|source| PortfolioError::Io { path: path.to_owned(), source })?;
    parse_portfolio(file, path)
}

/// Largest `fixings` a trade may have.
pub const MAX_FIXINGS: u32 = 100_000;

/// Reads a portfolio from any reader; `file` names it in error locations.
///
/// # Errors
/// As [`read_portfolio`].
pub fn parse_portfolio<R: Read>(mut reader: R, file: &Path) -> Result<ParsedPortfolio, PortfolioError> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|source| PortfolioError::Io { path: file.to_owned(), source })?;
    // CRLF (Excel) and bare-CR files read as LF files: the CSV reader's line numbers count LFs,
    // so every error's line is then the same as in the LF copy (tenor_ports::text's line rule).
    if let std::borrow::Cow::Owned(lf) = tenor_ports::text::normalise_line_ends(&bytes) {
        bytes = lf;
    }
    let builder = |has_headers: bool| {
        let mut b = csv::ReaderBuilder::new();
        b.has_headers(has_headers).flexible(true).trim(csv::Trim::All);
        b
    };
    let mut rdr = builder(true).from_reader(&bytes[..]);
    let mut out = ParsedPortfolio::default();
    let at =
        |line: u64, column: Option<&str>| Location { file: file.to_owned(), line, column: column.map(str::to_owned) };

    let header = match rdr.byte_headers() {
        Ok(h) => h.clone(),
        Err(e) => match e.kind() {
            csv::ErrorKind::Io(io) => {
                return Err(PortfolioError::Io {
                    path: file.to_owned(),
                    source: std::io::Error::new(io.kind(), io.to_string()),
                })
            }
            _ => {
                out.errors.push(RowError { location: at(1, None), problem: RowProblem::Csv(e.to_string()) });
                return Ok(out);
            }
        },
    };
    if header.is_empty() || header.iter().all(<[u8]>::is_empty) {
        return Err(PortfolioError::Empty { path: file.to_owned() });
    }
    let header_line =
        header.position().map_or(1, |p| LineCounter::default().line_of(&bytes, usize::try_from(p.byte()).unwrap_or(0)));
    out.header_line = header_line;
    // A header name that is not UTF-8 is reported and ignored like an unknown column (so one bad
    // byte there does not cost every row); its cells are never read.
    let mut bad_names = Vec::new();
    let header: csv::StringRecord = header
        .iter()
        .enumerate()
        .map(|(i, name)| match std::str::from_utf8(name) {
            Ok(n) => n.trim().to_owned(),
            Err(e) => {
                bad_names.push(i);
                let shown = String::from_utf8_lossy(name).into_owned();
                out.errors.push(RowError {
                    location: at(header_line, Some(&excerpt(&shown))),
                    problem: RowProblem::NotUtf8 { byte: name[e.valid_up_to()], offset: e.valid_up_to() },
                });
                // No column has this name: the cells under it are ignored.
                format!("\u{fffd}{i}")
            }
        })
        .collect();

    // Map column name -> index; report unknown and repeated names.
    let mut columns = ColumnIndex::default();
    let mut duplicated = false;
    for (i, name) in header.iter().enumerate() {
        match COLUMNS.iter().position(|c| *c == name) {
            Some(c) => {
                if columns.cells[c].replace(i).is_some() {
                    duplicated = true;
                    out.errors.push(RowError {
                        location: at(header_line, Some(name)),
                        problem: RowProblem::DuplicateColumn { column: name.to_owned() },
                    });
                }
            }
            None if bad_names.contains(&i) => {}
            None => out.errors.push(RowError {
                location: at(header_line, Some(&excerpt(name))),
                problem: RowProblem::UnknownColumn { column: excerpt(name) },
            }),
        }
    }
    let missing: Vec<&str> = REQUIRED_COLUMNS.iter().copied().filter(|c| !columns.contains(c)).collect();
    for c in &missing {
        out.errors.push(RowError {
            location: at(header_line, Some(c)),
            problem: RowProblem::MissingColumn { column: (*c).to_owned() },
        });
    }

    // Ids seen so far and the line of each (FxHash: a book's ids are tens of thousands of short
    // strings from a file the user controls, not keys an attacker picks to collide).
    let mut seen_ids: FxHashMap<String, u64> = FxHashMap::default();
    let mut bytes_record = csv::ByteRecord::new();
    // After an unterminated quote the reader restarts on a later line: `base_byte` turns its
    // byte positions back into the file's. Lines are counted from byte offsets, not taken from
    // the reader, whose record position is where it started reading: before any blank lines
    // it skipped, one line or more early.
    let mut base_byte = 0_usize;
    let mut lines = LineCounter::default();
    let last_line = last_line(&bytes);
    loop {
        let byte_before = base_byte + rdr.position().byte() as usize;
        match rdr.read_byte_record(&mut bytes_record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                out.rows += 1;
                let at_byte = e.position().map_or(byte_before, |p| base_byte + p.byte() as usize);
                let line = lines.line_of(&bytes, at_byte);
                out.errors.push(RowError { location: at(line, None), problem: RowProblem::Csv(e.to_string()) });
                continue;
            }
        }
        out.rows += 1;
        let start = bytes_record.position().map_or(bytes.len(), |p| base_byte + p.byte() as usize);
        let line = lines.line_of(&bytes, start);
        // The record starts after the blank lines the reader skipped.
        let start = start + bytes.get(start..).map_or(0, |b| b.iter().take_while(|c| **c == b'\n').count());
        if let Some(open) = unterminated_quote(bytes.get(start..).unwrap_or_default()) {
            let open_line = line + open.line_offset;
            let next = start + open.next_line;
            let recovery = if next < bytes.len() {
                format!("lines {}-{last_line} are read again as rows of their own", open_line + 1)
            } else {
                "no line follows".to_owned()
            };
            let column = header.get(open.cell).and_then(|c| COLUMNS.iter().find(|k| **k == c)).copied();
            out.errors.push(RowError {
                location: at(open_line, column),
                problem: RowProblem::UnterminatedQuote {
                    character: open.character,
                    line: open_line,
                    last_line,
                    recovery,
                },
            });
            if next >= bytes.len() {
                break;
            }
            rdr = builder(false).from_reader(&bytes[next..]);
            base_byte = next;
            continue;
        }
        if bytes_record.len() != header.len() {
            out.errors.push(RowError {
                location: at(line, None),
                problem: RowProblem::WrongCellCount { expected: header.len(), found: bytes_record.len() },
            });
            continue;
        }
        // Cells under a header name that is not UTF-8 are never read: blank them.
        if !bad_names.is_empty() {
            let kept: csv::ByteRecord = bytes_record
                .iter()
                .enumerate()
                .map(|(i, c)| if bad_names.contains(&i) { &[][..] } else { c })
                .collect();
            bytes_record = kept;
        }
        let record = match csv::StringRecord::from_byte_record(std::mem::take(&mut bytes_record)) {
            Ok(r) => r,
            Err(e) => {
                let (cell, offset) = (e.utf8_error().field(), e.utf8_error().valid_up_to());
                let raw = e.into_byte_record();
                let byte = raw.get(cell).and_then(|c| c.get(offset)).copied().unwrap_or(0);
                let column = header.get(cell).and_then(|c| COLUMNS.iter().find(|k| **k == c)).copied();
                out.errors.push(RowError { location: at(line, column), problem: RowProblem::NotUtf8 { byte, offset } });
                bytes_record = raw;
                continue;
            }
        };
        if !missing.is_empty() || duplicated {
            // Every row lacks a required cell, or has two values for one column (which one is
            // meant cannot be known): the header errors already say which, and no row is priced.
            out.rejected_by_header.push(line);
            bytes_record = record.into_byte_record();
            continue;
        }
        let mut row = Row { record: &record, columns: &columns, file, line, errors: Vec::new() };
        let trade = row.trade();
        if let Some(trade) = &trade {
            if let Some(first_line) = seen_ids.get(&trade.id) {
                row.error(Some("id"), RowProblem::DuplicateId { id: trade.id.clone(), first_line: *first_line });
            }
        }
        if row.errors.is_empty() {
            if let Some(trade) = trade {
                seen_ids.insert(trade.id.clone(), line);
                out.trades.push(trade);
            }
        } else {
            // A bad row still claims its id, so a later row reusing it is reported too.
            if let Some(trade) = &trade {
                seen_ids.entry(trade.id.clone()).or_insert(line);
            }
            out.errors.append(&mut row.errors);
        }
        // The record's buffers are reused for the next row (no allocation per row).
        bytes_record = record.into_byte_record();
    }
    if out.rows == 0 && out.errors.is_empty() {
        return Err(PortfolioError::NoRows { path: file.to_owned() });
    }
    Ok(out)
}

/// 1-based line numbers of byte offsets in LF-ended text, counted incrementally (offsets are
/// asked in increasing order, so the whole file is scanned once).
#[derive(Debug, Default)]
struct LineCounter {
    /// The offset counted up to, and the LFs before it.
    offset: usize,
    breaks: u64,
}

impl LineCounter {
    /// The line of the first non-blank line at or after `offset` (the reader's positions point
    /// before the blank lines it skips).
    fn line_of(&mut self, bytes: &[u8], offset: usize) -> u64 {
        let offset = offset.min(bytes.len());
        let skip = bytes[offset..].iter().take_while(|b| **b == b'\n').count();
        let target = offset + skip;
        if target < self.offset {
            self.offset = 0;
            self.breaks = 0;
        }
        self.breaks += bytes[self.offset..target].iter().filter(|b| **b == b'\n').count() as u64;
        self.offset = target;
        self.breaks + 1
    }
}

/// The number of the file's last line (a final line break ends the last line, it does not
/// start a new one).
fn last_line(bytes: &[u8]) -> u64 {
    let breaks = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    if bytes.last().is_some_and(|b| *b != b'\n') {
        breaks + 1
    } else {
        breaks.max(1)
    }
}

/// Where an unterminated quote opened, relative to the start of its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpenQuote {
    /// Lines between the record's first line and the quote's line (0: the same line).
    line_offset: u64,
    /// 1-based character position of the quote in its line.
    character: usize,
    /// 0-based cell index of the quoted cell.
    cell: usize,
    /// Byte offset, from the record's start, of the line after the quote's line (the length of
    /// `record` when there is none).
    next_line: usize,
}

/// Scans one CSV record from its first byte, following the reader's quoting rules (a quote opens
/// a quoted cell only as the cell's first byte; `""` inside it is a literal quote), and returns
/// where the quote opened when a quoted cell runs to the end of the input. `None` when the
/// record ends (a line break outside quotes) or every quote closes.
fn unterminated_quote(record: &[u8]) -> Option<OpenQuote> {
    let (mut line_offset, mut line_start, mut cell, mut at_cell_start) = (0_u64, 0_usize, 0_usize, true);
    let mut i = 0;
    while i < record.len() {
        match record[i] {
            b'"' if at_cell_start => {
                let open = OpenQuote {
                    line_offset,
                    character: String::from_utf8_lossy(&record[line_start..i]).chars().count() + 1,
                    cell,
                    next_line: record[i..].iter().position(|b| *b == b'\n').map_or(record.len(), |p| i + p + 1),
                };
                i += 1;
                loop {
                    match record.get(i) {
                        None => return Some(open),
                        Some(b'"') if record.get(i + 1) == Some(&b'"') => i += 2,
                        Some(b'"') => break,
                        Some(b'\n') => {
                            line_offset += 1;
                            i += 1;
                            line_start = i;
                        }
                        Some(_) => i += 1,
                    }
                }
                at_cell_start = false;
            }
            b',' => {
                cell += 1;
                at_cell_start = true;
            }
            b'\n' | b'\r' => return None,
            _ => at_cell_start = false,
        }
        i += 1;
    }
    None
}

/// `problem` with every cell text it quotes cut to an excerpt ([`excerpt`]), so a huge bad
/// cell is not echoed whole.
fn shortened(problem: RowProblem) -> RowProblem {
    match problem {
        RowProblem::NotNumeric { value } => RowProblem::NotNumeric { value: excerpt(&value) },
        RowProblem::NotInteger { value } => RowProblem::NotInteger { value: excerpt(&value) },
        RowProblem::NotApplicable { value, kind } => RowProblem::NotApplicable { value: excerpt(&value), kind },
        RowProblem::UnknownKind { value } => RowProblem::UnknownKind { value: excerpt(&value) },
        RowProblem::UnknownOptionType { value } => RowProblem::UnknownOptionType { value: excerpt(&value) },
        RowProblem::UnknownBarrierType { value } => RowProblem::UnknownBarrierType { value: excerpt(&value) },
        RowProblem::DuplicateId { id, first_line } => RowProblem::DuplicateId { id: excerpt(&id), first_line },
        other => other,
    }
}

/// Range rules for numeric cells.
#[derive(Debug, Clone, Copy)]
enum Rule {
    Any,
    Positive,
    NonNegative,
    /// Open interval (-1, 1): the Heston pricer needs `|rho| < 1`.
    Correlation,
}

impl Rule {
    fn check(self, x: f64) -> Option<&'static str> {
        match self {
            Rule::Any => None,
            Rule::Positive if x <= 0.0 => Some("must be > 0"),
            Rule::NonNegative if x < 0.0 => Some("must be >= 0"),
            Rule::Correlation if !(x > -1.0 && x < 1.0) => Some("must be in (-1, 1)"),
            _ => None,
        }
    }
}

/// Where each column of [`COLUMNS`] is in the header (cell index), looked up by name without
/// hashing: a row reads about twenty cells, forty thousand rows a book.
#[derive(Debug, Default)]
struct ColumnIndex {
    /// `cells[k]`: the header index of `COLUMNS[k]`, `None` when the header lacks it.
    cells: [Option<usize>; COLUMNS.len()],
}

impl ColumnIndex {
    /// The header index of column `name`.
    fn get(&self, name: &str) -> Option<usize> {
        COLUMNS.iter().position(|c| *c == name).and_then(|k| self.cells[k])
    }

    /// Whether the header has column `name`.
    fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

/// One data row being read, with the errors found so far.
struct Row<'a> {
    record: &'a csv::StringRecord,
    columns: &'a ColumnIndex,
    file: &'a Path,
    line: u64,
    errors: Vec<RowError>,
}

impl<'a> Row<'a> {
    fn error(&mut self, column: Option<&str>, problem: RowProblem) {
        let problem = shortened(problem);
        self.errors.push(RowError {
            location: Location { file: PathBuf::from(self.file), line: self.line, column: column.map(str::to_owned) },
            problem,
        });
    }

    /// The cell of `column`, `None` when the column is absent or the cell empty.
    fn cell(&self, column: &str) -> Option<&'a str> {
        let i = self.columns.get(column)?;
        let record: &'a csv::StringRecord = self.record;
        record.get(i).filter(|s| !s.is_empty())
    }

    /// A required cell for `kind`: reports a missing column or an empty cell.
    fn required(&mut self, column: &'static str, kind: Kind) -> Option<&'a str> {
        if !self.columns.contains(column) {
            self.error(None, RowProblem::MissingColumnForKind { column, kind: kind.as_str() });
            return None;
        }
        match self.cell(column) {
            Some(s) => Some(s),
            None => {
                self.error(Some(column), RowProblem::Missing { kind: kind.as_str() });
                None
            }
        }
    }

    fn number(&mut self, column: &'static str, text: &str, rule: Rule) -> Option<f64> {
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => match rule.check(x) {
                None => Some(x),
                Some(why) => {
                    self.error(Some(column), RowProblem::OutOfRange { value: x, rule: why });
                    None
                }
            },
            _ => {
                self.error(Some(column), RowProblem::NotNumeric { value: text.to_owned() });
                None
            }
        }
    }

    fn required_number(&mut self, column: &'static str, kind: Kind, rule: Rule) -> Option<f64> {
        let text = self.required(column, kind)?;
        self.number(column, text, rule)
    }

    /// An optional numeric cell: `default` when empty or absent.
    fn optional_number(&mut self, column: &'static str, rule: Rule, default: f64) -> Option<f64> {
        match self.cell(column) {
            None => Some(default),
            Some(text) => self.number(column, text, rule),
        }
    }

    /// Fixings per trade are at most [`MAX_FIXINGS`] (hourly over 11 years; each is a time step
    /// of the simulation, so an absurd count would run for hours).
    fn fixings(&mut self, text: &str) -> Option<u32> {
        match text.parse::<u64>() {
            Ok(n) if n > u64::from(MAX_FIXINGS) => {
                self.error(Some("fixings"), RowProblem::OutOfRange { value: n as f64, rule: "must be at most 100000" });
                None
            }
            Ok(n) if n >= 1 => u32::try_from(n).ok(),
            _ => {
                self.error(Some("fixings"), RowProblem::NotInteger { value: text.to_owned() });
                None
            }
        }
    }

    /// Reports every filled cell among `columns` as not applicable to `kind`.
    fn not_applicable(&mut self, kind: Kind, columns: &[&'static str]) {
        for c in columns {
            if let Some(v) = self.cell(c) {
                self.error(Some(c), RowProblem::NotApplicable { value: v.to_owned(), kind: kind.as_str() });
            }
        }
    }

    /// Parses the whole row; `None` when a cell needed to build the trade is bad (the errors
    /// are in `self.errors`). Every cell is checked, so a row with three bad cells reports three.
    fn trade(&mut self) -> Option<Trade> {
        let id = self.cell("id").map(str::to_owned);
        if id.is_none() {
            self.error(Some("id"), RowProblem::MissingId);
        }
        let kind_text = self.cell("kind").unwrap_or_default();
        let kind = Kind::parse(kind_text);
        if kind.is_none() {
            self.error(Some("kind"), RowProblem::UnknownKind { value: kind_text.to_owned() });
        }
        // Without a kind, check the common cells anyway so every bad cell shows.
        let k = kind.unwrap_or(Kind::European);
        let option = match self.required("type", k) {
            Some(t) => match t {
                "call" => Some(OptionType::Call),
                "put" => Some(OptionType::Put),
                _ => {
                    self.error(Some("type"), RowProblem::UnknownOptionType { value: t.to_owned() });
                    None
                }
            },
            None => None,
        };
        let spot = self.required_number("spot", k, Rule::Positive);
        let strike = self.required_number("strike", k, Rule::Positive);
        // 0 is an option at expiry, worth its payoff (`super::expiry`); negative is refused.
        let maturity = self.required_number("maturity", k, Rule::NonNegative);
        let rate = self.required_number("rate", k, Rule::Any);
        let dividend = self.optional_number("dividend", Rule::Any, 0.0);
        let vol = if k == Kind::Heston {
            self.optional_number("vol", Rule::Positive, 0.0)
        } else {
            self.required_number("vol", k, Rule::Positive)
        };
        const BARRIER_COLS: [&str; 3] = ["barrier", "barrier_type", "rebate"];
        const HESTON_COLS: [&str; 5] = ["v0", "kappa", "theta", "xi", "rho"];

        let tail = match kind {
            // Unknown kind: already reported; kind-specific cells cannot be judged.
            None => None,
            Some(Kind::European | Kind::American) => {
                self.not_applicable(k, &BARRIER_COLS);
                self.not_applicable(k, &["fixings"]);
                self.not_applicable(k, &HESTON_COLS);
                Some(Tail::None)
            }
            Some(Kind::Barrier) => {
                self.not_applicable(k, &HESTON_COLS);
                let barrier = self.required_number("barrier", k, Rule::Positive);
                let barrier_type = match self.required("barrier_type", k) {
                    Some(t) => match parse_barrier_type(t) {
                        Some(b) => Some(b),
                        None => {
                            self.error(Some("barrier_type"), RowProblem::UnknownBarrierType { value: t.to_owned() });
                            None
                        }
                    },
                    None => None,
                };
                let rebate = self.optional_number("rebate", Rule::NonNegative, 0.0);
                let fixings = match self.cell("fixings") {
                    None => Some(None),
                    Some(t) => self.fixings(t).map(Some),
                };
                match (barrier, barrier_type, rebate, fixings) {
                    (Some(b), Some(bt), Some(r), Some(f)) => Some(Tail::Barrier(b, bt, r, f)),
                    _ => None,
                }
            }
            Some(Kind::AsianGeo | Kind::AsianArith) => {
                self.not_applicable(k, &BARRIER_COLS);
                self.not_applicable(k, &HESTON_COLS);
                let fixings = self.required("fixings", k);
                fixings.and_then(|t| self.fixings(t)).map(Tail::Asian)
            }
            Some(Kind::Heston) => {
                self.not_applicable(k, &BARRIER_COLS);
                self.not_applicable(k, &["fixings"]);
                // The domain of the Heston pricer ([`crate::heston::HestonParams::validate`]),
                // checked here so a bad cell is named by file, line and column.
                let v0 = self.required_number("v0", k, Rule::Positive);
                let kappa = self.required_number("kappa", k, Rule::Positive);
                let theta = self.required_number("theta", k, Rule::Positive);
                let xi = self.required_number("xi", k, Rule::Positive);
                let rho = self.required_number("rho", k, Rule::Correlation);
                match (v0, kappa, theta, xi, rho) {
                    (Some(v0), Some(kappa), Some(theta), Some(xi), Some(rho)) => {
                        Some(Tail::Heston(HestonParams { v0, kappa, theta, xi, rho }))
                    }
                    _ => None,
                }
            }
        };

        let (id, kind, option, spot, strike, maturity, rate, dividend, vol, tail) =
            (id?, kind?, option?, spot?, strike?, maturity?, rate?, dividend?, vol?, tail?);
        let vanilla = Vanilla { option, spot, strike, maturity, rate, dividend, vol };
        let kind = match (kind, tail) {
            (Kind::European, _) => TradeKind::European(vanilla),
            (Kind::American, _) => TradeKind::American(vanilla),
            (Kind::Barrier, Tail::Barrier(barrier, barrier_type, rebate, fixings)) => {
                TradeKind::Barrier(BarrierTrade { vanilla, barrier, barrier_type, rebate, fixings })
            }
            (Kind::AsianGeo, Tail::Asian(fixings)) => TradeKind::AsianGeo(AsianTrade { vanilla, fixings }),
            (Kind::AsianArith, Tail::Asian(fixings)) => TradeKind::AsianArith(AsianTrade { vanilla, fixings }),
            (Kind::Heston, Tail::Heston(params)) => TradeKind::Heston(HestonTrade { vanilla, params }),
            _ => return None,
        };
        Some(Trade { id, line: self.line, kind })
    }
}

/// Kind-specific fields read from a row.
enum Tail {
    None,
    Barrier(f64, crate::types::BarrierType, f64, Option<u32>),
    Asian(u32),
    Heston(HestonParams),
}
