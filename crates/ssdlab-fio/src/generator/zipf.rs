//! Zipf sampling by rejection-inversion (Hörmann & Derflinger 1996).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// `ln(1+x)/x`, continuous at 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// `(e^x − 1)/x`, continuous at 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// Zipf over ranks `1..=n` with `P(k) ∝ k^−s`.
#[derive(Clone, Debug)]
pub(super) struct Zipf {
    n: u64,
    s: f64,
    h_int_x1: f64,
    h_int_n: f64,
    s_cut: f64,
}

impl Zipf {
    pub(super) fn new(n: u64, s: f64) -> Zipf {
        let mut z = Zipf {
            n,
            s,
            h_int_x1: 0.0,
            h_int_n: 0.0,
            s_cut: 0.0,
        };
        z.h_int_x1 = z.h_int(1.5) - 1.0;
        z.h_int_n = z.h_int(n as f64 + 0.5);
        z.s_cut = 2.0 - z.h_int_inv(z.h_int(2.5) - z.h(2.0));
        z
    }

    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }

    /// Antiderivative of `h`, `(x^(1−s) − 1)/(1−s)`, written to stay exact
    /// near s = 1.
    fn h_int(&self, x: f64) -> f64 {
        let lx = x.ln();
        helper2((1.0 - self.s) * lx) * lx
    }

    fn h_int_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.s)).max(-1.0);
        (helper1(t) * x).exp()
    }

    pub(super) fn sample(&self, rng: &mut ChaCha8Rng) -> u64 {
        let mut k = 1;
        for _ in 0..64 {
            let u: f64 = self.h_int_n + rng.gen::<f64>() * (self.h_int_x1 - self.h_int_n);
            let x = self.h_int_inv(u);
            let kf = (x + 0.5).floor();
            k = if kf.is_nan() || kf < 1.0 {
                1
            } else if kf >= self.n as f64 {
                self.n
            } else {
                kf as u64
            };
            let kf = k as f64;
            if kf - x <= self.s_cut || u >= self.h_int(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
        k
    }
}
