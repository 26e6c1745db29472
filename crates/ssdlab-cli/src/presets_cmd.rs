use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::{Preset, PRESETS};
use ssdlab_sim::ssd::gc::REGISTRY;

#[derive(clap::Args)]
pub struct Args {
    /// Print this preset's TOML (a built-in name) or validate a TOML file.
    #[arg(long)]
    show: Option<String>,
}

pub fn run(a: Args) -> Result<(), InputError> {
    if let Some(name) = a.show {
        let preset = Preset::load(&name)?;
        match PRESETS.iter().find(|p| p.name == name) {
            Some(p) => print!("{}", p.source),
            None => print!(
                "{}",
                preset
                    .to_toml()
                    .map_err(|e| InputError::invalid(&name, e))?
            ),
        }
        return Ok(());
    }
    println!(
        "{:<20} {:>9} {:>9} {:>7} {:>6}  description",
        "preset", "raw GiB", "user GiB", "planes", "OP"
    );
    for p in PRESETS {
        let cfg = Preset::load_device(p.name)?;
        let l = cfg.layout();
        let gib = |pages: u32| pages as f64 * l.page_size as f64 / (1u64 << 30) as f64;
        println!(
            "{:<20} {:>9.1} {:>9.1} {:>7} {:>5.0}%  {}",
            p.name,
            gib(l.physical_pages),
            gib(l.logical_pages),
            l.planes,
            cfg.ftl.over_provisioning * 100.0,
            cfg.description
        );
    }
    println!();
    println!("GC victim policies:");
    for e in REGISTRY {
        println!("  {:<18} {}", e.name, e.help);
    }
    println!();
    println!("Page allocation policies (ftl.allocation):");
    for e in ssdlab_sim::ssd::alloc::REGISTRY {
        println!("  {:<14} {}", e.name, e.help);
    }
    println!();
    println!("Die schedulers (controller.die_scheduler):");
    for e in ssdlab_sim::ssd::die_sched::DIE_SCHEDULERS {
        println!("  {:<14} {}", e.name, e.help);
    }
    Ok(())
}
