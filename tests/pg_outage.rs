//! A turn that finishes while its node cannot reach PostgreSQL (issue 26, the trial of
//! stop 33): a `docdeck serve` node runs an agent that waits for a file the test writes, so
//! the turn ends exactly when the test wants. Stopped for a few seconds, PostgreSQL comes
//! back and the node records the turn it kept: the job ends `completed` with the agent's
//! change, not `failed` as interrupted. And the rule when another node failed the turn
//! meanwhile (its lease ran out): that failure stands, and the node that ran the turn
//! records nothing over it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use agent_common::Repos;
use common::{KEY, PROJECT, ServeProcess, client_with};
use docdeck::api::{Client, Job, JobStatus};

/// Long enough for a loaded machine, short of the 60 s lease of the first test.
const SETTLE: Duration = Duration::from_secs(30);

/// An agent that waits (at most a minute) for `gate`, then writes a page.
fn gated_agent(repos: &Repos, gate: &Path) -> std::path::PathBuf {
    repos.script(
        "agent",
        &format!(
            "i=0\n\
             while [ ! -e '{}' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n\
             echo 'Written while the database was away.' > outage.md\n\
             echo \"finished turn $DOCDECK_TURN\"",
            gate.display()
        ),
    )
}

/// A node on `url` named `name`, with `lease`, running `script` on `repos`' clone.
fn node(
    home: &Path,
    url: &str,
    name: &str,
    lease: &str,
    script: &Path,
    repo: &Path,
) -> ServeProcess {
    ServeProcess::spawn(
        home,
        &[
            "--db",
            url,
            "--seed",
            "none",
            "--api-key",
            KEY,
            "--node-name",
            name,
            "--lease",
            lease,
            "--max-agents",
            "1",
            "--agent-command",
            script.to_str().unwrap(),
            "--repo",
            repo.to_str().unwrap(),
        ],
    )
}

/// Reads the node's log until a line contains `needle` (failing at `limit`): the lines
/// read, the last being the one found.
fn log_until(log: &Receiver<String>, needle: &str, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match log.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(needle);
                seen.push(line);
                if found {
                    return seen;
                }
            }
            Err(_) => panic!(
                "the node never logged {needle:?}; it logged:\n{}",
                seen.join("\n")
            ),
        }
    }
}

/// Polls the job until `done` says so of it (failing at `limit` with the job as it was).
fn poll_job(
    runtime: &tokio::runtime::Runtime,
    client: &Client,
    id: &str,
    limit: Duration,
    done: impl Fn(&Job) -> bool,
) -> Job {
    let deadline = Instant::now() + limit;
    loop {
        // A 503 while the database is away is an answer to wait through, not the end.
        if let Ok(job) = runtime.block_on(client.get_job(id))
            && done(&job)
        {
            return job;
        }
        if Instant::now() > deadline {
            let last = runtime.block_on(client.get_job(id));
            panic!("job {id} did not get there within {limit:?}: {last:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn running(job: &Job) -> bool {
    job.run_state.as_deref() == Some("running")
}

fn settled(job: &Job) -> bool {
    matches!(job.status, Some(JobStatus::Completed | JobStatus::Failed))
}

/// A plain `GET` of `path` on `base`: the body.
fn get(base: &str, path: &str) -> String {
    let host = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn a_turn_that_finishes_while_postgres_is_stopped_ends_completed() {
    let Some(server) = common::pg::OwnServer::start() else {
        return;
    };
    let url = server.fresh_database();
    let repos = Repos::new();
    let gate = repos.trace("gate");
    let script = gated_agent(&repos, &gate);
    let home = tempfile::tempdir().unwrap();
    // A lease far longer than the outage: no lease check may fail the turn meanwhile.
    let node = node(
        home.path(),
        &url,
        "node-a",
        "60s",
        &script,
        &repos.clone_dir(),
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = client_with(&node.base_url, PROJECT, KEY);
    let created = runtime
        .block_on(client.create_job("Write the outage page"))
        .unwrap();
    let id = created.id.unwrap();
    poll_job(&runtime, &client, &id, SETTLE, running);

    server.stop();
    std::fs::write(&gate, "").unwrap();
    // The agent ended with PostgreSQL away: the node cannot record the turn (before the
    // fix it said so once, "cannot record a finished turn: …", and gave the turn up).
    let said = log_until(&node.stderr, "cannot record a finished turn", SETTLE);
    server.resume();

    let job = poll_job(&runtime, &client, &id, SETTLE, settled);
    assert_eq!(job.status, Some(JobStatus::Completed), "{job:?}");
    assert_eq!(job.node.as_deref(), Some("node-a"), "{job:?}");
    let page = get(&node.base_url, &format!("/changes/{PROJECT}/{id}"));
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("outage.md"), "the agent's change: {page}");
    assert!(
        said.last().unwrap().contains("(trying again)"),
        "{}",
        said.join("\n")
    );
    log_until(
        &node.stderr,
        "the database takes finished turns again, after",
        SETTLE,
    );
}

#[test]
fn a_turn_failed_by_another_node_while_its_node_was_cut_off_stays_failed() {
    let url = pg_or_skip!();
    // Node a connects as a role of its own, which the test locks out and lets in again:
    // an outage of node a alone, while node b reaches the database and fails the turn
    // whose lease ran out.
    let role = format!("node_a_{}", std::process::id());
    let admin = |sql: String| {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client.batch_execute(&sql).unwrap();
    };
    admin(format!("CREATE ROLE {role} LOGIN SUPERUSER"));
    let url_a = url.replacen("docdeck@", &format!("{role}@"), 1);
    assert_ne!(url_a, url);
    let repos = Repos::new();
    let gate = repos.trace("gate");
    let script = gated_agent(&repos, &gate);
    let (home_a, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(
        home_a.path(),
        &url_a,
        "node-a",
        "3s",
        &script,
        &repos.clone_dir(),
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client_a = client_with(&a.base_url, PROJECT, KEY);
    let id = runtime
        .block_on(client_a.create_job("Write the outage page"))
        .unwrap()
        .id
        .unwrap();
    poll_job(&runtime, &client_a, &id, SETTLE, running);
    // Started now, node b cannot take the job before node a.
    let b = node(
        home_b.path(),
        &url,
        "node-b",
        "3s",
        &script,
        &repos.clone_dir(),
    );
    let client_b = client_with(&b.base_url, PROJECT, KEY);

    admin(format!(
        "ALTER ROLE {role} NOLOGIN;
         SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{role}'"
    ));
    std::fs::write(&gate, "").unwrap();
    log_until(&a.stderr, "cannot record a finished turn yet", SETTLE);
    // Node a renews no more: once its lease has run out, node b fails the turn.
    let failed = poll_job(&runtime, &client_b, &id, SETTLE, settled);
    assert_eq!(failed.status, Some(JobStatus::Failed), "{failed:?}");
    let reason = failed.failure_reason.clone().unwrap_or_default();
    assert!(reason.contains("the node running it stopped"), "{failed:?}");

    // Node a reaches the database again: the turn is no longer its own, so it records
    // nothing, and the job stays as node b left it.
    admin(format!("ALTER ROLE {role} LOGIN"));
    log_until(
        &a.stderr,
        "finished a turn no longer held: not recorded",
        SETTLE,
    );
    for client in [&client_a, &client_b] {
        let job = runtime.block_on(client.get_job(&id)).unwrap();
        assert_eq!(job.status, Some(JobStatus::Failed), "{job:?}");
        assert_eq!(job.failure_reason.as_deref(), Some(reason.as_str()));
    }
}
