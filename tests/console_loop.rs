//! The real console loop, driven by scripted keys on a `TestBackend`, against the local
//! service on port 0. Each test waits for screen content with a deadline.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use docdeck::api::{DateParam, VisitorsQuery};
use docdeck::journal::{Journal, Scope};
use docdeck::server::RunningServer;
use docdeck::server::db::DbLocation;
use docdeck::tui::app::{App, Config, NotifyMode};
use docdeck::tui::effects::Services;
use docdeck::tui::terminal::Host;
use docdeck::tui::view::theme::Theme;
use docdeck::tui::{Input, LoopOptions, drive};
use futures_util::StreamExt as _;
use rand::{Rng as _, SeedableRng as _};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use common::{DEADLINE, PROJECT};

/// Records what the console writes to the terminal besides frames.
struct Recorder(Arc<Mutex<Vec<u8>>>);

impl Host for Recorder {
    fn write_escape(&mut self, bytes: &[u8]) {
        self.0.lock().unwrap().extend_from_slice(bytes);
    }
    fn suspend(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn resume(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Console {
    keys: mpsc::UnboundedSender<io::Result<Event>>,
    screen: watch::Receiver<String>,
    task: JoinHandle<App>,
    journal: Arc<Mutex<Journal>>,
    scope: Scope,
    /// Escapes written besides frames: clipboard, bell.
    written: Arc<Mutex<Vec<u8>>>,
}

fn text_of(buffer: &Buffer) -> String {
    let width = usize::from(buffer.area.width);
    buffer
        .content
        .chunks(width)
        .map(|row| {
            row.iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
                + "\n"
        })
        .collect()
}

impl Console {
    fn open(server: &RunningServer, poll: Duration) -> Self {
        Self::open_with(
            server,
            poll,
            Arc::new(Mutex::new(Journal::open_in_memory().unwrap())),
        )
    }

    fn open_with(server: &RunningServer, poll: Duration, journal: Arc<Mutex<Journal>>) -> Self {
        Self::open_full(server, poll, journal, "false")
    }

    fn open_full(
        server: &RunningServer,
        poll: Duration,
        journal: Arc<Mutex<Journal>>,
        editor: &str,
    ) -> Self {
        let scope = Scope {
            service: server.base_url(),
            project: PROJECT.into(),
        };
        let services = Services {
            client: Arc::new(common::client(server)),
            journal: Arc::clone(&journal),
            scope: Arc::new(scope.clone()),
        };
        let config = Config {
            profile: None,
            project: PROJECT.into(),
            host: server.addr.to_string(),
            read_only: false,
            notify: NotifyMode::Bell,
            has_display: false,
            poll_interval: poll,
            hourly_limit: 100,
            seed: 1,
        };
        let (keys, rx) = mpsc::unbounded_channel();
        // One receiver shared by every input stream the loop asks for (it asks again
        // after the editor has run).
        let rx = Arc::new(Mutex::new(rx));
        let input = move || -> Input {
            let rx = Arc::clone(&rx);
            futures_util::stream::poll_fn(move |cx| rx.lock().unwrap().poll_recv(cx)).boxed()
        };
        let (screen_tx, screen) = watch::channel(String::new());
        let options = LoopOptions {
            theme: Theme { color: false },
            utc: true,
            editor: editor.into(),
            on_frame: Some(Box::new(move |buffer| {
                screen_tx.send_replace(text_of(buffer));
            })),
            stop: None,
        };
        let written = Arc::new(Mutex::new(Vec::new()));
        let recorder = Arc::clone(&written);
        let task = tokio::spawn(async move {
            let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
            let mut host = Recorder(recorder);
            drive(
                App::new(config),
                &mut terminal,
                &mut host,
                input,
                services,
                options,
            )
            .await
            .unwrap()
        });
        Self {
            keys,
            screen,
            task,
            journal,
            scope,
            written,
        }
    }

    fn key(&self, code: KeyCode) {
        self.keys
            .send(Ok(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))))
            .unwrap();
    }

    fn ctrl(&self, c: char) {
        self.keys
            .send(Ok(Event::Key(KeyEvent::new(
                KeyCode::Char(c),
                KeyModifiers::CONTROL,
            ))))
            .unwrap();
    }

    fn type_text(&self, text: &str) {
        for c in text.chars() {
            self.key(if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            });
        }
    }

