//! Tests of reading the person's keys, theme and alert command, each with its line.

use super::prefs::PrefsError;
use super::*;

fn read(text: &str) -> Result<Preferences, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    read_preferences(Some(&path))
}

fn line_of_error(text: &str) -> (usize, String) {
    match read(text) {
        Err(ConfigError::Preference {
            error: PrefsError { line, message },
            ..
        }) => (line, message),
        other => panic!("not a preference error: {other:?}"),
    }
}

#[test]
fn keys_are_read_with_their_context_action_and_line() {
    let prefs = read(
        "[keys.global]\nquit = \"ctrl-q\"\n\n[keys.jobs]\ndown = [\"j\", \"down\"]\nnew_job = []\n",
    )
    .unwrap();
    let seen: Vec<(&str, &str, Vec<&str>, usize)> = prefs
        .keys
        .iter()
        .map(|o| {
            let keys = o.keys.iter().map(String::as_str).collect();
            (o.context.as_str(), o.action.as_str(), keys, o.line)
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("global", "quit", vec!["ctrl-q"], 2),
            ("jobs", "down", vec!["j", "down"], 5),
            ("jobs", "new_job", vec![], 6),
        ]
    );
}

#[test]
fn a_key_of_the_wrong_kind_names_its_line() {
    let (line, message) = line_of_error("[keys.jobs]\nup = \"k\"\ndown = 3\n");
    assert_eq!(line, 3);
    assert!(message.contains("[keys.jobs] down"), "{message}");
}

#[test]
fn the_theme_is_a_name_or_a_table_with_styles() {
    let plain = read("# colours\ntheme = \"light\"\n").unwrap();
    assert_eq!(
        plain.theme,
        Some(Located {
            value: "light".into(),
            line: 2
        })
    );
    let table =
        read("[theme]\nname = \"dark\"\n\n[theme.styles]\nselected = \"black on yellow bold\"\n")
            .unwrap();
    assert_eq!(
        table.theme.map(|t| (t.value, t.line)),
        Some(("dark".into(), 2))
    );
    assert_eq!(
        table.styles,
        vec![StyleOverride {
            element: "selected".into(),
            style: "black on yellow bold".into(),
            line: 5
        }]
    );
}

#[test]
fn notify_command_is_an_argument_list_and_a_profile_may_have_its_own() {
    let text = "notify_command = [\"notify-send\", \"docdeck\"]\n";
    let prefs = read(text).unwrap();
    assert_eq!(
        prefs.notify_command,
        Some(vec!["notify-send".to_owned(), "docdeck".to_owned()])
    );
    let (line, message) = line_of_error("\nnotify_command = \"notify-send docdeck\"\n");
    assert_eq!(line, 2);
    assert!(message.contains("never run through a shell"), "{message}");
    let (_, message) = line_of_error("notify_command = []\n");
    assert!(message.contains("is empty"), "{message}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let text = "notify_command = [\"top\"]\n[profiles.prod]\nproject_id = \"p\"\nnotify_command = [\"prod-alert\"]\n";
    std::fs::write(&path, text).unwrap();
    let overrides = Overrides {
        config: Some(path),
        profile: Some("prod".into()),
        ..Overrides::default()
    };
    let settings = Settings::load(&overrides, &|_| None).unwrap();
    assert_eq!(
        settings.preferences.notify_command,
        Some(vec!["prod-alert".to_owned()])
    );
}

#[test]
fn an_unknown_setting_in_the_theme_table_is_refused() {
    let err = read("[theme]\nname = \"dark\"\ncolour = \"red\"\n").unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
}
