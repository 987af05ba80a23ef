//! Issue 26's test of many nodes, one truth: two `docdeck serve` processes on one
//! PostgreSQL database (free ports), each with a fast fake agent script that notes every
//! turn it runs and writes a page of that turn, take 100 jobs and two follow-ups of each;
//! one node is killed (SIGKILL) in the middle and started again under a new name and with
//! a new key. Each turn runs at most once (a turn of the killed node is failed as
//! interrupted by the other, never run again), every other turn exactly once, a follow-up
//! on either node continues from the job's pushed branch, and both nodes answer alike for
//! every job, its `/changes` page and its output, and the new key. (One rate limit over
//! two nodes is checked in `pg_serve.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::path::Path;
use std::time::{Duration, Instant};

use agent_common::Repos;
use common::{KEY, PROJECT, ServeProcess, client_with};
use docdeck::api::{ApiError, Client, Job, JobStatus};

const JOBS: usize = 100;
const SECOND_KEY: &str = "mint_second_node_key_0123456789";

/// A node: `docdeck serve` on `url` with the fake agent `script`.
fn node(home: &Path, url: &str, name: &str, script: &Path, repo: &Path, key: &str) -> ServeProcess {
    ServeProcess::spawn(
        home,
        &[
            "--db",
            url,
            "--seed",
            "none",
            "--api-key",
            key,
            "--node-name",
            name,
            "--lease",
            "2s",
            "--rate-limit",
            "1000",
            "--max-agents",
            "4",
            "--agent-command",
            script.to_str().unwrap(),
            "--repo",
            repo.to_str().unwrap(),
        ],
    )
}

