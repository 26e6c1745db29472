//! Reading a user's input file with a size limit: a job file, preset,
//! host file or task set is text of kilobytes, and a path such as
//! `/dev/zero` must not be read until memory runs out.

use std::io::Read;
use std::path::Path;

/// The largest input file read whole (64 MiB).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The bytes of `path`, or an error if it holds more than
/// [`MAX_INPUT_BYTES`] (a device node or a FIFO is read up to the limit).
pub fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB, not an input file",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_input(path)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_refused_and_a_small_one_read() {
        let e = read_input(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("larger than 64 MiB"), "{e}");
        let p = std::env::temp_dir().join(format!("ssdlab-input-{}", std::process::id()));
        std::fs::write(&p, "[j]\nrw=read\n").unwrap();
        assert_eq!(read_input_string(&p).unwrap(), "[j]\nrw=read\n");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(read_input_string(&p)
            .unwrap_err()
            .to_string()
            .contains("UTF-8"));
        let _ = std::fs::remove_file(&p);
    }
}
