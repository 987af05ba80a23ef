//! `docdeck jobs` against `docdeck serve` on port 0: how a wait ends (timeout, Ctrl+C,
//! SIGTERM, SIGHUP), ids typed short or blank, prompts with CR line ends, and
//! `jobs list --refresh` and its JSON Lines. Each on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{DEADLINE, KEY, PROJECT, ServeProcess, cli_command, journal_path, run_cli, text};
use docdeck::journal::{Journal, Scope};
use docdeck::server::db::DbLocation;
use serde_json::Value;

/// A service over `db` (either store) whose agent takes a minute per turn: jobs stay
/// active while a test waits.
fn slow_service(home: &Path, db: &DbLocation) -> ServeProcess {
    ServeProcess::over_store(home, db, &["--agent-delay-ms", "60000"])
}

fn fast_service(home: &Path, db: &DbLocation) -> ServeProcess {
    ServeProcess::over_store(home, db, &["--agent-delay-ms", "30"])
}

/// Runs `probe` until it gives a value, failing at the deadline.
fn eventually<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn scope(service: &ServeProcess) -> Scope {
    Scope {
        service: service.base_url.clone(),
        project: PROJECT.into(),
    }
}

fn created_id(home: &Path, service: &ServeProcess, prompt: &str) -> String {
    let out = run_cli(home, &service.base_url, &["jobs", "create", prompt]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let job: Value = serde_json::from_slice(&out.stdout).unwrap();
    job["id"].as_str().unwrap().to_owned()
}

/// `jobs get ID --wait` as a child, once it has printed its first record (and so has its
/// signal handlers in place).
fn waiting(home: &Path, service: &ServeProcess, id: &str) -> Child {
    let mut child = cli_command(home, &service.base_url, KEY)
        .args(["jobs", "get", id, "--wait", "--poll-interval", "500ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("\"active\""), "{first}");
    child
}

on_both_stores_sync! {
    fn ctrl_c_sigterm_and_sighup_stop_a_wait_with_the_shell_codes_and_say_how_to_resume(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = slow_service(home.path(), &db);
        let id = created_id(home.path(), &service, "Take your time");
        for (signal, code) in [("-INT", 130), ("-TERM", 143), ("-HUP", 129)] {
            let child = waiting(home.path(), &service, &id);
            common::signal(child.id(), signal);
            let out = child.wait_with_output().unwrap();
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(code), "{signal}: {stderr}");
            assert!(
                stderr.contains(&format!("`docdeck jobs get {id} --wait`")),
                "{signal}: {stderr}"
            );
        }
    }
}

on_both_stores_sync! {
    fn a_wait_that_times_out_exits_5_and_says_the_job_goes_on(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = slow_service(home.path(), &db);
        let out = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "create", "Slow", "--wait", "--timeout", "1s"],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{stderr}");
        assert!(
            stderr.contains("still active after 1 s") && stderr.contains("--wait`"),
            "{stderr}"
        );
        let refused = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "get", "job_x", "--timeout", "1s"],
        );
        assert_eq!(refused.status.code(), Some(2), "--timeout needs --wait");
        let zero = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "get", "job_x", "--wait", "--timeout", "0s"],
        );
        assert_eq!(zero.status.code(), Some(2), "a zero timeout is refused");
        assert!(
            text(&zero.stderr).contains("above zero"),
            "{}",
            text(&zero.stderr)
        );
    }
}

