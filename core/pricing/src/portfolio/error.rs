//! Typed errors of the portfolio format: where a row went wrong and why.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

/// Where in an input file a problem is: file, 1-based line, and the column when one is to blame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file as given on the command line (or `<memory>` for in-memory input).
    pub file: PathBuf,
    /// 1-based line number in the file (the header is line 1).
    pub line: u64,
    /// Column name, when a single cell is at fault.
    pub column: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)?;
        if let Some(c) = &self.column {
            write!(f, ": column `{c}`")?;
        }
        Ok(())
    }
}

/// What is wrong with a header or a row (see `shared/spec/portfolio-csv.md`).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RowProblem {
    /// A cell that must be a number is not one (or is NaN / infinite).
    #[error("not a number: {value:?}")]
    NotNumeric {
        /// The cell's text.
        value: String,
    },
    /// A cell that must be a whole number (`fixings`) is not one.
    #[error("not a positive whole number: {value:?}")]
    NotInteger {
        /// The cell's text.
        value: String,
    },
    /// A number outside its allowed range (negative vol or maturity, strike <= 0, ...).
    #[error("{value} is out of range: {rule}")]
    OutOfRange {
        /// The value read.
        value: f64,
        /// The rule it breaks, e.g. `must be > 0`.
        rule: &'static str,
    },
    /// An empty `id` cell: every row needs an id, whatever its kind.
    #[error("empty, but every row needs an id")]
    MissingId,
    /// An empty cell where the trade's kind needs a value.
    #[error("empty, but kind {kind} requires it")]
    Missing {
        /// The trade's kind.
        kind: &'static str,
    },
    /// A cell filled in for a kind it does not apply to (e.g. `barrier` on a european).
    #[error("{value:?} given, but the column does not apply to kind {kind}")]
    NotApplicable {
        /// The cell's text.
        value: String,
        /// The trade's kind.
        kind: &'static str,
    },
    /// A `kind` other than those of the product table ([`crate::products::Kind`]).
    #[error("unknown kind {value:?} (expected {})", crate::products::kind_list())]
    UnknownKind {
        /// The cell's text.
        value: String,
    },
    /// A `type` other than call / put.
    #[error("unknown option type {value:?} (expected call or put)")]
    UnknownOptionType {
        /// The cell's text.
        value: String,
    },
    /// A `barrier_type` other than the four of the spec.
    #[error("unknown barrier type {value:?} (expected down_out, down_in, up_out or up_in)")]
    UnknownBarrierType {
        /// The cell's text.
        value: String,
    },
    /// An id already used by an earlier row.
    #[error("duplicate id {id:?} (first used on line {first_line})")]
    DuplicateId {
        /// The id.
        id: String,
        /// Line of the first row with this id.
        first_line: u64,
    },
    /// A required column absent from the header.
    #[error("missing required column `{column}`")]
    MissingColumn {
        /// The column name.
        column: String,
    },
    /// A kind-specific column absent from the header, needed by this row.
    #[error("kind {kind} needs column `{column}`, which the header lacks")]
    MissingColumnForKind {
        /// The column name.
        column: &'static str,
        /// The trade's kind.
        kind: &'static str,
    },
    /// A header column the spec does not define.
    #[error("unknown column `{column}`")]
    UnknownColumn {
        /// The column name.
        column: String,
    },
    /// A column named twice in the header.
    #[error("column `{column}` appears twice in the header")]
    DuplicateColumn {
        /// The column name.
        column: String,
    },
    /// A row whose number of cells differs from the header's.
    #[error("row has {found} cells, the header has {expected}")]
    WrongCellCount {
        /// Cells in the header.
        expected: usize,
        /// Cells in this row.
        found: usize,
    },
    /// A quoted cell whose closing quote never comes: read as CSV, the cell would swallow every
    /// line break up to the end of the file. The row is rejected and the reader starts again on
    /// the line after the one where the quote opened, so the rows below it are still read.
    #[error(
        "unterminated quote: the quote opened at character {character} of this line never closes, so the cell \
         would swallow lines {line}-{last_line} up to the end of the file; this row is rejected and {recovery}"
    )]
    UnterminatedQuote {
        /// 1-based character position of the opening quote in its line.
        character: usize,
        /// The line where the quote opened.
        line: u64,
        /// The last line of the file.
        last_line: u64,
        /// What happened to the lines after it (re-read as rows of their own, or none follow).
        recovery: String,
    },
    /// A cell (or header name) that is not UTF-8: the row is rejected (a header name is
    /// ignored like an unknown column); the other rows are read as usual.
    #[error("not valid UTF-8 (byte {byte:#04x} at byte {offset} of the cell); save the file as UTF-8")]
    NotUtf8 {
        /// The first bad byte.
        byte: u8,
        /// 0-based byte offset of the bad byte in the cell.
        offset: usize,
    },
    /// The CSV reader could not read the record (bad quoting).
    #[error("unreadable CSV record: {0}")]
    Csv(String),
    /// The barrier and the option make no sense together (e.g. a down barrier above the spot is
    /// fine, but a barrier <= 0 is not).
    #[error("{0}")]
    Inconsistent(String),
}

/// One bad header or row: where and what.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{location}: {problem}")]
pub struct RowError {
    /// File, line and column.
    pub location: Location,
    /// What is wrong.
    pub problem: RowProblem,
}

/// Errors reading a portfolio as a whole.
#[derive(Debug, Error)]
pub enum PortfolioError {
    /// The file could not be opened or read.
    #[error("cannot read portfolio {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file has no header row.
    #[error("portfolio {} is empty: no header row", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file has a header but no data row.
    #[error("portfolio {} has a header but no trade rows: nothing to price", path.display())]
    NoRows {
        /// The file.
        path: PathBuf,
    },
    /// The output could not be written.
    #[error("cannot write {what}: {message}")]
    Write {
        /// What was being written.
        what: String,
        /// The underlying error.
        message: String,
    },
}
