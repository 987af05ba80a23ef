//! The API key never leaves the places it is meant for. A session of the service, the CLI
//! (including failures, faults and tracing at its most verbose) and the console in a
//! pseudo-terminal is run with distinctive keys; then every byte they wrote (standard
//! output and error, the screen, the log files, the journal with its WAL, the service's
//! database, on either store) and the committed insta snapshots are searched for them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::pty::Pty;
use common::{ServeProcess, cli_command, db_arg, text};
use docdeck::server::db::DbLocation;

const SECRET: &str = "mint_S3CRET_never_print_4f9a1c";
const WRONG: &str = "mint_WRONG_never_print_77b1e0";

/// Every occurrence of either key in `bytes`, as a description for the failure message.
fn leaks(what: &str, bytes: &[u8]) -> Vec<String> {
    [SECRET, WRONG, common::KEY]
        .iter()
        .filter(|key| {
            bytes
                .windows(key.len())
                .any(|window| window == key.as_bytes())
        })
        .map(|key| format!("{what} contains {key}"))
        .collect()
}

fn files_under(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, found);
        } else {
            found.push(path);
        }
    }
}

fn scan_files(dir: &Path, leaked: &mut Vec<String>, scanned: &mut usize) {
    let mut files = Vec::new();
    files_under(dir, &mut files);
    for file in files {
        // The test's own config files hold keys on purpose; everything else must not.
        if file.extension().is_some_and(|ext| ext == "toml") {
            continue;
        }
        let bytes = std::fs::read(&file).unwrap();
        *scanned += 1;
        leaked.extend(leaks(&file.display().to_string(), &bytes));
    }
}