    /// Waits until the screen satisfies `ready`, failing with the last screen at the deadline.
    async fn wait_for(&mut self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let wait = async {
            loop {
                {
                    let screen = self.screen.borrow_and_update();
                    if ready(&screen) {
                        return screen.clone();
                    }
                }
                self.screen.changed().await.unwrap();
            }
        };
        match tokio::time::timeout(DEADLINE, wait).await {
            Ok(screen) => screen,
            Err(_) => panic!(
                "timed out waiting for {what}; the screen was:\n{}",
                *self.screen.borrow()
            ),
        }
    }

    async fn quit(self) -> App {
        self.key(KeyCode::Esc);
        self.key(KeyCode::Char('q'));
        tokio::time::timeout(DEADLINE, self.task)
            .await
            .expect("the console quits")
            .unwrap()
    }
}

fn line_with<'a>(screen: &'a str, needle: &str) -> Option<&'a str> {
    screen.lines().find(|line| line.contains(needle))
}

#[tokio::test]
async fn a_job_created_in_the_composer_completes_with_its_pr_link() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
    let mut console = Console::open(&server, Duration::from_millis(50));
    console
        .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
        .await;
    console.key(KeyCode::Char('n'));
    console
        .wait_for("the composer", |s| s.contains("New job"))
        .await;
    console.type_text("Fix the typo in the quickstart\nand the intro");
    console.ctrl('s');
    let screen = console
        .wait_for("the job completed with a PR", |s| {
            line_with(s, "Fix the typo in the quickstart")
                .is_some_and(|l| l.contains("completed") && l.contains("#1"))
        })
        .await;
    assert!(
        screen.contains("completed · https://github.com/acme/docs/pull/1"),
        "{screen}"
    );
    assert!(
        console.written.lock().unwrap().contains(&0x07),
        "the bell rang"
    );
    // `y` puts the PR link on the user's clipboard through the terminal (OSC 52).
    console.key(KeyCode::Char('y'));
    console
        .wait_for("the copy notice", |s| s.contains("copied the PR link"))
        .await;
    let osc52 = docdeck::tui::terminal::osc52("https://github.com/acme/docs/pull/1");
    let written = console.written.lock().unwrap().clone();
    assert!(
        written.windows(osc52.len()).any(|w| w == osc52.as_slice()),
        "{written:?}"
    );
    // The journal knows the job, its prompt and its timeline.
    let journal = Arc::clone(&console.journal);
    let scope = console.scope.clone();
    console.quit().await;
    {
        let journal = journal.lock().unwrap();
        let tracked = journal.tracked(&scope).unwrap();
        assert_eq!(tracked.len(), 1);
        assert_eq!(
            tracked[0].first_prompt.as_deref(),
            Some("Fix the typo in the quickstart\nand the intro")
        );
        let timeline: Vec<String> = journal
            .timeline(&scope, &tracked[0].id)
            .unwrap()
            .iter()
            .map(|c| c.status.to_string())
            .collect();
        assert_eq!(timeline, ["active", "completed"]);
        assert!(
            journal.drafts(&scope).unwrap().is_empty(),
            "the sent draft is gone"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_follow_up_goes_active_then_completed_again() {
    let mut options = common::fast_options(DbLocation::Memory);
    options.agent.delay = Duration::from_millis(400);
    let server = common::start(options).await;
    let job = common::client(&server)
        .create_job("first turn")
        .await
        .unwrap();
    let id = job.id.unwrap();
    let mut console = Console::open(&server, Duration::from_millis(50));
    console
        .wait_for("the list", |s| s.contains("No tracked jobs yet"))
        .await;
    console.key(KeyCode::Char('a'));
    console
        .wait_for("the track form", |s| s.contains("Track a job"))
        .await;
    console.type_text(&id);
    console.key(KeyCode::Enter);
    console
        .wait_for("the tracked job completed", |s| {
            line_with(s, &id[..12]).is_some_and(|l| l.contains("completed"))
        })
        .await;
    console.key(KeyCode::Char('m'));
    console
        .wait_for("the follow-up composer", |s| {
            s.contains("Follow-up to") && s.contains("(completed)")
        })
        .await;
    console.type_text("Add an example");
    console.ctrl('s');
    console
        .wait_for("the job active again", |s| {
            line_with(s, &id[..12]).is_some_and(|l| l.contains("active"))
        })
        .await;
    console
        .wait_for("the job completed again", |s| {
            line_with(s, &id[..12]).is_some_and(|l| l.contains("completed") && l.contains("#2"))
        })
        .await;
    console.key(KeyCode::Enter);
    let detail = console
        .wait_for("the detail with the timeline", |s| {
            s.contains("completed") && s.contains("→ active") && s.contains("Add an example")
        })
        .await;
    assert!(detail.contains("follow-up"), "{detail}");
    console.quit().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_draft_is_in_the_journal_while_typing_and_back_after_a_crash() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
    let mut console = Console::open(&server, Duration::from_secs(3));
    console.wait_for("the list", |s| s.contains("Jobs")).await;
    console.key(KeyCode::Char('n'));
    console.type_text("half a thought");
    console
        .wait_for("the text", |s| s.contains("half a thought"))
        .await;
    let (journal, scope) = (Arc::clone(&console.journal), console.scope.clone());
    common::eventually("the draft in the journal", || {
        let drafts = journal.lock().unwrap().drafts(&scope).unwrap();
        async move {
            drafts
                .iter()
                .any(|(k, t)| k == "new" && t == "half a thought")
                .then_some(())
        }
    })
    .await;
    // A crash: the loop is gone without quitting.
    console.task.abort();
    let keys = console.keys;
    drop(keys);
    // A new console on the same journal finds the draft in the composer.
    let mut again = Console::open_with(&server, Duration::from_secs(3), journal);
    again.wait_for("the list", |s| s.contains("Jobs")).await;
    again.key(KeyCode::Char('n'));
    again
        .wait_for("the restored draft", |s| {
            s.contains("New job") && s.contains("half a thought")
        })
        .await;
    again.quit().await;
    server.shutdown().await;
}

#[tokio::test]
async fn visitors_page_forward_and_back_and_change_dates_as_the_api_says() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.sqlite");
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1))
        .format("%Y-%m-%dT12:00:00Z")
        .to_string();
    let long_ago = "2020-01-01T12:00:00Z";
    let mut lines = Vec::new();
    for page in 0..120 {
        for visitor in 0..=(page % 7) {
            lines.push(common::view(
                &yesterday,
                &format!("/p/{page:03}"),
                &format!("v{visitor}"),
                if visitor % 3 == 0 { "ai" } else { "human" },
            ));
        }
    }
    lines.push(common::view(long_ago, "/old/only", "v1", "human"));
    common::import_views(&db, PROJECT, &lines);
    let server = common::start(common::fast_options(DbLocation::File(db))).await;
    let client = common::client(&server);
    let mut console = Console::open(&server, Duration::from_secs(3));
    console.wait_for("the list", |s| s.contains("Jobs")).await;
    console.key(KeyCode::Char('3'));
    let first = console
        .wait_for("page 1", |s| s.contains("page 1 · rows 1–50 · more"))
        .await;
    // The rows on screen are the API's rows, in its order.
    let today = chrono::Utc::now().date_naive();
    let query = VisitorsQuery {
        date_from: Some(DateParam::from_date(today - chrono::Days::new(6))),
        date_to: Some(DateParam::from_date(today + chrono::Days::new(1))),
        limit: Some(50),
        offset: Some(0),
    };
    let api = client.visitors(&query).await.unwrap();
    assert_rows_match(
        &first,
        &api.visitors
            .iter()
            .map(|r| (r.path.clone(), r.total))
            .collect::<Vec<_>>(),
    );
    console.key(KeyCode::Char('n'));
    let second = console
        .wait_for("page 2", |s| s.contains("page 2 · rows 51–100 · more"))
        .await;
    let api2 = client.visitors(&query.next_page()).await.unwrap();
    assert_rows_match(
        &second,
        &api2
            .visitors
            .iter()
            .map(|r| (r.path.clone(), r.total))
            .collect::<Vec<_>>(),
    );
    console.key(KeyCode::PageDown);
    let third = console
        .wait_for("page 3", |s| s.contains("page 3 · rows 101–120"))
        .await;
    assert!(
        !third.contains("rows 101–120 · more"),
        "the last page says no more"
    );
    console.key(KeyCode::Char('p'));
    console.key(KeyCode::PageUp);
    let back = console
        .wait_for("page 1 again", |s| s.contains("page 1 · rows 1–50 · more"))
        .await;
    assert_rows_match(
        &back,
        &api.visitors
            .iter()
            .map(|r| (r.path.clone(), r.total))
            .collect::<Vec<_>>(),
    );
    // All time: the old page appears and the totals grow.
    console.key(KeyCode::Char('f'));
    console
        .wait_for("the filter form", |s| s.contains("Dates and page size"))
        .await;
    for _ in 0..5 {
        console.key(KeyCode::Right);
    }
    console.key(KeyCode::Enter);
    console
        .wait_for("all time", |s| {
            s.contains("all time ·") && s.contains("page 1 · rows 1–50")
        })
        .await;
    let everything = client.visitors(&VisitorsQuery::default()).await.unwrap();
    let totals = console
        .wait_for("the all-time totals", |s| {
            s.contains(&format!("total {}", everything.totals.total))
        })
        .await;
    assert!(
        totals.contains(&format!("human {}", everything.totals.human)),
        "{totals}"
    );
    console.quit().await;
    server.shutdown().await;
}

