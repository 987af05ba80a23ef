//! How `docdeck` (the console) and `docdeck demo` start or refuse to, without a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{docdeck_command, text};

#[test]
fn the_console_says_exactly_what_is_missing_and_points_at_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("DOCDECK_PROJECT_ID") && err.contains("DOCDECK_API_KEY"),
        "{err}"
    );
    assert!(err.contains("docdeck demo"), "{err}");
    assert!(out.stdout.is_empty());
    // With a project but no key, only the key is asked for.
    let out = docdeck_command(home.path())
        .env("DOCDECK_PROJECT_ID", "p1")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(
        !err.contains("DOCDECK_PROJECT_ID") && err.contains("DOCDECK_API_KEY"),
        "{err}"
    );
    assert!(err.contains("docdeck demo"), "{err}");
}

#[test]
fn without_a_terminal_the_console_refuses_and_names_the_script_commands() {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path())
        .env("DOCDECK_PROJECT_ID", "p1")
        .env("DOCDECK_API_KEY", "mint_x_0123456789")
        .env("DOCDECK_BASE_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("needs a terminal") && err.contains("docdeck jobs"),
        "{err}"
    );
    assert!(
        !err.contains("mint_x_0123456789"),
        "the key never appears: {err}"
    );
    let out = docdeck_command(home.path()).arg("demo").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("needs a terminal"));
}

#[test]
fn console_flags_are_not_taken_by_subcommands() {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path())
        .args(["--read-only", "jobs", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot be used with"),
        "{}",
        text(&out.stderr)
    );
}

/// The console started with a profile whose last lines are `console`.
fn console_with_profile(home: &std::path::Path, console: &str) -> std::process::Output {
    let config = home.join("config.toml");
    let profile = "[profiles.default]\nbase_url = \"http://127.0.0.1:9\"\nproject_id = \"p1\"\n";
    std::fs::write(&config, format!("{profile}{console}")).unwrap();
    docdeck_command(home)
        .env("DOCDECK_API_KEY", "mint_x_0123456789")
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap()
}

#[test]
fn an_unknown_column_in_the_profile_stops_the_console_naming_it_and_the_valid_ones() {
    let home = tempfile::tempdir().unwrap();
    let out = console_with_profile(home.path(), "columns = [\"status\", \"colour\"]\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("\"colour\""), "{err}");
    assert!(
        err.contains("status, id, age, changed, model, repository, pr, prompt"),
        "{err}"
    );
    assert!(err.contains("config.toml"), "says which file: {err}");
    let out = console_with_profile(home.path(), "columns = []\n");
    assert!(
        text(&out.stderr).contains("columns is empty"),
        "{}",
        text(&out.stderr)
    );
    // A good list goes on to the next check (here: no terminal).
    let out = console_with_profile(
        home.path(),
        "columns = [\"prompt\", \"status\"]\nmouse = false\n",
    );
    assert!(
        text(&out.stderr).contains("needs a terminal"),
        "{}",
        text(&out.stderr)
    );
}
