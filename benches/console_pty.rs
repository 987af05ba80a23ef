//! The real console (the release binary) in a pseudo-terminal against the local service:
//! `docdeck demo` to its first frame and to its visitors counts, start to first frame with
//! a journal of 10,000 jobs, CPU and wake-ups while idle, CPU
//! with 100 active jobs polled every 3 s, bytes written when one job changes status, and
//! key press to updated frame. CPU and wake-ups come from /proc (Linux only).
//!
//! ```sh
//! cargo bench --bench console_pty                       # 60 s per CPU figure
//! cargo bench --bench console_pty -- --secs 10          # quicker, noisier
//! cargo bench --bench console_pty -- --demo-only         # `docdeck demo` alone
//! cargo bench --bench console_pty -- --start-only        # the start with 10,000 jobs alone
//! DOCDECK_BENCH_BIN=path/to/docdeck cargo bench --bench console_pty -- --demo-only
//! ```
//!
//! `DOCDECK_BENCH_BIN` times another build (one from before a change, or a wrapper that
//! runs the binary under a profiler).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)]

#[path = "../tests/common/pty.rs"]
#[expect(dead_code)]
mod pty;

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use docdeck::api::{Client, ClientOptions, Job, JobStatus};
use docdeck::config::Secret;
use docdeck::journal::{Journal, Scope, SubmissionKind};
use docdeck::server::db::DbLocation;
use docdeck::server::{self, RunningServer, ServeOptions};
use pty::Pty;

/// How long the harness waits for any one thing.
const DEADLINE: Duration = Duration::from_secs(60);
const KEY: &str = "mint_bench_0123456789abcdef";

fn secs_arg() -> u64 {
    let mut args = std::env::args().skip_while(|a| a != "--secs").skip(1);
    args.next().and_then(|v| v.parse().ok()).unwrap_or(60)
}

async fn service(agent_delay: Duration) -> RunningServer {
    let dir = tempfile::tempdir().unwrap().keep();
    let mut options = ServeOptions::new(DbLocation::File(dir.join("service.sqlite")));
    options.api_key = Some(Secret::new(KEY));
    options.agent.delay = agent_delay;
    options.rate_limit = u32::MAX;
    server::start(options).await.unwrap()
}

fn client(server: &RunningServer) -> Client {
    Client::new(ClientOptions::new(
        server.base_url().parse().unwrap(),
        "demo",
        Secret::new(KEY),
    ))
    .unwrap()
}

fn scope(server: &RunningServer) -> Scope {
    Scope {
        service: server.base_url(),
        project: "demo".into(),
    }
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
    let scope = scope(server);
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

fn program() -> String {
    std::env::var("DOCDECK_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_docdeck").to_owned())
}

fn console(server: &RunningServer, home: tempfile::TempDir) -> Pty {
    let base = server.base_url();
    Pty::spawn_program(
        home,
        &program(),
        &["--poll-interval", "3s"],
        &[
            ("DOCDECK_BASE_URL", base.as_str()),
            ("DOCDECK_PROJECT_ID", "demo"),
            ("DOCDECK_API_KEY", KEY),
            ("DOCDECK_NOTIFY", "off"),
        ],
    )
}

/// utime + stime of the process, in clock ticks, and the voluntary context switches of
/// each of its threads (by thread id: threads come and go).
fn usage(pid: u32) -> (u64, std::collections::HashMap<String, u64>) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let ticks = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let mut switches = std::collections::HashMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let task = task.unwrap();
        let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
        if let Some(n) = status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            switches.insert(task.file_name().to_string_lossy().into_owned(), n);
        }
    }
    (ticks, switches)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// CPU share of one core and wake-ups per second over `secs`, after the first frame.
async fn cpu(pty: &Pty, secs: u64) -> (f64, f64) {
    let pid = pty.child.process_id().unwrap();
    let (t0, s0) = usage(pid);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (t1, s1) = usage(pid);
    let elapsed = started.elapsed().as_secs_f64();
    // Linux reports CPU time in USER_HZ ticks, 100 per second.
    let share = (t1 - t0) as f64 / 100.0 / elapsed * 100.0;
    // Wake-ups of threads alive at the end; a thread born meanwhile counts from zero.
    let wakeups: u64 = s1
        .iter()
        .map(|(tid, n)| n.saturating_sub(s0.get(tid).copied().unwrap_or(0)))
        .sum();
    (share, wakeups as f64 / elapsed)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn quit(mut pty: Pty) {
    pty.keys(b"q");
    pty.wait_exit();
}

fn wait_len_change(pty: &Pty, from: usize) -> usize {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let len = pty.output.lock().unwrap().len();
        if len > from {
            return len;
        }
        let _ = pty
            .changed
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
        assert!(Instant::now() < deadline, "no output");
    }
}

/// `docdeck demo` to its first frame (the seeded jobs listed), and to the visitors pane
/// showing the seeded counts (`3` pressed as soon as the first frame is there). The demo
/// service runs in the console's own process.
fn demo() {
    let program = program();
    let mut firsts = Vec::new();
    let mut counts = Vec::new();
    for _ in 0..7 {
        let started = Instant::now();
        let mut pty = Pty::spawn_program(tempfile::tempdir().unwrap(), &program, &["demo"], &[]);
        pty.wait_for("the demo's first frame", |s| s.contains("Jobs (5)"));
        firsts.push(started.elapsed().as_secs_f64() * 1000.0);
        pty.keys(b"3");
        pty.wait_for("the seeded visitors", |s| s.contains("AI share"));
        counts.push(started.elapsed().as_secs_f64() * 1000.0);
        quit(pty);
        println!(
            "  demo: first frame {:.1} ms, visitors counts {:.1} ms",
            firsts.last().unwrap(),
            counts.last().unwrap()
        );
    }
    println!(
        "docdeck demo ({program}): first frame median {:.1} ms, visitors counts median {:.1} ms",
        median(&mut firsts),
        median(&mut counts)
    );
}

