//! `docdeck import --follow` as a process beside the running service: lines appear in the
//! visitors endpoint as they are written, across a rotation and a truncation, SIGTERM and
//! Ctrl-C commit and stop, and a restart resumes where it stopped: on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{DEADLINE, db_arg, docdeck_command, eventually, options_on, signal, start, text};
use docdeck::api::{Client, VisitorsQuery};
use docdeck::server::db::DbLocation;

const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// A browser's view of `/a` by visitor `n` (its own IP).
fn line(n: u32) -> String {
    format!(
        "192.0.2.{n} - - [20/Nov/2026:09:00:{n:02} +0000] \"GET /a HTTP/1.1\" 200 10 \"-\" \"{CHROME}\"\n"
    )
}

fn append(path: &Path, text: &str) {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// `docdeck import --follow LOG` into `db` (either store).
fn follow(home: &Path, db: &DbLocation, log: &Path) -> Child {
    docdeck_command(home)
        .args(["import", "--db", &db_arg(db)])
        .args(["--format", "combined", "--follow", log.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

async fn wait_for_visitors(client: &Client, want: u64) {
    eventually(&format!("{want} human visitors"), || async {
        let page = client.visitors(&VisitorsQuery::default()).await.ok()?;
        assert!(
            page.totals.human <= want,
            "counted twice: {:?}",
            page.totals
        );
        (page.totals.human == want && page.totals.total == want).then_some(())
    })
    .await;
}

/// Sends `sig` and waits for the follower to end; returns its stdout and stderr.
fn stop(mut child: Child, sig: &str) -> (String, String) {
    signal(child.id(), sig);
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            assert_eq!(status.code(), Some(0), "{}", text(&out.stderr));
            return (text(&out.stdout), text(&out.stderr));
        }
        assert!(
            Instant::now() < deadline,
            "the follower did not stop on {sig}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

on_both_stores_multi! {
    async fn follow_survives_rotation_truncation_and_restart(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let mut options = options_on(&db);
        // The waits below poll the visitors endpoint often.
        options.rate_limit = 1_000_000;
        let server = start(options).await;
        let client = common::client(&server);
        let log = home.path().join("access.log");
        append(&log, &(line(1) + &line(2)));
        let child = follow(home.path(), &db, &log);
        wait_for_visitors(&client, 2).await;

        // A line cut short stays unread until its end is written.
        append(&log, &line(3)[..20]);
        append(&log, &line(3)[20..]);
        wait_for_visitors(&client, 3).await;

        // Rotation: the file is renamed, written once more, then a new file appears.
        let rotated = home.path().join("access.log.1");
        std::fs::rename(&log, &rotated).unwrap();
        append(&rotated, &line(4));
        wait_for_visitors(&client, 4).await;
        append(&log, &(line(5) + &line(6)));
        wait_for_visitors(&client, 6).await;

        // Truncation: the file shrinks and is read again from its start.
        std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&log)
            .unwrap();
        append(&log, &line(7));
        wait_for_visitors(&client, 7).await;

        let (stdout, stderr) = stop(child, "-TERM");
        assert!(stdout.contains("stopped: read "), "{stdout}");
        assert!(
            stderr.contains("was rotated") && stderr.contains("was truncated"),
            "{stderr}"
        );

        // Written while nothing follows; a restart resumes after line 1 of the new file.
        append(&log, &line(8));
        let child = follow(home.path(), &db, &log);
        wait_for_visitors(&client, 8).await;
        let (stdout, stderr) = stop(child, "-INT");
        assert!(stderr.contains("resuming after line 1"), "{stderr}");
        assert!(
            stdout.contains("read 1 line: kept 1 view (human 1, AI 0)"),
            "{stdout}"
        );
        server.shutdown().await;
    }
}

#[test]
fn follow_refuses_what_cannot_grow() {
    let home = tempfile::tempdir().unwrap();
    for (file, format) in [
        ("-", "combined"),
        ("access.log.gz", "combined"),
        ("views.jsonl", "jsonl"),
    ] {
        let out = docdeck_command(home.path())
            .args([
                "import",
                "--db",
                home.path().join("s.sqlite").to_str().unwrap(),
            ])
            .args(["--format", format, "--follow", file])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(
            text(&out.stderr).contains("--follow"),
            "{}",
            text(&out.stderr)
        );
    }
}

on_both_stores_sync! {
    fn strict_follow_stops_at_a_broken_line_and_says_what_is_kept(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("access.log");
        append(&log, &(line(1) + "garbage\n" + &line(2)));
        let out = docdeck_command(home.path())
            .args(["import", "--db", &db_arg(&db)])
            .args([
                "--format",
                "combined",
                "--follow",
                "--strict",
                log.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("access.log line 2: ")
                && stderr.contains("stopped there (--strict): what was committed before is kept"),
            "{stderr}"
        );
    }
}
