//! tenor-market
