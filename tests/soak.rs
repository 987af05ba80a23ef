//! Soak of the real console loop against a service that fails, drops, delays and garbles
//! answers: the short run is part of `cargo test`, the long one is run by hand (see
//! RELIABILITY.md). The short run is made on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::KeyCode;
use docdeck::journal::Journal;
use docdeck::server::db::{DbLocation, StoreError};
use rand::{Rng as _, SeedableRng as _};

use common::console::{Console, flat, line_with};

/// What became of one submit in the soak.
#[derive(Debug, Default)]
struct SoakCounts {
    accepted: usize,
    /// Sent, answer lost or unreadable: the job may exist, and it was not resent.
    unknown: usize,
    /// Refused before anything was carried out (an injected 5xx), sent again by the "user".
    resent: usize,
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

impl Console {
    /// Waits for the send of `prompt` to end (the journal records every outcome before the
    /// console hears of it), then does what a careful user would: sends again only when
    /// the screen says nothing was carried out, and otherwise moves on. Returns whether
    /// the service accepted it with a job id.
    async fn settle(
        &mut self,
        journal: &rusqlite::Connection,
        prompt: &str,
        counts: &mut SoakCounts,
    ) -> bool {
        for attempt in 0.. {
            let (outcome, job_id) = common::eventually("the send to end", || {
                let ended = journal
                    .query_row(
                        "SELECT outcome, job_id FROM submissions WHERE prompt = ?1
                         ORDER BY id LIMIT 1 OFFSET ?2",
                        rusqlite::params![prompt, attempt],
                        |row| Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?)),
                    )
                    .ok()
                    .filter(|(outcome, _)| outcome != "pending");
                std::future::ready(ended)
            })
            .await;
            let p = prompt.to_owned();
            match (outcome.as_str(), job_id) {
                ("rejected", _) => {
                    // Said once the send fails, and again in other words once the service
                    // answers (another read may bring it back first).
                    self.wait_for("the offer to send again", move |s| {
                        let flat = flat(s);
                        (flat.contains("Ctrl+S sends it again")
                            || flat.contains("Ctrl+S sends the kept text"))
                            && s.contains(&p)
                    })
                    .await;
                    counts.resent += 1;
                    self.ctrl('s');
                    continue;
                }
                ("unknown", _) => {
                    self.wait_for("the may-have-arrived warning", move |s| {
                        let s = flat(s);
                        (s.contains("MAY HAVE BEEN CREATED")
                            || s.contains("MAY HAVE BEEN RECEIVED"))
                            && s.contains(&p)
                    })
                    .await;
                    counts.unknown += 1;
                    self.key(KeyCode::Home);
                    self.ctrl('k');
                    self.key(KeyCode::Esc);
                    return false;
                }
                ("accepted", None) => {
                    self.wait_for("the composer emptied", |s| {
                        s.contains("What should the agent")
                    })
                    .await;
                    counts.unknown += 1;
                    self.key(KeyCode::Esc);
                    return false;
                }
                ("accepted", Some(_)) => {
                    self.wait_for("the jobs list", |s| {
                        s.contains(" Jobs · ")
                            && !s.contains("┌ New job")
                            && !s.contains("┌ Follow-up")
                    })
                    .await;
                    counts.accepted += 1;
                    return true;
                }
                (other, _) => panic!("unexpected outcome {other}"),
            }
        }
        unreachable!("the loop returns")
    }
}

