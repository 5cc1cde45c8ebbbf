//! The one line reader of the text files Tenor reads (portfolios, bar files, Cboe and Treasury
//! market data, allocation traces): UTF-8 checked with the line, column and byte of a bad byte,
//! one leading byte order mark skipped, and lines ended by LF, CRLF or a bare CR (old Mac and
//! some Excel exports) counted alike, so every reader gives the same line numbers and counts for
//! the three copies of one file.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The UTF-8 byte order mark, U+FEFF, as spreadsheet programs (Excel's "CSV UTF-8") write it
/// at the start of a file.
pub const BOM: char = '\u{feff}';

/// `text` without one leading UTF-8 byte order mark (Unicode Standard, section 23.8:
/// U+FEFF at the start of a UTF-8 stream is a signature, not content). Only a leading mark is
/// removed; one elsewhere is content and stays.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Longest cell text quoted whole in an error message, in characters.
pub const EXCERPT_CHARS: usize = 64;

/// `cell` as quoted in an error message: whole when at most [`EXCERPT_CHARS`] characters, else
/// its first [`EXCERPT_CHARS`] characters, an ellipsis and its length in bytes (a 10 MB cell
/// must not be echoed whole to a terminal).
pub fn excerpt(cell: &str) -> String {
    match cell.char_indices().nth(EXCERPT_CHARS) {
        None => cell.to_owned(),
        Some((end, _)) => format!("{}\u{2026} ({} bytes)", &cell[..end], cell.len()),
    }
}

/// A byte sequence that is not UTF-8, located in its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: not valid UTF-8 (byte {byte:#04x} at byte offset {offset}); save the file as UTF-8")]
pub struct NotUtf8 {
    /// The file (as given by the caller).
    pub file: String,
    /// 1-based line of the bad byte (LF, CRLF and CR all end a line).
    pub line: usize,
    /// 1-based character position of the bad byte in its line.
    pub column: usize,
    /// 0-based byte offset of the bad byte in the file.
    pub offset: usize,
    /// The first bad byte.
    pub byte: u8,
}

/// A text file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// The file cannot be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not UTF-8.
    #[error(transparent)]
    NotUtf8(#[from] NotUtf8),
}

/// Where byte `offset` of `bytes` lies: (1-based line, 1-based character in that line), with
/// LF, CRLF and CR as line ends; invalid bytes count as one character each.
pub fn locate(bytes: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(bytes.len());
    let (mut line, mut start) = (1, 0);
    for (i, b) in bytes[..offset].iter().enumerate() {
        // A CR followed by LF is one line end, counted at the LF.
        let ends = *b == b'\n' || (*b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends {
            line += 1;
            start = i + 1;
        }
    }
    let column = String::from_utf8_lossy(&bytes[start.min(offset)..offset]).chars().count() + 1;
    (line, column)
}

/// `bytes` as UTF-8 text, or where the first bad byte is (`file` names it in the error).
///
/// # Errors
/// [`NotUtf8`] with the line, column and byte offset of the first invalid byte.
pub fn decode<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, NotUtf8> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let (line, column) = locate(bytes, offset);
        NotUtf8 { file: file.to_owned(), line, column, offset, byte: bytes.get(offset).copied().unwrap_or(0) }
    })
}

/// Reads a whole text file as UTF-8, without a leading byte order mark.
///
/// # Errors
/// [`TextError::Io`] naming the path, [`TextError::NotUtf8`] naming the path, line, column and
/// byte offset.
pub fn read_text(path: &Path) -> Result<String, TextError> {
    let bytes = std::fs::read(path).map_err(|source| TextError::Io { path: path.to_owned(), source })?;
    let text = decode(&bytes, &path.display().to_string())?;
    Ok(strip_bom(text).to_owned())
}

/// One line of a text: its 1-based number and its text without the line end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The line without its terminator (LF, CRLF or CR).
    pub text: &'a str,
}

/// The lines of `text`, ended by LF, CRLF or a bare CR (a final line end does not start an
/// empty line), numbered from 1. A leading byte order mark is not removed here: see
/// [`strip_bom`] and [`read_text`].
pub fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    let mut rest = text;
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        number += 1;
        let (line, tail) = match rest.find(['\n', '\r']) {
            None => (rest, ""),
            Some(i) => {
                let end = if rest[i..].starts_with("\r\n") { i + 2 } else { i + 1 };
                (&rest[..i], &rest[end..])
            }
        };
        rest = tail;
        Some(Line { number, text: line })
    })
}

/// `bytes` with every line end (CRLF or a bare CR) turned into LF, for readers that count
/// lines by LF (the `csv` crate's positions): then their line numbers agree with [`lines`].
/// Borrowed when the input has no CR.
pub fn normalise_line_ends(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !bytes.contains(&b'\r') {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' => {
                out.push(b'\n');
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    Cow::Owned(out)
}

/// [`normalise_line_ends`] for text: CRLF and bare CR turned into LF (still UTF-8, since only
/// ASCII bytes change).
pub fn normalise_text(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_crlf_and_cr_copies_give_the_same_lines() {
        let lf = "a,b\n1,2\n\n3,4\n";
        let crlf = lf.replace('\n', "\r\n");
        let cr = lf.replace('\n', "\r");
        let want: Vec<(usize, &str)> = vec![(1, "a,b"), (2, "1,2"), (3, ""), (4, "3,4")];
        for text in [lf, crlf.as_str(), cr.as_str()] {
            let got: Vec<(usize, &str)> = lines(text).map(|l| (l.number, l.text)).collect();
            assert_eq!(got, want, "{text:?}");
            assert_eq!(&*normalise_line_ends(text.as_bytes()), lf.as_bytes());
        }
        // No final line end: the last line is still a line; mixed ends count one each.
        let got: Vec<usize> = lines("x\r\ny\rz\nw").map(|l| l.number).collect();
        assert_eq!(got, [1, 2, 3, 4]);
        assert_eq!(lines("").count(), 0);
    }

    #[test]
    fn a_bad_byte_is_located_by_line_column_and_offset() {
        for end in ["\n", "\r\n", "\r"] {
            let mut bytes = format!("date,open{end}2020-01-02,1{end}2020-01-03,").into_bytes();
            let offset = bytes.len();
            bytes.extend_from_slice(b"\xff2\n");
            let e = decode(&bytes, "bars.csv").expect_err("bad byte");
            assert_eq!((e.line, e.column, e.offset, e.byte), (3, 12, offset, 0xff), "{end:?}");
            let text = e.to_string();
            assert!(text.starts_with("bars.csv:3:12:") && text.contains("byte offset"), "{text}");
        }
        assert_eq!(decode(b"ok", "f"), Ok("ok"));
    }

    #[test]
    fn a_long_cell_is_cut_with_an_ellipsis_and_its_length() {
        assert_eq!(excerpt("abc"), "abc");
        let big = "9".repeat(10 << 20);
        let e = excerpt(&big);
        assert_eq!(e, format!("{}\u{2026} (10485760 bytes)", "9".repeat(EXCERPT_CHARS)));
        // Cut on a character boundary.
        let wide = "\u{e9}".repeat(100);
        assert!(excerpt(&wide).starts_with(&"\u{e9}".repeat(EXCERPT_CHARS)));
    }

    #[test]
    fn strips_one_leading_mark_only() {
        assert_eq!(strip_bom("\u{feff}date,open"), "date,open");
        assert_eq!(strip_bom("date,open"), "date,open");
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("a\u{feff}b"), "a\u{feff}b");
        assert_eq!(strip_bom(""), "");
    }
}