/// Every (path, total) of the page appears on screen, in order.
fn assert_rows_match(screen: &str, rows: &[(String, u64)]) {
    let shown: Vec<&str> = screen.lines().filter(|l| l.starts_with("/p/")).collect();
    let visible = shown.len().min(rows.len());
    assert!(visible > 10, "rows on screen:\n{screen}");
    for (line, (path, total)) in shown.iter().zip(rows) {
        assert!(
            line.starts_with(path.as_str()),
            "expected {path} on {line:?}"
        );
        assert!(
            line.contains(&format!(" {total} ")),
            "expected total {total} on {line:?}"
        );
    }
}

#[tokio::test]
async fn ctrl_e_edits_the_draft_in_the_editor_and_keeps_it() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
    let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
    let editor = "printf 'written in the editor' >";
    let mut console = Console::open_full(
        &server,
        Duration::from_secs(3),
        Arc::clone(&journal),
        editor,
    );
    console.wait_for("the list", |s| s.contains("Jobs")).await;
    console.key(KeyCode::Char('n'));
    console.type_text("typed first");
    console
        .wait_for("the typed text", |s| s.contains("typed first"))
        .await;
    console.ctrl('e');
    console
        .wait_for("the edited text", |s| {
            s.contains("written in the editor") && !s.contains("typed first")
        })
        .await;
    let scope = console.scope.clone();
    common::eventually("the edited draft saved", || {
        let drafts = journal.lock().unwrap().drafts(&scope).unwrap();
        async move {
            drafts
                .iter()
                .any(|(_, t)| t == "written in the editor")
                .then_some(())
        }
    })
    .await;
    console.quit().await;
    server.shutdown().await;
}

