//! Issue 23 in the real console loop against the local service: "online" means the
//! interface answers (a base URL with a path the API does not have is said at start), and
//! a job another docdeck starts tracking appears by itself. Both on each store.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::console::{Console, flat};
use docdeck::journal::Journal;
use docdeck::server::db::DbLocation;

on_both_stores! {
    async fn a_base_url_with_a_wrong_path_is_not_online_and_the_console_says_why(db: DbLocation) {
        let server = common::start(common::options_on(&db)).await;
        // The service answers every path with its JSON 404, as a wrong path of a real
        // gateway does: only a made-up key getting the same 404 tells the path is wrong.
        let wrong = format!("{}/v2", server.base_url());
        let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
        let mut console = Console::open_at(&wrong, Duration::from_secs(3), journal, "false", (120, 40));
        let screen = console
            .wait_for("the wrong path said", |s| {
                flat(s).contains("base URL's path is not the API's root")
            })
            .await;
        assert!(screen.contains("▲ trouble"), "{screen}");
        assert!(!screen.contains("● online"), "{screen}");
        console.quit().await;

        // The right base URL is online, with nothing to say.
        let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
        let mut console = Console::open_at(
            &server.base_url(),
            Duration::from_secs(3),
            journal,
            "false",
            (120, 40),
        );
        let screen = console.wait_for("online", |s| s.contains("● online")).await;
        assert!(!flat(&screen).contains("made-up key"), "{screen}");
        console.quit().await;
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn a_job_tracked_by_another_docdeck_appears_without_r(db: DbLocation) {
        let server = common::start(common::options_on(&db)).await;
        let client = common::client(&server);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docdeck.sqlite");
        let journal = Arc::new(Mutex::new(Journal::open(&path).unwrap()));
        let mut console = Console::open_at(
            &server.base_url(),
            Duration::from_secs(3),
            journal,
            "false",
            (120, 40),
        );
        console
            .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
            .await;
        // The CLI (another process, another connection to the same file) creates and
        // tracks a job; nothing is pressed in the console.
        let job = client.create_job("Made from the CLI").await.unwrap();
        let id = job.id.clone().unwrap();
        let scope = docdeck::journal::Scope {
            service: server.base_url(),
            project: common::PROJECT.into(),
        };
        let mut other = Journal::open(&path).unwrap();
        other.track(&scope, &id, chrono::Utc::now()).unwrap();
        other.observe(&scope, &job, chrono::Utc::now()).unwrap();
        drop(other);
        let short = &id[..12];
        let screen = console
            .wait_for("the job tracked elsewhere", |s| s.contains(short))
            .await;
        assert!(screen.contains("Jobs (1)"), "{screen}");
        console.quit().await;
        server.shutdown().await;
    }
}
