//! The command line's progress: indicatif bars on the terminal behind the library's
//! [`tenor_ports::Progress`] port.

use indicatif::{ProgressBar, ProgressStyle};
use tenor_ports::Progress;

/// A terminal bar (hidden when stderr is not a terminal, as indicatif does).
pub struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn set(&self, done: u64) {
        self.0.set_position(done);
    }
    fn message(&self, text: &str) {
        self.0.set_message(text.to_owned());
        self.0.tick();
    }
    fn println(&self, line: &str) {
        self.0.println(line);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A bar drawn with the indicatif `template`.
pub fn bar(template: &str) -> Bar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "),
    );
    Bar(bar)
}

/// The bar of trades priced (its length set when pricing starts).
pub fn pricing_bar() -> Bar {
    bar("{spinner} pricing [{bar:40}] {pos}/{len} trades ({elapsed}, eta {eta})")
}

/// A spinner with a message (work whose length is unknown: a calibration's iterations).
pub fn spinner() -> Bar {
    let bar = ProgressBar::new_spinner();
    Bar(bar)
}
