//! Where the connection flags may stand, the floor on the poll interval, and what
//! configuration errors say, against `docdeck serve` on port 0.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{KEY, PROJECT, ServeProcess, docdeck_command, run_cli, text};

fn serve(home: &Path) -> ServeProcess {
    ServeProcess::spawn(
        home,
        &[
            "--db",
            ":memory:",
            "--seed",
            "none",
            "--api-key",
            KEY,
            "--agent-delay-ms",
            "30",
        ],
    )
}

/// A config file whose default profile points at a port that answers nothing, and whose
/// `local` profile points at `base_url`.
fn write_profiles(home: &Path, base_url: &str) {
    let dir = home.join("config").join("docdeck");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "default_profile = \"dead\"\n\
             [profiles.dead]\nbase_url = \"http://127.0.0.1:9\"\nproject_id = \"{PROJECT}\"\napi_key = \"{KEY}\"\n\
             [profiles.local]\nbase_url = \"{base_url}\"\nproject_id = \"{PROJECT}\"\napi_key = \"{KEY}\"\n"
        ),
    )
    .unwrap();
}

#[test]
fn connection_flags_work_before_the_command_as_after_it() {
    let home = tempfile::tempdir().unwrap();
    let service = serve(home.path());
    write_profiles(home.path(), &service.base_url);
    let run = |line: &[&str]| {
        let out = docdeck_command(home.path()).args(line).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{line:?}: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    };
    let created = run(&["--profile", "local", "jobs", "create", "Hi"]);
    let job: serde_json::Value = serde_json::from_str(&created).unwrap();
    let id = job["id"].as_str().unwrap();
    run(&["jobs", "--profile", "local", "get", id]);
    run(&["jobs", "get", id, "--profile", "local"]);
    run(&["--profile", "local", "visitors"]);
    run(&["visitors", "--profile", "local"]);
    // The flag written last wins, whichever side it is on.
    run(&["--profile", "dead", "visitors", "--profile", "local"]);
    run(&[
        "--base-url",
        &service.base_url,
        "--profile",
        "dead",
        "jobs",
        "get",
        id,
    ]);
    let dead = docdeck_command(home.path())
        .args(["visitors"])
        .output()
        .unwrap();
    assert_eq!(
        dead.status.code(),
        Some(1),
        "the default profile is used otherwise"
    );
}

#[test]
fn poll_intervals_under_500ms_are_refused_before_anything_is_sent() {
    let home = tempfile::tempdir().unwrap();
    // Nothing listens on port 9: a request would fail with exit 1, not 2.
    let url = "http://127.0.0.1:9";
    for (args, env) in [
        (
            &["jobs", "get", "job_x", "--wait", "--poll-interval", "0s"][..],
            None,
        ),
        (
            &["--poll-interval", "100ms", "jobs", "get", "job_x", "--wait"],
            None,
        ),
        (&["jobs", "get", "job_x", "--wait"], Some("10ms")),
    ] {
        let mut command = common::cli_command(home.path(), url, KEY);
        if let Some(value) = env {
            command.env("DOCDECK_POLL_INTERVAL", value);
        }
        let out = command.args(args).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("too short") && stderr.contains("500ms"),
            "{stderr}"
        );
    }
    let dir = home.path().join("config").join("docdeck");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[profiles.default]\npoll_interval = \"1ms\"\n",
    )
    .unwrap();
    let out = run_cli(home.path(), url, &["jobs", "get", "job_x"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("poll_interval of profile"), "{stderr}");
}

#[test]
fn a_broken_config_file_is_shown_with_its_line_and_caret() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config").join("docdeck");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[profiles.x]\nproject_id = \"open\n",
    )
    .unwrap();
    let out = docdeck_command(home.path())
        .args(["jobs", "list"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.lines().count() >= 4, "{stderr}");
    assert!(
        stderr.contains("config.toml is not valid:") && stderr.contains('^'),
        "{stderr}"
    );
}

#[test]
fn a_missing_key_points_at_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path())
        .env("DOCDECK_PROJECT_ID", "p")
        .args(["jobs", "get", "job_x"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("DOCDECK_API_KEY") && stderr.contains("docdeck demo"),
        "{stderr}"
    );
}
