//! What a door asks for when it prices a book.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tenor_pricing::portfolio::{BookConfig, Engine, SettingError};

/// Engine choice of a book (the `engine` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineChoice {
    /// Closed forms where they exist, Monte Carlo otherwise.
    Auto,
    /// Monte Carlo for every supported kind (the backend carries the whole book).
    Mc,
}

impl From<EngineChoice> for Engine {
    fn from(e: EngineChoice) -> Self {
        match e {
            EngineChoice::Auto => Engine::Auto,
            EngineChoice::Mc => Engine::Mc,
        }
    }
}

/// A book to price and how (`tenor price`'s settings). Serialised as the request a client sends
/// to `tenor serve`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookRequest {
    /// The portfolio CSV (`docs/portfolio-csv.md`): read by [`super::run_book`] for
    /// [`super::Source::Open`], only named in messages for [`super::Source::Resident`].
    pub portfolio: PathBuf,
    /// Backend selector (`cpu`, `sim`, `auto`, `cuda:*`, ...).
    pub backend: String,
    /// Monte Carlo paths per valuation (even, 4 to [`tenor_pricing::portfolio::MAX_PATHS`]).
    pub paths: u64,
    /// Philox seed of every Monte Carlo row.
    pub seed: u64,
    /// Where the rows go: a file, written atomically; `None`: the door's standard output.
    pub out: Option<PathBuf>,
    /// Closed forms where they exist, or Monte Carlo for everything.
    pub engine: EngineChoice,
    /// Time steps of barriers and Heston rows under Monte Carlo (1 to `MAX_STEPS`).
    pub steps: u32,
    /// Streams the Monte Carlo work is spread over (at least 1).
    pub streams: usize,
    /// Whether to compute the Greeks.
    pub greeks: bool,
    /// Batch launches (the default) or one launch per job; the prices are bitwise the same.
    pub batch: bool,
}

impl BookRequest {
    /// A request for `portfolio` on `backend` with the defaults of `tenor price`.
    pub fn new(portfolio: impl Into<PathBuf>, backend: impl Into<String>) -> Self {
        let d = BookConfig::default();
        Self {
            portfolio: portfolio.into(),
            backend: backend.into(),
            paths: d.paths,
            seed: d.seed,
            out: None,
            engine: EngineChoice::Auto,
            steps: d.steps,
            streams: d.streams,
            greeks: d.greeks,
            batch: true,
        }
    }

    /// The pricer's configuration.
    pub fn config(&self) -> BookConfig {
        BookConfig {
            engine: self.engine.into(),
            paths: self.paths,
            seed: self.seed,
            steps: self.steps,
            streams: self.streams,
            greeks: self.greeks,
        }
    }

    /// Checks every setting ([`BookConfig::check`]), the one copy the command line's parser,
    /// the server and the bindings share.
    ///
    /// # Errors
    /// The first setting out of range, named.
    pub fn check(&self) -> Result<(), SettingError> {
        self.config().check()
    }
}
