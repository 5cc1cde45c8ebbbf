//! Reference implementation of `mc_asian` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::fastmath;

/// Running sums of one antithetic pair: log spots, sums of fixings and of log fixings (the
/// one-pair-at-a-time form of [`Lanes`], kept as the tests' oracle).
#[cfg(test)]
#[derive(Clone, Copy)]
struct Pair {
    xu: f64,
    xd: f64,
    su: f64,
    sd: f64,
    lu: f64,
    ld: f64,
}

#[cfg(test)]
impl Pair {
    /// One step; `e2m = exp(x_u + x_d) = exp(2 (ln spot + drifts so far))` is the same for
    /// every pair, so the antithetic fixing is `exp(x_d) = e2m / exp(x_u)`: one exponential
    /// per step instead of two (equal to `exp(x_d)` within a few ulps).
    #[inline(always)]
    fn step(&mut self, d: f64, vz: f64, e2m: f64) {
        self.xu += d + vz;
        self.xd += d - vz;
        self.lu += self.xu;
        self.ld += self.xd;
        let s = fastmath::exp(self.xu);
        self.su += s;
        self.sd += e2m / s;
    }
}

/// Pairs simulated side by side (one lane each) in [`block_sums_portable`].
const CHUNK: usize = 32;

/// The launch's scalars and the per-step constants.
struct Params {
    seed: u64,
    steps: u32,
    strike: f64,
    w: f64,
    d1: f64,
    v1: f64,
    d: f64,
    v: f64,
    x0: f64,
    s0: f64,
    l0: f64,
    inv_n: f64,
    half_discount: f64,
    /// exp(2 m_j), m_j = ln spot + d1 + (j - 1) d: the product of a pair's two fixings at step j.
    e2m: Vec<f64>,
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.out::<f64>(0);
    let (seed, steps, spot, strike) = (call.u64(1), call.u32(3), call.f64(4), call.f64(5));
    let spot_fixing = call.u32(7) != 0;
    let (d1, d) = (call.f64(8), call.f64(10));
    let x0 = spot.ln();
    let (s0, l0) = if spot_fixing { (spot, x0) } else { (0.0, 0.0) };
    let p = Params {
        seed,
        steps,
        strike,
        w: if call.u32(6) != 0 { 1.0 } else { -1.0 },
        d1,
        v1: call.f64(9),
        d,
        v: call.f64(11),
        x0,
        s0,
        l0,
        inv_n: 1.0 / f64::from(steps + u32::from(spot_fixing)),
        half_discount: 0.5 * call.f64(12),
        e2m: (0..steps).map(|j| (2.0 * (x0 + d1 + f64::from(j) * d)).exp()).collect(),
    };
    for b in blocks {
        let acc = block_sums(&p, call.block_items(b));
        for (j, v) in acc.iter().enumerate() {
            partials.set(5 * b as usize + j, *v);
        }
    }
}

crate::simd::avx2_dispatch! {
    /// The five sums over `pairs`, in pair order, on the best instruction set of this CPU (the
    /// same numbers on every one: only IEEE additions, multiplications, divisions and square roots).
    fn block_sums, block_sums_avx2(p: &Params, pairs: Range<u64>) -> [f64; 5] = block_sums_portable
}

/// [`CHUNK`] pairs at a time, one lane each: every step is a loop over the lanes (Philox
/// words, normals, then the [`Lanes::step`] updates with the exponentials of
/// [`fastmath::exp_lanes`]), which vectorises; each pair's own arithmetic is exactly that of
/// the one-pair-at-a-time loop (the tests' `Pair`), so the sums are bitwise the same.
#[inline(always)]
fn block_sums_portable(p: &Params, pairs: Range<u64>) -> [f64; 5] {
    let mut acc = [0.0f64; 5];
    let key = crate::philox::key(p.seed);
    let mut i0 = pairs.start;
    let mut u1 = [0.0; CHUNK];
    let mut u2 = [0.0; CHUNK];
    let mut z0 = [0.0; CHUNK];
    let mut z1 = [0.0; CHUNK];
    let mut e = [0.0; CHUNK];
    while i0 < pairs.end {
        let mut st = Lanes::new(p);
        let mut k = 0u32;
        while k < p.steps {
            for (c, (a, b)) in u1.iter_mut().zip(u2.iter_mut()).enumerate() {
                let x = crate::philox::philox4x32_10(crate::philox::counter(i0 + c as u64, k >> 1), key);
                *a = crate::philox::uniform_f64(x[0], x[1]);
                *b = crate::philox::uniform_f64(x[2], x[3]);
            }
            for c in 0..CHUNK {
                let r = (-2.0 * fastmath::ln_unit(u1[c])).sqrt();
                let (s, co) = fastmath::sincos_2pi(u2[c]);
                z0[c] = r * co;
                z1[c] = r * s;
            }
            let (dk, vk) = if k == 0 { (p.d1, p.v1) } else { (p.d, p.v) };
            st.step(dk, vk, &z0, p.e2m[k as usize], &mut e);
            if k + 1 < p.steps {
                st.step(p.d, p.v, &z1, p.e2m[k as usize + 1], &mut e);
            }
            k += 2;
        }
        let pay = |m: f64| (p.w * (m - p.strike)).max(0.0);
        let n = ((pairs.end - i0) as usize).min(CHUNK);
        for c in 0..n {
            let a = p.half_discount * (pay(st.su[c] * p.inv_n) + pay(st.sd[c] * p.inv_n));
            let g = p.half_discount * (pay((st.lu[c] * p.inv_n).exp()) + pay((st.ld[c] * p.inv_n).exp()));
            acc[0] += a;
            acc[1] += a * a;
            acc[2] += g;
            acc[3] += g * g;
            acc[4] += a * g;
        }
        i0 += CHUNK as u64;
    }
    acc
}

