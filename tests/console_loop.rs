//! The real console loop, driven by scripted keys on a `TestBackend`, against the local
//! service on port 0. Each test waits for screen content with a deadline. Those whose
//! screens show what the service stores (jobs, turns, views, the rate limit) run on both
//! stores; the drafts, the editor and the too-small screen are the console's own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::KeyCode;
use docdeck::api::{DateParam, VisitorsQuery};
use docdeck::journal::Journal;
use docdeck::server::db::DbLocation;

use common::PROJECT;
use common::console::{Console, line_with};

on_both_stores! {
    async fn a_job_created_in_the_composer_completes_with_its_pr_link(db: DbLocation) {
        let server = common::start(common::options_on(&db)).await;
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
            screen.contains("completed · https://forge.invalid/acme/docs/pull/1"),
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
        let osc52 = docdeck::tui::terminal::osc52("https://forge.invalid/acme/docs/pull/1");
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
}

on_both_stores! {
    async fn a_follow_up_goes_active_then_completed_again(db: DbLocation) {
        let mut options = common::options_on(&db);
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
            // Active again: running, or for a moment waiting for the agent to take it, or (the
            // answer to the follow-up, with an agent free) `◌ starting`.
            .wait_for("the job active again", |s| {
                line_with(s, &id[..12]).is_some_and(|l| {
                    l.contains("active") || l.contains("queued") || l.contains("starting")
                })
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

on_both_stores_kept! {
    async fn visitors_page_forward_and_back_and_change_dates_as_the_api_says(db: DbLocation) {
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
        common::import_views_into(&db, PROJECT, &lines);
        let server = common::start(common::options_on(&db)).await;
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
        console.key(KeyCode::Char(']'));
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
        console.key(KeyCode::Char('['));
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
async fn ctrl_e_hands_the_editor_a_private_file_with_an_unguessable_name() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
    let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
    // The "editor" replaces the text with the file's mode and name, CRLF-terminated as
    // some editors write it.
    let editor = r#"m() { printf 'mode %s\r\nname %s\r\n' "$(stat -c %a "$1")" "$(basename "$1")" > "$1"; }; m"#;
    let mut console = Console::open_full(
        &server,
        Duration::from_secs(3),
        Arc::clone(&journal),
        editor,
    );
    console.wait_for("the list", |s| s.contains("Jobs")).await;
    console.key(KeyCode::Char('n'));
    console.type_text("private plans");
    console.ctrl('e');
    let screen = console
        .wait_for("the edited text", |s| {
            s.contains("mode ") && s.contains("name ")
        })
        .await;
    assert!(screen.contains("mode 600"), "{screen}");
    let pid = std::process::id().to_string();
    let name = line_with(&screen, "name ").unwrap();
    assert!(
        !name.contains(&pid),
        "a name with the pid can be guessed: {name}"
    );
    let scope = console.scope.clone();
    common::eventually("the edited draft saved without CR", || {
        let drafts = journal.lock().unwrap().drafts(&scope).unwrap();
        async move {
            drafts
                .iter()
                .any(|(_, t)| t.starts_with("mode 600\nname ") && !t.contains('\r'))
                .then_some(())
        }
    })
    .await;
    console.quit().await;
    server.shutdown().await;
}

on_both_stores_kept! {
    async fn the_whole_range_exports_to_csv_with_every_page(db: DbLocation) {
        let dir = tempfile::tempdir().unwrap();
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
        common::import_views_into(&db, PROJECT, &lines);
        let server = common::start(common::options_on(&db)).await;
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
        // The form opens on the format; Tab goes to the file name.
        console.key(KeyCode::Tab);
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
        // The same file again: the form asks before replacing it.
        std::fs::write(&target, "mine").unwrap();
        console.key(KeyCode::Char('e'));
        console.key(KeyCode::Tab);
        for _ in 0..80 {
            console.key(KeyCode::Backspace);
        }
        console.type_text(target.to_str().unwrap());
        console.key(KeyCode::Enter);
        console
            .wait_for("the question", |s| s.contains("exists: Enter replaces it"))
            .await;
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
        console.key(KeyCode::Enter);
        common::eventually("the file replaced", || {
            let text = std::fs::read_to_string(&target).unwrap();
            async move { text.starts_with("path,").then_some(()) }
        })
        .await;
        // The file is in place before the console hears that the export ended; until then
        // `e` would cancel it rather than open the form.
        console
            .wait_for("the replacing export ended", |s| {
                s.contains("exported 300 rows") && !s.contains("exporting:")
            })
            .await;
        // JSON carries the range it covers.
        console.key(KeyCode::Char('e'));
        console.key(KeyCode::Right);
        console.key(KeyCode::Tab);
        for _ in 0..80 {
            console.key(KeyCode::Backspace);
        }
        let json_path = dir.path().join("out.json");
        console.type_text(json_path.to_str().unwrap());
        console.key(KeyCode::Enter);
        console
            .wait_for("the form closed", |s| !s.contains("Export the whole range"))
            .await;
        common::eventually("the JSON file", || {
            let text = std::fs::read_to_string(&json_path).ok();
            async move { text }
        })
        .await;
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(json["complete"], true);
        assert!(
            json["dateFrom"].as_str().is_some_and(|d| d.len() == 10),
            "{json}"
        );
        assert!(json["dateTo"].as_str().is_some(), "{json}");
        assert_eq!(json["visitors"].as_array().unwrap().len(), 300);
        console.quit().await;
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn an_untracked_job_comes_back_by_its_short_id_with_its_prompt(db: DbLocation) {
        let server = common::start(common::options_on(&db)).await;
        let mut console = Console::open(&server, Duration::from_millis(50));
        console
            .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
            .await;
        console.key(KeyCode::Char('n'));
        console.type_text("Keep my prompt");
        console.ctrl('s');
        console
            .wait_for("the job listed", |s| {
                s.contains("created;") && line_with(s, "Keep my prompt").is_some()
            })
            .await;
        let id = {
            let journal = console.journal.lock().unwrap();
            journal.tracked(&console.scope).unwrap()[0].id.clone()
        };
        let short = &id[..12];
        console.key(KeyCode::Char('x'));
        console
            .wait_for("the undo notice", |s| {
                s.contains(&format!("stopped tracking {short}")) && !s.contains("Keep my prompt")
            })
            .await;
        // A wrong id: the form says so and keeps what was typed.
        console.key(KeyCode::Char('a'));
        console.type_text("job_nope");
        console.key(KeyCode::Enter);
        console
            .wait_for("the error in the form", |s| {
                s.contains("Track a job") && s.contains("job_nope") && s.contains("not found")
            })
            .await;
        for _ in 0.."job_nope".len() {
            console.key(KeyCode::Backspace);
        }
        // The short id the notice showed is enough, and the prompt is back at once.
        console.type_text(short);
        console.key(KeyCode::Enter);
        let screen = console
            .wait_for("the job tracked again", |s| {
                !s.contains("Track a job")
                    && line_with(s, short).is_some_and(|l| l.contains("Keep my prompt"))
            })
            .await;
        assert!(!screen.contains("prompt not sent from here"), "{screen}");
        console.quit().await;
        server.shutdown().await;
    }
}

#[tokio::test]
async fn on_a_screen_too_small_from_the_start_keys_reach_nothing_hidden() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
    let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
    let mut console =
        Console::open_sized(&server, Duration::from_secs(3), journal, "false", (50, 10));
    console
        .wait_for("the too-small screen", |s| s.contains("terminal too small"))
        .await;
    // The loop told the app the size before any key: `n` and the text go nowhere.
    console.key(KeyCode::Char('n'));
    console.type_text("typed blind");
    let app = console.quit().await;
    assert!(app.quit, "q quits, as the screen says");
    assert_eq!(app.focus, docdeck::tui::app::Pane::Jobs);
    assert_eq!(app.composer.text(), "");
    server.shutdown().await;
}

on_both_stores! {
    async fn an_analytics_429_leaves_jobs_working_and_the_status_bar_says_what_waits(db: DbLocation) {
        let mut options = common::options_on(&db);
        options.rate_limit = 1;
        let server = common::start(options).await;
        // 24 rows: no chart, whose days would spend the one analytics request after the page.
        let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
        let mut console = Console::open_sized(
            &server,
            Duration::from_millis(50),
            journal,
            "false",
            (120, 24),
        );
        console
            .wait_for("the key accepted", |s| s.contains("● online"))
            .await;
        console.key(KeyCode::Char('3'));
        console
            .wait_for("the first page", |s| s.contains("no visits in this range"))
            .await;
        console.key(KeyCode::Char('r'));
        console
            .wait_for("the pause in the status bar", |s| {
                s.contains("⏸ analytics 60m") && s.contains("analytics paused")
            })
            .await;
        console.key(KeyCode::Char('1'));
        console.key(KeyCode::Char('n'));
        console.type_text("Document the limits");
        console.ctrl('s');
        console
            .wait_for("the job completed", |s| {
                line_with(s, "Document the limits").is_some_and(|l| l.contains("completed"))
            })
            .await;
        console.quit().await;
    }
}
