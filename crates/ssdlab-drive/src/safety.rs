//! What makes a block device unsafe to write: a mount, a swap area, a
//! holder (device mapper, RAID), a mounted sibling partition, or data that
//! looks like a partition table or a file system. Each check says why, so
//! the refusal names what was found.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The sysfs directory of the block device `major:minor`.
pub fn sysfs_dir(major: u32, minor: u32) -> PathBuf {
    PathBuf::from(format!("/sys/dev/block/{major}:{minor}"))
}

/// Reasons the device `major:minor` (at `path`) is in use.
pub fn in_use(path: &Path, major: u32, minor: u32) -> Vec<String> {
    let mut found = Vec::new();
    let dir = sysfs_dir(major, minor);
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    if let Some(at) = mount_point(&mounts, major, minor) {
        found.push(format!("it is mounted at {at}"));
    }
    if is_swap(path) {
        found.push("it is an active swap area (/proc/swaps)".into());
    }
    if let Some(h) = first_entry(&dir.join("holders")) {
        found.push(format!("it is held by {h} (device mapper, RAID or LVM)"));
    }
    // A partition of a disk with a mounted partition, or a disk one of
    // whose partitions is mounted.
    let disk = if dir.join("partition").exists() {
        fs::canonicalize(&dir)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
    } else {
        fs::canonicalize(&dir).ok()
    };
    if let Some(disk) = disk {
        for part in partitions(&disk) {
            let Some((ma, mi)) = dev_numbers(&part) else {
                continue;
            };
            if (ma, mi) == (major, minor) {
                continue;
            }
            if let Some(at) = mount_point(&mounts, ma, mi) {
                let name = part.file_name().unwrap_or_default().to_string_lossy();
                found.push(format!("{name}, on the same disk, is mounted at {at}"));
            }
        }
    }
    found
}

/// The mount point of `major:minor` in a mountinfo text (field 3).
fn mount_point(mountinfo: &str, major: u32, minor: u32) -> Option<String> {
    let want = format!("{major}:{minor}");
    mountinfo.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let dev = f.nth(2)?;
        let at = f.nth(1)?;
        (dev == want).then(|| at.to_string())
    })
}

fn is_swap(path: &Path) -> bool {
    let Ok(canon) = fs::canonicalize(path) else {
        return false;
    };
    fs::read_to_string("/proc/swaps")
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .any(|p| fs::canonicalize(p).is_ok_and(|c| c == canon))
}

fn first_entry(dir: &Path) -> Option<String> {
    let mut entries = fs::read_dir(dir).ok()?;
    let e = entries.next()?.ok()?;
    Some(e.file_name().to_string_lossy().into_owned())
}

/// The partitions of the disk at sysfs directory `disk` (subdirectories
/// with a `partition` file), and the disk itself.
fn partitions(disk: &Path) -> Vec<PathBuf> {
    let mut out = vec![disk.to_path_buf()];
    if let Ok(entries) = fs::read_dir(disk) {
        for e in entries.flatten() {
            if e.path().join("partition").exists() {
                out.push(e.path());
            }
        }
    }
    out
}

/// `major:minor` of the sysfs block directory `dir`.
fn dev_numbers(dir: &Path) -> Option<(u32, u32)> {
    let text = fs::read_to_string(dir.join("dev")).ok()?;
    let (a, b) = text.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Bytes read from the start of a device to look for signatures (btrfs's
/// superblock magic, at 64 KiB + 64, is the furthest).
pub const SIGNATURE_BYTES: usize = 128 << 10;

/// What the first bytes of a device hold: a partition table, a file system
/// or a swap area, by the magic numbers their formats put at fixed places.
pub fn signature(head: &[u8]) -> Option<&'static str> {
    let at = |offset: usize, magic: &[u8]| head.get(offset..offset + magic.len()) == Some(magic);
    let signatures: [(&str, usize, &[u8]); 16] = [
        ("a GPT partition table", 512, b"EFI PART"),
        ("a GPT partition table (4 KiB sectors)", 4096, b"EFI PART"),
        ("an ext2/3/4 file system", 0x438, &[0x53, 0xEF]),
        ("an XFS file system", 0, b"XFSB"),
        ("a btrfs file system", 0x10040, b"_BHRfS_M"),
        ("a swap area", 4086, b"SWAPSPACE2"),
        ("a swap area (old format)", 4086, b"SWAP-SPACE"),
        ("a FAT32 file system", 0x52, b"FAT32   "),
        ("a FAT12/16 file system", 0x36, b"FAT1"),
        ("an NTFS file system", 3, b"NTFS    "),
        ("an exFAT file system", 3, b"EXFAT   "),
        ("a LUKS encrypted volume", 0, b"LUKS\xba\xbe"),
        ("an LVM physical volume", 0x218, b"LVM2 001"),
        ("an ISO 9660 file system", 0x8001, b"CD001"),
        ("a squashfs image", 0, b"hsqs"),
        ("an F2FS file system", 0x400, &[0x10, 0x20, 0xF5, 0xF2]),
    ];
    if let Some((name, _, _)) = signatures.iter().find(|(_, o, m)| at(*o, m)) {
        return Some(name);
    }
    mbr(head).then_some("an MBR partition table")
}

/// An MBR: the 0x55AA boot signature and at least one partition entry
/// with a type and a size.
fn mbr(head: &[u8]) -> bool {
    if head.get(510..512) != Some(&[0x55, 0xAA][..]) {
        return false;
    }
    (0..4).any(|i| {
        let e = 446 + 16 * i;
        let kind = head[e + 4];
        let sectors = u32::from_le_bytes([head[e + 12], head[e + 13], head[e + 14], head[e + 15]]);
        kind != 0 && sectors != 0
    })
}

/// The first `SIGNATURE_BYTES` of `path` (fewer for a smaller device).
pub fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SIGNATURE_BYTES);
    fs::File::open(path)?
        .take(SIGNATURE_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_found_where_their_formats_put_them() {
        let mut head = vec![0u8; SIGNATURE_BYTES];
        assert_eq!(signature(&head), None);
        head[0x438..0x43a].copy_from_slice(&[0x53, 0xEF]);
        assert_eq!(signature(&head), Some("an ext2/3/4 file system"));
        let mut head = vec![0u8; SIGNATURE_BYTES];
        head[4086..4096].copy_from_slice(b"SWAPSPACE2");
        assert_eq!(signature(&head), Some("a swap area"));
        let mut head = vec![0u8; SIGNATURE_BYTES];
        head[510] = 0x55;
        head[511] = 0xAA;
        assert_eq!(
            signature(&head),
            None,
            "a boot signature without partitions"
        );
        head[446 + 4] = 0x83;
        head[446 + 12] = 1;
        assert_eq!(signature(&head), Some("an MBR partition table"));
        assert_eq!(signature(&[0u8; 16]), None, "a tiny device");
    }

    #[test]
    fn mount_points_are_read_from_mountinfo() {
        let text =
            "22 27 0:21 / /proc rw - proc proc rw\n36 27 7:3 / /mnt/x rw - ext4 /dev/loop3 rw\n";
        assert_eq!(mount_point(text, 7, 3).as_deref(), Some("/mnt/x"));
        assert_eq!(mount_point(text, 7, 4), None);
    }
}
