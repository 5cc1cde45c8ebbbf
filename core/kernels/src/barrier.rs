//! Valuation of one barrier path, shared by the `payoff_barrier` and `mc_barrier` reference
//! implementations (the semantics are stated in their manifests).
//!
//! Continuous monitoring uses the Brownian-bridge probability that a log-Brownian path between
//! two grid values does not touch the barrier, `1 - exp(-2 (x_a - h)(x_b - h) / (sigma^2 dt))`
//! (Beaglehole, Dybvig and Zhou 1997; Glasserman, *Monte Carlo Methods in Financial
//! Engineering*, 2004, sec. 6.4), so the estimator is unbiased for the continuously monitored
//! option on any grid (up to the mid-step timing of a knock-out rebate).

/// Above this exponent `1 - exp(-a)` rounds to exactly 1 in fp64, so the exponential is skipped.
pub const BRIDGE_CUTOFF: f64 = 40.0;

/// The contract and grid of a barrier launch.
#[derive(Debug, Clone, Copy)]
pub struct BarrierParams {
    /// ln(barrier).
    pub h: f64,
    /// Down (kinds 0, 1) or up (kinds 2, 3).
    pub down: bool,
    /// Knock-out (kinds 0, 2) or knock-in (kinds 1, 3).
    pub out: bool,
    /// Brownian-bridge monitoring (true) or discrete at the grid dates (false).
    pub continuous: bool,
    /// 2 / (vol^2 dt).
    pub two_over_var: f64,
    /// Rate times dt (rebate discounting).
    pub rate_dt: f64,
    /// Rebate timing offset in steps: 0.5 continuous (mid-step), 1 discrete (at the date).
    pub rebate_offset: f64,
    /// Strike.
    pub strike: f64,
    /// +1 call, -1 put.
    pub w: f64,
    /// Cash rebate.
    pub rebate: f64,
    /// Discount factor to expiry.
    pub discount: f64,
}

impl BarrierParams {
    /// From the kernel's scalar arguments.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        strike: f64,
        barrier: f64,
        rebate: f64,
        is_call: u32,
        kind: u32,
        continuous: u32,
        vol_sqrt_dt: f64,
        rate_dt: f64,
        discount: f64,
    ) -> Self {
        Self {
            h: barrier.ln(),
            down: kind < 2,
            out: kind & 1 == 0,
            continuous: continuous != 0,
            two_over_var: 2.0 / (vol_sqrt_dt * vol_sqrt_dt),
            rate_dt,
            rebate_offset: if continuous != 0 { 0.5 } else { 1.0 },
            strike,
            w: if is_call != 0 { 1.0 } else { -1.0 },
            rebate,
            discount,
        }
    }
}

/// The running state of one path: log spot, survival probability, knock-out rebate value.
#[derive(Debug, Clone, Copy)]
pub struct BarrierPath {
    x: f64,
    survival: f64,
    rebate_value: f64,
}

impl BarrierPath {
    /// A path at `x0 = ln(spot)`.
    #[inline(always)]
    pub fn new(x0: f64) -> Self {
        Self { x: x0, survival: 1.0, rebate_value: 0.0 }
    }

    /// Advances over step `k` to log spot `x_next`.
    #[inline(always)]
    pub fn step(&mut self, p: &BarrierParams, k: u32, x_next: f64) {
        let live = if p.down { x_next > p.h } else { x_next < p.h };
        let pk = if !live {
            0.0
        } else if p.continuous {
            let a = (self.x - p.h) * (x_next - p.h) * p.two_over_var;
            if a > BRIDGE_CUTOFF {
                1.0
            } else {
                1.0 - (-a).exp()
            }
        } else {
            1.0
        };
        if pk < 1.0 {
            if p.out && p.rebate != 0.0 {
                self.rebate_value +=
                    p.rebate * self.survival * (1.0 - pk) * (-p.rate_dt * (f64::from(k) + p.rebate_offset)).exp();
            }
            self.survival *= pk;
        }
        self.x = x_next;
    }

    /// The discounted value of the path after its last step.
    #[inline(always)]
    pub fn value(&self, p: &BarrierParams) -> f64 {
        let payoff = (p.w * (self.x.exp() - p.strike)).max(0.0);
        if p.out {
            p.discount * payoff * self.survival + self.rebate_value
        } else {
            p.discount * (payoff * (1.0 - self.survival) + p.rebate * self.survival)
        }
    }
}
