//! Sizes and durations as a user writes them in a TOML file: an integer
//! (bytes, nanoseconds) or a string with a unit ("256MiB", "4k", "30s",
//! "100ms"). Serde `deserialize_with` helpers (a bad value is reported
//! at its key and line like any other), and the parsers behind them.

use serde::{Deserialize, Deserializer};
use ssdlab_protocol::parse_duration_ns;

#[derive(Deserialize)]
#[serde(untagged)]
enum Written {
    Int(i64),
    Text(String),
}

/// Sizes are powers of two whichever way they are written: fio's parser
/// (with its default `kb_base=1024`) reads "64MB" as 64 × 2^20 but "64MiB"
/// as 64 × 10^6, so the `i` is dropped first.
pub fn binary_units(s: &str) -> String {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    match lower.strip_suffix("ib").or_else(|| lower.strip_suffix('i')) {
        Some(head) if head.ends_with(|c: char| c.is_ascii_alphabetic()) => format!("{head}b"),
        _ => t.to_string(),
    }
}

fn written<'de, D: Deserializer<'de>>(
    d: D,
    from_text: fn(&str) -> Result<u64, String>,
    what: &str,
) -> Result<u64, D::Error> {
    match Written::deserialize(d).map_err(|_| {
        serde::de::Error::custom(format!(
            "expected {what} (an integer or a string with a unit)"
        ))
    })? {
        Written::Int(n) => {
            u64::try_from(n).map_err(|_| serde::de::Error::custom(format!("{n} is negative")))
        }
        Written::Text(s) => from_text(&s).map_err(serde::de::Error::custom),
    }
}

fn size_text(s: &str) -> Result<u64, String> {
    ssdlab_fio::parse_size(&binary_units(s))
}

fn duration_text(s: &str) -> Result<u64, String> {
    parse_duration_ns(s.trim(), 1).map(|n| n as u64)
}

/// Bytes: `268435456`, `"256MiB"`, `"4k"`.
pub fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    written(d, size_text, "a size such as \"256MiB\"")
}

/// Bytes that fit in 32 bits.
pub fn bytes_u32<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let n = bytes(d)?;
    u32::try_from(n).map_err(|_| serde::de::Error::custom(format!("{n} bytes is over 4 GiB")))
}

/// Nanoseconds: `5000000000`, `"5s"`, `"100ms"`.
pub fn ns<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    written(d, duration_text, "a duration such as \"5s\"")
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use ssdlab_protocol::parse_duration_ns;

    #[derive(Deserialize, Debug)]
    struct T {
        #[serde(deserialize_with = "super::bytes")]
        size: u64,
        #[serde(deserialize_with = "super::ns")]
        time: u64,
    }

    fn read(text: &str) -> Result<T, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("500ms", 1), Ok(500_000_000));
        assert_eq!(parse_duration_ns("2.5us", 1), Ok(2_500));
        assert_eq!(parse_duration_ns("7", 1_000_000), Ok(7_000_000));
        assert!(parse_duration_ns("5 parsecs", 1).is_err());
        assert!(parse_duration_ns("-1ms", 1).is_err());
    }

    #[test]
    fn integers_and_strings_with_units() {
        let t = read("size = \"256MiB\"\ntime = \"30s\"\n").unwrap();
        assert_eq!((t.size, t.time), (256 << 20, 30_000_000_000));
        let t = read("size = 4096\ntime = 100\n").unwrap();
        assert_eq!((t.size, t.time), (4096, 100));
        let t = read("size = \"4k\"\ntime = \"2.5ms\"\n").unwrap();
        assert_eq!((t.size, t.time), (4096, 2_500_000));
    }

    #[test]
    fn bad_values_say_what_was_expected() {
        assert!(read("size = \"lots\"\ntime = 1\n").is_err());
        assert!(read("size = -1\ntime = 1\n")
            .unwrap_err()
            .contains("negative"));
        let e = read("size = 1\ntime = \"5 fortnights\"\n").unwrap_err();
        assert!(e.contains("time"), "{e}");
        assert!(read("size = true\ntime = 1\n")
            .unwrap_err()
            .contains("expected a size"));
    }
}
