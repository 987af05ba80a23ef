//! Shared test harness: the real local service on port 0 (in-process or as the binary),
//! the real client, the CLI run in an isolated environment, and waiting with deadlines.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod console;
pub mod hangup;
pub mod pg;
pub mod pty;

use std::future::Future;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use docdeck::api::{Client, ClientOptions, RetryPolicy};
use docdeck::config::Secret;
use docdeck::server::agent::OutcomeWeights;
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::{self, RunningServer, ServeOptions};

pub const KEY: &str = "mint_test_0123456789abcdef";
pub const PROJECT: &str = "demo";
/// Long enough for a slow CI machine, short enough to fail fast when something hangs.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// Options for a fast, deterministic service: every turn opens a pull request in 20 ms.
pub fn fast_options(db: DbLocation) -> ServeOptions {
    let mut options = ServeOptions::new(db);
    options.api_key = Some(Secret::new(KEY));
    options.agent.delay = Duration::from_millis(20);
    options.agent.weights = OutcomeWeights {
        pr: 1,
        nochange: 0,
        fail: 0,
    };
    options
}

/// Starts the in-process service.
pub async fn start(options: ServeOptions) -> RunningServer {
    server::start(options)
        .await
        .expect("the local service starts")
}

/// A client of `server` with the test key, and retries that do not wait long.
pub fn client(server: &RunningServer) -> Client {
    client_with(&server.base_url(), PROJECT, KEY)
}

pub fn client_with(base_url: &str, project: &str, key: &str) -> Client {
    let mut options = ClientOptions::new(base_url.parse().unwrap(), project, Secret::new(key));
    options.retry = RetryPolicy {
        attempts: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    };
    Client::new(options).unwrap()
}

/// Polls `probe` until it gives a value, failing the test at the deadline.
pub async fn eventually<T, F, Fut>(what: &str, probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    eventually_within(DEADLINE, what, probe).await
}

/// As `eventually`, with a deadline of `limit` from now.
pub async fn eventually_within<T, F, Fut>(limit: Duration, what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
}

/// Writes view events into a service database file before the service starts.
pub fn import_views(db_path: &Path, project: &str, lines: &[String]) {
    let db = Db::open(&DbLocation::File(db_path.to_path_buf())).unwrap();
    let text = lines.join("\n");
    docdeck::server::import::import(&db, project, text.as_bytes()).unwrap();
}

/// Writes view events into the service database `db` (a SQLite file or PostgreSQL) before
/// the service starts, through `docdeck import`'s own [`Importer`], which writes either
/// store: the fixtures of the tests that run on both stores. Blocking (on a thread of its
/// own, as PostgreSQL's synchronous client must not run on an async thread).
///
/// [`Importer`]: docdeck::server::traffic::Importer
pub fn import_views_into(db: &DbLocation, project: &str, lines: &[String]) {
    use docdeck::server::traffic::{Importer, Settings, rules::Rules};
    let settings = Settings {
        project: project.to_owned(),
        format: None,
        rules: std::sync::Arc::new(Rules::shipped().unwrap()),
        strict: true,
        search: None,
        discard_demo: false,
    };
    let (db, text) = (db.clone(), lines.join("\n"));
    std::thread::spawn(move || {
        let mut importer = Importer::open(&db, settings).unwrap();
        importer.import_jsonl(text.as_bytes()).unwrap();
    })
    .join()
    .expect("the import thread");
}

/// Runs `work` on another connection to `db` (either store), as another process would, on
/// a thread of its own (PostgreSQL's synchronous client must not run on an async thread).
pub fn with_sql<T, F>(db: &DbLocation, work: F) -> T
where
    T: Send + 'static,
    F: FnOnce(&mut dyn docdeck::server::store::Sql) -> Result<T, docdeck::server::db::StoreError>
        + Send
        + 'static,
{
    let db = db.clone();
    std::thread::spawn(move || match &db {
        DbLocation::Postgres(url) => docdeck::server::pg::PgStore::open(url)
            .unwrap()
            .blocking(|client| work(client))
            .unwrap(),
        _ => Db::open(&db).unwrap().blocking(|conn| work(conn)).unwrap(),
    })
    .join()
    .expect("the database thread")
}

/// What `--db` is given for `db`: a file's path, or PostgreSQL's URL.
pub fn db_arg(db: &DbLocation) -> String {
    match db {
        DbLocation::Memory => ":memory:".to_owned(),
        DbLocation::File(path) => path.to_str().unwrap().to_owned(),
        DbLocation::Postgres(url) => url.expose().to_owned(),
    }
}

