//! 10,000 one-turn jobs claimed and finished by 4 `docdeck serve` processes on one
//! PostgreSQL, and by one `docdeck serve` on a SQLite file (SQLite is one machine), each
//! with the simulated agent returning at once and 4 agent slots. Whether a turn ran twice
//! or was lost is read from the database: triggers the bench adds record each claim
//! (`started_ms` set) and each finish (`outcome` set) of a turn.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use docdeck::server::agent::INTERRUPTED;
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::pg::{PgStore, PgUrl};

pub const TURNS: i64 = 10_000;
const NODES: usize = 4;
const SLOTS: &str = "4";
const KEY: &str = "mint_bench_0123456789abcdef";

/// The `docdeck` binary the nodes run: `--docdeck PATH`, else the release build.
pub fn binary(given: Option<String>) -> PathBuf {
    let path = given.map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target")
                .join("release")
                .join("docdeck")
        },
        PathBuf::from,
    );
    assert!(
        path.exists(),
        "{} is missing: build it with cargo build --release --bin docdeck, or give --docdeck PATH",
        path.display()
    );
    path
}

/// A `docdeck serve` process, killed when dropped.
struct Node(Child);

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(binary: &Path, home: &Path, db: &str, name: &str) -> Node {
    let mut command = Command::new(binary);
    for (variable, _) in std::env::vars() {
        if variable.starts_with("DOCDECK_") {
            command.env_remove(variable);
        }
    }
    let log = std::fs::File::create(home.join(format!("{name}.log"))).unwrap();
    let child = command
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db,
            "--seed",
            "none",
        ])
        .args(["--api-key", KEY, "--project", "p0", "--node-name", name])
        .args(["--agent-delay-ms", "0", "--max-agents", SLOTS])
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    Node(child)
}

/// Waits until no turn is left without its outcome; the time since `started`.
fn until_done(started: Instant, waiting: &mut dyn FnMut() -> i64) -> Duration {
    while waiting() > 0 {
        assert!(started.elapsed() < Duration::from_secs(900), "turns stuck");
        std::thread::sleep(Duration::from_millis(20));
    }
    started.elapsed()
}

/// What the database says of a run: turns finished, claims and finishes in all, turns
/// claimed or finished more than once, turns failed as interrupted.
struct Tally {
    finished: i64,
    claims: i64,
    finishes: i64,
    twice: i64,
    interrupted: i64,
}

impl Tally {
    fn check_and_say(&self, store: &str, nodes: usize, took: Duration, by_node: &str) {
        println!(
            "{TURNS} turns claimed and finished by {nodes} docdeck serve process(es) on {store}: {:.1} s ({:.0} turns/s); finished {} of {TURNS}; claims {}, finishes {}; claimed or finished twice: {}; failed as interrupted: {}; by node: {by_node}",
            took.as_secs_f64(),
            TURNS as f64 / took.as_secs_f64(),
            self.finished,
            self.claims,
            self.finishes,
            self.twice,
            self.interrupted,
        );
        assert_eq!(self.twice, 0, "a turn ran twice");
        assert_eq!(self.interrupted, 0, "a turn was failed as interrupted");
        assert_eq!(
            (self.finished, self.claims, self.finishes),
            (TURNS, TURNS, TURNS),
            "a turn was lost"
        );
    }
}

const PG_SETUP: &str = "
CREATE TABLE bench_claims (job_seq BIGINT, turn BIGINT);
CREATE TABLE bench_finishes (job_seq BIGINT, turn BIGINT);
CREATE FUNCTION bench_claimed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO bench_claims VALUES (NEW.job_seq, NEW.turn); RETURN NULL; END $$;
CREATE FUNCTION bench_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO bench_finishes VALUES (NEW.job_seq, NEW.turn); RETURN NULL; END $$;
CREATE TRIGGER bench_claimed AFTER UPDATE OF started_ms ON turns FOR EACH ROW
    WHEN (NEW.started_ms IS NOT NULL AND OLD.started_ms IS DISTINCT FROM NEW.started_ms)
    EXECUTE FUNCTION bench_claimed();
CREATE TRIGGER bench_finished AFTER UPDATE OF outcome ON turns FOR EACH ROW
    WHEN (NEW.outcome IS NOT NULL AND OLD.outcome IS DISTINCT FROM NEW.outcome)
    EXECUTE FUNCTION bench_finished();
";

const TALLY: &str = "SELECT
    (SELECT count(*) FROM turns WHERE outcome IS NOT NULL),
    (SELECT count(*) FROM bench_claims),
    (SELECT count(*) FROM bench_finishes),
    (SELECT count(*) FROM (SELECT 1 FROM bench_claims GROUP BY job_seq, turn HAVING count(*) > 1
                           UNION ALL
                           SELECT 1 FROM bench_finishes GROUP BY job_seq, turn HAVING count(*) > 1) t),
    (SELECT count(*) FROM turns WHERE reason = $1)";

