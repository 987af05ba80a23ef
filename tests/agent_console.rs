//! The console loop follows a real-agent job: created in the composer, run by a script in
//! a git worktree, and shown `completed` with the link to its change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::time::Duration;

use agent_common::{Repos, options};
use common::console::{Console, line_with};
use crossterm::event::KeyCode;
use docdeck::server::db::DbLocation;

on_both_stores! {
    async fn a_real_agent_job_completes_in_the_console_with_its_change_link(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script("edit.sh", "cat >> intro.mdx");
        let server = common::start(options(&repos, db, &script)).await;
        let mut console = Console::open(&server, Duration::from_millis(50));
        console
            .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
            .await;
        console.key(KeyCode::Char('n'));
        console
            .wait_for("the composer", |s| s.contains("New job"))
            .await;
        console.type_text("Add a line to the intro");
        console.ctrl('s');
        let screen = console
            .wait_for("the job completed", |s| {
                line_with(s, "Add a line to the intro").is_some_and(|l| l.contains("completed"))
            })
            .await;
        let prefix = format!("{}/changes/demo/job_", server.base_url());
        assert!(screen.contains(&prefix), "{screen}");
        console.quit().await;
        let log = agent_common::git(&repos.remote(), &["log", "--all", "--format=%s"]);
        assert!(log.contains("Add a line to the intro"), "{log}");
        server.shutdown().await;
    }
}
