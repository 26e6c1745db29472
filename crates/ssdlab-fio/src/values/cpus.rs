//! CPU sets: `cpumask` (a bit mask) and `cpus_allowed` (a list of CPUs and
//! ranges, as in `0,5,8-15`), as fio reads them.

use super::{malformed, out_of_range, parse_int, VResult};

/// The highest CPU index accepted: fio's own limit on the CPUs of a set is
/// the machine's, which a simulated host does not have; this bounds what a
/// typo (`0-4000000000`) can allocate.
pub(crate) const MAX_CPU: u32 = 4095;

/// `cpumask`: bit i set allows CPU i (decimal or `0x` hex, 64 bits).
pub(crate) fn parse_cpu_mask(s: &str) -> VResult<Vec<u32>> {
    let s = s.trim();
    let mask = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse::<u64>().ok(),
    };
    let Some(mask) = mask else {
        // A negative or non-numeric value is malformed; a too-wide one
        // out of range.
        return match parse_int(s) {
            Ok(_) => out_of_range(format!("mask '{s}' is wider than 64 bits")),
            Err(e) => Err(e),
        };
    };
    if mask == 0 {
        return out_of_range("mask 0 allows no CPU".to_string());
    }
    Ok((0..64).filter(|i| mask >> i & 1 == 1).collect())
}

/// `cpus_allowed`: comma-separated CPUs and `lo-hi` ranges, sorted and
/// without repeats.
pub(crate) fn parse_cpu_list(s: &str) -> VResult<Vec<u32>> {
    // A set of bits, so that a list repeating wide ranges costs no more
    // memory than one naming each CPU once.
    let mut allowed = vec![false; MAX_CPU as usize + 1];
    for part in s.split(',').map(str::trim) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (cpu_index(a, s)?, cpu_index(b, s)?),
            None => {
                let c = cpu_index(part, s)?;
                (c, c)
            }
        };
        if lo > hi {
            return malformed(format!("range '{part}' in '{s}' runs backwards"));
        }
        allowed[lo as usize..=hi as usize].fill(true);
    }
    Ok((0..=MAX_CPU).filter(|&c| allowed[c as usize]).collect())
}

fn cpu_index(p: &str, whole: &str) -> VResult<u32> {
    let p = p.trim();
    if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
        return malformed(format!("'{p}' in '{whole}' is not a CPU number"));
    }
    match p.parse::<u32>() {
        Ok(c) if c <= MAX_CPU => Ok(c),
        _ => out_of_range(format!("CPU {p} is above the highest accepted, {MAX_CPU}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mask_allows_the_cpus_of_its_set_bits() {
        assert_eq!(parse_cpu_mask("8").unwrap(), vec![3]);
        assert_eq!(parse_cpu_mask("0x13").unwrap(), vec![0, 1, 4]);
        assert_eq!(parse_cpu_mask("0x8000000000000000").unwrap(), vec![63]);
    }

    #[test]
    fn a_mask_with_no_cpu_or_no_number_is_refused() {
        assert!(parse_cpu_mask("0").is_err());
        assert!(parse_cpu_mask("-1").is_err());
        assert!(parse_cpu_mask("eight").is_err());
        assert!(parse_cpu_mask("0x10000000000000000").is_err());
    }

    #[test]
    fn a_list_takes_cpus_and_ranges_sorted_once() {
        assert_eq!(parse_cpu_list("0,5,8-10").unwrap(), vec![0, 5, 8, 9, 10]);
        assert_eq!(parse_cpu_list("3, 1-3").unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn a_bad_list_is_refused() {
        for bad in ["", "1,", "a", "4-2", "1-", "-3", "0-4096", "99999999999"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad}");
        }
    }
}
