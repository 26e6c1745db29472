//! What every study point's configuration holds beside its own fields:
//! the study's name and ssdlab's version (checked by [`fields`]), and the
//! overrides a grid's plan may take. The studies read their configurations
//! through this; `study_points` dispatches to the studies.

use serde::de::DeserializeOwned;
use ssdlab_sim::error::InputError;

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

/// Overrides of a grid's plan (the CLI's `--sets`, `--check-sets`,
/// `--seconds` of `reproduce rt-flash`).
#[derive(Debug, Default, Clone, Copy, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridOverrides {
    pub sets: Option<usize>,
    pub check_sets: Option<usize>,
    pub seconds: Option<u64>,
}