#[tokio::main]
async fn main() {
    let secs = secs_arg();
    println!("console in a pty (80x24), release build; CPU figures over {secs} s");
    let start_only = std::env::args().any(|a| a == "--start-only");
    if !start_only {
        demo();
    }
    if std::env::args().any(|a| a == "--demo-only") {
        return;
    }

    // Start to first frame, journal of 10,000 completed jobs (read back spread over 10 min).
    let server = service(Duration::from_secs(3600)).await;
    let jobs: Vec<Job> = (0..10_000)
        .map(|i| Job {
            id: Some(format!("job_{i:020}")),
            status: Some(JobStatus::Completed),
            created_at: Some(Utc::now()),
            ..Job::default()
        })
        .collect();
    let template = home_with(&server, &jobs);
    // A copy of the 10,000-job home to run the console on by hand (for a profile of its start).
    if let Ok(out) = std::env::var("DOCDECK_BENCH_HOME_OUT") {
        std::fs::create_dir_all(&out).unwrap();
        copy_dir(template.path(), Path::new(&out));
        println!(
            "  the 10,000-job home is copied to {out}, for {}",
            server.base_url()
        );
    }
    let mut firsts = Vec::new();
    for _ in 0..9 {
        let home = tempfile::tempdir().unwrap();
        copy_dir(template.path(), home.path());
        let started = Instant::now();
        let pty = console(&server, home);
        pty.wait_for("the first frame", |s| s.contains("Jobs (10000)"));
        firsts.push(started.elapsed().as_secs_f64() * 1000.0);
        let pid = pty.child.process_id().unwrap();
        let rss = rss_kib(pid);
        quit(pty);
        println!(
            "  first frame {:.1} ms, RSS {:.1} MiB",
            firsts.last().unwrap(),
            rss as f64 / 1024.0
        );
    }
    println!(
        "start to first frame, 10,000 jobs: median {:.1} ms",
        median(&mut firsts)
    );
    if start_only {
        return;
    }

    // Idle: nothing to poll.
    let pty = console(&server, tempfile::tempdir().unwrap());
    pty.wait_for("the first frame", |s| s.contains("No tracked jobs yet"));
    let (share, wakeups) = cpu(&pty, secs).await;
    println!("idle, nothing to poll: {share:.3}% of one core, {wakeups:.2} wake-ups/s");
    quit(pty);

    // 100 active jobs, polled every 3 s.
    let api = client(&server);
    let mut active = Vec::new();
    for i in 0..100 {
        active.push(api.create_job(&format!("bench job {i}")).await.unwrap());
    }
    let pty = console(&server, home_with(&server, &active));
    pty.wait_for("the first frame", |s| s.contains("Jobs (100)"));
    // From the first frame: the start reads every job at once and stores each in the
    // journal; then the steady state, after one whole minute of reads (each job is stored
    // again once a minute).
    let (share, wakeups) = cpu(&pty, secs).await;
    println!(
        "100 active jobs, poll 3 s, from the first frame: {share:.2}% of one core, {wakeups:.1} wake-ups/s"
    );
    let (share, wakeups) = cpu(&pty, secs).await;
    let rss = rss_kib(pty.child.process_id().unwrap());
    println!(
        "100 active jobs, poll 3 s, steady: {share:.2}% of one core, {wakeups:.1} wake-ups/s, RSS {:.1} MiB",
        rss as f64 / 1024.0
    );

    // Key press to updated frame: j and k move the cursor, each redraws two rows.
    let mut latencies = Vec::new();
    let mut pty = pty;
    for i in 0..60 {
        let before = pty.output.lock().unwrap().len();
        let sent = Instant::now();
        pty.keys(if i % 2 == 0 { b"j" } else { b"k" });
        wait_len_change(&pty, before);
        latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    let p99 = {
        let mut sorted = latencies.clone();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() * 99 / 100]
    };
    println!(
        "key to frame: median {:.2} ms, p99 {p99:.2} ms",
        median(&mut latencies)
    );
    quit(pty);
    server.shutdown().await;

    // Bytes written when one job changes status (active -> completed).
    let server = service(Duration::from_secs(4)).await;
    let job = client(&server).create_job("one job").await.unwrap();
    let pty = console(&server, home_with(&server, &[job]));
    pty.wait_for("the first frame", |s| s.contains("Jobs (1)"));
    let mut len = pty.output.lock().unwrap().len();
    let mut frames = Vec::new();
    let bytes = loop {
        let now = wait_len_change(&pty, len);
        let delta = now - len;
        len = now;
        if pty.screen().contains("completed") {
            break delta;
        }
        frames.push(delta);
    };
    println!(
        "one job changes status: {bytes} bytes written (other frames meanwhile, such as the status line's clock: {frames:?} bytes)"
    );
    quit(pty);
    server.shutdown().await;
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