/// One view event as a JSON line.
pub fn view(ts: &str, path: &str, visitor: &str, traffic: &str) -> String {
    serde_json::json!({"ts": ts, "path": path, "visitorId": visitor, "traffic": traffic})
        .to_string()
}

/// `docdeck serve` as a child process.
pub struct ServeProcess {
    pub child: Child,
    pub base_url: String,
    pub stdout: mpsc::Receiver<String>,
    pub stderr: mpsc::Receiver<String>,
}

impl ServeProcess {
    /// Starts `docdeck serve --addr 127.0.0.1:0 ARGS` and waits for its `listening on` line.
    pub fn spawn(home: &Path, args: &[&str]) -> Self {
        Self::spawn_env(home, args, &[])
    }

    /// `docdeck serve` over the database `db` (filled beforehand, such as with
    /// `import_views`), unseeded, with the test key, and `extra` flags.
    pub fn over_db(home: &Path, db: &Path, extra: &[&str]) -> Self {
        let db = db.to_str().unwrap();
        let args = [&["--db", db, "--seed", "none", "--api-key", KEY][..], extra].concat();
        Self::spawn(home, &args)
    }

    /// As `over_db`, on either store (such as one filled with `import_views_into`).
    pub fn over_store(home: &Path, db: &DbLocation, extra: &[&str]) -> Self {
        let db = db_arg(db);
        let args = [
            &["--db", &db, "--seed", "none", "--api-key", KEY][..],
            extra,
        ]
        .concat();
        Self::spawn(home, &args)
    }

