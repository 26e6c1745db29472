//! Helpers shared by the CLI's test binaries (each includes this module).

/// The text of a blkparse trace: one queued (`Q`) 4 KiB request per event
/// `(time ns, RWBS, start sector)`, in time order.
pub fn blkparse_text(mut events: Vec<(u64, &str, u64)>) -> String {
    events.sort();
    events
        .iter()
        .enumerate()
        .map(|(i, (t, rwbs, sector))| {
            format!(
                "  8,0 0 {} {}.{:09} 100 Q {rwbs} {sector} + 8 [t]\n",
                i + 1,
                t / 1_000_000_000,
                t % 1_000_000_000
            )
        })
        .collect()
}
