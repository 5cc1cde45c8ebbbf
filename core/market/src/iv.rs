//! Implied volatilities of whole chains, batched on the `Compute` port (kernel `implied_vol`,
//! whose reference implementation is [`tenor_kernels::black::implied_vol`]: Jäckel's
//! normalisation with safeguarded Halley iterations, accurate to the attainable precision).
//!
//! Every quote gets a result: a volatility, or the reason it has none ([`NoVol`]): no
//! two-sided quote (zero bid or ask), a crossed quote, no parity forward for its slice, or the
//! kernel's status (below intrinsic, above the upper bound, invalid input).

use std::collections::HashMap;
use std::fmt;

pub use tenor_kernels::black::IvStatus;
use tenor_kernels::typed::ImpliedVol;
use tenor_ports::{Compute, ComputeExt};
use tenor_pricing::types::OptionType;

use crate::error::Result;
use crate::parity::ParityForward;
use crate::quotes::{Chain, SliceKey};

/// One implied-volatility problem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IvRequest {
    /// Discounted option price.
    pub price: f64,
    /// Forward of the underlying to the maturity.
    pub forward: f64,
    /// Strike.
    pub strike: f64,
    /// Maturity in years.
    pub maturity: f64,
    /// Discount factor to the payment date.
    pub discount: f64,
    /// Call or put.
    pub option_type: OptionType,
}

/// Solves a batch of implied volatilities with one launch of the `implied_vol` kernel on
/// `compute`: six input arrays uploaded, two outputs downloaded. Result `i` is the volatility
/// of request `i` or its [`IvStatus`].
///
/// # Errors
/// [`crate::MarketError::Compute`] from the backend (kernel load, allocation, launch, copy).
pub fn implied_vols<C: Compute + ?Sized>(compute: &C, requests: &[IvRequest]) -> Result<Vec<Result<f64, IvStatus>>> {
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    let s = compute.default_stream().clone();
    let column = |f: &dyn Fn(&IvRequest) -> f64| requests.iter().map(f).collect::<Vec<f64>>();
    let price = compute.upload_slice(&s, &column(&|r| r.price))?;
    let forward = compute.upload_slice(&s, &column(&|r| r.forward))?;
    let strike = compute.upload_slice(&s, &column(&|r| r.strike))?;
    let maturity = compute.upload_slice(&s, &column(&|r| r.maturity))?;
    let discount = compute.upload_slice(&s, &column(&|r| r.discount))?;
    let calls: Vec<u32> = requests.iter().map(|r| u32::from(r.option_type == OptionType::Call)).collect();
    let is_call = compute.upload_slice(&s, &calls)?;
    let n = requests.len();
    let vol = compute.alloc_elems::<f64>(&s, n)?;
    let status = compute.alloc_elems::<u32>(&s, n)?;
    ImpliedVol {
        price: &price,
        forward: &forward,
        strike: &strike,
        maturity: &maturity,
        discount: &discount,
        is_call: &is_call,
        vol: &vol,
        status: &status,
        n: n as u64,
    }
    .launch(compute, &s)?;
    let vols: Vec<f64> = compute.download_vec(&s, &vol)?;
    let codes: Vec<u32> = compute.download_vec(&s, &status)?;
    Ok(vols
        .into_iter()
        .zip(codes)
        .map(|(v, c)| match IvStatus::from_code(c) {
            IvStatus::Ok => Ok(v),
            e => Err(e),
        })
        .collect())
}

/// Why a quote of a chain has no implied volatility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoVol {
    /// Bid or ask is zero (no two-sided market).
    NoTwoSidedQuote,
    /// Bid above ask.
    Crossed,
    /// Put-call parity gave no forward for the quote's slice.
    NoForward,
    /// The mid lies outside the no-arbitrage bounds or the inputs are invalid.
    Iv(IvStatus),
}

impl fmt::Display for NoVol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoTwoSidedQuote => f.write_str("no two-sided quote (zero bid or ask)"),
            Self::Crossed => f.write_str("crossed quote (bid > ask)"),
            Self::NoForward => f.write_str("no parity forward for the expiry"),
            Self::Iv(s) => f.write_str(s.reason()),
        }
    }
}

/// The implied volatility of one quote of a chain (index into `chain.quotes`).
#[derive(Debug, Clone, PartialEq)]
pub struct QuoteVol {
    /// Index of the quote in the chain.
    pub index: usize,
    /// Maturity in years (0 when the slice has no forward).
    pub maturity: f64,
    /// Parity forward of the slice (NaN when none).
    pub forward: f64,
    /// Parity discount factor of the slice (NaN when none).
    pub discount: f64,
    /// Bid/ask mid.
    pub mid: f64,
    /// Mid implied volatility or the reason there is none.
    pub vol: Result<f64, NoVol>,
}

/// Mid implied volatilities of every quote of `chain`, with the slices' parity forwards and
/// discount factors, in one batch on `compute`. Quotes without a volatility keep their place
/// with the reason.
///
/// # Errors
/// Backend errors from [`implied_vols`].
pub fn chain_vols<C: Compute + ?Sized>(
    compute: &C,
    chain: &Chain,
    forwards: &[ParityForward],
) -> Result<Vec<QuoteVol>> {
    let by_slice: HashMap<SliceKey, &ParityForward> = forwards.iter().map(|f| (f.slice, f)).collect();
    let mut out = Vec::with_capacity(chain.quotes.len());
    let mut requests = Vec::new();
    let mut slots = Vec::new();
    for (index, q) in chain.quotes.iter().enumerate() {
        let fwd = by_slice.get(&(q.expiry, q.settlement));
        let (maturity, forward, discount) =
            fwd.map_or((0.0, f64::NAN, f64::NAN), |f| (f.maturity, f.forward, f.discount));
        let vol = if q.bid <= 0.0 || q.ask <= 0.0 {
            Err(NoVol::NoTwoSidedQuote)
        } else if q.bid > q.ask {
            Err(NoVol::Crossed)
        } else if fwd.is_none() {
            Err(NoVol::NoForward)
        } else {
            requests.push(IvRequest {
                price: q.mid(),
                forward,
                strike: q.strike,
                maturity,
                discount,
                option_type: q.option_type,
            });
            slots.push(index);
            Ok(f64::NAN)
        };
        out.push(QuoteVol { index, maturity, forward, discount, mid: q.mid(), vol });
    }
    let vols = implied_vols(compute, &requests)?;
    for (slot, v) in slots.into_iter().zip(vols) {
        out[slot].vol = v.map_err(NoVol::Iv);
    }
    Ok(out)
}
