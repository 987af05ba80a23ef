//! Issue 23 in the real console loop against the local service: "online" means the
//! interface answers (a base URL with a path the API does not have is said at start).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::console::{Console, flat};
use docdeck::journal::Journal;
use docdeck::server::db::DbLocation;

#[tokio::test]
async fn a_base_url_with_a_wrong_path_is_not_online_and_the_console_says_why() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
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
