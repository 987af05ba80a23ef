//! Importing real traffic: 1,000,000 lines of a combined access log with a realistic mix
//! (browsers, assets, AI agents, Markdown fetches, crawlers, errors, posts) into a fresh
//! database, timed, with the peak memory of the import; then `--follow` fed 10,000 lines a
//! second, with the CPU it takes.
//!
//! ```sh
//! cargo bench --bench traffic                       # both, 1M lines, 10 s of follow
//! cargo bench --bench traffic -- --lines 200000 --follow-secs 5
//! cargo bench --bench traffic -- --import-only --lines 1470000 --days 90   # 1M views, query 30 days
//! cargo bench --bench traffic -- --new-visitors      # every line a new visitor (a page gone viral)
//! cargo bench --bench traffic -- --import-only --pg postgres://…/bench   # into PostgreSQL, then
//!                                                    # the same on SQLite, side by side
//! ```
//!
//! `--pg URL` names a throwaway PostgreSQL database: each run empties it first (its
//! `public` schema is dropped and made again).
//!
//! The log is generated once into target/bench-data and reused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use docdeck::server::db::{Db, DbLocation};
use docdeck::server::pg::{PgStore, PgUrl};
use docdeck::server::traffic::formats::LogFormat;
use docdeck::server::traffic::rules::Rules;
use docdeck::server::traffic::search::SearchUrl;
use docdeck::server::traffic::{self, Importer, Settings};
use docdeck::server::views::{VisitorsRequest, visitors};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BROWSERS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
];
const AGENTS: &[&str] = &[
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)",
    "Claude-User (+https://support.anthropic.com/)",
    "claude-code/2.0.14 (external, cli)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
];
const CRAWLERS: &[&str] = &[
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
];
const CLIENTS: &[&str] = &["curl/8.5.0", "python-requests/2.32.3", "Go-http-client/1.1"];
/// 2026-10-23 00:00 UTC.
const START_S: i64 = 1_792_713_600;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn pick<'a>(rng: &mut ChaCha8Rng, list: &[&'a str]) -> &'a str {
    list[rng.random_range(0..list.len())]
}

/// Whether every line comes from a client not seen before (`--new-visitors`): the worst
/// case, where each view adds a visitor, against the usual mix where visitors repeat.
fn new_visitors() -> bool {
    std::env::args().any(|a| a == "--new-visitors")
}

/// One log line at second `second` of the range; with `--new-visitors`, from client
/// number `n` of the run, else from one of 40,000.
fn line(rng: &mut ChaCha8Rng, second: i64, n: u64) -> String {
    let page = format!(
        "/docs/page-{}",
        (500.0 * rng.random::<f64>().powi(3)) as u32
    );
    let drawn: u32 = rng.random_range(0..40_000);
    let ip_n: u32 = if new_visitors() {
        u32::try_from(n % (1 << 24)).unwrap()
    } else {
        drawn
    };
    let roll: u32 = rng.random_range(0..100);
    let (method, target, status, agent) = match roll {
        0..55 => ("GET", page, 200, BROWSERS[ip_n as usize % BROWSERS.len()]),
        55..70 => (
            "GET",
            format!("/_next/static/chunks/{}.js", ip_n % 50),
            200,
            BROWSERS[ip_n as usize % BROWSERS.len()],
        ),
        70..78 => ("GET", page, 200, pick(rng, AGENTS)),
        78..83 => ("GET", format!("{page}.md"), 200, pick(rng, CLIENTS)),
        83..91 => ("GET", page, 200, pick(rng, CRAWLERS)),
        91..95 => (
            "GET",
            page,
            if roll.is_multiple_of(2) { 404 } else { 301 },
            BROWSERS[0],
        ),
        95..98 => ("POST", "/api/feedback".to_owned(), 200, BROWSERS[1]),
        _ => ("GET", page, 200, pick(rng, CLIENTS)),
    };
    let time = chrono::DateTime::from_timestamp(START_S + second, 0)
        .unwrap()
        .format("%d/%b/%Y:%H:%M:%S +0000");
    format!(
        "10.{}.{}.{} - - [{time}] \"{method} {target} HTTP/1.1\" {status} 5120 \"-\" \"{agent}\"\n",
        ip_n >> 16,
        (ip_n >> 8) & 255,
        ip_n & 255
    )
}