/// 4 `serve` processes on the PostgreSQL database `pg_url` (emptied first).
pub fn on_postgres(binary: &Path, pg_url: &str) {
    {
        let mut client = postgres::Client::connect(pg_url, postgres::NoTls).unwrap();
        client
            .batch_execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
            .unwrap();
    }
    let store = PgStore::open(&PgUrl::parse(pg_url).unwrap()).unwrap();
    store
        .blocking(|c| {
            c.execute(
                "INSERT INTO jobs (id, project, status, repository, model, created_ms, updated_ms)
                 SELECT 'job_' || g, 'p' || (g % 10), 'active', 'https://forge.invalid/r', 'sim', 1, 1
                 FROM generate_series(1, $1::bigint) g",
                &[&TURNS],
            )?;
            c.execute(
                "INSERT INTO turns (job_seq, turn, project, prompt, received_ms)
                 SELECT seq, 1, project, 'p', seq FROM jobs",
                &[],
            )?;
            c.batch_execute(PG_SETUP)?;
            Ok(())
        })
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let nodes: Vec<Node> = (0..NODES)
        .map(|n| serve(binary, home.path(), pg_url, &format!("node-{n}")))
        .collect();
    let mut waiting = || -> i64 {
        store
            .blocking(|c| {
                Ok(
                    c.query_one("SELECT count(*) FROM turns WHERE outcome IS NULL", &[])?
                        .get(0),
                )
            })
            .unwrap()
    };
    let took = until_done(started, &mut waiting);
    drop(nodes);
    let (tally, by_node) = store
        .blocking(|c| {
            let row = c.query_one(TALLY, &[&INTERRUPTED])?;
            let tally = Tally {
                finished: row.get(0),
                claims: row.get(1),
                finishes: row.get(2),
                twice: row.get(3),
                interrupted: row.get(4),
            };
            let by_node = c
                .query(
                    "SELECT node, count(*) FROM turns GROUP BY node ORDER BY node",
                    &[],
                )?
                .iter()
                .map(|row| {
                    let node: Option<String> = row.get(0);
                    format!("{} {}", node.unwrap_or_default(), row.get::<_, i64>(1))
                })
                .collect::<Vec<_>>()
                .join(", ");
            Ok((tally, by_node))
        })
        .unwrap();
    tally.check_and_say("PostgreSQL", NODES, took, &by_node);
}

/// After `WITH RECURSIVE g (n) AS (… n < TURNS)`.
const LITE_SETUP: &str = "
INSERT INTO jobs (id, project, status, repository, model, created_ms, updated_ms)
SELECT 'job_' || n, 'p' || (n % 10), 'active', 'https://forge.invalid/r', 'sim', 1, 1 FROM g;
INSERT INTO turns (job_seq, turn, prompt, received_ms) SELECT seq, 1, 'p', seq FROM jobs;
CREATE TABLE bench_claims (job_seq INTEGER, turn INTEGER);
CREATE TABLE bench_finishes (job_seq INTEGER, turn INTEGER);
CREATE TRIGGER bench_claimed AFTER UPDATE OF started_ms ON turns
    WHEN NEW.started_ms IS NOT NULL AND OLD.started_ms IS NOT NEW.started_ms
    BEGIN INSERT INTO bench_claims VALUES (NEW.job_seq, NEW.turn); END;
CREATE TRIGGER bench_finished AFTER UPDATE OF outcome ON turns
    WHEN NEW.outcome IS NOT NULL AND OLD.outcome IS NOT NEW.outcome
    BEGIN INSERT INTO bench_finishes VALUES (NEW.job_seq, NEW.turn); END;
";

/// One `serve` process on a new SQLite file.
pub fn on_sqlite(binary: &Path) {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("service.sqlite");
    let db = Db::open(&DbLocation::File(path.clone())).unwrap();
    let setup = format!(
        "WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < {TURNS}) {LITE_SETUP}"
    );
    db.blocking(move |c| Ok(c.execute_batch(&setup)?)).unwrap();
    assert_eq!(
        db.blocking(|c| Ok(c.query_row("SELECT count(*) FROM turns", [], |r| r.get::<_, i64>(0))?))
            .unwrap(),
        TURNS
    );
    drop(db);
    let started = Instant::now();
    let node = serve(binary, home.path(), path.to_str().unwrap(), "single");
    let db = Db::open(&DbLocation::File(path)).unwrap();
    let mut waiting = || -> i64 {
        db.blocking(|c| {
            Ok(c.query_row(
                "SELECT count(*) FROM turns WHERE outcome IS NULL",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap()
    };
    let took = until_done(started, &mut waiting);
    drop(node);
    let (tally, by_node) = db
        .blocking(|c| {
            let tally = c.query_row(&TALLY.replace("$1", "?1"), [INTERRUPTED], |row| {
                Ok(Tally {
                    finished: row.get(0)?,
                    claims: row.get(1)?,
                    finishes: row.get(2)?,
                    twice: row.get(3)?,
                    interrupted: row.get(4)?,
                })
            })?;
            let mut statement =
                c.prepare("SELECT node, count(*) FROM turns GROUP BY node ORDER BY node")?;
            let by_node = statement
                .query_map([], |row| {
                    let node: Option<String> = row.get(0)?;
                    Ok(format!(
                        "{} {}",
                        node.unwrap_or_default(),
                        row.get::<_, i64>(1)?
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?
                .join(", ");
            Ok((tally, by_node))
        })
        .unwrap();
    tally.check_and_say("SQLite", 1, took, &by_node);
}
