//! Bytes on the wire (issue 28): what the real console (the release binary, in a
//! pseudo-terminal, against the local service with its demo seed) writes to the terminal
//! at 80x24 and 120x40, for its first frame, an idle minute (nothing to poll: nothing
//! changes), a busy minute (ten active jobs made just before, polled every 3 s, their AGE
//! moving every second), the minute after (ages in minutes) and the switch to the
//! visitors pane. The time each takes through a 2 KB/s link (an SSH session over a bad
//! mobile line) is the bytes divided by 2,048.
//!
//! ```sh
//! cargo bench --bench console_wire                  # 60 s per minute figure
//! cargo bench --bench console_wire -- --secs 10     # quicker (figures scaled to a minute)
//! DOCDECK_BENCH_BIN=path/to/docdeck cargo bench --bench console_wire   # another build
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)]

#[path = "../tests/common/pty.rs"]
#[expect(dead_code)]
mod pty;

use std::time::Duration;

use chrono::Utc;
use docdeck::api::{Client, ClientOptions, Job};
use docdeck::config::Secret;
use docdeck::journal::{Journal, Scope, SubmissionKind};
use docdeck::server::db::DbLocation;
use docdeck::server::{self, RunningServer, SeedKind, ServeOptions};
use pty::Pty;

/// How long the harness waits for any one thing.
const DEADLINE: Duration = Duration::from_secs(60);
const KEY: &str = "mint_bench_0123456789abcdef";
/// The slow link the figures are turned into seconds for.
const LINK: f64 = 2048.0;

fn secs_arg() -> u64 {
    let mut args = std::env::args().skip_while(|a| a != "--secs").skip(1);
    args.next().and_then(|v| v.parse().ok()).unwrap_or(60)
}

async fn service() -> RunningServer {
    let dir = tempfile::tempdir().unwrap().keep();
    let mut options = ServeOptions::new(DbLocation::File(dir.join("service.sqlite")));
    options.api_key = Some(Secret::new(KEY));
    // Jobs stay active for the whole run.
    options.agent.delay = Duration::from_secs(3600);
    options.rate_limit = u32::MAX;
    options.seed = SeedKind::Demo;
    server::start(options).await.unwrap()
}

/// A home folder whose journal follows `jobs` (snapshots as given).
fn home_with(server: &RunningServer, jobs: &[Job]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let path = home
        .path()
        .join("data")
        .join("docdeck")
        .join("docdeck.sqlite");
    let mut journal = Journal::open(&path).unwrap();
    let scope = Scope {
        service: server.base_url(),
        project: "demo".into(),
    };
    for job in jobs {
        let submission = journal
            .begin_submission(
                &scope,
                SubmissionKind::Create,
                None,
                "Rewrite the guide",
                Utc::now(),
            )
            .unwrap();
        journal
            .submission_accepted(&scope, submission, job, Utc::now())
            .unwrap();
    }
    home
}

fn console(server: &RunningServer, home: tempfile::TempDir, size: (u16, u16)) -> Pty {
    let program = std::env::var("DOCDECK_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_docdeck").to_owned());
    let base = server.base_url();
    Pty::spawn_sized(
        home,
        &program,
        &["--poll-interval", "3s"],
        &[
            ("DOCDECK_BASE_URL", base.as_str()),
            ("DOCDECK_PROJECT_ID", "demo"),
            ("DOCDECK_API_KEY", KEY),
            ("DOCDECK_NOTIFY", "off"),
        ],
        size,
    )
}

fn written(pty: &Pty) -> usize {
    pty.output.lock().unwrap().len()
}

/// Bytes written in the next `secs` seconds.
fn bytes_over(pty: &Pty, secs: u64) -> usize {
    let before = written(pty);
    std::thread::sleep(Duration::from_secs(secs));
    written(pty) - before
}

fn quit(mut pty: Pty) {
    pty.keys(b"q");
    pty.wait_exit();
}

struct Figures {
    first: usize,
    idle: f64,
    busy: f64,
    after: f64,
    switch: usize,
    switch_shown: usize,
}

async fn measure(size: (u16, u16), secs: u64) -> Figures {
    let per_minute = |bytes: usize| bytes as f64 * 60.0 / secs as f64;
    let server = service().await;

    // Idle: nothing to poll, nothing on screen that moves by itself.
    let pty = console(&server, tempfile::tempdir().unwrap(), size);
    pty.wait_for("the first frame", |s| s.contains("No tracked jobs yet"));
    // Let the start settle (the budget's first read).
    std::thread::sleep(Duration::from_secs(2));
    let idle = per_minute(bytes_over(&pty, secs));
    quit(pty);

    // Busy: ten active jobs made just now.
    let api = Client::new(ClientOptions::new(
        server.base_url().parse().unwrap(),
        "demo",
        Secret::new(KEY),
    ))
    .unwrap();
    let mut active = Vec::new();
    for i in 0..10 {
        active.push(api.create_job(&format!("bench job {i}")).await.unwrap());
    }
    let mut pty = console(&server, home_with(&server, &active), size);
    pty.wait_for("the first frame", |s| s.contains("Jobs (10)"));
    let first = written(&pty);
    let busy = per_minute(bytes_over(&pty, secs));
    // Past the first minute the ages read in minutes.
    let lived = Duration::from_secs(61);
    std::thread::sleep(lived.saturating_sub(Duration::from_secs(secs)));
    let after = per_minute(bytes_over(&pty, secs));

    // The switch to visitors: to the counts on screen, and all that the next 3 s bring
    // (the chart's days, the clock meanwhile).
    let before = written(&pty);
    pty.keys(b"3");
    pty.wait_for("the visitors counts", |s| s.contains("AI share"));
    let switch_shown = written(&pty) - before;
    std::thread::sleep(Duration::from_secs(3));
    let switch = written(&pty) - before;
    quit(pty);
    server.shutdown().await;
    Figures {
        first,
        idle,
        busy,
        after,
        switch,
        switch_shown,
    }
}

#[tokio::main]
async fn main() {
    let secs = secs_arg();
    println!("bytes written to the terminal by the release console (minutes over {secs} s)");
    println!(
        "| size | first frame | idle minute | busy minute (ages in s) | minute after (ages in m) | switch to visitors (to counts) |"
    );
    for size in [(24, 80), (40, 120)] {
        let f = measure(size, secs).await;
        println!(
            "| {}x{} | {} B ({:.2} s at 2 KB/s) | {:.0} B | {:.0} B | {:.0} B | {} B ({}; {:.2} s) |",
            size.1,
            size.0,
            f.first,
            f.first as f64 / LINK,
            f.idle,
            f.busy,
            f.after,
            f.switch,
            f.switch_shown,
            f.switch as f64 / LINK,
        );
    }
}
