//! The console's settings in a profile: `columns` and `mouse`.

use super::*;

#[test]
fn columns_and_mouse_are_read_from_the_profile_as_written() {
    let fixture = config_file(
        r#"
[profiles.default]
columns = ["prompt", "Status", "colour"]
mouse = false
"#,
    );
    let settings = load(&fixture, Overrides::default(), &[]).unwrap();
    // Names are checked by the console, which knows its columns.
    assert_eq!(
        settings.columns,
        Some(vec!["prompt".into(), "Status".into(), "colour".into()])
    );
    assert_eq!(settings.mouse, Some(false));
}

#[test]
fn a_profile_without_them_leaves_the_console_its_defaults() {
    let fixture = config_file(TWO_PROFILES);
    let settings = load(&fixture, Overrides::default(), &[]).unwrap();
    assert_eq!(settings.columns, None);
    assert_eq!(settings.mouse, None);
}

#[test]
fn mouse_or_columns_of_the_wrong_kind_name_the_line() {
    for (text, line) in [
        ("[profiles.default]\nmouse = \"no\"\n", "mouse"),
        ("[profiles.default]\ncolumns = \"status\"\n", "columns"),
    ] {
        let fixture = config_file(text);
        let err = load(&fixture, Overrides::default(), &[]).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, ConfigError::Parse { .. }), "{message}");
        assert!(
            message.contains(line) && message.contains("line 2"),
            "{message}"
        );
    }
}
