//! Several service nodes sharing one PostgreSQL database (issue 26): each node claims turns
//! through its own connections and its own agent slots; one node is killed in the middle
//! (its task aborted: no more renewals, no finishing) and started again. Every turn is run
//! at most once, none is lost, a job's turns run in order, and the turns of the killed node
//! are failed by another node with the interrupted-turn message once their leases run out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use docdeck::server::agent::{Agent, BoxFuture, NODE_STOPPED, OutcomeWeights, SimulatedAgent};
use docdeck::server::jobs::{PendingTurn, TurnResult};
use docdeck::server::pg::node::{self, NodeConfig};
use docdeck::server::pg::{PgStore, PgUrl, claim};

type Runs = Arc<Mutex<Vec<(String, i64, &'static str)>>>;
/// When each turn's agent began and ended (the end is missing for a killed one).
type Spans = Arc<Mutex<HashMap<(String, i64), (Instant, Option<Instant>)>>>;

/// The simulated agent, counting each turn it is asked to run, and by which node.
struct Counting {
    inner: SimulatedAgent,
    node: &'static str,
    runs: Runs,
    spans: Spans,
}

impl Agent for Counting {
    fn run_turn<'a>(&'a self, turn: &'a PendingTurn) -> BoxFuture<'a, TurnResult> {
        self.runs
            .lock()
            .unwrap()
            .push((turn.job_id.clone(), turn.turn, self.node));
        let key = (turn.job_id.clone(), turn.turn);
        self.spans
            .lock()
            .unwrap()
            .insert(key.clone(), (Instant::now(), None));
        Box::pin(async move {
            let result = self.inner.run_turn(turn).await;
            if let Some(span) = self.spans.lock().unwrap().get_mut(&key) {
                span.1 = Some(Instant::now());
            }
            result
        })
    }
}

fn agent(node: &'static str, runs: &Runs, spans: &Spans) -> Arc<dyn Agent> {
    Arc::new(Counting {
        inner: SimulatedAgent {
            delay: Duration::from_millis(40),
            weights: OutcomeWeights {
                pr: 3,
                nochange: 1,
                fail: 0,
            },
            seed: 7,
        },
        node,
        runs: runs.clone(),
        spans: spans.clone(),
    })
}

fn config(name: &str) -> NodeConfig {
    NodeConfig {
        name: name.to_owned(),
        max_agents: 4,
        lease: Duration::from_millis(600),
        poll: Duration::from_millis(200),
        keeps_jobs: false,
    }
}

/// Adds `jobs` jobs of `project` with `n % 3 + 1` turns each, and tells the nodes.
fn add_jobs(store: &PgStore, project: &str, jobs: usize, from: usize) -> i64 {
    let project = project.to_owned();
    store
        .blocking(move |client| {
            let mut turns = 0;
            for n in from..from + jobs {
                let seq: i64 = client
                    .query_one(
                        "INSERT INTO jobs (id, project, status, repository, model, created_ms, updated_ms)
                         VALUES ($1, $2, 'active', 'https://forge.invalid/acme/docs', 'sim', 1, 1)
                         RETURNING seq",
                        &[&format!("job_{project}_{n}"), &project],
                    )?
                    .get(0);
                for turn in 1..=i64::try_from(n % 3 + 1).unwrap() {
                    client.execute(
                        "INSERT INTO turns (job_seq, turn, project, prompt, received_ms) VALUES ($1, $2, $3, 'p', 1)",
                        &[&seq, &turn, &project],
                    )?;
                    turns += 1;
                }
            }
            claim::announce(client)?;
            Ok(turns)
        })
        .unwrap()
}

fn count(store: &PgStore, sql: &'static str) -> i64 {
    store
        .blocking(move |c| Ok(c.query_one(sql, &[])?.get(0)))
        .unwrap()
}

#[test]
fn two_nodes_run_every_turn_once_while_one_is_killed_and_restarted() {
    let url = pg_or_skip!();
    let url = PgUrl::parse(&url).unwrap();
    let store = PgStore::open(&url).unwrap();
    let mut total = add_jobs(&store, "alpha", 30, 0);
    total += add_jobs(&store, "beta", 10, 0);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    let runs: Runs = Arc::new(Mutex::new(Vec::new()));
    let spans: Spans = Arc::new(Mutex::new(HashMap::new()));
    let deadline = Instant::now() + Duration::from_secs(60);
    let wait_until = |what: &str, done: &dyn Fn() -> bool| {
        while !done() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let (store_a, store_b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    let node_a = runtime.spawn(node::run(
        store_a,
        agent("a", &runs, &spans),
        config("node-a"),
    ));
    let node_b = runtime.spawn(node::run(
        store_b,
        agent("b", &runs, &spans),
        config("node-b"),
    ));
    // Kill node a while it runs turns.
    wait_until("node a to run turns", &|| {
        count(
            &store,
            "SELECT count(*) FROM turns WHERE outcome IS NULL AND node = 'node-a'",
        ) > 0
            && count(
                &store,
                "SELECT count(*) FROM turns WHERE outcome IS NOT NULL",
            ) >= 10
    });
    node_a.abort();
    let killed_at = Instant::now();
    // More work arrives meanwhile; node a comes back under a new name, as a restarted
    // process would (host name and a new process id).
    total += add_jobs(&store, "gamma", 10, 0);
    let node_a2 = runtime.spawn(node::run(
        PgStore::open(&url).unwrap(),
        agent("a2", &runs, &spans),
        config("node-a2"),
    ));
    wait_until("every turn to end", &|| {
        count(&store, "SELECT count(*) FROM turns WHERE outcome IS NULL") == 0
    });
    node_b.abort();
    node_a2.abort();
    let runs = runs.lock().unwrap().clone();
    let unique: HashSet<(String, i64)> = runs.iter().map(|(j, t, _)| (j.clone(), *t)).collect();
    assert_eq!(unique.len(), runs.len(), "a turn was run twice");
    let finished = count(
        &store,
        "SELECT count(*) FROM turns WHERE outcome IS NOT NULL",
    );
    assert_eq!(finished, total, "a turn was lost");
    // A turn node a claimed just before it was killed may never have reached its agent:
    // it is among the interrupted ones below. Every other turn ran.
    let never_ran = total - i64::try_from(runs.len()).unwrap();
    let interrupted_count = count(
        &store,
        "SELECT count(*) FROM turns WHERE reason IS NOT NULL",
    );
    assert!(
        never_ran >= 0 && never_ran <= interrupted_count,
        "{never_ran} turns never ran"
    );
    // The killed node's turns in flight were failed by another node as interrupted, after
    // their leases ran out; nobody else's were.
    let interrupted: Vec<(String, String)> = store
        .blocking(|c| {
            Ok(c.query(
                "SELECT t.node, t.reason FROM turns t WHERE t.reason IS NOT NULL",
                &[],
            )?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect())
        })
        .unwrap();
    assert!(!interrupted.is_empty(), "node a had turns in flight");
    for (node, reason) in &interrupted {
        assert_eq!(node, "node-a");
        assert_eq!(reason, NODE_STOPPED);
    }
    assert!(killed_at.elapsed() >= Duration::from_millis(600));
    // Every node took part, and a job's turns never overlapped.
    for name in ["node-a", "node-b", "node-a2"] {
        let name = name.to_owned();
        let claimed: i64 = store
            .blocking(move |c| {
                Ok(
                    c.query_one("SELECT count(*) FROM turns WHERE node = $1", &[&name])?
                        .get(0),
                )
            })
            .unwrap();
        assert!(claimed > 0);
    }
    // A job's next turn began only after its turn before had ended (or, killed, had been
    // failed: its agent never ended).
    let spans = spans.lock().unwrap().clone();
    for ((job, turn), (began, _)) in &spans {
        if let Some((_, Some(ended))) = spans.get(&(job.clone(), turn - 1)) {
            assert!(
                began >= ended,
                "turn {turn} of {job} began before turn {} ended",
                turn - 1
            );
        }
    }
    // No job is left active, and jobs whose last turn was interrupted read failed.
    assert_eq!(
        count(&store, "SELECT count(*) FROM jobs WHERE status = 'active'"),
        0
    );
}

/// BENCHMARKS.md: 10,000 one-turn jobs claimed and finished by 4 nodes (threads with their
/// own connections, as processes would have) on PostgreSQL, and the same turns by the one
/// node SQLite allows. Run: `cargo test --release --test pg_nodes -- --ignored --nocapture`.
#[test]
#[ignore = "a benchmark: run by hand"]
fn bench_claiming_10000_turns_across_4_nodes() {
    use docdeck::server::db::{Db, DbLocation};
    use docdeck::server::jobs::{self, JobDefaults, TurnOutcome};
    const TURNS: usize = 10_000;
    let url = pg_or_skip!();
    let url = PgUrl::parse(&url).unwrap();
    let store = PgStore::open(&url).unwrap();
    let per_project = TURNS / 10;
    for project in 0..10 {
        add_one_turn_jobs(&store, &format!("p{project}"), per_project);
    }
    eprintln!("{TURNS} turns waiting on PostgreSQL");
    let started = Instant::now();
    let handles: Vec<_> = (0..4)
        .map(|n| {
            let url = url.clone();
            std::thread::spawn(move || {
                let store = PgStore::open(&url).unwrap();
                let name = format!("node-{n}");
                let mut done = Vec::new();
                loop {
                    let node = name.clone();
                    let claimed = store
                        .blocking(move |c| claim::claim(c, &node, 1, i64::MAX))
                        .unwrap();
                    let Some(turn) = claimed else { break };
                    done.push((turn.job_id.clone(), turn.turn));
                    let node = name.clone();
                    let result = TurnResult::of(TurnOutcome::NoChange);
                    assert!(
                        store
                            .blocking(move |c| claim::finish(c, &node, &turn, &result, None, 2))
                            .unwrap()
                    );
                }
                done
            })
        })
        .collect();
    let mut all = Vec::new();
    for handle in handles {
        all.extend(handle.join().unwrap());
    }
    let pg_time = started.elapsed();
    let unique: HashSet<_> = all.iter().cloned().collect();
    assert_eq!(all.len(), TURNS, "turns lost or run twice");
    assert_eq!(unique.len(), TURNS);
    assert_eq!(
        count(&store, "SELECT count(*) FROM turns WHERE outcome IS NULL"),
        0
    );

    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&DbLocation::File(dir.path().join("bench.sqlite"))).unwrap();
    let defaults = JobDefaults {
        repository: "https://forge.invalid/acme/docs".to_owned(),
        git_ref: None,
        model: "sim".to_owned(),
    };
    let ids: Vec<String> = (0..TURNS)
        .map(|n| {
            db.blocking(|c| jobs::create(c, &format!("p{}", n % 10), "p", &defaults, 1))
                .unwrap()
                .id
        })
        .collect();
    eprintln!("{TURNS} jobs made on SQLite");
    let started = Instant::now();
    for id in &ids {
        db.blocking(|c| {
            let turn = jobs::next_turn(c, id)?.unwrap();
            jobs::mark_started(c, &turn, None, 1)?;
            jobs::finish_turn(c, &turn, &TurnResult::of(TurnOutcome::NoChange), 2)
        })
        .unwrap();
    }
    let sqlite_time = started.elapsed();
    eprintln!(
        "10,000 turns claimed and finished: PostgreSQL, 4 nodes: {pg_time:.2?} ({:.0}/s); SQLite, 1 node: {sqlite_time:.2?} ({:.0}/s)",
        TURNS as f64 / pg_time.as_secs_f64(),
        TURNS as f64 / sqlite_time.as_secs_f64()
    );
}

/// Adds `jobs` one-turn jobs of `project` in one statement each for jobs and turns.
fn add_one_turn_jobs(store: &PgStore, project: &str, jobs: usize) {
    let project = project.to_owned();
    let jobs = i64::try_from(jobs).unwrap();
    store
        .blocking(move |c| {
            c.execute(
                "INSERT INTO jobs (id, project, status, repository, model, created_ms, updated_ms)
                 SELECT 'job_' || $1 || '_' || n, $1, 'active', 'https://forge.invalid/acme/docs', 'sim', 1, 1
                 FROM generate_series(1, $2::bigint) AS n",
                &[&project, &jobs],
            )?;
            c.execute(
                "INSERT INTO turns (job_seq, turn, project, prompt, received_ms)
                 SELECT seq, 1, project, 'p', seq FROM jobs WHERE project = $1",
                &[&project],
            )?;
            Ok(())
        })
        .unwrap();
}
