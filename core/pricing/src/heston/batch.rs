//! Batched Heston prices on the `Compute` port: the `heston_price` kernel prices every quote
//! under every parameter set in one launch (one work item per pair), by a fixed-node
//! Gauss-Legendre quadrature of the Lewis integral with a Black-Scholes control variate
//! ([`tenor_kernels::heston`] documents the method, its sources and its accuracy against the
//! adaptive [`super::heston_price`]).

use tenor_kernels::typed::HestonPrice;
use tenor_ports::{Compute, ComputeExt};

use super::{HestonError, HestonOption, HestonParams, SIGMA_FLOOR};
use crate::types::OptionType;

pub use tenor_kernels::heston::DEFAULT_NODES;

/// Present values of every option in `options` under every parameter set in `sets`, through
/// the `heston_price` kernel on `dev` with an `nodes`-point Gauss-Legendre rule (use
/// [`DEFAULT_NODES`]). The result is `sets.len() * options.len()` prices, set-major: price of
/// option `j` under set `s` at `s * options.len() + j`. Spot, rate and dividend of each option
/// enter through its forward and discount factor. A vol of variance below [`SIGMA_FLOOR`] is
/// priced at [`SIGMA_FLOOR`] (the same price to within rounding).
///
/// # Errors
/// [`HestonError::InvalidParameter`] naming the first bad parameter or contract field (or
/// `nodes` = 0); [`HestonError::Compute`] from the backend; [`HestonError::DeviceResult`] if
/// the device returns a non-finite price (the kernel returns NaN only for invalid inputs, which
/// are refused here first, so this names a backend fault).
pub fn heston_prices_batch<C: Compute + ?Sized>(
    dev: &C,
    options: &[HestonOption],
    sets: &[HestonParams],
    nodes: usize,
) -> Result<Vec<f64>, HestonError> {
    if nodes == 0 || nodes > u32::MAX as usize {
        return Err(HestonError::InvalidParameter {
            name: "nodes",
            value: nodes as f64,
            reason: "must be in 1..=u32::MAX",
        });
    }
    for p in sets {
        p.validate()?;
    }
    for o in options {
        o.validate()?;
        let (f, d) = (o.forward(), o.discount());
        if !(f.is_finite() && f > 0.0) {
            return Err(HestonError::InvalidParameter {
                name: "forward",
                value: f,
                reason: "spot e^{(rate - dividend) maturity} must be finite and > 0",
            });
        }
        if !(d.is_finite() && d > 0.0) {
            return Err(HestonError::InvalidParameter {
                name: "discount",
                value: d,
                reason: "e^{-rate maturity} must be finite and > 0",
            });
        }
    }
    let items = options.len() * sets.len();
    if items == 0 {
        return Ok(Vec::new());
    }
    let (x, w) = tenor_kernels::heston::gauss_legendre_unit(nodes);
    let strike: Vec<f64> = options.iter().map(|o| o.strike).collect();
    let forward: Vec<f64> = options.iter().map(HestonOption::forward).collect();
    let maturity: Vec<f64> = options.iter().map(|o| o.maturity).collect();
    let discount: Vec<f64> = options.iter().map(HestonOption::discount).collect();
    let is_call: Vec<u32> = options.iter().map(|o| u32::from(o.option == OptionType::Call)).collect();
    let params: Vec<f64> =
        sets.iter().flat_map(|p| [p.v0, p.kappa, p.theta, p.sigma.max(SIGMA_FLOOR), p.rho]).collect();
    let s = dev.default_stream().clone();
    let b_strike = dev.upload_slice(&s, &strike)?;
    let b_forward = dev.upload_slice(&s, &forward)?;
    let b_maturity = dev.upload_slice(&s, &maturity)?;
    let b_discount = dev.upload_slice(&s, &discount)?;
    let b_call = dev.upload_slice(&s, &is_call)?;
    let b_params = dev.upload_slice(&s, &params)?;
    let b_x = dev.upload_slice(&s, &x)?;
    let b_w = dev.upload_slice(&s, &w)?;
    let out = dev.alloc_elems::<f64>(&s, items)?;
    HestonPrice {
        strike: &b_strike,
        forward: &b_forward,
        maturity: &b_maturity,
        discount: &b_discount,
        is_call: &b_call,
        params: &b_params,
        nodes: &b_x,
        weights: &b_w,
        price: &out,
        items: items as u64,
        quotes: options.len() as u64,
        nodes_count: nodes as u32,
    }
    .launch(dev, &s)?;
    let prices = dev.download_vec::<f64>(&s, &out)?;
    if let Some(i) = prices.iter().position(|p| !p.is_finite()) {
        return Err(HestonError::DeviceResult { index: i, value: prices[i] });
    }
    Ok(prices)
}
