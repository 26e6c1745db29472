//! Unit tests of the option table and value parsing.

use super::*;

#[test]
fn table_has_unique_names() {
    let mut seen = std::collections::HashSet::new();
    for o in OPTIONS {
        assert!(seen.insert(o.name), "duplicate {}", o.name);
        for a in o.aliases {
            assert!(seen.insert(a), "duplicate alias {a}");
        }
        assert!(!o.help.is_empty());
    }
}

#[test]
fn aliases_resolve() {
    assert_eq!(find("readwrite").unwrap().name, "rw");
    assert_eq!(find("blocksize").unwrap().name, "bs");
    assert_eq!(find("timeout").unwrap().name, "runtime");
    assert!(find("RW").is_none());
    assert!(find("nosuch").is_none());
}

#[test]
fn flag_forms() {
    // fio's BOOL needs a value; its STR_SET (a flag) alone means 1.
    assert!(parse_value(Kind::Bool, None, 1024).is_err());
    assert_eq!(parse_value(Kind::Flag, None, 1024), Ok(Value::Bool(true)));
    assert_eq!(
        parse_value(Kind::Flag, Some("0"), 1024),
        Ok(Value::Bool(false))
    );
    assert_eq!(
        parse_value(Kind::Bool, Some("0"), 1024),
        Ok(Value::Bool(false))
    );
    assert!(parse_value(Kind::Int { min: 1, max: 9 }, None, 1024).is_err());
    assert_eq!(
        parse_value(Kind::OptStr, None, 1024),
        Ok(Value::Str(String::new()))
    );
}