#[tokio::test]
async fn the_whole_range_exports_to_csv_with_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.sqlite");
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1))
        .format("%Y-%m-%dT08:00:00Z")
        .to_string();
    let lines: Vec<String> = (0..300)
        .map(|i| {
            common::view(
                &yesterday,
                &format!("/e/{i:03}"),
                &format!("v{}", i % 5),
                "human",
            )
        })
        .collect();
    common::import_views(&db, PROJECT, &lines);
    let server = common::start(common::fast_options(DbLocation::File(db))).await;
    let mut console = Console::open(&server, Duration::from_secs(3));
    console.wait_for("the list", |s| s.contains("Jobs")).await;
    console.key(KeyCode::Char('3'));
    console
        .wait_for("page 1", |s| s.contains("page 1 · rows 1–50 · more"))
        .await;
    console.key(KeyCode::Char('e'));
    console
        .wait_for("the export form", |s| s.contains("Export the whole range"))
        .await;
    for _ in 0..80 {
        console.key(KeyCode::Backspace);
    }
    let target = dir.path().join("out.csv");
    console.type_text(target.to_str().unwrap());
    console.key(KeyCode::Enter);
    console
        .wait_for("the export done", |s| s.contains("exported 300 rows to"))
        .await;
    let csv = std::fs::read_to_string(&target).unwrap();
    let mut rows = csv.lines();
    assert_eq!(rows.next(), Some("path,human,ai,total"));
    assert_eq!(rows.count(), 300);
    assert!(!dir.path().join("out.csv.partial").exists());
    console.quit().await;
    server.shutdown().await;
}

