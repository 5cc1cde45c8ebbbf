//! Heston
