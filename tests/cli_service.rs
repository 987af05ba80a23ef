//! `docdeck serve`, `docdeck import` and `docdeck visitors` as processes: the listening
//! line, generated keys, signals, flags, imports and the visitor output formats.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{
    DEADLINE, KEY, PROJECT, ServeProcess, cli_command, docdeck_command, run_cli, text, view,
};
use serde_json::Value;

fn views_file(dir: &Path, lines: &[String]) -> std::path::PathBuf {
    let path = dir.join("views.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn import_then_visitors_in_every_format() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let db_arg = db.to_str().unwrap();
    let good = views_file(
        home.path(),
        &[
            view("2024-03-01T10:00:00Z", "/a", "v1", "human"),
            view("2024-03-01T11:00:00Z", "/a", "v1", "ai"),
            view("2024-03-02T10:00:00Z", "/b", "v2", "human"),
            view("2024-03-09T10:00:00Z", "/c", "v3", "human"),
        ],
    );
    let imported = docdeck_command(home.path())
        .args([
            "import",
            "--db",
            db_arg,
            "--project",
            PROJECT,
            good.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        text(&imported.stdout).trim(),
        "imported 4 views into project demo"
    );
    let service = ServeProcess::spawn(
        home.path(),
        &["--db", db_arg, "--seed", "none", "--api-key", KEY],
    );
    let url = &service.base_url;
    let range = ["--from", "2024-03-01", "--to", "2024-03-08"];

    let csv = run_cli(
        home.path(),
        url,
        &[&["visitors", "--format", "csv"][..], &range].concat(),
    );
    assert_eq!(
        text(&csv.stdout),
        "path,human,ai,total\n/a,1,1,1\n/b,1,0,1\n"
    );
    let json = run_cli(
        home.path(),
        url,
        &[&["visitors", "--format", "json"][..], &range].concat(),
    );
    let page: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        page["totals"],
        serde_json::json!({"human": 2, "ai": 1, "total": 2})
    );
    let table = run_cli(
        home.path(),
        url,
        &[
            &[
                "visitors", "--format", "table", "--limit", "1", "--page", "2",
            ][..],
            &range,
        ]
        .concat(),
    );
    let table = text(&table.stdout);
    assert!(
        table.contains("human 2  ai 1  total 2  (ai share 50.0%)"),
        "{table}"
    );
    assert!(
        table.contains("/b") && table.ends_with("page 2 · rows 2–2\n"),
        "{table}"
    );
    let all = run_cli(
        home.path(),
        url,
        &["visitors", "--all", "--limit", "1", "--format", "csv"],
    );
    assert_eq!(
        text(&all.stdout).lines().count(),
        4,
        "{}",
        text(&all.stdout)
    );
}

#[test]
fn a_bad_line_stops_the_import_and_keeps_nothing() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let db_arg = db.to_str().unwrap();
    let file = views_file(
        home.path(),
        &[
            view("2024-03-01T10:00:00Z", "/a", "v1", "human"),
            view("2024-03-01T11:00:00Z", "/a", "v2", "crawler"),
        ],
    );
    let out = docdeck_command(home.path())
        .args(["import", "--db", db_arg, file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 2: traffic must be \"human\" or \"ai\"")
            && stderr.contains("nothing was imported"),
        "{stderr}"
    );
    let service = ServeProcess::spawn(
        home.path(),
        &["--db", db_arg, "--seed", "none", "--api-key", KEY],
    );
    let page = run_cli(
        home.path(),
        &service.base_url,
        &["visitors", "--format", "json"],
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&page.stdout).unwrap()["totals"]["total"],
        0
    );
}

#[test]
fn serve_prints_one_line_generates_a_key_once_and_stops_on_sigterm() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let db_arg = db.to_str().unwrap();
    let mut first = ServeProcess::spawn(home.path(), &["--db", db_arg, "--seed", "none"]);
    common::signal(first.child.id(), "-TERM");
    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = first.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "docdeck serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    assert_eq!(
        first.stdout.iter().count(),
        0,
        "stdout holds only the listening line"
    );
    let stderr: Vec<String> = first.stderr.iter().collect();
    let key_line = stderr
        .iter()
        .position(|l| l.contains("generated an API key"))
        .expect("a key is generated");
    let key = stderr[key_line + 1].trim().to_owned();
    assert!(key.starts_with("mint_"), "{key}");

    let second = ServeProcess::spawn(home.path(), &["--db", db_arg, "--seed", "none"]);
    let out = run_cli(home.path(), &second.base_url, &["jobs", "create", "x"]);
    assert_eq!(out.status.code(), Some(1), "the test key is not registered");
    let with_generated = cli_command(home.path(), &second.base_url, &key)
        .args(["jobs", "create", "Using the generated key"])
        .output()
        .unwrap();
    assert_eq!(
        with_generated.status.code(),
        Some(0),
        "{}",
        text(&with_generated.stderr)
    );
    drop(second);
    let stored = std::fs::read(&db).unwrap();
    assert!(
        !String::from_utf8_lossy(&stored).contains(&key),
        "only a hash of the key is stored"
    );
}

#[test]
fn serve_refuses_bad_flags_clearly() {
    let home = tempfile::tempdir().unwrap();
    for (args, hint) in [
        (&["--agent-outcomes", "pr=x"][..], "whole number"),
        (&["--archive-after", "soon"][..], "duration"),
        (&["--rate-limit", "0"][..], "--rate-limit"),
        (&["--repository", "acme/docs"][..], "--repository"),
    ] {
        let out = docdeck_command(home.path())
            .args(["serve", "--db", ":memory:"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(hint),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
