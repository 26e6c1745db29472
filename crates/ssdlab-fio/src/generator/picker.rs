//! Random slot pickers: the random map, uniform draws and the non-uniform
//! distributions (zipf, pareto, normal, zoned).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::perm::Perm;
use super::zipf::Zipf;
use super::GeneratorError;
use crate::spec::{JobSpec, RandomDistribution};

#[derive(Clone, Debug)]
pub(super) enum Picker {
    /// Random map: a permutation of the slots per pass.
    Map {
        perm: Perm,
        idx: u64,
    },
    /// Independent uniform draws (`norandommap`).
    Uniform,
    Zipf {
        zipf: Zipf,
        scatter: Perm,
        shift: u64,
    },
    Pareto {
        pow: f64,
        scatter: Perm,
        shift: u64,
    },
    Normal {
        mean: f64,
        sd: f64,
    },
    /// Zones as `(first slot, slot count)` with cumulative access weights.
    Zoned {
        zones: Vec<(u64, u64)>,
        cum: Vec<u64>,
    },
}

fn check_center(c: Option<f64>) -> Result<Option<f64>, GeneratorError> {
    match c {
        Some(c) if !(0.0..=1.0).contains(&c) => Err(GeneratorError::BadDistribution(format!(
            "center {c} is not within [0, 1]"
        ))),
        other => Ok(other),
    }
}

fn shift_for(center: Option<f64>, n: u64, rng: &mut ChaCha8Rng) -> u64 {
    match center {
        Some(c) => ((c * n as f64) as u64).min(n - 1),
        None => rng.gen_range(0..n),
    }
}

/// Zones from `(access %, start slot, end slot)` triples (unclamped).
fn build_zones(n: u64, bounds: Vec<(u32, u64, u64)>) -> Picker {
    let mut zones = Vec::new();
    let mut cum = Vec::new();
    let mut acc = 0u64;
    for (access, s, e) in bounds {
        let s = s.min(n);
        let e = e.min(n);
        let count = e.saturating_sub(s);
        if count == 0 || access == 0 {
            continue;
        }
        acc += u64::from(access);
        zones.push((s, count));
        cum.push(acc);
    }
    if zones.is_empty() {
        Picker::Uniform
    } else {
        Picker::Zoned { zones, cum }
    }
}

impl Picker {
    pub(super) fn new(
        spec: &JobSpec,
        n: u64,
        align: u64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Picker, GeneratorError> {
        let center = check_center(spec.random_center)?;
        let bad = |m: String| Err(GeneratorError::BadDistribution(m));
        Ok(match &spec.random_distribution {
            RandomDistribution::Random => {
                if spec.norandommap {
                    Picker::Uniform
                } else {
                    Picker::Map {
                        perm: Perm::new(n, rng.gen()),
                        idx: 0,
                    }
                }
            }
            &RandomDistribution::Zipf(theta) => {
                if !(theta.is_finite() && theta > 0.0) {
                    return bad(format!("zipf theta {theta} must be > 0"));
                }
                Picker::Zipf {
                    zipf: Zipf::new(n, theta),
                    scatter: Perm::new(n, SCATTER_KEY),
                    shift: shift_for(center, n, rng),
                }
            }
            &RandomDistribution::Pareto(h) => {
                if !(h > 0.0 && h < 1.0) {
                    return bad(format!("pareto power {h} must be within (0, 1)"));
                }
                Picker::Pareto {
                    pow: h.ln() / (1.0 - h).ln(),
                    scatter: Perm::new(n, SCATTER_KEY),
                    shift: shift_for(center, n, rng),
                }
            }
            &RandomDistribution::Normal(sigma) => {
                if !(sigma.is_finite() && sigma > 0.0) {
                    return bad(format!("normal deviation {sigma} must be > 0"));
                }
                Picker::Normal {
                    mean: center.unwrap_or(0.5) * n as f64,
                    sd: sigma / 100.0 * n as f64,
                }
            }
            RandomDistribution::Zoned(zs) => {
                let access: u64 = zs.iter().map(|&(a, _)| u64::from(a)).sum();
                let range: u64 = zs.iter().map(|&(_, r)| u64::from(r)).sum();
                if access != 100 || range != 100 {
                    return Err(GeneratorError::ZonedPercentages {
                        access,
                        range: Some(range),
                    });
                }
                let mut cum_pct = 0u64;
                let bounds = zs.iter().map(|&(a, r)| {
                    let s = (u128::from(cum_pct) * u128::from(n) / 100) as u64;
                    cum_pct += u64::from(r);
                    let e = (u128::from(cum_pct) * u128::from(n) / 100) as u64;
                    (a, s, e)
                });
                build_zones(n, bounds.collect())
            }
            RandomDistribution::ZonedAbs(zs) => {
                let access: u64 = zs.iter().map(|&(a, _)| u64::from(a)).sum();
                if access != 100 {
                    return Err(GeneratorError::ZonedPercentages {
                        access,
                        range: None,
                    });
                }
                let mut cum = 0u64;
                let bounds = zs.iter().map(|&(a, bytes)| {
                    let s = cum / align;
                    cum = cum.saturating_add(bytes);
                    (a, s, cum / align)
                });
                build_zones(n, bounds.collect())
            }
        })
    }

    pub(super) fn next(&mut self, n: u64, rng: &mut ChaCha8Rng) -> u64 {
        match self {
            Picker::Map { perm, idx } => {
                if *idx == n {
                    *perm = Perm::new(n, rng.gen());
                    *idx = 0;
                }
                let s = perm.apply(*idx);
                *idx += 1;
                s
            }
            Picker::Uniform => rng.gen_range(0..n),
            Picker::Zipf {
                zipf,
                scatter,
                shift,
            } => {
                let rank = zipf.sample(rng) - 1;
                place(rank, scatter, *shift, n)
            }
            Picker::Pareto {
                pow,
                scatter,
                shift,
            } => {
                let u: f64 = rng.gen();
                let rank = (((n - 1) as f64) * u.powf(*pow)) as u64;
                place(rank.min(n - 1), scatter, *shift, n)
            }
            Picker::Normal { mean, sd } => {
                let nf = n as f64;
                let mut x = *mean;
                for _ in 0..32 {
                    // Box–Muller; u1 in (0, 1].
                    let u1 = 1.0 - rng.gen::<f64>();
                    let u2: f64 = rng.gen();
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    x = *mean + z * *sd;
                    if x >= 0.0 && x < nf {
                        break;
                    }
                }
                if x.is_nan() || x < 0.0 {
                    0
                } else {
                    (x as u64).min(n - 1)
                }
            }
            Picker::Zoned { zones, cum } => {
                let total = cum.last().copied().unwrap_or(1);
                let v = rng.gen_range(0..total);
                let i = cum.partition_point(|&c| c <= v).min(zones.len() - 1);
                let (start, count) = zones[i];
                start + rng.gen_range(0..count)
            }
        }
    }
}

/// Fixed key of the rank-scattering bijection (fio's hash is fixed too).
const SCATTER_KEY: u64 = 0x5353_444c_4142_2d7a; // "SSDLAB-z"

fn place(rank: u64, scatter: &Perm, shift: u64, n: u64) -> u64 {
    let base = scatter.apply(0);
    // All terms < n ≤ 2^55, no overflow.
    (scatter.apply(rank) + (n - base) + shift) % n
}
