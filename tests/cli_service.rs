//! `docdeck serve`, `docdeck import` and `docdeck visitors` as processes: the listening
//! line, generated keys, signals, flags, imports and the visitor output formats. What is
//! stored (views imported, the demo seed, keys, jobs kept across a stop) is checked on
//! both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{
    DEADLINE, KEY, PROJECT, ServeProcess, cli_command, db_arg, docdeck_command, run_cli, text, view,
};
use docdeck::server::db::{DbLocation, StoreError};
use docdeck::server::store::Value;
use serde_json::Value as Json;

fn views_file(dir: &Path, lines: &[String]) -> std::path::PathBuf {
    let path = dir.join("views.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

on_both_stores_sync! {
    fn import_then_visitors_in_every_format(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
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
            "project demo: 4 views added",
            "the shape of a log's summary"
        );
        // An empty project is refused before anything is read or recognised.
        let log = home.path().join("access.log");
        std::fs::write(
            &log,
            "203.0.113.9 - - [01/Mar/2024:10:00:00 +0000] \"GET /a HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0\"\n",
        )
        .unwrap();
        let empty = docdeck_command(home.path())
            .args([
                "import",
                "--db",
                db_arg,
                "--project",
                "",
                log.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert_eq!(empty.status.code(), Some(2));
        let said = text(&empty.stderr);
        assert!(said.contains("--project must not be empty"), "{said}");
        assert!(!said.contains("reading"), "{said}");
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
        let page: Json = serde_json::from_slice(&json.stdout).unwrap();
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
            table.contains("human 2  AI 1  total 2  AI share 50.0%"),
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
}

on_both_stores_sync! {
    fn a_bad_line_stops_the_import_and_keeps_nothing(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
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
            serde_json::from_slice::<Json>(&page.stdout).unwrap()["totals"]["total"],
            0
        );
    }
}

/// Sends `signal` to the service and waits for it to exit; returns its status and every
/// line it wrote on standard error.
fn stop(mut service: ServeProcess, signal: &str) -> (std::process::ExitStatus, Vec<String>) {
    common::signal(service.child.id(), signal);
    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = service.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "docdeck serve did not stop on {signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = service.stderr.iter().collect();
    (status, stderr)
}

/// Lines of standard error as one line, with single spaces: notices are wrapped for the
/// terminal, and the tests read them as sentences.
fn one_line(lines: &[String]) -> String {
    lines
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Views, jobs and keys of the test project, read straight from the service's database
/// (either store).
fn stored(db: &DbLocation) -> (i64, i64, i64) {
    common::with_sql(db, |sql| {
        let project = [Value::Text(PROJECT.into())];
        let mut count = |table: &str| -> Result<i64, StoreError> {
            let query = format!("SELECT COUNT(*) FROM {table} WHERE project = $1");
            sql.one(&query, &project)?.int(0)
        };
        Ok((count("views")?, count("jobs")?, count("api_keys")?))
    })
}

/// A second database on the store of `db`, empty: a file in `dir`, or a fresh PostgreSQL
/// database on the tests' server.
fn another(db: &DbLocation, dir: &Path) -> DbLocation {
    match db {
        DbLocation::Postgres(_) => DbLocation::parse(&common::pg::fresh_database().unwrap()),
        _ => DbLocation::File(dir.join("empty.sqlite")),
    }
}

on_both_stores_sync! {
    fn serve_never_mixes_demo_data_into_a_project_that_exists(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        // A project made by `import` alone, then served with the default seed.
        let imported = db;
        let file = views_file(
            home.path(),
            &[
                view("2024-03-01T10:00:00Z", "/a", "v1", "human"),
                view("2024-03-01T11:00:00Z", "/a", "v1", "ai"),
                view("2024-03-02T10:00:00Z", "/b", "v2", "human"),
                view("2024-03-09T10:00:00Z", "/c", "v3", "human"),
            ],
        );
        let out = docdeck_command(home.path())
            .args(["import", "--db", &db_arg(&imported)])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let service = ServeProcess::spawn(
            home.path(),
            &["--db", &db_arg(&imported), "--api-key", KEY],
        );
        let (_, stderr) = stop(service, "-TERM");
        assert!(
            stderr
                .iter()
                .all(|line| line.chars().count() <= 80 || line.contains(" INFO ")),
            "notices fit 80 columns: {stderr:#?}"
        );
        let stderr = one_line(&stderr);
        assert!(
            stderr.contains(
                "no demo data was added: project demo already has 4 views, 0 jobs and 0 API keys"
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("INVENTED"), "{stderr}");
        assert_eq!(stored(&imported), (4, 0, 1));

        // A project first served with --seed none, then served again with the default seed.
        let empty = another(&imported, home.path());
        let first = ServeProcess::spawn(
            home.path(),
            &[
                "--db",
                &db_arg(&empty),
                "--seed",
                "none",
                "--api-key",
                KEY,
            ],
        );
        stop(first, "-TERM");
        let again = ServeProcess::spawn(home.path(), &["--db", &db_arg(&empty)]);
        let (_, stderr) = stop(again, "-TERM");
        let stderr = one_line(&stderr);
        assert!(
            stderr.contains(
                "no demo data was added: project demo already has 0 views, 0 jobs and 1 API key"
            ),
            "{stderr}"
        );
        assert_eq!(stored(&empty), (0, 0, 1));
    }
}

on_both_stores_sync! {
    fn a_new_project_is_seeded_once_and_says_so_loudly(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
        let first = ServeProcess::spawn(home.path(), &["--db", db_arg, "--api-key", KEY]);
        let (_, stderr) = stop(first, "-TERM");
        let stderr = one_line(&stderr);
        assert!(
            stderr.contains("project demo is new in this database, so it was given INVENTED demo data")
                && stderr.contains("5 finished jobs"),
            "{stderr}"
        );
        let seeded = stored(&db);
        assert!(seeded.0 > 50_000 && seeded.1 == 5, "{seeded:?}");
        let second = ServeProcess::spawn(home.path(), &["--db", db_arg, "--api-key", KEY]);
        let (_, stderr) = stop(second, "-TERM");
        let stderr = stderr.join("\n");
        assert!(
            !stderr.contains("demo data"),
            "a restart says nothing: {stderr}"
        );
        assert_eq!(stored(&db), seeded, "nothing added at a restart");
    }
}

on_both_stores_sync! {
    fn serve_prints_one_line_generates_a_key_once_and_stops_on_sigterm(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
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
        assert_eq!(
            status.code(),
            Some(143),
            "as a shell reports SIGTERM: {status}"
        );
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
        // Without --agent-command, it says its jobs are not real work and its links lead
        // nowhere real.
        let said = stderr.join(" ");
        assert!(
            said.contains("the agent is simulated")
                && said.contains("(https://forge.invalid/acme/docs/pull/N) are made up"),
            "{stderr:?}"
        );

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
        assert!(
            !common::stored_anywhere(&db, &key),
            "only a hash of the key is stored"
        );
    }
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

on_both_stores_sync! {
    fn sighup_stops_serve_cleanly_with_129_and_jobs_resume(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let db_text = db_arg(&db);
        let db_arg = db_text.as_str();
        let args = [
            "--db",
            db_arg,
            "--seed",
            "none",
            "--api-key",
            KEY,
            "--agent-delay-ms",
            "60000",
        ];
        let service = ServeProcess::spawn(home.path(), &args);
        let created = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "create", "Fix the typos", "--format", "json"],
        );
        assert_eq!(created.status.code(), Some(0), "{}", text(&created.stderr));
        let job: Json = serde_json::from_slice(&created.stdout).unwrap();
        let (status, stderr) = stop(service, "-HUP");
        assert_eq!(
            status.code(),
            Some(129),
            "as a shell reports SIGHUP: {stderr:?}"
        );
        assert!(
            stderr
                .iter()
                .any(|line| line.contains("SIGHUP received: shutting down")),
            "{stderr:?}"
        );
        let again = ServeProcess::spawn(home.path(), &args);
        let id = job["id"].as_str().unwrap();
        let got = run_cli(
            home.path(),
            &again.base_url,
            &["jobs", "get", id, "--format", "json"],
        );
        let job: Json = serde_json::from_slice(&got.stdout).unwrap();
        assert_eq!(job["status"], "active", "the job is kept and resumes");
    }
}

#[test]
fn serve_takes_a_host_name_and_says_when_it_cannot_resolve_one() {
    let home = tempfile::tempdir().unwrap();
    let mut child = docdeck_command(home.path())
        .args([
            "serve",
            "--db",
            ":memory:",
            "--seed",
            "none",
            "--api-key",
            KEY,
        ])
        .args(["--addr", "localhost:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.starts_with("listening on http://127.0.0.1:") && !line.ends_with(":0\n"),
        "{line:?}"
    );
    for (addr, code, hint) in [
        (
            "nosuchhost.invalid:8787",
            1,
            "cannot resolve --addr nosuchhost.invalid:8787",
        ),
        ("localhost", 2, "is not HOST:PORT"),
        ("localhost:http", 2, "is not HOST:PORT"),
    ] {
        let out = docdeck_command(home.path())
            .args(["serve", "--db", ":memory:", "--addr", addr])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{addr}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(hint),
            "{addr}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn import_refuses_a_missing_file_and_a_path_without_a_slash() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let db_arg = db.to_str().unwrap();
    let missing = docdeck_command(home.path())
        .args(["import", "--db", db_arg, "no-such-views.jsonl"])
        .output()
        .unwrap();
    assert_eq!(
        missing.status.code(),
        Some(1),
        "a local file failed: 1, as documented"
    );
    let stderr = text(&missing.stderr);
    assert!(
        stderr.contains("cannot open no-such-views.jsonl")
            && stderr.contains("check the path, or use - for standard input"),
        "{stderr}"
    );
    let file = views_file(
        home.path(),
        &[
            view("2024-03-01T10:00:00Z", "/a", "v1", "human"),
            view("2024-03-01T11:00:00Z", "quickstart", "v2", "human"),
        ],
    );
    let out = docdeck_command(home.path())
        .args(["import", "--db", db_arg])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 2: path must start with / (such as /quickstart), not \"quickstart\"")
            && stderr.contains("nothing was imported"),
        "{stderr}"
    );
}

/// Whether the service has begun to write `db`: the SQLite file is there, or PostgreSQL's
/// database has a table (looked for with a plain client, which makes none).
fn begun(db: &DbLocation) -> bool {
    match db {
        DbLocation::File(path) => path.exists(),
        _ => common::pg::tables_in(&db_arg(db)) > 0,
    }
}

on_both_stores_sync! {
    /// The handlers are in place before the service starts: a signal that comes while it is
    /// still preparing (here, writing the demo seed) or the moment the listening line is out
    /// stops it cleanly with 143, never with the default action of the signal.
    fn a_signal_during_start_up_still_stops_cleanly(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let mut child = docdeck_command(home.path())
            .args(["serve", "--addr", "127.0.0.1:0", "--api-key", KEY, "--db"])
            .arg(db_arg(&db))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + DEADLINE;
        while !begun(&db) {
            assert!(Instant::now() < deadline, "the database was never created");
            std::thread::sleep(Duration::from_millis(2));
        }
        common::signal(child.id(), "-TERM");
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "docdeck serve did not stop");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(143), "{status}");
    }
}
