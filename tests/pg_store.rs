//! The PostgreSQL store (issue 26) against a throwaway PostgreSQL server: versioned
//! migrations that refuse a newer database, the URL's password kept out of every message,
//! and turns claimed by several nodes at once, each exactly once, in order within a job,
//! fairly across projects, with leases that another node fails once they run out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Barrier, Mutex};

use docdeck::server::agent::INTERRUPTED;
use docdeck::server::db::StoreError;
use docdeck::server::jobs::{TurnOutcome, TurnResult};
use docdeck::server::pg::{PgStore, PgUrl, claim, schema};

const PASSWORD: &str = "Sekr3t-pw-never-shown";

fn url_with_password(url: &str) -> PgUrl {
    PgUrl::parse(&url.replacen("docdeck@", &format!("docdeck:{PASSWORD}@"), 1)).unwrap()
}

/// Adds jobs of `project`, each with `turns` turns waiting; returns their ids.
fn add_jobs(store: &PgStore, project: &str, jobs: usize, turns: i64, now: i64) -> Vec<String> {
    let project = project.to_owned();
    store
        .blocking(move |client| {
            let mut ids = Vec::new();
            for n in 0..jobs {
                let id = format!("job_{project}_{n}");
                let seq: i64 = client
                    .query_one(
                        "INSERT INTO jobs (id, project, status, repository, model, created_ms, updated_ms)
                         VALUES ($1, $2, 'active', 'https://forge.invalid/acme/docs', 'sim', $3, $3)
                         RETURNING seq",
                        &[&id, &project, &now],
                    )?
                    .get(0);
                for turn in 1..=turns {
                    client.execute(
                        "INSERT INTO turns (job_seq, turn, project, prompt, received_ms) VALUES ($1, $2, $3, $4, $5)",
                        &[&seq, &turn, &project, &format!("prompt {turn}"), &now],
                    )?;
                }
                ids.push(id);
            }
            Ok(ids)
        })
        .unwrap()
}

