//! CPU sets: `cpumask` (a bit mask) and `cpus_allowed` (a list of CPUs and
//! ranges, as in `0,5,8-15`), as fio reads them.

use super::{malformed, out_of_range, parse_int, VResult};

/// The highest CPU index accepted: fio's own limit on the CPUs of a set is
/// the machine's, which a simulated host does not have; this bounds what a
/// typo (`0-4000000000`) can allocate.
pub(crate) const MAX_CPU: u32 = 4095;

/// `cpumask`: bit i set allows CPU i (decimal or `0x` hex). fio reads the
/// mask as an `int`, so only CPUs 0–31 can be named this way
/// (`cpus_allowed` names any).
pub(crate) fn parse_cpu_mask(s: &str) -> VResult<Vec<u32>> {
    let s = s.trim();
    if s.starts_with('-') {
        return malformed(format!("mask '{s}' is negative"));
    }
    let mask = match parse_int(s)? {
        m if m > i64::from(u32::MAX) => {
            return out_of_range(format!(
                "mask '{s}' is wider than the 32 bits fio reads; name CPUs 32 and above with cpus_allowed"
            ))
        }
        m => m as u32,
    };
    if mask == 0 {
        return out_of_range("mask 0 allows no CPU".to_string());
    }
    Ok((0..32).filter(|i| mask >> i & 1 == 1).collect())
}

/// At most this many entries in a `cpus_allowed` list: more than there
/// are CPUs can only repeat them.
const MAX_LIST_ENTRIES: usize = MAX_CPU as usize + 1;

/// `cpus_allowed`: comma-separated CPUs and `lo-hi` ranges, sorted and
/// without repeats. An empty entry ends the list, as in fio (`1,` is CPU 1).
pub(crate) fn parse_cpu_list(s: &str) -> VResult<Vec<u32>> {
    // Kept as bits, a word at a time, so that wide ranges cost little.
    let mut words = [0u64; MAX_LIST_ENTRIES / 64];
    for (n, part) in s.split(',').map(str::trim).enumerate() {
        if part.is_empty() {
            break;
        }
        if n == MAX_LIST_ENTRIES {
            return out_of_range(format!("'{s}' has more than {MAX_LIST_ENTRIES} entries"));
        }
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
        set_range(&mut words, lo, hi);
    }
    let cpus: Vec<u32> = (0..=MAX_CPU)
        .filter(|&c| words[c as usize / 64] >> (c % 64) & 1 == 1)
        .collect();
    if cpus.is_empty() {
        return out_of_range(format!("'{s}' names no CPU"));
    }
    Ok(cpus)
}

/// Sets bits `lo..=hi`.
fn set_range(words: &mut [u64], lo: u32, hi: u32) {
    let (lo, hi) = (lo as usize, hi as usize);
    let span = &mut words[lo / 64..=hi / 64];
    let n = span.len();
    for (i, word) in span.iter_mut().enumerate() {
        let first = if i == 0 { lo % 64 } else { 0 };
        let last = if i + 1 == n { hi % 64 } else { 63 };
        *word |= (u64::MAX >> (63 - last)) & (u64::MAX << first);
    }
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
        assert_eq!(parse_cpu_mask("0x80000000").unwrap(), vec![31]);
    }

    #[test]
    fn a_mask_with_no_cpu_no_number_or_more_than_32_bits_is_refused() {
        for bad in [
            "0",
            "-1",
            "-0",
            "eight",
            "0x100000000",
            "0x10000000000000000",
        ] {
            assert!(parse_cpu_mask(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_list_takes_cpus_and_ranges_sorted_once() {
        assert_eq!(parse_cpu_list("0,5,8-10").unwrap(), vec![0, 5, 8, 9, 10]);
        assert_eq!(parse_cpu_list("3, 1-3").unwrap(), vec![1, 2, 3]);
        assert_eq!(
            parse_cpu_list("1,").unwrap(),
            vec![1],
            "fio stops at an empty entry"
        );
        assert_eq!(
            parse_cpu_list("62-129").unwrap(),
            (62..=129).collect::<Vec<_>>()
        );
        assert_eq!(parse_cpu_list("0-4095").unwrap().len(), 4096);
    }

    #[test]
    fn a_bad_list_is_refused() {
        for bad in ["", ",", "a", "4-2", "1-", "-3", "0-4096", "99999999999"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad}");
        }
        let too_many = vec!["0"; MAX_LIST_ENTRIES + 1].join(",");
        assert!(parse_cpu_list(&too_many).is_err());
        assert!(parse_cpu_list(&vec!["0"; MAX_LIST_ENTRIES].join(",")).is_ok());
    }
}
