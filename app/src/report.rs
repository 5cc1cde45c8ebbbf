//! What a command-shaped call of this library has to say: the text for standard output, the lines
//! for standard error (warnings and notes), and the exit status. The command line prints it as
//! is; other doors read the structured results the same calls also return.

/// Text and status of a finished call ([`crate::calibration::calibrate_to_folder`], ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Standard output: the results, each line ended by `\n`.
    pub out: String,
    /// Standard error: warnings and notes, one line each, without `\n` (the door adds its
    /// prefix and the end of line).
    pub err: Vec<String>,
    /// Exit status: 0, or 1 when something was refused but the rest done.
    pub code: u8,
}

impl Report {
    /// Appends a line to [`Report::out`].
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }
    /// Appends a line to [`Report::err`].
    pub fn warn(&mut self, text: impl Into<String>) {
        self.err.push(text.into());
    }
}
