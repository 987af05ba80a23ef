//! The journal against real processes: killed with SIGKILL in the middle of its writes,
//! and two processes writing the same file at once (a console and a CLI). The writers are
//! this test binary run again as a child (see `writer_child`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use chrono::Utc;
use docdeck::api::{Job, JobStatus};
use docdeck::journal::{Journal, Scope, SubmissionKind};
use rand::Rng;

const CHILD_ENV: &str = "DOCDECK_TEST_JOURNAL_WRITER";

fn scope() -> Scope {
    Scope {
        service: "http://127.0.0.1:1".into(),
        project: "p".into(),
    }
}

/// Starts this test binary as a writer on `path` with the given name and number of rounds.
fn spawn_writer(path: &Path, name: &str, rounds: u32) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "writer_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, format!("{}|{name}|{rounds}", path.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Not a test of its own: the body of the child process the tests below start. Each round
/// does what the console and the CLI do (record a prompt, accept it, observe the job, save
/// a draft) and then prints `done <round>`, so the parent knows which rounds were committed.
#[test]
#[ignore = "run only as the child process of the tests in this file"]
fn writer_child() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut parts = spec.split('|');
    let path = parts.next().unwrap();
    let name = parts.next().unwrap();
    let rounds: u32 = parts.next().unwrap().parse().unwrap();
    let mut journal = Journal::open(Path::new(path)).unwrap();
    let s = scope();
    for round in 0..rounds {
        let now = Utc::now();
        let id = format!("{name}-{round}");
        let prompt = format!("{name} prompt {round} {}", "words ".repeat(50));
        let submission = journal
            .begin_submission(&s, SubmissionKind::Create, None, &prompt, now)
            .unwrap();
        let job = Job {
            id: Some(id.clone()),
            status: Some(JobStatus::Active),
            created_at: Some(now),
            ..Job::default()
        };
        journal
            .submission_accepted(&s, submission, &job, now)
            .unwrap();
        let done = Job {
            status: Some(JobStatus::Completed),
            ..job
        };
        journal.observe(&s, &done, now).unwrap();
        journal
            .save_draft(&s, &format!("draft:{name}"), &format!("draft {round}"), now)
            .unwrap();
        println!("done {round}");
    }
}

fn integrity(path: &Path) -> String {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap()
}

fn rounds_committed(child: &mut Child, until: u32) -> u32 {
    let stdout = child.stdout.take().unwrap();
    let mut committed = 0;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        // The harness may print its own "test writer_child ... " before the first report
        // on the same line, so the report is read from the end of the line.
        if let Some((_, round)) = line.rsplit_once("done ") {
            committed = round.trim().parse::<u32>().unwrap() + 1;
            if committed >= until {
                break;
            }
        }
    }
    committed
}

#[test]
fn a_journal_killed_mid_write_keeps_every_committed_round() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docdeck.sqlite");
    let mut rng = rand::rng();
    for kill in 0..8 {
        let name = format!("w{kill}");
        let mut child = spawn_writer(&path, &name, 100_000);
        let until = rng.random_range(1..60);
        let committed = rounds_committed(&mut child, until);
        child.kill().unwrap(); // SIGKILL: no destructor, no rollback, no flush.
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            committed,
            until,
            "the writer stopped early: {}",
            String::from_utf8_lossy(&out.stderr)
        );

        assert_eq!(integrity(&path), "ok", "after kill {kill}");
        let journal = Journal::open(&path).unwrap();
        assert!(journal.set_aside().is_none());
        let s = scope();
        let tracked = journal.tracked(&s).unwrap();
        let mine: Vec<_> = tracked
            .iter()
            .filter(|job| job.id.starts_with(&format!("{name}-")))
            .collect();
        // The child may have gone on past its last report before the kill landed, so the
        // rounds found are a prefix 0..k with k at least the reported ones, and only the
        // last of them may be half done (accepted, not yet observed completed).
        let found = u32::try_from(mine.len()).unwrap();
        assert!(
            found >= committed,
            "{found} jobs of {name}, {committed} reported"
        );
        for round in 0..found {
            let id = format!("{name}-{round}");
            let job = mine.iter().find(|job| job.id == id).expect(&id);
            assert!(job.first_prompt.is_some(), "{job:?}");
            let status = job.snapshot.as_ref().and_then(|j| j.status.clone());
            if round + 1 < found {
                assert_eq!(status, Some(JobStatus::Completed), "{id}");
            }
        }
        let drafts = journal.drafts(&s).unwrap();
        let draft = drafts
            .iter()
            .find(|(key, _)| *key == format!("draft:{name}"))
            .map(|(_, text)| text.clone())
            .unwrap();
        let last: u32 = draft.strip_prefix("draft ").unwrap().parse().unwrap();
        assert!(
            last + 1 >= committed,
            "draft {draft:?} is older than round {committed}"
        );
    }
}

#[test]
fn two_processes_write_the_same_journal_without_errors_or_losses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docdeck.sqlite");
    // Create the file first, as a console that is already open would have.
    drop(Journal::open(&path).unwrap());
    let rounds = 150;
    let children: Vec<Child> = ["console", "cli"]
        .iter()
        .map(|name| spawn_writer(&path, name, rounds))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "a writer failed: {stderr}");
        assert!(!stderr.contains("locked"), "{stderr}");
    }
    assert_eq!(integrity(&path), "ok");
    let journal = Journal::open(&path).unwrap();
    let tracked = journal.tracked(&scope()).unwrap();
    assert_eq!(tracked.len(), 2 * rounds as usize);
    for name in ["console", "cli"] {
        for round in 0..rounds {
            let id = format!("{name}-{round}");
            assert!(tracked.iter().any(|job| job.id == id), "{id} lost");
        }
    }
}
