//! `docdeck jobs` against `docdeck serve` on port 0: waiting and exit codes, output
//! formats, the journal, configuration, and what errors say. What the service answers
//! (jobs, turns, archiving, its 404 and 401) is checked on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{
    DEADLINE, KEY, PROJECT, ServeProcess, cli_command, docdeck_command, journal_path, run_cli, text,
};
use docdeck::journal::{Journal, Scope};
use docdeck::server::db::DbLocation;
use serde_json::Value;

/// `docdeck serve` over `db` (either store), unseeded, with the test key, fast turns and
/// `extra` flags.
fn serve(home: &Path, db: &DbLocation, extra: &[&str]) -> ServeProcess {
    let args = [&["--agent-delay-ms", "30"][..], extra].concat();
    ServeProcess::over_store(home, db, &args)
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    text(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn scope(service: &ServeProcess) -> Scope {
    Scope {
        service: service.base_url.clone(),
        project: PROJECT.into(),
    }
}

on_both_stores_sync! {
    fn create_and_wait_prints_each_transition_and_exits_0(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = serve(home.path(), &db, &["--agent-outcomes", "pr=1"]);
        let out = run_cli(
            home.path(),
            &service.base_url,
            &[
                "jobs",
                "create",
                "Fix the links",
                "--wait",
                "--poll-interval",
                "500ms",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let lines = json_lines(&out.stdout);
        assert_eq!(lines.first().unwrap()["status"], "active");
        let last = lines.last().unwrap();
        assert_eq!(last["status"], "completed");
        assert!(last["prLink"].as_str().unwrap().contains("/pull/"));
        assert_eq!(lines.len(), 2, "one line per status change: {lines:?}");

        // The journal remembers the job, its prompt and its timeline.
        let journal = Journal::open(&journal_path(home.path())).unwrap();
        let tracked = journal.tracked(&scope(&service)).unwrap();
        assert_eq!(tracked[0].first_prompt.as_deref(), Some("Fix the links"));
        let id = last["id"].as_str().unwrap();
        let timeline: Vec<String> = journal
            .timeline(&scope(&service), id)
            .unwrap()
            .iter()
            .map(|c| c.status.to_string())
            .collect();
        assert_eq!(timeline, ["active", "completed"]);
    }
}

on_both_stores_sync! {
    fn a_failed_job_exits_3_and_table_output_is_for_people(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = serve(home.path(), &db, &["--agent-outcomes", "fail=1"]);
        let out = run_cli(
            home.path(),
            &service.base_url,
            &[
                "jobs",
                "create",
                "Break",
                "--wait",
                "--poll-interval",
                "500ms",
                "--format",
                "table",
            ],
        );
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(
            stdout.lines().next().unwrap().ends_with("active"),
            "{stdout}"
        );
        assert!(
            stdout.lines().last().unwrap().ends_with("failed"),
            "{stdout}"
        );
    }
}

on_both_stores_sync! {
    fn follow_up_from_stdin_then_get_list_track_and_untrack(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = serve(home.path(), &db, &[]);
        let created = run_cli(
            home.path(),
            &service.base_url,
            &[
                "jobs",
                "create",
                "First",
                "--wait",
                "--poll-interval",
                "500ms",
            ],
        );
        let id = json_lines(&created.stdout)[0]["id"]
            .as_str()
            .unwrap()
            .to_owned();

        let mut child = cli_command(home.path(), &service.base_url, KEY)
            .args([
                "jobs",
                "message",
                &id,
                "-",
                "--wait",
                "--poll-interval",
                "500ms",
                "--format",
                "csv",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"Also fix the images\n")
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let csv = text(&out.stdout);
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(
            rows[0],
            "id,status,repository,ref,model,prLink,createdAt,archivedAt"
        );
        assert!(
            rows[1].starts_with(&format!("{id},active,"))
                && rows[2].starts_with(&format!("{id},completed,")),
            "{csv}"
        );

        let journal = Journal::open(&journal_path(home.path())).unwrap();
        let prompts: Vec<String> = journal
            .conversation(&scope(&service), &id)
            .unwrap()
            .into_iter()
            .map(|p| p.prompt)
            .collect();
        assert_eq!(prompts, ["First", "Also fix the images"]);

        let got = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "get", &id, "--format", "table"],
        );
        let table = text(&got.stdout);
        assert!(
            table.contains("completed") && table.contains("https://forge.invalid/acme/docs/pull/2"),
            "{table}"
        );

        let listed = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "list", "--format", "json"],
        );
        let list = json_lines(&listed.stdout);
        assert_eq!(list[0]["id"], id.as_str());
        assert_eq!(list[0]["firstPrompt"], "First");

        assert!(
            run_cli(home.path(), &service.base_url, &["jobs", "untrack", &id])
                .status
                .success()
        );
        let listed = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "list", "--format", "json"],
        );
        assert!(json_lines(&listed.stdout).is_empty(), "no jobs, no lines");
        assert!(
            run_cli(home.path(), &service.base_url, &["jobs", "track", &id])
                .status
                .success()
        );
        let listed = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "list", "--format", "csv"],
        );
        assert!(
            text(&listed.stdout)
                .lines()
                .nth(1)
                .unwrap()
                .starts_with(&id)
        );

        let missing = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "track", "job_nope"],
        );
        assert_eq!(missing.status.code(), Some(1));
    }
}

