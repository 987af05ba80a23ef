//! `starting` across nodes (issue 26): the answer to a new job or a follow-up on
//! PostgreSQL says `starting` when a node that may take it has an agent free, whichever
//! node answers. Two `docdeck serve` nodes of one agent each run an agent that waits for a
//! file per turn, so the test decides which agents are busy. Before, a node counted only
//! its own agents: a new job on a full node read `queued` while the other node had an
//! agent free, and a follow-up of a job kept by a full node read `starting` on the other.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_common::{Repos, git};
use common::{KEY, PROJECT, ServeProcess, client_with};
use docdeck::api::{Client, Job, JobStatus};

const SETTLE: Duration = Duration::from_secs(30);

/// The agent, and the folder of the files that let each turn end (`JOB-TURN`).
struct Gates {
    dir: PathBuf,
    script: PathBuf,
}

impl Gates {
    fn new(repos: &Repos) -> Self {
        let dir = repos.trace("gates");
        std::fs::create_dir(&dir).unwrap();
        let script = repos.script(
            "agent",
            &format!(
                "g='{}'/\"$DOCDECK_JOB_ID-$DOCDECK_TURN\"; i=0\n\
                 while [ ! -e \"$g\" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n\
                 echo \"turn $DOCDECK_TURN\" > \"page-$DOCDECK_TURN.md\"",
                dir.display()
            ),
        );
        Self { dir, script }
    }

    /// Lets turn `turn` of job `id` end.
    fn open(&self, id: &str, turn: u32) {
        std::fs::write(self.dir.join(format!("{id}-{turn}")), "").unwrap();
    }
}

/// A node of one agent named `name` on `url`, working on `repo`.
fn node(home: &Path, url: &str, name: &str, gates: &Gates, repo: &Path) -> ServeProcess {
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
            "--max-agents",
            "1",
            "--agent-command",
            gates.script.to_str().unwrap(),
            "--repo",
            repo.to_str().unwrap(),
        ],
    )
}

fn poll_job(
    runtime: &tokio::runtime::Runtime,
    client: &Client,
    id: &str,
    done: impl Fn(&Job) -> bool,
) -> Job {
    let deadline = Instant::now() + SETTLE;
    loop {
        let job = runtime.block_on(client.get_job(id)).unwrap();
        if done(&job) {
            return job;
        }
        assert!(
            Instant::now() < deadline,
            "job {id} never got there: {job:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn running_on(node: &'static str) -> impl Fn(&Job) -> bool {
    move |job| job.run_state.as_deref() == Some("running") && job.node.as_deref() == Some(node)
}

#[test]
fn a_new_job_on_a_full_node_starts_when_another_node_has_an_agent_free() {
    let url = pg_or_skip!();
    let repos = Repos::new();
    let gates = Gates::new(&repos);
    let (home_a, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = node(home_a.path(), &url, "node-a", &gates, &repos.clone_dir());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = client_with(&a.base_url, PROJECT, KEY);
    let first = runtime
        .block_on(client.create_job("first"))
        .unwrap()
        .id
        .unwrap();
    poll_job(&runtime, &client, &first, running_on("node-a"));
    // Node a's one agent is busy; node b, started now, has one free.
    let _b = node(home_b.path(), &url, "node-b", &gates, &repos.clone_dir());
    let second = runtime.block_on(client.create_job("second")).unwrap();
    let id = second.id.clone().unwrap();
    assert_eq!(second.run_state.as_deref(), Some("starting"), "{second:?}");
    assert_eq!(second.queue_position, None, "{second:?}");
    // And it is node b that takes it.
    poll_job(&runtime, &client, &id, running_on("node-b"));
    gates.open(&first, 1);
    gates.open(&id, 1);
    poll_job(&runtime, &client, &id, |job| {
        job.status == Some(JobStatus::Completed)
    });
}

#[test]
fn a_follow_up_kept_by_a_full_node_is_queued_whichever_node_answers() {
    let url = pg_or_skip!();
    let repos = Repos::new();
    let gates = Gates::new(&repos);
    // A repository with no remote: the jobs a node runs stay that node's.
    let repo = repos.root.path().join("local");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "--quiet", "-b", "main"]);
    std::fs::write(repo.join("intro.mdx"), "# Introduction\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "First page"]);
    let (home_k, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let k = node(home_k.path(), &url, "node-k", &gates, &repo);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client_k = client_with(&k.base_url, PROJECT, KEY);
    let kept = runtime
        .block_on(client_k.create_job("kept"))
        .unwrap()
        .id
        .unwrap();
    poll_job(&runtime, &client_k, &kept, running_on("node-k"));
    gates.open(&kept, 1);
    poll_job(&runtime, &client_k, &kept, |job| {
        job.status == Some(JobStatus::Completed)
    });
    // Node k's one agent now runs another job; node b, started now, has its agent free.
    let busy = runtime
        .block_on(client_k.create_job("busy"))
        .unwrap()
        .id
        .unwrap();
    poll_job(&runtime, &client_k, &busy, running_on("node-k"));
    let b = node(home_b.path(), &url, "node-b", &gates, &repo);
    let client_b = client_with(&b.base_url, PROJECT, KEY);

    let follow_up = runtime
        .block_on(client_b.send_message(&kept, "follow-up"))
        .unwrap();
    assert_eq!(
        follow_up.run_state.as_deref(),
        Some("queued"),
        "the follow-up waits for node k: {follow_up:?}"
    );
    assert_eq!(follow_up.queue_position, Some(1), "{follow_up:?}");
    // It runs once node k's agent is free, on node k.
    gates.open(&busy, 1);
    poll_job(&runtime, &client_b, &kept, running_on("node-k"));
    gates.open(&kept, 2);
    poll_job(&runtime, &client_b, &kept, |job| {
        job.status == Some(JobStatus::Completed)
    });
}