#[test]
fn migrations_run_once_and_a_newer_database_is_refused_without_its_password() {
    let url = pg_or_skip!();
    let url = url_with_password(&url);
    let store = PgStore::open(&url).unwrap();
    // A second node opening the same database finds it up to date.
    PgStore::open(&url).unwrap();
    let version = store.blocking(schema::version).unwrap();
    assert_eq!(version, i64::try_from(schema::MIGRATIONS.len()).unwrap());
    store
        .blocking(|client| Ok(client.execute("UPDATE docdeck_schema SET version = 99", &[])?))
        .unwrap();
    let err = PgStore::open(&url)
        .err()
        .expect("a newer schema is refused");
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("newer docdeck"), "{text}");
    assert!(text.contains("docdeck:***@"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
}

#[test]
fn a_database_that_cannot_be_reached_is_named_without_its_password() {
    let url = pg_or_skip!();
    let missing = url.replacen("/t_", "/missing_", 1);
    let err = PgStore::open(&url_with_password(&missing))
        .err()
        .expect("no such database");
    let text = err.to_string();
    assert!(text.contains("does not exist"), "{text}");
    assert!(text.contains("***"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
    assert!(!format!("{err:?}").contains(PASSWORD));
}

#[test]
fn nodes_claiming_at_once_run_each_turn_once_and_a_jobs_turns_in_order() {
    let url = pg_or_skip!();
    let url = PgUrl::parse(&url).unwrap();
    let store = PgStore::open(&url).unwrap();
    let jobs = 25;
    let turns = 3;
    add_jobs(&store, "alpha", jobs, turns, 1);
    add_jobs(&store, "beta", jobs, turns, 1);
    let nodes = 4;
    let barrier = Arc::new(Barrier::new(nodes));
    let claimed = Arc::new(Mutex::new(Vec::new()));
    let handles: Vec<_> = (0..nodes)
        .map(|n| {
            let url = url.clone();
            let barrier = barrier.clone();
            let claimed = claimed.clone();
            std::thread::spawn(move || {
                // Each node has its own connections, as separate processes would.
                let store = PgStore::open(&url).unwrap();
                let node = format!("node-{n}");
                barrier.wait();
                let mut clock = 10;
                let mut idle_rounds = 0;
                while idle_rounds < 50 {
                    clock += 1;
                    let node_name = node.clone();
                    let turn = store
                        .blocking(move |c| claim::claim(c, &node_name, clock, i64::MAX))
                        .unwrap();
                    let Some(turn) = turn else {
                        let waiting: i64 = store
                            .blocking(|c| {
                                Ok(c.query_one(
                                    "SELECT count(*) FROM turns WHERE outcome IS NULL",
                                    &[],
                                )?
                                .get(0))
                            })
                            .unwrap();
                        if waiting == 0 {
                            break;
                        }
                        idle_rounds += 1;
                        std::thread::yield_now();
                        continue;
                    };
                    idle_rounds = 0;
                    claimed
                        .lock()
                        .unwrap()
                        .push((turn.job_id.clone(), turn.turn, node.clone()));
                    assert_eq!(turn.prompts.len(), usize::try_from(turn.turn).unwrap());
                    let node_name = node.clone();
                    let finished = store
                        .blocking(move |c| {
                            claim::finish(
                                c,
                                &node_name,
                                &turn,
                                &TurnResult::of(TurnOutcome::NoChange),
                                Some("diff"),
                                clock,
                            )
                        })
                        .unwrap();
                    assert!(finished);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let claimed = claimed.lock().unwrap().clone();
    let expected = 2 * jobs * usize::try_from(turns).unwrap();
    let unique: HashSet<(String, i64)> = claimed.iter().map(|(j, t, _)| (j.clone(), *t)).collect();
    assert_eq!(claimed.len(), expected, "a turn was run twice");
    assert_eq!(unique.len(), expected, "a turn was lost");
    // Within a job, turn n + 1 was claimed only after turn n had finished.
    let mut order: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (job, turn, _) in &claimed {
        order.entry(job.clone()).or_default().push(*turn);
    }
    for (job, turns) in order {
        assert_eq!(turns, vec![1, 2, 3], "{job}");
    }
    let nodes_used: HashSet<&String> = claimed.iter().map(|(_, _, node)| node).collect();
    assert!(nodes_used.len() > 1, "one node took every turn");
    let (completed, recorded): (i64, i64) = store
        .blocking(|c| {
            let row = c.query_one(
                "SELECT (SELECT count(*) FROM jobs WHERE status = 'completed'),
                        (SELECT count(*) FROM turns WHERE node IS NOT NULL AND diff = 'diff')",
                &[],
            )?;
            Ok((row.get(0), row.get(1)))
        })
        .unwrap();
    assert_eq!(completed, i64::try_from(2 * jobs).unwrap());
    assert_eq!(recorded, i64::try_from(expected).unwrap());
}

#[test]
fn a_jobs_next_turn_waits_while_one_runs_and_a_small_project_is_not_starved() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    // The big project's jobs came first.
    add_jobs(&store, "big", 10, 2, 1);
    add_jobs(&store, "small", 1, 1, 2);
    let first = store
        .blocking(|c| claim::claim(c, "a", 10, 1_000))
        .unwrap()
        .unwrap();
    assert_eq!(first.project, "big");
    let second = store
        .blocking(|c| claim::claim(c, "b", 11, 1_000))
        .unwrap()
        .unwrap();
    assert_eq!(
        second.project, "small",
        "the small project waits behind the big one"
    );
    let mut seen = HashSet::new();
    seen.insert((first.job_id.clone(), first.turn));
    // The rest: never a second turn of a job whose first runs.
    while let Some(turn) = store.blocking(|c| claim::claim(c, "c", 12, 1_000)).unwrap() {
        assert_eq!(
            turn.turn, 1,
            "turn 2 of {} claimed while turn 1 ran",
            turn.job_id
        );
        assert!(seen.insert((turn.job_id.clone(), turn.turn)));
    }
    assert_eq!(seen.len(), 10);
}

#[test]
fn another_node_fails_a_turn_whose_lease_ran_out_and_its_node_cannot_finish_it() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let ids = add_jobs(&store, "demo", 2, 1, 1);
    let dying = store
        .blocking(|c| claim::claim(c, "dying", 10, 100))
        .unwrap()
        .unwrap();
    let living = store
        .blocking(|c| claim::claim(c, "living", 10, 100))
        .unwrap()
        .unwrap();
    // The living node renews its lease; the dying one does not.
    let renewed = living.clone();
    assert!(
        store
            .blocking(move |c| claim::renew(c, "living", &renewed, 500))
            .unwrap()
    );
    // Not yet run out: nothing is failed.
    assert!(
        store
            .blocking(|c| claim::fail_expired(c, INTERRUPTED, 100))
            .unwrap()
            .is_empty()
    );
    let failed = store
        .blocking(|c| claim::fail_expired(c, INTERRUPTED, 200))
        .unwrap();
    assert_eq!(failed, vec![dying.job_id.clone()]);
    let (status, reason): (String, String) = {
        let id = dying.job_id.clone();
        store
            .blocking(move |c| {
                let row = c.query_one(
                    "SELECT j.status, t.reason FROM jobs j JOIN turns t ON t.job_seq = j.seq WHERE j.id = $1",
                    &[&id],
                )?;
                Ok((row.get(0), row.get(1)))
            })
            .unwrap()
    };
    assert_eq!(status, "failed");
    assert_eq!(reason, INTERRUPTED);
    // The dying node comes back: its lease is gone and its result is not written.
    let late = dying.clone();
    assert!(
        !store
            .blocking(move |c| claim::renew(c, "dying", &late, 900))
            .unwrap()
    );
    let finished = store
        .blocking(move |c| {
            claim::finish(
                c,
                "dying",
                &dying,
                &TurnResult::of(TurnOutcome::PullRequest),
                None,
                300,
            )
        })
        .unwrap();
    assert!(!finished);
    // The living node finishes its own turn, recorded with its name.
    let done = store
        .blocking(move |c| {
            claim::finish(
                c,
                "living",
                &living,
                &TurnResult::of(TurnOutcome::PullRequest),
                None,
                300,
            )
        })
        .unwrap();
    assert!(done);
    let id = ids.iter().find(|id| **id != failed[0]).unwrap().clone();
    let node = store.blocking(move |c| claim::node_of(c, &id, 1)).unwrap();
    assert_eq!(node.as_deref(), Some("living"));
}

#[test]
fn serve_on_postgres_serves_by_flag_and_by_variable_and_never_shows_the_password() {
    let url = pg_or_skip!();
    let with_password = url_with_password(&url);
    let home = tempfile::tempdir().unwrap();
    // By --db and by DOCDECK_DATABASE_URL alike.
    let by_flag = common::ServeProcess::spawn(
        home.path(),
        &[
            "--seed",
            "none",
            "--node-name",
            "one",
            "--db",
            with_password.expose(),
        ],
    );
    let by_env = common::ServeProcess::spawn_env(
        home.path(),
        &["--seed", "none", "--node-name", "two"],
        &[("DOCDECK_DATABASE_URL", with_password.expose())],
    );
    for mut node in [by_flag, by_env] {
        assert!(
            node.base_url.starts_with("http://127.0.0.1:"),
            "{}",
            node.base_url
        );
        node.child.kill().unwrap();
        node.child.wait().unwrap();
        // Everything it printed: the pipes close once it has ended.
        let mut said = String::new();
        for stream in [&node.stderr, &node.stdout] {
            while let Ok(line) = stream.recv_timeout(std::time::Duration::from_secs(5)) {
                said.push_str(&line);
                said.push('\n');
            }
        }
        assert!(!said.contains(PASSWORD), "{said}");
    }
    let store = PgStore::open(&with_password).unwrap();
    let version = store.blocking(schema::version).unwrap();
    assert_eq!(version, i64::try_from(schema::MIGRATIONS.len()).unwrap());
}

#[test]
fn with_one_agent_projects_take_turns() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    add_jobs(&store, "big", 5, 1, 1);
    add_jobs(&store, "small", 2, 1, 2);
    let mut order = Vec::new();
    for now in 10..17 {
        let turn = store
            .blocking(move |c| claim::claim(c, "solo", now, i64::MAX))
            .unwrap()
            .unwrap();
        order.push(turn.project.clone());
        store
            .blocking(move |c| {
                claim::finish(
                    c,
                    "solo",
                    &turn,
                    &TurnResult::of(TurnOutcome::NoChange),
                    None,
                    now,
                )
            })
            .unwrap();
    }
    // Served in turn while both wait, though the big project's jobs all came first.
    assert_eq!(order, ["big", "small", "big", "small", "big", "big", "big"]);
}

#[test]
fn rate_limits_are_counted_once_for_all_nodes() {
    use docdeck::server::pg::limits;
    let url = pg_or_skip!();
    let url = PgUrl::parse(&url).unwrap();
    PgStore::open(&url).unwrap();
    let barrier = Arc::new(Barrier::new(3));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let store = PgStore::open(&url).unwrap();
                barrier.wait();
                (0..50)
                    .filter(|_| {
                        store
                            .blocking(|c| {
                                limits::try_use(c, "demo", "create", 100, 3_600_000, 1_000)
                            })
                            .unwrap()
                            .is_ok()
                    })
                    .count()
            })
        })
        .collect();
    let allowed: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(
        allowed, 100,
        "three nodes let {allowed} uses of 100 through"
    );
    let store = PgStore::open(&url).unwrap();
    // Refused with the time until the oldest use leaves the hour; another bucket is apart.
    let refused = store
        .blocking(|c| limits::try_use(c, "demo", "create", 100, 3_600_000, 61_000))
        .unwrap();
    assert_eq!(refused, Err(3_600_000 - 60_000));
    assert!(
        store
            .blocking(|c| limits::try_use(c, "demo", "message", 100, 3_600_000, 61_000))
            .unwrap()
            .is_ok()
    );
    // A use given back, or an hour gone by, frees the bucket.
    store
        .blocking(|c| limits::release(c, "demo", "create", 1_000))
        .unwrap();
    assert_eq!(
        store
            .blocking(|c| limits::used(c, "demo", "create", 3_600_000, 61_000))
            .unwrap(),
        99
    );
    assert!(
        store
            .blocking(|c| limits::try_use(c, "demo", "create", 100, 3_600_000, 3_601_000))
            .unwrap()
            .is_ok()
    );
    assert_eq!(
        store
            .blocking(|c| limits::used(c, "demo", "create", 3_600_000, 3_601_000))
            .unwrap(),
        1
    );
}

/// A node whose real agent cannot push keeps the jobs it runs: their follow-ups wait for
/// it, and another node leaves them (issue 26).
#[test]
fn a_job_kept_by_a_node_without_a_remote_waits_for_that_node() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    add_jobs(&store, "docs", 1, 2, 1);
    let first = store
        .blocking(|c| claim::claim_keeping(c, "keeper", 10, 1_000, true))
        .unwrap()
        .unwrap();
    assert_eq!(first.turn, 1);
    let result = TurnResult::of(TurnOutcome::NoChange);
    let done = store
        .blocking(|c| claim::finish(c, "keeper", &first, &result, None, 20))
        .unwrap();
    assert!(done);
    // Its follow-up is not another node's to take, whether it keeps jobs or not.
    let other = store
        .blocking(|c| claim::claim(c, "other", 30, 1_000))
        .unwrap();
    assert!(other.is_none(), "another node took {other:?}");
    let other = store
        .blocking(|c| claim::claim_keeping(c, "other", 31, 1_000, true))
        .unwrap();
    assert!(other.is_none(), "another keeping node took {other:?}");
    let second = store
        .blocking(|c| claim::claim_keeping(c, "keeper", 32, 1_000, true))
        .unwrap()
        .unwrap();
    assert_eq!((second.job_id, second.turn), (first.job_id, 2));
}
