//! The real agent across jobs and restarts: `--max-agents 1` makes a second job wait
//! (active) for the first, and a turn running when the service stops is failed at the
//! next start, never rerun on its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use agent_common::{Repos, alive, options};
use common::{client, eventually, start};
use docdeck::api::{Client, JobStatus};
use docdeck::server::agent::{INTERRUPTED, NODE_STOPPED};
use docdeck::server::db::DbLocation;

/// An agent that notes its start, waits until the test writes `go-<job>`, and notes its end.
fn gated(repos: &Repos) -> std::path::PathBuf {
    let root = repos.root.path().display().to_string();
    repos.script(
        "gated.sh",
        &format!(
            r#"echo "start $DOCDECK_JOB_ID" >> {root}/events
echo $$ > {root}/pid-$DOCDECK_JOB_ID
while [ ! -f {root}/go-$DOCDECK_JOB_ID ]; do sleep 0.02; done
echo edit >> intro.mdx
echo "end $DOCDECK_JOB_ID" >> {root}/events"#
        ),
    )
}

fn events(repos: &Repos) -> Vec<String> {
    std::fs::read_to_string(repos.trace("events"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

async fn status(client: &Client, id: &str) -> JobStatus {
    client.get_job(id).await.unwrap().status.unwrap()
}

on_both_stores! {
    async fn with_one_agent_slot_the_second_job_waits_active_for_the_first(db: DbLocation) {
        let repos = Repos::new();
        let script = gated(&repos);
        let mut options = options(&repos, db.clone(), &script);
        if let Some(real) = &mut options.real_agent {
            real.max_agents = 1;
        }
        let server = start(options).await;
        let client = client(&server);
        let a = client.create_job("First").await.unwrap().id.unwrap();
        let b = client.create_job("Second").await.unwrap().id.unwrap();
        let first = eventually("one agent started", || async {
            events(&repos)
                .first()
                .map(|e| e.trim_start_matches("start ").to_owned())
        })
        .await;
        let second = if first == a { b.clone() } else { a.clone() };
        assert_eq!(status(&client, &second).await, JobStatus::Active);
        std::fs::write(repos.trace(&format!("go-{first}")), "").unwrap();
        std::fs::write(repos.trace(&format!("go-{second}")), "").unwrap();
        for id in [&a, &b] {
            eventually("completed", || async {
                (status(&client, id).await == JobStatus::Completed).then_some(())
            })
            .await;
        }
        assert_eq!(
            events(&repos),
            [
                format!("start {first}"),
                format!("end {first}"),
                format!("start {second}"),
                format!("end {second}")
            ],
            "the second agent starts only after the first has ended"
        );
        server.shutdown().await;
    }
}

// On both stores; on PostgreSQL the next start (the same node name: one process) fails the
// turn once its lease has run out, not at once.
on_both_stores_kept! {
    async fn a_turn_running_at_shutdown_is_killed_and_failed_at_the_next_start(db: DbLocation) {
        let repos = Repos::new();
        let script = gated(&repos);
        let mut first = options(&repos, db.clone(), &script);
        first.lease = std::time::Duration::from_secs(1);
        let server = start(first).await;
        let client = client(&server);
        let id = client.create_job("Interrupted").await.unwrap().id.unwrap();
        let pid_file = repos.trace(&format!("pid-{id}"));
        let pid = eventually("the agent started", || async {
            std::fs::read_to_string(&pid_file)
                .ok()
                .filter(|p| !p.trim().is_empty())
        })
        .await;
        server.shutdown().await;
        eventually("the agent gone with the service", || async {
            (!alive(&pid)).then_some(())
        })
        .await;

        // A restart fails it; on PostgreSQL the lease ran out, whoever fails it.
        let reason = if matches!(db, DbLocation::Postgres(_)) {
            NODE_STOPPED
        } else {
            INTERRUPTED
        };
        let mut again = options(&repos, db, &script);
        again.lease = std::time::Duration::from_secs(1);
        let server = start(again).await;
        let client = common::client(&server);
        let failed = eventually("the interrupted turn failed", || async {
            let job = client.get_job(&id).await.unwrap();
            (job.status == Some(JobStatus::Failed)).then_some(job)
        })
        .await;
        assert_eq!(failed.failure_reason.as_deref(), Some(reason));
        assert_eq!(
            events(&repos),
            [format!("start {id}")],
            "never rerun on its own"
        );
        // A follow-up is the way to retry.
        std::fs::write(repos.trace(&format!("go-{id}")), "").unwrap();
        client.send_message(&id, "Try again").await.unwrap();
        eventually("completed after the follow-up", || async {
            (status(&client, &id).await == JobStatus::Completed).then_some(())
        })
        .await;
        server.shutdown().await;
    }
}

on_both_stores_kept! {
    async fn a_url_is_cloned_once_and_archived_jobs_lose_their_worktree_but_not_their_change(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script("edit.sh", "echo more >> intro.mdx");
        let url = format!("file://{}", repos.remote().display());
        let mut first = options(&repos, db.clone(), &script);
        if let Some(real) = &mut first.real_agent {
            real.repo.clone_from(&url);
        }
        let server = start(first).await;
        let client = client(&server);
        let id = client
            .create_job("Clone and edit")
            .await
            .unwrap()
            .id
            .unwrap();
        let done = eventually("completed", || async {
            let job = client.get_job(&id).await.unwrap();
            (job.status == Some(JobStatus::Completed)).then_some(job)
        })
        .await;
        assert_eq!(
            done.source.unwrap().repository.as_deref(),
            Some(url.as_str())
        );
        assert!(repos.work_dir().join("clone").join(".git").is_dir());
        let worktree = docdeck::server::agent::worktree_of(&repos.work_dir(), &id);
        assert!(worktree.is_dir());
        server.shutdown().await;

        // Restarted with jobs archived as soon as they end: the sweep at start removes the
        // worktree; the branch, and so the change page, stay.
        let mut again = options(&repos, db, &script);
        if let Some(real) = &mut again.real_agent {
            real.repo.clone_from(&url);
        }
        again.archive_after = std::time::Duration::ZERO;
        let server = start(again).await;
        let client = common::client(&server);
        eventually("the worktree removed", || async {
            (!worktree.exists()).then_some(())
        })
        .await;
        assert_eq!(status(&client, &id).await, JobStatus::Archived);
        let page = reqwest::get(format!("{}/changes/demo/{id}", server.base_url()))
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        assert!(page.text().await.unwrap().contains("+more"));
        server.shutdown().await;
    }
}
