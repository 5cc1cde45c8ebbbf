//! Reading a portfolio CSV exactly per `shared/spec/portfolio-csv.md`: columns in any order,
//! unknown columns rejected by name, empty cells meaning "not applicable", and every bad row
//! collected (file, line, column) while the good rows are kept.

use rustc_hash::FxHashMap;
use std::io::Read;
use std::path::Path;

use super::cells::{Cell, Cells, RowReader, Rule};
use super::error::{Location, PortfolioError, RowError, RowProblem};
use super::trade::{Kind, Trade};
use crate::types::{OptionType, Vanilla};
use tenor_ports::text::excerpt;

/// The columns every row has, whatever its kind (`dividend` optional, `vol` as the kind says).
pub const COMMON_COLUMNS: [&str; 9] = ["id", "kind", "type", "spot", "strike", "maturity", "rate", "dividend", "vol"];

/// Whether two column names are the same (in a constant).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The common columns, then every kind's own ([`crate::products::Product::COLUMNS`]) in the
/// product table's order, each once; `out` receives them, the count is returned.
const fn union(out: &mut [&'static str]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < COMMON_COLUMNS.len() {
        if n < out.len() {
            out[n] = COMMON_COLUMNS[i];
        }
        n += 1;
        i += 1;
    }
    let kinds = crate::products::KIND_COLUMNS;
    let mut k = 0;
    while k < kinds.len() {
        let mut c = 0;
        while c < kinds[k].len() {
            let name = kinds[k][c];
            let mut seen = false;
            let mut j = 0;
            while j < n && j < out.len() {
                seen = seen || same(out[j], name);
                j += 1;
            }
            if !seen {
                if n < out.len() {
                    out[n] = name;
                }
                n += 1;
            }
            c += 1;
        }
        k += 1;
    }
    n
}

/// The number of columns (an upper bound for [`union`]'s scratch: every listed name).
const fn listed() -> usize {
    let mut n = COMMON_COLUMNS.len();
    let kinds = crate::products::KIND_COLUMNS;
    let mut k = 0;
    while k < kinds.len() {
        n += kinds[k].len();
        k += 1;
    }
    n
}

const COLUMN_COUNT: usize = {
    let mut scratch = [""; listed()];
    union(&mut scratch)
};

/// Every column the format defines, in the order [`super::write_portfolio`] writes them: the
/// common ones, then each kind's own in the product table's order (`barrier`, `barrier_type`,
/// `rebate`, `fixings`, `v0`, `kappa`, `theta`, `xi`, `rho`).
pub const COLUMNS: [&str; COLUMN_COUNT] = {
    let mut out = [""; COLUMN_COUNT];
    union(&mut out);
    out
};

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
        let cells = CsvCells { record: &record, columns: &columns };
        let mut row = RowReader::new(&cells, file, line);
        let trade = read_trade(&mut row);
        if let Some(trade) = &trade {
            if let Some(first_line) = seen_ids.get(&trade.id) {
                row.error(Some("id"), RowProblem::DuplicateId { id: trade.id.clone(), first_line: *first_line });
            }
        }
        if row.has_errors() {
            // A bad row still claims its id, so a later row reusing it is reported too.
            if let Some(trade) = &trade {
                seen_ids.entry(trade.id.clone()).or_insert(line);
            }
            out.errors.append(&mut row.into_errors());
        } else if let Some(trade) = trade {
            seen_ids.insert(trade.id.clone(), line);
            out.trades.push(trade);
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

/// A CSV record's cells under its header.
struct CsvCells<'a> {
    record: &'a csv::StringRecord,
    columns: &'a ColumnIndex,
}

impl Cells for CsvCells<'_> {
    fn has(&self, column: &str) -> bool {
        self.columns.contains(column)
    }

    fn get(&self, column: &str) -> Option<Cell<'_>> {
        let i = self.columns.get(column)?;
        self.record.get(i).filter(|s| !s.is_empty()).map(Cell::Text)
    }
}

/// Reads one row's trade from its cells: the common columns, then the kind's own
/// ([`crate::products::Product::read`]) after every other kind's column is checked empty.
/// `None` when a cell needed to build the trade is bad (the problems are in `row`). Every cell is
/// checked, so a row with three bad cells reports three. The parser reads every CSV record
/// with it, and the C ABI its `TenorTrade` records, so both doors check the same way.
pub fn read_trade(row: &mut RowReader<'_>) -> Option<Trade> {
    let id = row.cell("id").map(|c| c.as_text().into_owned());
    if id.is_none() {
        row.error(Some("id"), RowProblem::MissingId);
    }
    let kind_cell = row.cell("kind");
    let kind_text = kind_cell.as_ref().map(Cell::as_text).unwrap_or_default();
    let kind = Kind::parse(&kind_text);
    if kind.is_none() {
        row.error(Some("kind"), RowProblem::UnknownKind { value: kind_text.into_owned() });
    }
    // Without a kind, check the common cells anyway so every bad cell shows.
    let k = kind.unwrap_or(Kind::ALL[0]);
    row.set_kind(k.as_str());
    let option = match row.required("type") {
        Some(t) => match t.as_text().as_ref() {
            "call" => Some(OptionType::Call),
            "put" => Some(OptionType::Put),
            other => {
                let value = other.to_owned();
                row.error(Some("type"), RowProblem::UnknownOptionType { value });
                None
            }
        },
        None => None,
    };
    let spot = row.required_number("spot", Rule::Positive);
    let strike = row.required_number("strike", Rule::Positive);
    // 0 is an option at expiry, worth its payoff (`super::expiry`); negative is refused.
    let maturity = row.required_number("maturity", Rule::NonNegative);
    let rate = row.required_number("rate", Rule::Any);
    let dividend = row.optional_number("dividend", Rule::Any, 0.0);
    let vol = if k.needs_vol() {
        row.required_number("vol", Rule::Positive)
    } else {
        row.optional_number("vol", Rule::Positive, 0.0)
    };
    let vanilla = (|| {
        Some(Vanilla {
            option: option?,
            spot: spot?,
            strike: strike?,
            maturity: maturity?,
            rate: rate?,
            dividend: dividend?,
            vol: vol?,
        })
    })();
    // Unknown kind: already reported; kind-specific cells cannot be judged.
    let kind = kind?;
    for column in &COLUMNS[COMMON_COLUMNS.len()..] {
        if !kind.columns().contains(column) {
            row.not_applicable(std::slice::from_ref(column));
        }
    }
    let terms = kind.read(row, vanilla)?;
    Some(Trade { id: id?, line: row.line(), kind: terms })
}