on_both_stores_sync! {
    fn crlf_and_cr_in_prompts_reach_the_journal_as_lf(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = fast_service(home.path(), &db);
        let mut child = cli_command(home.path(), &service.base_url, KEY)
            .args(["jobs", "create", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"a\r\nb\r\n")
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let sent = run_cli(
            home.path(),
            &service.base_url,
            &["jobs", "message", &id, "one\rtwo"],
        );
        assert_eq!(sent.status.code(), Some(0), "{}", text(&sent.stderr));
        let journal = Journal::open(&journal_path(home.path())).unwrap();
        let prompts: Vec<String> = journal
            .conversation(&scope(&service), &id)
            .unwrap()
            .into_iter()
            .map(|p| p.prompt)
            .collect();
        assert_eq!(prompts, ["a\nb", "one\ntwo"]);
    }
}

on_both_stores_sync! {
    fn a_unique_start_of_a_known_id_works_everywhere_and_blank_ids_are_never_sent(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = fast_service(home.path(), &db);
        let first = created_id(home.path(), &service, "First");
        let second = created_id(home.path(), &service, "Second");
        let common_len = first
            .chars()
            .zip(second.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let short = &first[..common_len + 1];
        let url = &service.base_url;
        let got = run_cli(
            home.path(),
            url,
            &["jobs", "get", short, "--wait", "--poll-interval", "500ms"],
        );
        assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
        assert!(text(&got.stdout).contains(&first), "{}", text(&got.stdout));
        let sent = run_cli(home.path(), url, &["jobs", "message", short, "More"]);
        assert_eq!(sent.status.code(), Some(0), "{}", text(&sent.stderr));
        assert!(
            run_cli(home.path(), url, &["jobs", "untrack", short])
                .status
                .success()
        );
        let journal = Journal::open(&journal_path(home.path())).unwrap();
        assert!(
            journal
                .tracked(&scope(&service))
                .unwrap()
                .iter()
                .all(|j| j.id != first)
        );
        // An untracked job the journal still knows can be tracked again by its start.
        let tracked = run_cli(home.path(), url, &["jobs", "track", short]);
        assert_eq!(tracked.status.code(), Some(0), "{}", text(&tracked.stderr));
        assert!(
            journal
                .tracked(&scope(&service))
                .unwrap()
                .iter()
                .any(|j| j.id == first)
        );

        // Several jobs start with `job_`: refused, naming them, nothing sent.
        let ambiguous = run_cli(home.path(), url, &["jobs", "get", "job_"]);
        let stderr = text(&ambiguous.stderr);
        assert_eq!(ambiguous.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&first) && stderr.contains(&second),
            "{stderr}"
        );
        // Text no known job starts with is passed on as typed: the service answers 404.
        let unknown = run_cli(home.path(), url, &["jobs", "get", "job_elsewhere"]);
        assert_eq!(unknown.status.code(), Some(1));
        assert!(
            text(&unknown.stderr).contains("404"),
            "{}",
            text(&unknown.stderr)
        );

        // Blank ids are refused before anything is sent (the port here answers nothing).
        for args in [
            &["jobs", "get", ""][..],
            &["jobs", "get", "  ", "--wait"],
            &["jobs", "message", "", "hi"],
            &["jobs", "track", " "],
            &["jobs", "untrack", ""],
        ] {
            let out = run_cli(home.path(), "http://127.0.0.1:9", args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("job id is empty"), "{args:?}: {stderr}");
        }
    }
}

on_both_stores_sync! {
    fn list_prints_json_lines_and_refresh_reads_the_jobs_not_final_first(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = fast_service(home.path(), &db);
        let first = created_id(home.path(), &service, "First");
        let second = created_id(home.path(), &service, "Second");
        let elsewhere = run_cli(
            home.path(),
            "http://127.0.0.1:9",
            &["jobs", "list", "--format", "table"],
        );
        let said = text(&elsewhere.stdout);
        assert!(
            said.contains("no jobs followed yet for project") && said.contains("127.0.0.1:9"),
            "an empty list says which service and project it is of: {said}"
        );
        let listed = run_cli(home.path(), &service.base_url, &["jobs", "list"]);
        let lines: Vec<Value> = text(&listed.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(
            lines.len(),
            2,
            "one object per line: {}",
            text(&listed.stdout)
        );
        assert!(lines.iter().all(|job| job["status"] == "active"));
        // The agent takes 30 ms; without --refresh the list shows what was last seen.
        let refreshed = eventually("both jobs completed", || {
            let out = run_cli(
                home.path(),
                &service.base_url,
                &["jobs", "list", "--refresh"],
            );
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            let jobs: Vec<Value> = text(&out.stdout)
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect();
            jobs.iter()
                .all(|job| job["status"] == "completed")
                .then_some(jobs)
        });
        let ids: Vec<&str> = refreshed
            .iter()
            .map(|j| j["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [second.as_str(), first.as_str()]);
        let journal = Journal::open(&journal_path(home.path())).unwrap();
        let timeline = journal.timeline(&scope(&service), &first).unwrap();
        assert_eq!(timeline.len(), 2, "the refresh was recorded: {timeline:?}");
    }
}
