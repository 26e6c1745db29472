//! Block-size choice per direction: fixed `bs`, weighted `bssplit` or
//! uniform `bsrange` multiples.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{GeneratorError, MAX_IO_LEN, SECTOR};

#[derive(Clone, Debug)]
pub(super) enum SizeChooser {
    Fixed(u64),
    /// Sizes with cumulative weights.
    Split {
        sizes: Vec<u64>,
        cum: Vec<u64>,
    },
    /// Multiples of `min`: `min + k·min`, `k` uniform in `0..=steps`.
    Range {
        min: u64,
        steps: u64,
    },
}

fn check_bs(b: u64) -> Result<u64, GeneratorError> {
    if b == 0 || !b.is_multiple_of(SECTOR) || b > MAX_IO_LEN {
        Err(GeneratorError::BadBlockSize(b))
    } else {
        Ok(b)
    }
}

impl SizeChooser {
    pub(super) fn new(
        bs: u64,
        split: &[(u64, u32)],
        range: Option<(u64, u64)>,
    ) -> Result<SizeChooser, GeneratorError> {
        if !split.is_empty() {
            let mut sizes = Vec::with_capacity(split.len());
            let mut weights = Vec::with_capacity(split.len());
            for &(b, pct) in split {
                sizes.push(check_bs(b)?);
                weights.push(u64::from(pct));
            }
            if weights.iter().all(|&w| w == 0) {
                weights.iter_mut().for_each(|w| *w = 1);
            }
            let cum = weights
                .iter()
                .scan(0u64, |acc, &w| {
                    *acc += w;
                    Some(*acc)
                })
                .collect();
            return Ok(SizeChooser::Split { sizes, cum });
        }
        if let Some((min, max)) = range {
            check_bs(min)?;
            check_bs(max)?;
            if min > max {
                return Err(GeneratorError::BadBlockRange { min, max });
            }
            return Ok(SizeChooser::Range {
                min,
                steps: (max - min) / min,
            });
        }
        Ok(SizeChooser::Fixed(check_bs(bs)?))
    }

    pub(super) fn min(&self) -> u64 {
        match self {
            SizeChooser::Fixed(b) => *b,
            SizeChooser::Split { sizes, .. } => sizes.iter().copied().min().unwrap_or(SECTOR),
            SizeChooser::Range { min, .. } => *min,
        }
    }

    pub(super) fn pick(&self, rng: &mut ChaCha8Rng) -> u64 {
        match self {
            SizeChooser::Fixed(b) => *b,
            SizeChooser::Split { sizes, cum } => {
                let total = cum.last().copied().unwrap_or(1).max(1);
                let v = rng.gen_range(0..total);
                let i = cum.partition_point(|&c| c <= v).min(sizes.len() - 1);
                sizes[i]
            }
            SizeChooser::Range { min, steps } => {
                let k = if *steps == 0 {
                    0
                } else {
                    rng.gen_range(0..=*steps)
                };
                min + k * min
            }
        }
    }
}