/// Creates `jobs` jobs through the composer against a service that fails, drops, delays
/// and garbles answers, then checks the console, the journal and the service agree.
/// The service stores its jobs in `db` (either store).
async fn soak(
    db: DbLocation,
    jobs: usize,
    (agent_delay, hold): (Duration, Duration),
    follow_ups: usize,
) {
    let dir = tempfile::tempdir().unwrap();
    let mut options = common::options_on(&db);
    options.agent.delay = agent_delay;
    options.agent.weights = docdeck::server::agent::OutcomeWeights::default();
    options.rate_limit = 100_000;
    options.faults = docdeck::server::faults::FaultPlan {
        fault_rate: "0.1".parse().unwrap(),
        drop_rate: "0.05".parse().unwrap(),
        garbage_rate: "0.05".parse().unwrap(),
        latency: Some("0..20".parse().unwrap()),
        rate_limit_no_retry_after: true,
        seed: 42,
    };
    let server = common::start(options).await;
    let journal = Arc::new(Mutex::new(
        Journal::open(&dir.path().join("docdeck.sqlite")).unwrap(),
    ));
    let mut console = Console::open_with(&server, Duration::from_millis(100), Arc::clone(&journal));
    console
        .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
        .await;
    let rss_start = rss_kib();

    let mut counts = SoakCounts::default();
    let mut accepted_prompts = Vec::new();
    // The journal says how each send ended (it is written before the console is told).
    let journal_file = rusqlite::Connection::open(dir.path().join("docdeck.sqlite")).unwrap();
    journal_file.busy_timeout(Duration::from_secs(10)).unwrap();
    for i in 0..jobs {
        let prompt = format!("soak job {i:03} tidy the docs");
        console.key(KeyCode::Char('n'));
        console.type_text(&prompt);
        console.ctrl('s');
        if console.settle(&journal_file, &prompt, &mut counts).await {
            accepted_prompts.push(prompt);
        }
    }

    // The hold: the console stays open, polling through the faults, and now and then a
    // follow-up goes to one of the jobs (which makes it active again).
    let mut rss_during = Vec::new();
    let mut follow_up_counts = SoakCounts::default();
    if hold > Duration::ZERO {
        let rounds = follow_ups.max(1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for k in 0..rounds {
            tokio::time::sleep(hold / u32::try_from(rounds).unwrap()).await;
            rss_during.push(rss_kib());
            if k >= follow_ups || counts.accepted == 0 {
                continue;
            }
            console.key(KeyCode::Char('1'));
            console.key(KeyCode::Char('g'));
            for _ in 0..rng.random_range(0..counts.accepted) {
                console.key(KeyCode::Char('j'));
            }
            let prompt = format!("soak follow-up {k:03}: and the next page");
            console.key(KeyCode::Char('m'));
            console.type_text(&prompt);
            console.ctrl('s');
            console
                .settle(&journal_file, &prompt, &mut follow_up_counts)
                .await;
        }
    }

    // The service's truth, and every job the console follows agreeing with it.
    let truth = {
        let db = db.clone();
        move || {
            common::with_sql(&db, |sql| {
                let rows = sql.rows(
                    "SELECT j.id, j.status, t.prompt FROM jobs j
                     JOIN turns t ON t.job_seq = j.seq
                     WHERE t.turn = (SELECT min(turn) FROM turns WHERE job_seq = j.seq)",
                    &[],
                )?;
                rows.iter()
                    .map(|row| Ok((row.text(0)?, row.text(1)?, row.text(2)?)))
                    .collect::<Result<Vec<_>, StoreError>>()
            })
        }
    };
    let scope = console.scope.clone();
    let journal_view = Arc::clone(&journal);
    let screen_now = console.screen.clone();
    // Follow-ups queue behind each other on one job, so allow for all of them on one job.
    let limit = common::DEADLINE + agent_delay * u32::try_from(follow_ups + 2).unwrap();
    let settled = common::eventually_within(
        limit,
        "every tracked job to reach the service's final status",
        || {
            let server_jobs = truth();
            let tracked = journal_view.lock().unwrap().tracked(&scope).unwrap();
            let done = tracked.len() == counts.accepted
                && tracked.iter().all(|job| {
                    let seen = job.snapshot.as_ref().and_then(|j| j.status.clone());
                    let real = server_jobs.iter().find(|(id, _, _)| *id == job.id);
                    matches!((seen, real), (Some(seen), Some((_, real, _)))
                    if seen.is_final() && seen.as_wire() == real)
                });
            if !done && std::env::var_os("SOAK_DEBUG").is_some() {
                for job in &tracked {
                    let seen = job.snapshot.as_ref().and_then(|j| j.status.clone());
                    let real = server_jobs
                        .iter()
                        .find(|(id, _, _)| *id == job.id)
                        .map(|r| r.1.clone());
                    if seen.as_ref().map(|s| s.as_wire().to_owned()) != real
                        || !seen.as_ref().is_some_and(|s| s.is_final())
                    {
                        let short: String = job.id.chars().take(12).collect();
                        let screen = screen_now.borrow().clone();
                        eprintln!(
                            "{} seen {seen:?} real {real:?}: {:?}",
                            job.id,
                            line_with(&screen, &short)
                        );
                    }
                }
                eprintln!("tracked {} accepted {}", tracked.len(), counts.accepted);
            }
            std::future::ready(done.then_some((server_jobs, tracked)))
        },
    )
    .await;
    let (server_jobs, tracked) = settled;

    // No prompt, first or follow-up, was carried out twice.
    let repeated: i64 = common::with_sql(&db, |sql| {
        sql.one(
            "SELECT count(*) FROM (SELECT prompt FROM turns GROUP BY prompt HAVING count(*) > 1) r",
            &[],
        )?
        .int(0)
    });
    assert_eq!(repeated, 0, "a prompt reached the service twice");
    // No create was carried out twice for one submit.
    let mut prompts: Vec<&str> = server_jobs.iter().map(|(_, _, p)| p.as_str()).collect();
    prompts.sort_unstable();
    let before = prompts.len();
    prompts.dedup();
    assert_eq!(prompts.len(), before, "a prompt reached the service twice");
    assert!(server_jobs.len() >= counts.accepted);
    assert!(server_jobs.len() <= counts.accepted + counts.unknown);
    for prompt in &accepted_prompts {
        assert!(
            server_jobs.iter().any(|(_, _, p)| p == prompt),
            "{prompt} was accepted but the service has no such job"
        );
    }

    // A draft typed and not sent is in the journal, and the screen shows the truth.
    console.key(KeyCode::Char('n'));
    console.type_text("an unsent draft survives");
    let journal_view = Arc::clone(&journal);
    let scope = console.scope.clone();
    common::eventually("the draft saved", || {
        let drafts = journal_view.lock().unwrap().drafts(&scope).unwrap();
        std::future::ready(
            drafts
                .iter()
                .any(|(key, text)| key == "new" && text == "an unsent draft survives")
                .then_some(()),
        )
    })
    .await;
    console.key(KeyCode::Esc);
    let screen = console
        .next_frame("the jobs list", |s| {
            s.contains(&format!("Jobs ({})", tracked.len()))
        })
        .await;
    for job in tracked.iter().take(10) {
        let status = job
            .snapshot
            .as_ref()
            .and_then(|j| j.status.clone())
            .unwrap();
        let short: String = job.id.chars().take(12).collect();
        if let Some(line) = line_with(&screen, &short) {
            assert!(
                line.contains(status.as_wire()),
                "{line} should say {status}"
            );
        }
    }

    // The journal is whole and every submission has an outcome.
    {
        let journal = journal.lock().unwrap();
        drop(journal);
        let conn = rusqlite::Connection::open(dir.path().join("docdeck.sqlite")).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        let count = |outcome: &str| -> usize {
            conn.query_row(
                "SELECT count(*) FROM submissions WHERE outcome = ?1",
                [outcome],
                |row| row.get::<_, i64>(0),
            )
            .unwrap() as usize
        };
        assert_eq!(count("pending"), 0);
        assert_eq!(
            count("accepted"),
            counts.accepted + follow_up_counts.accepted + count_no_id(&conn)
        );
        assert_eq!(count("rejected"), counts.resent + follow_up_counts.resent);
        assert_eq!(
            count("unknown") + count_no_id(&conn),
            counts.unknown + follow_up_counts.unknown
        );
    }
    let rss_end = rss_kib();
    let app = console.quit().await;
    assert!(app.quit);
    println!(
        "soak: {jobs} submits: {counts:?}; follow-ups: {follow_up_counts:?}; service holds {} jobs; RSS {} KiB -> {} KiB ({:+} KiB); during the hold {:?} KiB",
        server_jobs.len(),
        rss_start,
        rss_end,
        i64::try_from(rss_end).unwrap() - i64::try_from(rss_start).unwrap(),
        rss_during
    );
    server.shutdown().await;
}

/// Submissions the service accepted with an answer that named no job: the journal marks
/// them accepted (the service said yes), the test counted them as unknown.
fn count_no_id(conn: &rusqlite::Connection) -> usize {
    conn.query_row(
        "SELECT count(*) FROM submissions WHERE outcome = 'accepted' AND job_id IS NULL",
        [],
        |row| row.get::<_, i64>(0),
    )
    .unwrap() as usize
}

on_both_stores_multi! {
    async fn soak_short_forty_jobs_against_a_faulty_service(db: DbLocation) {
        soak(db, 40, (Duration::from_millis(30), Duration::ZERO), 0).await;
    }
}

/// The long soak: `DOCDECK_SOAK_JOBS` creates (default 95, under the hourly budget of
/// 100) to an agent that takes `DOCDECK_SOAK_AGENT_MS` per turn (default 10 s), then the
/// console stays open for `DOCDECK_SOAK_SECS` (default 180) with `DOCDECK_SOAK_FOLLOW_UPS`
/// follow-ups spread over it (default 60), sampling memory. Run with
/// `cargo test --release --test soak soak_long -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes long; run by hand (see RELIABILITY.md)"]
async fn soak_long() {
    let setting = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let dir = tempfile::tempdir().unwrap();
    soak(
        DbLocation::File(dir.path().join("service.sqlite")),
        usize::try_from(setting("DOCDECK_SOAK_JOBS", 95)).unwrap(),
        (
            Duration::from_millis(setting("DOCDECK_SOAK_AGENT_MS", 10_000)),
            Duration::from_secs(setting("DOCDECK_SOAK_SECS", 180)),
        ),
        usize::try_from(setting("DOCDECK_SOAK_FOLLOW_UPS", 60)).unwrap(),
    )
    .await;
}