/// The running sums of [`CHUNK`] antithetic pairs, one array per field: log spots (`xu`, `xd`),
/// sums of fixings (`su`, `sd`) and of log fixings (`lu`, `ld`) of the path and its antithetic.
struct Lanes {
    xu: [f64; CHUNK],
    xd: [f64; CHUNK],
    su: [f64; CHUNK],
    sd: [f64; CHUNK],
    lu: [f64; CHUNK],
    ld: [f64; CHUNK],
}

impl Lanes {
    #[inline(always)]
    fn new(p: &Params) -> Self {
        Self {
            xu: [p.x0; CHUNK],
            xd: [p.x0; CHUNK],
            su: [p.s0; CHUNK],
            sd: [p.s0; CHUNK],
            lu: [p.l0; CHUNK],
            ld: [p.l0; CHUNK],
        }
    }

    /// One step on every lane with `vz = v z[c]`: `x += d +/- vz`, the log sums, and the fixings
    /// `exp(x_u)` and `exp(x_d) = e2m / exp(x_u)` (`e2m = exp(x_u + x_d)` is the same for every
    /// pair: one exponential per step instead of two, equal to `exp(x_d)` within a few ulps);
    /// `e` is scratch for the exponentials.
    #[inline(always)]
    fn step(&mut self, d: f64, v: f64, z: &[f64; CHUNK], e2m: f64, e: &mut [f64; CHUNK]) {
        for c in 0..CHUNK {
            let vz = v * z[c];
            self.xu[c] += d + vz;
            self.xd[c] += d - vz;
            self.lu[c] += self.xu[c];
            self.ld[c] += self.xd[c];
        }
        fastmath::exp_lanes(&self.xu, e);
        for c in 0..CHUNK {
            self.su[c] += e[c];
            self.sd[c] += e2m / e[c];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sums one pair at a time with [`Pair`] and `normal_pair_f64` (the reference's
    /// arithmetic before it was laid out in lanes).
    fn pair_at_a_time(p: &Params, pairs: Range<u64>) -> [f64; 5] {
        let mut acc = [0.0f64; 5];
        for i in pairs {
            let mut q = Pair { xu: p.x0, xd: p.x0, su: p.s0, sd: p.s0, lu: p.l0, ld: p.l0 };
            let mut k = 0u32;
            while k < p.steps {
                let (z0, z1) = fastmath::normal_pair_f64(p.seed, i, k >> 1);
                if k == 0 {
                    q.step(p.d1, p.v1 * z0, p.e2m[0]);
                } else {
                    q.step(p.d, p.v * z0, p.e2m[k as usize]);
                }
                if k + 1 < p.steps {
                    q.step(p.d, p.v * z1, p.e2m[k as usize + 1]);
                }
                k += 2;
            }
            let pay = |m: f64| (p.w * (m - p.strike)).max(0.0);
            let a = p.half_discount * (pay(q.su * p.inv_n) + pay(q.sd * p.inv_n));
            let g = p.half_discount * (pay((q.lu * p.inv_n).exp()) + pay((q.ld * p.inv_n).exp()));
            for (t, x) in acc.iter_mut().zip([a, a * a, g, g * g, a * g]) {
                *t += x;
            }
        }
        acc
    }

    fn params(steps: u32, w: f64, spot_fixing: bool, v: f64) -> Params {
        let (spot, d1, d) = (100.0f64, 0.001, -0.0005);
        let x0 = spot.ln();
        let (s0, l0) = if spot_fixing { (spot, x0) } else { (0.0, 0.0) };
        Params {
            seed: 5,
            steps,
            strike: 98.0,
            w,
            d1,
            v1: 0.03,
            d,
            v,
            x0,
            s0,
            l0,
            inv_n: 1.0 / f64::from(steps + u32::from(spot_fixing)),
            half_discount: 0.47,
            e2m: (0..steps).map(|j| (2.0 * (x0 + d1 + f64::from(j) * d)).exp()).collect(),
        }
    }

    /// The lane layout is bitwise the pair-at-a-time loop, portable and AVX2, for odd and even
    /// step counts, partial chunks, and log-spots outside the fast exponential's range (v 60).
    #[test]
    fn lanes_are_bitwise_the_pair_at_a_time_loop() {
        for (steps, w, spot_fixing, v) in [(7u32, 1.0, false, 0.02), (6, -1.0, true, 0.05), (1, 1.0, true, 0.1), (12, 1.0, false, 60.0)] {
            let p = params(steps, w, spot_fixing, v);
            for range in [0..70u64, 3..4, 4090..4096] {
                let want = pair_at_a_time(&p, range.clone());
                let got = block_sums_portable(&p, range.clone());
                let bits = |a: [f64; 5]| a.map(f64::to_bits);
                assert_eq!(bits(got), bits(want), "steps {steps}, {range:?}: {got:?} vs {want:?}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2.
                    let avx2 = unsafe { block_sums_avx2(&p, range.clone()) };
                    assert_eq!(bits(avx2), bits(want), "avx2 steps {steps}, {range:?}");
                }
            }
        }
    }
}