    /// As `spawn`, with environment variables set for the service.
    pub fn spawn_env(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = docdeck_command(home)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("docdeck serve starts");
        let stdout = lines_of(child.stdout.take().unwrap());
        let stderr = lines_of(child.stderr.take().unwrap());
        let first = stdout
            .recv_timeout(DEADLINE)
            .expect("docdeck serve prints its address");
        let base_url = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        Self {
            child,
            base_url,
            stdout,
            stderr,
        }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines_of(stream: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// The binary, with config and data folders inside `home` and no docdeck variables.
pub fn docdeck_command(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_docdeck"));
    for (name, _) in std::env::vars() {
        if name.starts_with("DOCDECK_") {
            command.env_remove(name);
        }
    }
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .stdin(Stdio::null());
    command
}

/// The binary pointed at `base_url` for the test project, with `key`.
pub fn cli_command(home: &Path, base_url: &str, key: &str) -> Command {
    let mut command = docdeck_command(home);
    command
        .env("DOCDECK_BASE_URL", base_url)
        .env("DOCDECK_PROJECT_ID", PROJECT)
        .env("DOCDECK_API_KEY", key);
    command
}

/// Runs the CLI against `base_url` with the test key and project.
pub fn run_cli(home: &Path, base_url: &str, args: &[&str]) -> Output {
    cli_command(home, base_url, KEY)
        .args(args)
        .output()
        .expect("docdeck runs")
}

/// Runs the CLI against `base_url`, expecting exit `code`; returns standard error.
pub fn run_cli_failing(home: &Path, base_url: &str, args: &[&str], code: i32) -> String {
    let out = run_cli(home, base_url, args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    stderr
}

/// The journal a CLI run in `home` writes.
pub fn journal_path(home: &Path) -> PathBuf {
    home.join("data").join("docdeck").join("docdeck.sqlite")
}

/// Sends `signal` (such as `-TERM`) to process `pid` with kill(1).
pub fn signal(pid: u32, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill {signal} {pid} failed");
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The visitors the service reports over everything stored in `db` (either store), rows
/// sorted by path, and the totals (human, ai, total).
pub async fn visitors_in(db: &DbLocation) -> (Vec<(String, u64, u64, u64)>, (u64, u64, u64)) {
    let server = start(options_on(db)).await;
    let query = docdeck::api::VisitorsQuery {
        limit: Some(250),
        ..docdeck::api::VisitorsQuery::default()
    };
    let page = client(&server).visitors(&query).await.unwrap();
    server.shutdown().await;
    let mut rows: Vec<_> = page
        .visitors
        .into_iter()
        .map(|row| (row.path, row.human, row.ai, row.total))
        .collect();
    rows.sort();
    (rows, (page.totals.human, page.totals.ai, page.totals.total))
}

/// Whether `secret` is anywhere in the database `db`: in the SQLite file's bytes, or in
/// any row of any of PostgreSQL's tables (each row read as text).
pub fn stored_anywhere(db: &DbLocation, secret: &str) -> bool {
    if let DbLocation::File(path) = db {
        return String::from_utf8_lossy(&std::fs::read(path).unwrap()).contains(secret);
    }
    let secret = secret.to_owned();
    with_sql(db, move |sql| {
        use docdeck::server::store::Value;
        let tables = sql.rows(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
            &[],
        )?;
        let like = [Value::Text(format!("%{secret}%"))];
        for table in tables {
            let query = format!(
                "SELECT count(*) FROM {} t WHERE t::text LIKE $1",
                table.text(0)?
            );
            if sql.one(&query, &like)?.int(0)? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    })
}

/// The store a test of `on_both_stores!` runs on: SQLite in memory, or a fresh PostgreSQL
/// database (the test is skipped where there is none, see `pg.rs`).
pub fn options_on(db: &DbLocation) -> ServeOptions {
    let mut options = fast_options(db.clone());
    if matches!(db, DbLocation::Postgres(_)) {
        options.poll = Duration::from_millis(200);
        options.lease = Duration::from_secs(5);
    }
    options
}

/// As [`on_both_stores!`], on a database that outlives one start of the service, for tests
/// that fill it beforehand or start the service twice: a SQLite file in a temp dir kept for
/// the test, or a fresh PostgreSQL database.
#[macro_export]
macro_rules! on_both_stores_kept {
    ($($(#[$attr:meta])* async fn $name:ident($db:ident: DbLocation) $body:block)*) => {
        $(
            $(#[$attr])*
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn run($db: DbLocation) $body

                #[tokio::test]
                async fn sqlite() {
                    let dir = tempfile::tempdir().unwrap();
                    run(DbLocation::File(dir.path().join("service.sqlite"))).await;
                }

                #[tokio::test]
                async fn postgres() {
                    let url = pg_or_skip_async!();
                    run(DbLocation::parse(&url)).await;
                }
            }
        )*
    };
}

/// As [`on_both_stores_kept!`], on tokio's multi-thread runtime with two workers, for tests
/// that block a worker while the service or a peer they start must go on answering (the
/// console beside a CLI run, or a scripted GitHub beside `docdeck serve`).
#[macro_export]
macro_rules! on_both_stores_multi {
    ($($(#[$attr:meta])* async fn $name:ident($db:ident: DbLocation) $body:block)*) => {
        $(
            $(#[$attr])*
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn run($db: DbLocation) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    let dir = tempfile::tempdir().unwrap();
                    run(DbLocation::File(dir.path().join("service.sqlite"))).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    let url = pg_or_skip_async!();
                    run(DbLocation::parse(&url)).await;
                }
            }
        )*
    };
}

/// As [`on_both_stores_kept!`], for tests that are not async (those that drive the binary):
/// each `fn NAME(db: DbLocation) { … }` becomes a module `NAME` with tests `sqlite` (a file
/// in a temp dir) and `postgres` (a fresh database).
#[macro_export]
macro_rules! on_both_stores_sync {
    ($($(#[$attr:meta])* fn $name:ident($db:ident: DbLocation) $body:block)*) => {
        $(
            $(#[$attr])*
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                fn run($db: DbLocation) $body

                #[test]
                fn sqlite() {
                    let dir = tempfile::tempdir().unwrap();
                    run(DbLocation::File(dir.path().join("service.sqlite")));
                }

                #[test]
                fn postgres() {
                    let url = pg_or_skip!();
                    run(DbLocation::parse(&url));
                }
            }
        )*
    };
}

/// Each `async fn NAME(db: DbLocation) { … }` becomes a module `NAME` with two tests,
/// `sqlite` (in memory) and `postgres` (a fresh database on the tests' PostgreSQL), so
/// that the service's behaviour is checked on both stores by one body.
#[macro_export]
macro_rules! on_both_stores {
    ($($(#[$attr:meta])* async fn $name:ident($db:ident: DbLocation) $body:block)*) => {
        $(
            $(#[$attr])*
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn run($db: DbLocation) $body

                #[tokio::test]
                async fn sqlite() {
                    run(DbLocation::Memory).await;
                }

                #[tokio::test]
                async fn postgres() {
                    let url = pg_or_skip_async!();
                    run(DbLocation::parse(&url)).await;
                }
            }
        )*
    };
}