/// What became of one submit in the soak.
#[derive(Debug, Default)]
struct SoakCounts {
    accepted: usize,
    /// Sent, answer lost or unreadable: the job may exist, and it was not resent.
    unknown: usize,
    /// Refused before anything was carried out (an injected 5xx), sent again by the "user".
    resent: usize,
}

/// The screen's words joined by single spaces, so a message wrapped over lines still matches.
fn flat(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
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
    /// Waits for the next frame drawn after now that satisfies `ready`.
    async fn next_frame(&mut self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        self.screen.mark_unchanged();
        self.wait_for(what, ready).await
    }
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
                    self.wait_for("the offer to send again", move |s| {
                        flat(s).contains("Ctrl+S sends it again") && s.contains(&p)
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
async fn soak(jobs: usize, agent_delay: Duration, hold: Duration, follow_ups: usize) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.sqlite");
    let mut options = common::fast_options(DbLocation::File(db.clone()));
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
    let service = docdeck::server::db::Db::open(&DbLocation::File(db.clone())).unwrap();
    let truth = move || {
        service
            .blocking(|conn| {
                let mut statement = conn.prepare(
                    "SELECT j.id, j.status, t.prompt FROM jobs j
                     JOIN turns t ON t.job_seq = j.seq
                     WHERE t.turn = (SELECT min(turn) FROM turns WHERE job_seq = j.seq)",
                )?;
                let rows = statement.query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                })?;
                Ok(rows.collect::<Result<Vec<_>, _>>()?)
            })
            .unwrap()
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
    let repeated: i64 = docdeck::server::db::Db::open(&DbLocation::File(db.clone()))
        .unwrap()
        .blocking(|conn| {
            Ok(conn.query_row(
                "SELECT count(*) FROM (SELECT prompt FROM turns GROUP BY prompt HAVING count(*) > 1)",
                [],
                |row| row.get(0),
            )?)
        })
        .unwrap();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_short_forty_jobs_against_a_faulty_service() {
    soak(40, Duration::from_millis(30), Duration::ZERO, 0).await;
}

/// The long soak: `DOCDECK_SOAK_JOBS` creates (default 95, under the hourly budget of
/// 100) to an agent that takes `DOCDECK_SOAK_AGENT_MS` per turn (default 10 s), then the
/// console stays open for `DOCDECK_SOAK_SECS` (default 180) with `DOCDECK_SOAK_FOLLOW_UPS`
/// follow-ups spread over it (default 60), sampling memory. Run with
/// `cargo test --release --test console_loop soak_long -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes long; run by hand (see RELIABILITY.md)"]
async fn soak_long() {
    let setting = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    soak(
        usize::try_from(setting("DOCDECK_SOAK_JOBS", 95)).unwrap(),
        Duration::from_millis(setting("DOCDECK_SOAK_AGENT_MS", 10_000)),
        Duration::from_secs(setting("DOCDECK_SOAK_SECS", 180)),
        usize::try_from(setting("DOCDECK_SOAK_FOLLOW_UPS", 60)).unwrap(),
    )
    .await;
}
