//! Small helpers for the text files Tenor reads (traces, bar files, market data).

/// The UTF-8 byte order mark, U+FEFF, as spreadsheet programs (Excel's "CSV UTF-8") write it
/// at the start of a file.
pub const BOM: char = '\u{feff}';

/// `text` without one leading UTF-8 byte order mark (Unicode Standard, section 23.8:
/// U+FEFF at the start of a UTF-8 stream is a signature, not content). Only a leading mark is
/// removed; one elsewhere is content and stays.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_one_leading_mark_only() {
        assert_eq!(strip_bom("\u{feff}date,open"), "date,open");
        assert_eq!(strip_bom("date,open"), "date,open");
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("a\u{feff}b"), "a\u{feff}b");
        assert_eq!(strip_bom(""), "");
    }
}