/// A plain `GET` of `path` on `base` (`http://HOST:PORT`): status and body.
fn get(base: &str, path: &str) -> (u16, String) {
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
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

async fn ended(client: &Client, id: &str) -> Option<Job> {
    let job = client.get_job(id).await.unwrap();
    matches!(job.status, Some(JobStatus::Completed | JobStatus::Failed)).then_some(job)
}

async fn until_all_ended(clients: &[Client], ids: &[String]) -> Vec<Job> {
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut done = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        loop {
            if let Some(job) = ended(&clients[n % clients.len()], id).await {
                done.push(job);
                break;
            }
            assert!(Instant::now() < deadline, "job {id} did not end in time");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    done
}

#[test]
fn two_nodes_run_each_turn_once_while_one_is_killed_and_restarted() {
    let url = pg_or_skip!();
    let repos = Repos::new();
    let trace = repos.trace("turns.txt");
    let script = |name: &str| {
        repos.script(
            name,
            &format!(
                "echo \"$DOCDECK_JOB_ID $DOCDECK_TURN {name}\" >> '{}'\n\
                 echo \"turn $DOCDECK_TURN\" > \"page-$DOCDECK_TURN.md\"\n\
                 echo \"{name} ran turn $DOCDECK_TURN of $DOCDECK_JOB_ID\"",
                trace.display()
            ),
        )
    };
    let (script_a, script_b) = (script("agent-a"), script("agent-b"));
    let (home_a, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let repo = repos.clone_dir();
    let mut a = node(home_a.path(), &url, "node-a", &script_a, &repo, KEY);
    let b = node(home_b.path(), &url, "node-b", &script_b, &repo, KEY);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client_b = client_with(&b.base_url, PROJECT, KEY);
        let mut ids = Vec::new();
        for n in 0..JOBS {
            if n == JOBS / 2 {
                // The middle: node a dies with whatever it runs, and comes back.
                common::signal(a.child.id(), "-KILL");
                a.child.wait().unwrap();
                a = node(home_a.path(), &url, "node-a2", &script_a, &repo, SECOND_KEY);
            }
            let client = if n % 2 == 0 {
                client_with(
                    &a.base_url,
                    PROJECT,
                    if n < JOBS / 2 { KEY } else { SECOND_KEY },
                )
            } else {
                client_b.clone()
            };
            ids.push(
                client
                    .create_job(&format!("job {n}"))
                    .await
                    .unwrap()
                    .id
                    .unwrap(),
            );
        }
        let client_a = client_with(&a.base_url, PROJECT, KEY);
        let clients = [client_a.clone(), client_b.clone()];
        until_all_ended(&clients, &ids).await;
        // A follow-up of each, sent to the node that did not take the job.
        for (n, id) in ids.iter().enumerate() {
            clients[(n + 1) % 2]
                .send_message(id, &format!("follow-up {n}"))
                .await
                .unwrap();
        }
        until_all_ended(&clients, &ids).await;
        // And a third, which either node may take: one whose worktree of the job is behind
        // the branch the other node pushed catches up before it runs.
        for (n, id) in ids.iter().enumerate() {
            clients[n % 2]
                .send_message(id, &format!("third {n}"))
                .await
                .unwrap();
        }
        let finished = until_all_ended(&clients, &ids).await;

        // Each turn ran at most once, and exactly once unless its node was killed.
        let noted = std::fs::read_to_string(&trace).unwrap();
        let mut runs: HashMap<(String, String), usize> = HashMap::new();
        for line in noted.lines() {
            let mut words = line.split(' ');
            let (job, turn) = (words.next().unwrap(), words.next().unwrap());
            *runs.entry((job.to_owned(), turn.to_owned())).or_default() += 1;
        }
        assert!(runs.values().all(|&n| n == 1), "a turn ran twice: {runs:?}");
        let mut interrupted = 0;
        for (id, job) in ids.iter().zip(&finished) {
            for turn in ["2", "3"] {
                assert_eq!(
                    runs.get(&(id.clone(), turn.to_owned())),
                    Some(&1),
                    "turn {turn} of {id} ran once"
                );
            }
            if !runs.contains_key(&(id.clone(), "1".to_owned())) {
                interrupted += 1;
            }
            assert_eq!(job.status, Some(JobStatus::Completed), "{job:?}");
            assert!(job.node.is_some(), "{job:?}");
        }
        assert!(interrupted <= 4, "{interrupted} first turns never ran");
        eprintln!(
            "{} turns run, {interrupted} claimed by the killed node before its agent began",
            runs.len()
        );

        // Both nodes say the same of every job and its change.
        let mut cut_short = 0;
        for id in &ids {
            let (from_a, from_b) = (
                client_a.get_job(id).await.unwrap(),
                client_b.get_job(id).await.unwrap(),
            );
            // The same job, but for the link to its last output: each node links to itself.
            let path = |job: &Job| {
                let link = job
                    .output_link
                    .clone()
                    .expect("the last turn's output is kept");
                link.split_once("/output/").map(|(_, path)| path.to_owned())
            };
            assert_eq!(path(&from_a), path(&from_b));
            // The change page too: a link to the node that ran the turn broke when that
            // node went away (the trial of stop 33), though every node serves it.
            let change = format!("/changes/{PROJECT}/{id}");
            assert_eq!(
                from_a.pr_link.as_deref(),
                Some(format!("{}{change}", a.base_url.trim_end_matches('/')).as_str())
            );
            assert_eq!(
                from_b.pr_link.as_deref(),
                Some(format!("{}{change}", b.base_url.trim_end_matches('/')).as_str())
            );
            assert_eq!(
                Job {
                    output_link: None,
                    pr_link: None,
                    ..from_a.clone()
                },
                Job {
                    output_link: None,
                    pr_link: None,
                    ..from_b
                }
            );
            let output = format!("/output/{}", path(&from_a).unwrap());
            let (out_a, out_b) = (get(&a.base_url, &output), get(&b.base_url, &output));
            assert_eq!(out_a, out_b);
            assert_eq!(out_a.0, 200, "{}", out_a.1);
            assert!(
                out_a.1.contains(&format!("ran turn 3 of {id}")),
                "{}",
                out_a.1
            );
            let (status_a, page_a) = get(&a.base_url, &format!("/changes/{PROJECT}/{id}"));
            let (status_b, page_b) = get(&b.base_url, &format!("/changes/{PROJECT}/{id}"));
            assert_eq!((status_a, &page_a), (status_b, &page_b));
            assert_eq!(status_a, 200, "{page_a}");
            // The follow-up ran on the other node, from the branch the first one pushed.
            assert!(page_a.contains("page-2.md"), "{page_a}");
            assert!(page_a.contains("page-3.md"), "{page_a}");
            if runs.contains_key(&(id.clone(), "1".to_owned())) && !page_a.contains("page-1.md") {
                // Its first turn began on the killed node and never finished.
                cut_short += 1;
            }
        }
        assert!(
            interrupted + cut_short <= 4,
            "{interrupted} + {cut_short} first turns lost: more than node a ran at once"
        );
        // The key node a2 added at its start is accepted by node b, which never restarted.
        let second = client_with(&b.base_url, PROJECT, SECOND_KEY);
        second.get_job(&ids[0]).await.unwrap();
        let unknown = client_with(&b.base_url, PROJECT, "mint_never_added_0123456789");
        assert!(matches!(
            unknown.get_job(&ids[0]).await,
            Err(ApiError::Unauthorized { .. })
        ));
    });
}
