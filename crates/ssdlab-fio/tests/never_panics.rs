//! The parser must never panic, whatever it is fed.

use proptest::prelude::*;
use ssdlab_fio::{parse_str, parse_str_with, ParseOptions};

const VALID: &str = "[global]\nioengine=libaio\ndirect=1\nbs=4k,64k\nrw=randrw:4\n\
time_based\nruntime=100s\nbssplit=4k/50:8k/\nrandom_distribution=zoned:60/10:40/90\n\n\
[bg]\niodepth=32\nprioclass=2\noffset=15%\nsize=15%\nnumjobs=2\nrate=1m,\n\
cmdprio_percentage=10,20\npercentile_list=50:99.9\n\n[rt]\nioengine=psync\nprioclass=1\n\
prio=0\nthinktime=2000\noffset=45%\nsize=5%\nstonewall\nstartdelay=1-2s\n";

fn env(k: &str) -> Option<String> {
    k.len().is_multiple_of(2).then(|| "4k".to_string())
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[".to_string()),
        Just("]".to_string()),
        Just("=".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("/".to_string()),
        Just("%".to_string()),
        Just("-".to_string()),
        Just(";".to_string()),
        Just("\n".to_string()),
        Just("${X}".to_string()),
        Just("0x".to_string()),
        Just("99999999999999999999".to_string()),
        Just("numjobs=4096\n".to_string()),
        Just("include /nonexistent\n".to_string()),
        Just("[global]\n".to_string()),
        "[a-z_]{1,12}".prop_map(|s| s),
        "[0-9.kmgtKMGTiIbB%s]{1,8}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text(s in any::<String>()) {
        let _ = parse_str(&s, "fuzz.fio", &env);
        let _ = parse_str_with(&s, "fuzz.fio", &env, &ParseOptions { ignore_unknown: true });
    }

    #[test]
    fn arbitrary_lines(lines in proptest::collection::vec("[ -~]{0,40}", 0..20)) {
        let text = format!("[job]\n{}", lines.join("\n"));
        let _ = parse_str(&text, "fuzz.fio", &env);
    }

    #[test]
    fn mutated_valid_file(
        edits in proptest::collection::vec((0usize..VALID.len(), 0usize..4, fragment()), 1..8)
    ) {
        let mut text = VALID.to_string();
        for (pos, how, frag) in edits {
            let mut p = pos.min(text.len());
            while !text.is_char_boundary(p) {
                p -= 1;
            }
            match how {
                0 => text.insert_str(p, &frag),
                1 => {
                    let mut end = (p + frag.len()).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(p..end, &frag);
                }
                2 => {
                    let mut end = (p + 3).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(p..end, "");
                }
                _ => text.push_str(&frag),
            }
        }
        let _ = parse_str(&text, "fuzz.fio", &env);
        let _ = parse_str_with(&text, "fuzz.fio", &env, &ParseOptions { ignore_unknown: true });
    }
}

#[test]
fn valid_seed_parses() {
    let jf = parse_str(VALID, "seed.fio", &env).unwrap();
    assert_eq!(jf.jobs.len(), 3);
    assert_eq!(jf.jobs[2].group_id, 1);
}
