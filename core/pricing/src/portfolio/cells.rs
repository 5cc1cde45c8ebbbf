//! Reading one row's cells: the checks every door shares.
//!
//! A row reaches the reader as [`Cells`]: a CSV record under its header ([`super::parse`]), or
//! a door's fixed record (the C ABI's `TenorTrade`, numbers already numbers). [`RowReader`]
//! reads the common columns for the parser and the kind's own columns for its product module
//! ([`crate::products::Product::read`]), checks each against its rule and collects every
//! problem with its file, line and column, so one pass reports every bad cell of the row.

use std::path::{Path, PathBuf};

use super::error::{Location, RowError, RowProblem};
use super::parse::MAX_FIXINGS;
use tenor_ports::text::excerpt;

/// One cell as a door gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// Text to be parsed (every CSV cell; a door's names and counts).
    Text(&'a str),
    /// A number already in binary (a door's `double` field): checked like a parsed one.
    Number(f64),
}

impl Cell<'_> {
    /// The cell as text (a number as Rust writes it: the shortest text that reads back the same).
    #[must_use]
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Cell::Text(t) => std::borrow::Cow::Borrowed(t),
            Cell::Number(x) => std::borrow::Cow::Owned(x.to_string()),
        }
    }
}

/// The cells of one row, by column name ([`super::COLUMNS`]).
pub trait Cells {
    /// Whether the row has column `column` at all (a CSV header need not name every column).
    fn has(&self, column: &str) -> bool;
    /// The cell of `column`; `None` when the column is absent or the cell empty.
    fn get(&self, column: &str) -> Option<Cell<'_>>;
}

/// Range rules for numeric cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Any finite number.
    Any,
    /// Finite and > 0.
    Positive,
    /// Finite and >= 0.
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

/// One row being read, with the problems found so far (each named by file, line and column).
pub struct RowReader<'a> {
    cells: &'a dyn Cells,
    file: &'a Path,
    line: u64,
    /// The row's kind, as named in messages (`european` until the `kind` cell is read).
    kind: &'static str,
    errors: Vec<RowError>,
}

impl<'a> RowReader<'a> {
    /// A reader of `cells`, the row at `line` of `file` (the names in its problems; a door
    /// names its own records, e.g. `<C trades>`, line 0).
    pub fn new(cells: &'a dyn Cells, file: &'a Path, line: u64) -> Self {
        Self { cells, file, line, kind: "european", errors: Vec::new() }
    }

    /// The kind named in the messages of required and not-applicable cells.
    pub(crate) fn set_kind(&mut self, kind: &'static str) {
        self.kind = kind;
    }

    /// The problems found, in the order found.
    pub fn into_errors(self) -> Vec<RowError> {
        self.errors
    }

    /// Whether a problem has been found.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The row's line.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Records `problem` at `column` (the row as a whole when `None`); quoted cell text is cut
    /// to an excerpt, so a huge bad cell is not echoed whole.
    pub fn error(&mut self, column: Option<&str>, problem: RowProblem) {
        let problem = shortened(problem);
        self.errors.push(RowError {
            location: Location { file: PathBuf::from(self.file), line: self.line, column: column.map(str::to_owned) },
            problem,
        });
    }

    /// The cell of `column`, `None` when the column is absent or the cell empty.
    pub fn cell(&self, column: &str) -> Option<Cell<'a>> {
        self.cells.get(column)
    }

    /// A text cell the row's kind needs: reports a missing column or an empty cell.
    pub fn required(&mut self, column: &'static str) -> Option<Cell<'a>> {
        if !self.cells.has(column) {
            self.error(None, RowProblem::MissingColumnForKind { column, kind: self.kind });
            return None;
        }
        match self.cell(column) {
            Some(c) => Some(c),
            None => {
                self.error(Some(column), RowProblem::Missing { kind: self.kind });
                None
            }
        }
    }

    fn number(&mut self, column: &'static str, cell: Cell<'_>, rule: Rule) -> Option<f64> {
        let parsed = match cell {
            Cell::Text(text) => text.parse::<f64>().ok(),
            Cell::Number(x) => Some(x),
        };
        match parsed {
            Some(x) if x.is_finite() => match rule.check(x) {
                None => Some(x),
                Some(why) => {
                    self.error(Some(column), RowProblem::OutOfRange { value: x, rule: why });
                    None
                }
            },
            _ => {
                self.error(Some(column), RowProblem::NotNumeric { value: cell.as_text().into_owned() });
                None
            }
        }
    }

    /// A numeric cell the row's kind needs, checked against `rule`.
    pub fn required_number(&mut self, column: &'static str, rule: Rule) -> Option<f64> {
        let cell = self.required(column)?;
        self.number(column, cell, rule)
    }

    /// An optional numeric cell: `default` when empty or absent.
    pub fn optional_number(&mut self, column: &'static str, rule: Rule, default: f64) -> Option<f64> {
        match self.cell(column) {
            None => Some(default),
            Some(cell) => self.number(column, cell, rule),
        }
    }

    /// A `fixings` cell: a whole number from 1 to [`MAX_FIXINGS`] (hourly over 11 years; each
    /// is a time step of the simulation, so an absurd count would run for hours).
    pub fn fixings(&mut self, cell: Cell<'_>) -> Option<u32> {
        match cell.as_text().parse::<u64>() {
            Ok(n) if n > u64::from(MAX_FIXINGS) => {
                self.error(Some("fixings"), RowProblem::OutOfRange { value: n as f64, rule: "must be at most 100000" });
                None
            }
            Ok(n) if n >= 1 => u32::try_from(n).ok(),
            _ => {
                self.error(Some("fixings"), RowProblem::NotInteger { value: cell.as_text().into_owned() });
                None
            }
        }
    }

    /// Reports every filled cell among `columns` as not applicable to the row's kind.
    pub fn not_applicable(&mut self, columns: &[&'static str]) {
        for c in columns {
            if let Some(v) = self.cell(c) {
                let value = v.as_text().into_owned();
                self.error(Some(c), RowProblem::NotApplicable { value, kind: self.kind });
            }
        }
    }
}

/// `problem` with every cell text it quotes cut to an excerpt ([`excerpt`]).
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