on_both_stores_sync! {
    fn no_key_appears_in_output_logs_journal_database_or_snapshots(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let mut leaked = Vec::new();
        let mut scanned = 0;
        let trace = [("DOCDECK_LOG", "trace")];

        let serve = ServeProcess::spawn_env(
            home.path(),
            &[
                "--db",
                &db_arg(&db),
                "--api-key",
                SECRET,
                "--agent-delay-ms",
                "50",
            ],
            &trace,
        );
        let faulty = ServeProcess::spawn_env(
            home.path(),
            &[
                "--db",
                ":memory:",
                "--seed",
                "none",
                "--api-key",
                SECRET,
                "--fault-rate",
                "0.3",
                "--drop-rate",
                "0.3",
                "--garbage-rate",
                "0.3",
            ],
            &trace,
        );
        let run = |base_url: &str, key: &str, args: &[&str], leaked: &mut Vec<String>| {
            let out = cli_command(home.path(), base_url, key)
                .env("DOCDECK_LOG", "trace")
                .args(args)
                .output()
                .unwrap();
            let what = format!("docdeck {} ", args.join(" "));
            leaked.extend(leaks(&format!("{what}stdout"), &out.stdout));
            leaked.extend(leaks(&format!("{what}stderr"), &out.stderr));
            out
        };

        let created = run(
            &serve.base_url,
            SECRET,
            &[
                "jobs",
                "create",
                "fix the links",
                "--wait",
                "--format",
                "json",
            ],
            &mut leaked,
        );
        assert!(created.status.success(), "{}", text(&created.stderr));
        // --wait prints the job at each status, one JSON document per line.
        let last = text(&created.stdout)
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned();
        let job: serde_json::Value = serde_json::from_str(&last).unwrap();
        let id = job["id"].as_str().unwrap().to_owned();
        for args in [
            vec!["jobs", "get", id.as_str()],
            vec!["jobs", "message", id.as_str(), "and the images"],
            vec!["jobs", "list"],
            vec![
                "visitors",
                "--from",
                "2026-01-01",
                "--all",
                "--format",
                "csv",
            ],
            vec!["visitors", "--from", "not a date"],
            vec!["jobs", "get", "job_does_not_exist"],
            vec!["doctor"],
        ] {
            run(&serve.base_url, SECRET, &args, &mut leaked);
        }
        // A wrong key: refused, and not echoed either.
        let refused = run(&serve.base_url, WRONG, &["jobs", "get", &id], &mut leaked);
        assert_eq!(refused.status.code(), Some(1));
        let doctor = run(&serve.base_url, WRONG, &["doctor"], &mut leaked);
        assert_eq!(doctor.status.code(), Some(1));
        // A service that fails, drops and sends garbage.
        for _ in 0..6 {
            run(
                &faulty.base_url,
                SECRET,
                &["jobs", "create", "x"],
                &mut leaked,
            );
            run(&faulty.base_url, SECRET, &["visitors"], &mut leaked);
            run(&faulty.base_url, SECRET, &["doctor"], &mut leaked);
        }
        // A key command that fails after printing the key to its error output.
        let config = home.path().join("leaky.toml");
        std::fs::write(
            &config,
            format!(
                "[profiles.default]\nproject_id = \"demo\"\napi_key_command = \"echo {SECRET} >&2; exit 3\"\n"
            ),
        )
        .unwrap();
        let out = common::docdeck_command(home.path())
            .env("DOCDECK_CONFIG", &config)
            .env("DOCDECK_BASE_URL", &serve.base_url)
            .args(["jobs", "get", &id])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains("api_key_command"),
            "{}",
            text(&out.stderr)
        );
        leaked.extend(leaks("failing api_key_command stderr", &out.stderr));

        // The console, with its log on, creating a job and showing visitors.
        let console_home = tempfile::tempdir().unwrap();
        let mut pty = Pty::spawn(
            console_home,
            &[],
            &[
                ("DOCDECK_BASE_URL", serve.base_url.as_str()),
                ("DOCDECK_PROJECT_ID", "demo"),
                ("DOCDECK_API_KEY", SECRET),
                ("DOCDECK_LOG", "trace"),
            ],
        );
        pty.wait_for("the console", |screen| screen.contains("Jobs ("));
        pty.keys(b"n");
        pty.wait_for("the composer", |screen| screen.contains("Ctrl+S"));
        pty.keys(b"update the changelog\x13");
        pty.wait_for("the job created", |screen| screen.contains("created"));
        // A sent job is selected in the jobs pane, so `3` is a key, not text.
        pty.wait_for("the jobs pane", |screen| {
            screen.contains("update the changelog")
        });
        pty.keys(b"3");
        pty.wait_for("visitors", |screen| screen.contains("page 1"));
        common::signal(pty.child.process_id().unwrap(), "-TERM");
        assert_eq!(
            pty.wait_exit().exit_code(),
            143,
            "SIGTERM, as a shell reports it"
        );
        leaked.extend(leaks(
            "the console's terminal output",
            &pty.output.lock().unwrap(),
        ));
        let console_log = pty.home().join("data").join("docdeck").join("docdeck.log");
        assert!(console_log.exists(), "the console wrote its log");
        scan_files(pty.home(), &mut leaked, &mut scanned);

        // The services' own logs, once they have stopped.
        for mut service in [serve, faulty] {
            let _ = service.child.kill();
            let _ = service.child.wait();
            let log: String = service.stderr.iter().collect::<Vec<_>>().join("\n");
            assert!(log.contains("TRACE") || log.contains("DEBUG") || log.contains("INFO"));
            leaked.extend(leaks("the service's log", log.as_bytes()));
        }
        scan_files(home.path(), &mut leaked, &mut scanned);
        // The service's database, with its WAL: a file beside the test's home, or
        // PostgreSQL's tables read row by row.
        match &db {
            DbLocation::File(path) => scan_files(path.parent().unwrap(), &mut leaked, &mut scanned),
            _ => {
                for key in [SECRET, WRONG, common::KEY] {
                    if common::stored_anywhere(&db, key) {
                        leaked.push(format!("the service's database contains {key}"));
                    }
                }
            }
        }
        let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        scan_files(&snapshots, &mut leaked, &mut scanned);

        assert!(scanned > 20, "only {scanned} files were scanned");
        assert!(leaked.is_empty(), "the key leaked:\n{}", leaked.join("\n"));
    }
}
