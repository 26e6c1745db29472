//! Every study's point from its configuration alone: what a Dask worker
//! runs (`ssdlab._native.run_configs`) and what the GC, STB and real-time
//! flash studies run locally too, so that a point gives the same bytes
//! wherever it ran. A configuration names its study in `"study"`; the K2
//! studies' points (`PointSpec`) have none.

use serde::de::DeserializeOwned;
use ssdlab_sim::error::InputError;

/// The result (JSON) of the point `config_text` describes.
pub fn run_config_text(config_text: &str) -> Result<String, InputError> {
    let config: serde_json::Value = serde_json::from_str(config_text)
        .map_err(|e| InputError::invalid("point configuration", e.to_string()))?;
    let text = |r: Result<String, serde_json::Error>| r.expect("results serialize");
    Ok(match config.get("study").and_then(|s| s.as_str()) {
        None => text(serde_json::to_string(
            &crate::point::PointSpec::from_config(&config)?.run()?,
        )),
        Some("gc-ondemand") => text(serde_json::to_string(&crate::gc_study::run_config(
            &config,
        )?)),
        Some("stb") => text(serde_json::to_string(&crate::stb_study::run_config(
            &config,
        )?)),
        Some("rt-flash") => text(serde_json::to_string(&crate::rtflash::run_config(&config)?)),
        Some(other) => {
            return Err(InputError::invalid(
                "point configuration",
                format!(
                    "unknown study '{other}' (known: gc-ondemand, stb, rt-flash, or none for K2)"
                ),
            ))
        }
    })
}

/// A study's configuration fields, once its study and ssdlab's version are
/// checked (a point from another version is refused, as the cache's keys
/// would differ anyway).
pub fn fields<T: DeserializeOwned>(
    config: &serde_json::Value,
    study: &str,
) -> Result<T, InputError> {
    let bad = |m: String| InputError::invalid(format!("{study} point configuration"), m);
    let mut map = config
        .as_object()
        .cloned()
        .ok_or_else(|| bad("not a JSON object".into()))?;
    let version = map.remove("ssdlab");
    if version.as_ref().and_then(|v| v.as_str()) != Some(env!("CARGO_PKG_VERSION")) {
        return Err(bad(format!(
            "made by ssdlab {}, this is {}",
            version.map_or("?".into(), |v| v.to_string()),
            env!("CARGO_PKG_VERSION")
        )));
    }
    if map.remove("study").as_ref().and_then(|v| v.as_str()) != Some(study) {
        return Err(bad(format!("not a {study} point")));
    }
    serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| bad(e.to_string()))
}
