//! A policy named in a preset, parsed into a handle on its registry entry
//! when the preset is read: an unknown name is an error of the preset (with
//! its line), and a device built from a parsed preset cannot meet one.
//! Presets and caches still see the name: a choice reads and writes as the
//! plain string.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// One registered policy: its name (as a preset gives it), a one-line
/// description (for listings) and its constructor.
pub struct Entry<Make> {
    pub name: &'static str,
    pub help: &'static str,
    pub make: Make,
}

/// A registry of named policies (one file per policy, one line per entry).
pub trait Registry: 'static {
    /// What an entry is called in messages ("GC policy").
    const KIND: &'static str;
    /// The constructor's type.
    type Make: 'static;
    const ENTRIES: &'static [Entry<Self::Make>];

    /// Every name, in registry order.
    fn names() -> Vec<&'static str> {
        Self::ENTRIES.iter().map(|e| e.name).collect()
    }
}

/// One entry of registry `R`, chosen by name.
pub struct Choice<R: Registry> {
    index: usize,
    registry: PhantomData<R>,
}

impl<R: Registry> Choice<R> {
    /// The entry called `name`, or a message listing the known names.
    pub fn parse(name: &str) -> Result<Self, String> {
        R::ENTRIES
            .iter()
            .position(|e| e.name == name)
            .map(|index| Choice {
                index,
                registry: PhantomData,
            })
            .ok_or_else(|| {
                format!(
                    "unknown {} '{name}' (known: {})",
                    R::KIND,
                    R::names().join(", ")
                )
            })
    }

    pub fn entry(&self) -> &'static Entry<R::Make> {
        &R::ENTRIES[self.index]
    }

    pub fn name(&self) -> &'static str {
        self.entry().name
    }
}

impl<R: Registry> Clone for Choice<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Registry> Copy for Choice<R> {}

impl<R: Registry> PartialEq for Choice<R> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl<R: Registry> Eq for Choice<R> {}

impl<R: Registry> fmt::Debug for Choice<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.name())
    }
}

impl<R: Registry> fmt::Display for Choice<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl<R: Registry> std::str::FromStr for Choice<R> {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::parse(s)
    }
}

impl<R: Registry> Serialize for Choice<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de, R: Registry> Deserialize<'de> for Choice<R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Self::parse(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Colours;
    impl Registry for Colours {
        const KIND: &'static str = "colour";
        type Make = u8;
        const ENTRIES: &'static [Entry<u8>] = &[
            Entry {
                name: "red",
                help: "",
                make: 1,
            },
            Entry {
                name: "blue",
                help: "",
                make: 2,
            },
        ];
    }

    #[test]
    fn parses_known_names_and_lists_them_for_unknown_ones() {
        let blue: Choice<Colours> = "blue".parse().unwrap();
        assert_eq!((blue.name(), blue.entry().make), ("blue", 2));
        let err = Choice::<Colours>::parse("green").unwrap_err();
        assert_eq!(err, "unknown colour 'green' (known: red, blue)");
    }

    #[test]
    fn reads_and_writes_as_the_plain_name() {
        let red: Choice<Colours> = serde_json::from_str("\"red\"").unwrap();
        assert_eq!(serde_json::to_string(&red).unwrap(), "\"red\"");
        assert!(serde_json::from_str::<Choice<Colours>>("\"teal\"").is_err());
    }
}