/// Days the generated log spans (`--days N`, 30 unless told).
fn days() -> i64 {
    i64::try_from(arg("--days", 30)).unwrap()
}

fn log_file(lines: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let days = days();
    let mix = if new_visitors() { "-new" } else { "" };
    let path = if days == 30 {
        dir.join(format!("combined-{lines}{mix}-v1.log"))
    } else {
        dir.join(format!("combined-{lines}-{days}d{mix}-v1.log"))
    };
    if !path.exists() {
        eprintln!("generating {lines} lines into {} (once)", path.display());
        let mut rng = ChaCha8Rng::seed_from_u64(lines);
        let partial = path.with_extension("partial");
        let mut out = BufWriter::new(std::fs::File::create(&partial).unwrap());
        for i in 0..lines {
            let second = i64::try_from(i).unwrap() * days * 86_400 / i64::try_from(lines).unwrap();
            out.write_all(line(&mut rng, second, i).as_bytes()).unwrap();
        }
        out.flush().unwrap();
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

/// Peak resident memory of this process in KiB, since the last `reset_peak`.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// CPU time of the calling thread so far.
fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn fresh_db(dir: &Path) -> DbLocation {
    DbLocation::File(dir.join("service.sqlite"))
}

/// An empty PostgreSQL database at `url` (its `public` schema dropped and made again).
fn fresh_pg(url: &str) -> DbLocation {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .batch_execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
        .unwrap();
    DbLocation::Postgres(PgUrl::parse(url).unwrap())
}

fn open_importer(location: &DbLocation) -> Importer {
    let settings = Settings {
        project: "bench".into(),
        format: Some(LogFormat::Combined),
        rules: Arc::new(Rules::shipped().unwrap()),
        strict: false,
        search: Some(SearchUrl::default()),
        discard_demo: false,
    };
    Importer::open(location, settings).unwrap()
}

/// CPU time (user and system) of the whole process so far.
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn bench_import(lines: u64, pg: Option<&str>) {
    let path = log_file(lines);
    let store = if pg.is_some() { "PostgreSQL" } else { "SQLite" };
    let mut last = None;
    let runs = arg("--runs", 3);
    for run in 1..=runs {
        // The database of the run before is closed first: its page cache is not this one's.
        drop(last.take());
        let dir = tempfile::tempdir().unwrap();
        let location = match pg {
            Some(url) => fresh_pg(url),
            None => fresh_db(dir.path()),
        };
        let mut importer = open_importer(&location);
        reset_peak();
        let before = peak_kib();
        let cpu_before = process_cpu();
        let writer_before = thread_cpu();
        let started = Instant::now();
        let summary = importer
            .import(traffic::open(&path, Arc::default()).unwrap())
            .unwrap();
        let took = started.elapsed();
        let cpu = process_cpu() - cpu_before;
        // This thread writes; the import's other thread reads (nothing else runs meanwhile).
        let writer = thread_cpu() - writer_before;
        println!(
            "{store} import run {run}: {lines} combined lines in {:.2} s ({:.0} lines/s; CPU {:.2} s: writing {:.2} s, reading {:.2} s); {} views kept; peak RSS {} MiB (before {} MiB)",
            took.as_secs_f64(),
            lines as f64 / took.as_secs_f64(),
            cpu.as_secs_f64(),
            writer.as_secs_f64(),
            cpu.saturating_sub(writer).as_secs_f64(),
            summary.kept(),
            peak_kib() / 1024,
            before / 1024
        );
        drop(importer);
        let again = if run == runs {
            // The same lines again: every key is known, nothing is added.
            let mut importer = open_importer(&location);
            let started = Instant::now();
            let summary = importer
                .import(traffic::open(&path, Arc::default()).unwrap())
                .unwrap();
            println!(
                "{store} import of the same {lines} lines again: {:.2} s, {} views added",
                started.elapsed().as_secs_f64(),
                summary.kept()
            );
            Some(())
        } else {
            None
        };
        last = Some((dir, location, summary.kept(), again));
    }
    if let Some((_dir, location, views, _)) = last {
        bench_visitors(&location, views);
    }
}

/// The visitors query of the console over what was imported: its last 30 days.
fn bench_visitors(location: &DbLocation, views: u64) {
    let count: Box<dyn Fn(&VisitorsRequest) -> docdeck::api::VisitorsPage> = match location {
        DbLocation::Postgres(url) => {
            let store = PgStore::open(url).unwrap();
            Box::new(move |request| {
                let request = *request;
                store
                    .blocking(move |c| docdeck::server::pg::views::visitors(c, "bench", &request))
                    .unwrap()
            })
        }
        other => {
            let db = Db::open(other).unwrap();
            Box::new(move |request| {
                db.blocking(|conn| visitors(conn, "bench", request))
                    .unwrap()
            })
        }
    };
    let request = VisitorsRequest {
        from_ms: Some((START_S + (days() - 30) * 86_400) * 1000),
        to_ms: Some((START_S + days() * 86_400) * 1000),
        limit: 100,
        offset: 0,
    };
    let mut times = Vec::new();
    let mut total = 0;
    let cpu_before = thread_cpu();
    for _ in 0..7 {
        let started = Instant::now();
        let page = count(&request);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        total = page.totals.total;
    }
    let cpu_ms = (thread_cpu() - cpu_before).as_secs_f64() * 1000.0 / 7.0;
    times.sort_by(f64::total_cmp);
    println!(
        "visitors, the last 30 days over the {views} imported views ({total} visitors): median {:.0} ms (fastest {:.0}, slowest {:.0}; CPU {cpu_ms:.0} ms a query)",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}

fn bench_follow(seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let location = fresh_db(dir.path());
    let log = dir.path().join("access.log");
    std::fs::write(&log, "").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let log = log.clone();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
            let started = Instant::now();
            let mut written = 0u64;
            for tick in 0..seconds * 10 {
                let batch: String = (0..1_000)
                    .map(|i| {
                        let n = tick * 1_000 + i;
                        line(&mut rng, i64::try_from(n).unwrap(), n)
                    })
                    .collect();
                file.write_all(batch.as_bytes()).unwrap();
                written += 1_000;
                let due = started + Duration::from_millis((tick + 1) * 100);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            }
            // Time for the last batch to be read and committed, then stop.
            std::thread::sleep(Duration::from_millis(1_500));
            stop.store(true, Ordering::SeqCst);
            written
        })
    };
    let mut importer = open_importer(&location);
    let cpu_before = thread_cpu();
    let started = Instant::now();
    let summary = importer.follow(&[log], &stop, &mut |_| {}).unwrap();
    let wall = started.elapsed();
    let cpu = thread_cpu() - cpu_before;
    let written = writer.join().unwrap();
    println!(
        "follow: {written} lines written at 10,000/s, {} read; follower CPU {:.2} s over {:.1} s = {:.1}% of one core",
        summary.lines,
        cpu.as_secs_f64(),
        wall.as_secs_f64(),
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
    );
}

fn main() {
    let lines = arg("--lines", 1_000_000);
    let seconds = arg("--follow-secs", 10);
    let args: Vec<String> = std::env::args().collect();
    let pg = args
        .iter()
        .position(|a| a == "--pg")
        .and_then(|i| args.get(i + 1))
        .cloned();
    if !std::env::args().any(|a| a == "--follow-only") {
        if let Some(url) = pg.as_deref() {
            bench_import(lines, Some(url));
        }
        if !std::env::args().any(|a| a == "--pg-only") {
            bench_import(lines, None);
        }
    }
    if !std::env::args().any(|a| a == "--import-only") {
        bench_follow(seconds);
    }
}