on_both_stores_sync! {
    fn waiting_on_an_archived_job_exits_4(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = serve(home.path(), &db, &["--archive-after", "150ms"]);
        let created = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "create", "Old news"],
        );
        let id = json_lines(&created.stdout)[0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let deadline = Instant::now() + DEADLINE;
        loop {
            let out = run_cli(home.path(), &service.base_url, &["jobs", "get", &id]);
            if json_lines(&out.stdout)[0]["status"] == "archived" {
                break;
            }
            assert!(Instant::now() < deadline, "the job was never archived");
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "get", &id, "--wait"],
        );
        assert_eq!(out.status.code(), Some(4));
        let refused = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "message", &id, "Wake up"],
        );
        assert_eq!(refused.status.code(), Some(1));
        assert!(
            text(&refused.stderr).contains("409"),
            "{}",
            text(&refused.stderr)
        );
    }
}

#[test]
fn usage_and_configuration_errors_exit_2_with_one_line_saying_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9";
    let cases: [(&[&str], &str); 7] = [
        (&["jobs", "create", "   "], "prompt is empty"),
        (&["visitors", "--from", "2024-02-30"], "--from"),
        (&["visitors", "--limit", "0"], "--limit"),
        (
            &["visitors", "--from", "2024-03-02", "--to", "2024-03-01"],
            "after",
        ),
        (
            &["jobs", "get", "x", "--base-url", "http://docs.example.com"],
            "--allow-insecure-http",
        ),
        (
            &["jobs", "get", "x", "--profile", "nope"],
            "no profile named",
        ),
        (&["jobs", "get", "x", "--base-url", "ftp://x"], "https://"),
    ];
    for (args, hint) in cases {
        let out = run_cli(home.path(), url, args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(hint), "{args:?}: {stderr}");
    }
    let no_project = docdeck_command(home.path())
        .args(["jobs", "get", "x"])
        .output()
        .unwrap();
    assert_eq!(no_project.status.code(), Some(2));
    let stderr = text(&no_project.stderr);
    assert!(
        stderr.contains("DOCDECK_PROJECT_ID") && stderr.lines().count() == 1,
        "{stderr}"
    );
    let no_key = docdeck_command(home.path())
        .env("DOCDECK_PROJECT_ID", "p")
        .args(["jobs", "get", "x"])
        .output()
        .unwrap();
    assert!(text(&no_key.stderr).contains("DOCDECK_API_KEY"));
}

on_both_stores_sync! {
    fn api_errors_exit_1_without_leaking_the_key(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = serve(home.path(), &db, &[]);
        let out = run_cli(home.path(), &service.base_url, &["jobs", "get", "job_nope"]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            text(&out.stderr).trim(),
            "docdeck: not found (404: Job not found): check the job id and the project id (and the base URL if no job is ever found)"
        );
        let wrong = cli_command(home.path(), &service.base_url, "mint_wrong_but_secret")
            .args(["jobs", "create", "x"])
            .output()
            .unwrap();
        assert_eq!(wrong.status.code(), Some(1));
        let stderr = text(&wrong.stderr);
        assert!(
            stderr.contains("401") && !stderr.contains("mint_wrong_but_secret"),
            "{stderr}"
        );
        let unreachable = run_cli(home.path(), "http://127.0.0.1:9", &["jobs", "create", "x"]);
        assert_eq!(unreachable.status.code(), Some(1));
        assert!(text(&unreachable.stderr).contains("could not reach"));
    }
}

#[test]
fn profiles_and_key_commands_from_the_config_file() {
    let home = tempfile::tempdir().unwrap();
    let service = serve(home.path(), &DbLocation::Memory, &[]);
    let config_dir = home.path().join("config").join("docdeck");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::write(
        config_dir.join("config.toml"),
        format!(
            "default_profile = \"local\"\n[profiles.local]\nbase_url = \"{}\"\nproject_id = \"{PROJECT}\"\napi_key_command = \"echo {KEY}\"\n",
            service.base_url
        ),
    )
    .unwrap();
    let out = docdeck_command(home.path())
        .args(["jobs", "create", "From a profile"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bad_key = docdeck_command(home.path())
        .env("DOCDECK_API_KEY", "not-shaped")
        .args(["jobs", "get", "x"])
        .output()
        .unwrap();
    assert!(
        text(&bad_key.stderr).contains("warning: the API key does not look like"),
        "{}",
        text(&bad_key.stderr)
    );
}
