//! Reading decimal numbers written for people, as market-data headers do (`6,711.20`).
//!
//! [`parse_grouped`] accepts what `str::parse::<f64>` accepts plus thousands separators placed
//! as in English-language formatting (a comma before every group of exactly three integer
//! digits: `6,711.20`, `1,234,567`), and refuses any other comma (`6,71`, `67,11.2`, `6,,711`)
//! with a message saying why, so a number is read whole or not at all, never truncated at a
//! separator.

/// Parses `text` (trimmed) as a finite or non-finite `f64`, allowing English thousands
/// separators in the integer part.
///
/// # Errors
/// A message naming the text and what is wrong: misplaced separators, or not a number.
pub fn parse_grouped(text: &str) -> Result<f64, String> {
    let t = text.trim();
    if !t.contains(',') {
        return t.parse::<f64>().map_err(|e| format!("{:?} is not a number: {e}", crate::text::excerpt(t)));
    }
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let int_end = body.find(['.', 'e', 'E']).unwrap_or(body.len());
    let (int, tail) = body.split_at(int_end);
    if tail.contains(',') {
        return Err(format!("{:?}: a thousands separator after the decimal point", crate::text::excerpt(t)));
    }
    let mut groups = int.split(',');
    let first = groups.next().unwrap_or("");
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if !(digits(first) && first.len() <= 3 && groups.all(|g| digits(g) && g.len() == 3)) {
        return Err(format!(
            "{:?}: thousands separators must come before every group of three digits",
            crate::text::excerpt(t)
        ));
    }
    let plain: String = t.chars().filter(|c| *c != ',').collect();
    plain.parse::<f64>().map_err(|e| format!("{:?} is not a number: {e}", crate::text::excerpt(t)))
}

#[cfg(test)]
mod tests {
    use super::parse_grouped;

    #[test]
    fn reads_grouped_and_plain_numbers_whole() {
        assert_eq!(parse_grouped("6,711.20"), Ok(6711.20));
        assert_eq!(parse_grouped(" 1,234,567 "), Ok(1_234_567.0));
        assert_eq!(parse_grouped("-12,345.5e1"), Ok(-123_455.0));
        assert_eq!(parse_grouped("6711.2002"), Ok(6711.2002));
        assert_eq!(parse_grouped("999"), Ok(999.0));
    }

    #[test]
    fn refuses_misplaced_separators() {
        for bad in ["6,71", "67,11.2", "6,,711", ",711", "6,711,", "1,2345", "6.711,20", "1,234x", ""] {
            assert!(parse_grouped(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
