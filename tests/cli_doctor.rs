//! `docdeck doctor` against the local service on port 0: a good key passes every check,
//! a wrong key and an unreachable URL fail with a line that says what to do, and the key
//! never appears in what it prints. The key's checks against the service run on both
//! stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Output;

use common::{KEY, PROJECT, ServeProcess, cli_command, docdeck_command, text};
use docdeck::server::db::DbLocation;

const WRONG_KEY: &str = "mint_wrong_fedcba9876543210";
const CHECKS: [&str; 14] = [
    "config",
    "profile",
    "base URL",
    "project",
    "key",
    "poll interval",
    "console",
    "address",
    "service",
    "key accepted",
    "clock",
    "journal",
    "analytics",
    "terminal",
];

fn doctor(home: &Path, base_url: &str, key: &str) -> Output {
    cli_command(home, base_url, key)
        .arg("doctor")
        .output()
        .unwrap()
}

/// The line of check `name`: its verdict word, then the name in a column of its own.
fn line<'a>(stdout: &'a str, name: &str) -> &'a str {
    stdout
        .lines()
        .find(|line| {
            line.get(6..)
                .is_some_and(|rest| rest.starts_with(&format!("{name}  ")))
        })
        .unwrap_or_else(|| panic!("no {name} line in:\n{stdout}"))
}

/// `docdeck serve` over `db` (either store), unseeded, with the test key.
fn service(home: &Path, db: &DbLocation) -> ServeProcess {
    ServeProcess::over_store(home, db, &[])
}

fn assert_no_key(out: &Output, key: &str) {
    let all = text(&out.stdout) + &text(&out.stderr);
    let secret = key.strip_prefix("mint_").unwrap();
    assert!(!all.contains(secret), "the key was printed:\n{all}");
}

on_both_stores_sync! {
    fn a_good_key_passes_every_check_one_line_each(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db);
        let out = doctor(home.path(), &service.base_url, KEY);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
        assert_eq!(stdout.lines().count(), CHECKS.len(), "{stdout}");
        for name in CHECKS {
            assert!(line(&stdout, name).starts_with("ok "), "{stdout}");
        }
        let url = format!("{}/", service.base_url);
        assert_eq!(
            line(&stdout, "base URL"),
            format!("ok    base URL       {url} (environment DOCDECK_BASE_URL)")
        );
        assert!(
            line(&stdout, "project").contains(&format!("{PROJECT} (environment DOCDECK_PROJECT_ID)"))
        );
        assert!(
            line(&stdout, "key").contains("shaped like an admin key"),
            "{stdout}"
        );
        assert!(
            line(&stdout, "key accepted").contains("the key works"),
            "{stdout}"
        );
        // The local service sends a Date header, so the clocks are compared, not skipped.
        assert!(
            line(&stdout, "clock").contains("agrees with the service's clock"),
            "{stdout}"
        );
        assert!(
            line(&stdout, "journal").contains("schema version"),
            "{stdout}"
        );
        assert!(
            line(&stdout, "terminal").contains("not a terminal"),
            "{stdout}"
        );
        assert_no_key(&out, KEY);
    }
}

on_both_stores_sync! {
    fn a_wrong_key_fails_and_says_what_to_do(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db);
        let out = doctor(home.path(), &service.base_url, WRONG_KEY);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert_eq!(
            line(&stdout, "key accepted"),
            "FAIL  key accepted   the service rejected the key (environment DOCDECK_API_KEY) with 401 → put a valid admin key there (keys are made on the dashboard's API keys page)"
        );
        // Everything else still passes: only the key is wrong.
        let failed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok ")).collect();
        assert_eq!(failed.len(), 1, "{stdout}");
        assert_no_key(&out, WRONG_KEY);
    }
}

#[test]
fn an_unreachable_url_fails_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    // A port that was free a moment ago: nothing listens there now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = doctor(home.path(), &url, KEY);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let service = line(&stdout, "service");
    assert!(
        service.starts_with("FAIL  service        no answer from 127.0.0.1")
            && service.contains(&format!("→ check that a service runs at {url}/")),
        "{service}"
    );
    assert!(
        line(&stdout, "key accepted").starts_with("skip "),
        "{stdout}"
    );
    assert!(line(&stdout, "clock").starts_with("skip "), "{stdout}");
    assert_no_key(&out, KEY);
}

#[test]
fn settings_from_a_profile_say_where_they_came_from() {
    let home = tempfile::tempdir().unwrap();
    let service = service(home.path(), &DbLocation::Memory);
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "default_profile = \"local\"\n[profiles.local]\nbase_url = \"{}\"\nproject_id = \"{PROJECT}\"\napi_key = \"{KEY}\"\npoll_interval = \"1s\"\n",
            service.base_url
        ),
    )
    .unwrap();
    set_mode(&config, 0o600);
    let run = || {
        docdeck_command(home.path())
            .args(["doctor", "--config"])
            .arg(&config)
            .output()
            .unwrap()
    };
    let out = run();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        line(&stdout, "config").contains("parses, mode 600 (flag --config)"),
        "{stdout}"
    );
    assert!(
        line(&stdout, "profile").ends_with("\"local\" (file: default_profile)"),
        "{stdout}"
    );
    assert!(
        line(&stdout, "key").ends_with("(file: api_key of profile \"local\")"),
        "{stdout}"
    );
    assert!(
        line(&stdout, "poll interval").ends_with("1s (file: poll_interval of profile \"local\")")
    );
    assert_no_key(&out, KEY);

    // A key in a file others can read fails the check, with the command that fixes it.
    set_mode(&config, 0o644);
    let out = run();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        line(&stdout, "permissions").contains("run chmod 600"),
        "{stdout}"
    );
    assert_no_key(&out, KEY);
}

#[test]
fn a_journal_that_cannot_open_fails_its_check() {
    let home = tempfile::tempdir().unwrap();
    let service = service(home.path(), &DbLocation::Memory);
    // The data folder is a file: no journal can be made inside it.
    let not_a_folder = home.path().join("data-file");
    std::fs::write(&not_a_folder, "").unwrap();
    let out = cli_command(home.path(), &service.base_url, KEY)
        .env("XDG_DATA_HOME", &not_a_folder)
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let journal = line(&stdout, "journal");
    assert!(
        journal.starts_with("FAIL  journal        cannot open the journal")
            && journal.contains("is a folder you can write to"),
        "{journal}"
    );
    // The service checks do not depend on it.
    assert!(line(&stdout, "key accepted").starts_with("ok "), "{stdout}");
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) {}
