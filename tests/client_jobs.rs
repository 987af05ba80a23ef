//! The real client against the real local service on port 0: job operations, their
//! lifecycle, auth, rate limits and restarts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{KEY, PROJECT, client, client_with, eventually, options_on, start};
use docdeck::api::{ApiError, Client, Job, JobStatus};
use docdeck::server::agent::OutcomeWeights;
use docdeck::server::db::DbLocation;

async fn until_status(client: &Client, id: &str, wanted: JobStatus) -> Job {
    eventually(&format!("job {id} to be {wanted}"), || async {
        let job = client.get_job(id).await.unwrap();
        (job.status.as_ref() == Some(&wanted)).then_some(job)
    })
    .await
}

// The job operations on both stores (SQLite and PostgreSQL), one body each.
on_both_stores! {
    async fn create_poll_and_complete_with_a_pull_request(db: DbLocation) {
        let server = start(options_on(&db)).await;
        let client = client(&server);
        let created = client.create_job("Fix the broken links").await.unwrap();
        assert_eq!(created.status, Some(JobStatus::Active));
        assert_eq!(created.pr_link, None);
        let id = created.id.clone().unwrap();
        let done = until_status(&client, &id, JobStatus::Completed).await;
        assert!(
            done.pr_link
                .unwrap()
                .starts_with("https://forge.invalid/acme/docs/pull/")
        );
        assert_eq!(done.created_at, created.created_at);
        let node = done.node.clone().expect("the node that ran the turn");
        assert!(node.ends_with(&format!(":{}", std::process::id())), "{node}");
        assert_eq!(done.archived_at, None);
        let source = done.source.unwrap();
        assert_eq!(
            source.repository.as_deref(),
            Some("https://forge.invalid/acme/docs")
        );
        assert_eq!(source.git_ref.as_deref(), Some("main"));
        server.shutdown().await;
    }

    async fn a_failing_agent_fails_the_job_and_no_change_keeps_no_link(db: DbLocation) {
        let mut options = options_on(&db);
        options.agent.weights = OutcomeWeights {
            pr: 0,
            nochange: 0,
            fail: 1,
        };
        let server = start(options).await;
        let client = client(&server);
        let id = client
            .create_job("Do something impossible")
            .await
            .unwrap()
            .id
            .unwrap();
        let failed = until_status(&client, &id, JobStatus::Failed).await;
        assert_eq!(failed.pr_link, None);
        server.shutdown().await;

        let mut options = options_on(&db);
        options.agent.weights = OutcomeWeights {
            pr: 0,
            nochange: 1,
            fail: 0,
        };
        let server = start(options).await;
        let client = common::client(&server);
        let id = client
            .create_job("Check spelling")
            .await
            .unwrap()
            .id
            .unwrap();
        assert_eq!(
            until_status(&client, &id, JobStatus::Completed)
                .await
                .pr_link,
            None
        );
        server.shutdown().await;
    }

    async fn follow_up_on_a_completed_job_reactivates_it(db: DbLocation) {
        let server = start(options_on(&db)).await;
        let client = client(&server);
        let id = client.create_job("First pass").await.unwrap().id.unwrap();
        let first = until_status(&client, &id, JobStatus::Completed).await;
        let reply = client
            .send_message(&id, "Also fix the images")
            .await
            .unwrap();
        assert_eq!(reply.status, Some(JobStatus::Active));
        assert_eq!(reply.pr_link, None, "prLink is null while active");
        let second = until_status(&client, &id, JobStatus::Completed).await;
        assert_ne!(
            second.pr_link, first.pr_link,
            "the new turn opened a new pull request"
        );
        server.shutdown().await;
    }

    async fn follow_up_on_an_active_job_is_queued_after_the_current_turn(db: DbLocation) {
        let mut options = options_on(&db);
        options.agent.delay = Duration::from_millis(300);
        let server = start(options).await;
        let client = client(&server);
        let id = client.create_job("Long task").await.unwrap().id.unwrap();
        let queued = client
            .send_message(&id, "And one more thing")
            .await
            .unwrap();
        assert_eq!(queued.status, Some(JobStatus::Active));
        let done = until_status(&client, &id, JobStatus::Completed).await;
        // Two turns, each opening a pull request, ran one after the other.
        assert!(done.pr_link.unwrap().ends_with("/pull/2"));
        server.shutdown().await;
    }

    async fn follow_up_on_an_archived_job_is_a_conflict(db: DbLocation) {
        let mut options = options_on(&db);
        options.archive_after = Duration::from_millis(200);
        let server = start(options).await;
        let client = client(&server);
        let id = client
            .create_job("Soon forgotten")
            .await
            .unwrap()
            .id
            .unwrap();
        let archived = until_status(&client, &id, JobStatus::Archived).await;
        let archived_at = archived.archived_at.expect("archivedAt is set");
        assert!(archived_at > archived.created_at.unwrap());
        assert!(
            archived.pr_link.is_some(),
            "archiving keeps the pull request"
        );
        let err = client.send_message(&id, "Wake up").await.unwrap_err();
        assert!(matches!(err, ApiError::Conflict { .. }), "{err:?}");
        assert!(err.to_string().contains("archived"), "{err}");
        server.shutdown().await;
    }

    async fn unknown_jobs_and_other_projects_are_not_found(db: DbLocation) {
        let server = start(options_on(&db)).await;
        let client = client(&server);
        let err = client.get_job("job_does_not_exist").await.unwrap_err();
        assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");
        assert!(
            err.to_string().ends_with(
                "check the job id and the project id (and the base URL if no job is ever found)"
            ),
            "{err}"
        );
        let err = client
            .send_message("job_does_not_exist", "hello")
            .await
            .unwrap_err();
        assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");
        let id = client.create_job("mine").await.unwrap().id.unwrap();
        let weird = client.get_job(&format!("{id}/../{id}")).await.unwrap_err();
        assert!(
            matches!(weird, ApiError::NotFound { .. }),
            "path segments are encoded: {weird:?}"
        );
        server.shutdown().await;
    }
}

on_both_stores_kept! {
    async fn wrong_keys_are_401_and_keys_of_another_project_403(db: DbLocation) {
        // A first run registers a key for project "other".
        let mut other = options_on(&db);
        other.project = "other".into();
        other.api_key = Some(docdeck::config::Secret::new("mint_other_project_key"));
        start(other).await.shutdown().await;

        let server = start(options_on(&db)).await;
        let url = server.base_url();
        let bad = client_with(&url, PROJECT, "mint_wrong");
        let err = bad.get_job("x").await.unwrap_err();
        assert!(matches!(err, ApiError::Unauthorized { .. }), "{err:?}");
        assert!(err.to_string().contains("DOCDECK_API_KEY"));
        assert!(
            !err.to_string().contains("mint_wrong"),
            "the key is never echoed"
        );
        let foreign = client_with(&url, PROJECT, "mint_other_project_key");
        let err = foreign.create_job("not yours").await.unwrap_err();
        assert!(matches!(err, ApiError::Forbidden { .. }), "{err:?}");
        let own_key_other_project = client_with(&url, "other", KEY);
        assert!(matches!(
            own_key_other_project
                .visitors(&Default::default())
                .await
                .unwrap_err(),
            ApiError::Forbidden { .. }
        ));
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn rate_limits_per_kind_with_retry_after(db: DbLocation) {
        let mut options = options_on(&db);
        options.rate_limit = 3;
        let server = start(options).await;
        let client = client(&server);
        let mut ids = Vec::new();
        for n in 0..3 {
            ids.push(
                client
                    .create_job(&format!("job {n}"))
                    .await
                    .unwrap()
                    .id
                    .unwrap(),
            );
        }
        let err = client.create_job("one too many").await.unwrap_err();
        let wait = err.retry_after().expect("Retry-After is sent");
        assert!(
            wait > Duration::from_secs(3500) && wait <= Duration::from_secs(3600),
            "{wait:?}"
        );
        assert!(matches!(err, ApiError::RateLimited { .. }));

        // Refused messages do not spend the budget; accepted ones do, separately from creates.
        for _ in 0..5 {
            assert!(matches!(
                client.send_message("job_nope", "x").await,
                Err(ApiError::NotFound { .. })
            ));
        }
        for id in &ids {
            client.send_message(id, "more").await.unwrap();
        }
        assert!(matches!(
            client.send_message(&ids[0], "more").await,
            Err(ApiError::RateLimited { .. })
        ));
        for _ in 0..3 {
            client.visitors(&Default::default()).await.unwrap();
        }
        assert!(matches!(
            client.visitors(&Default::default()).await,
            Err(ApiError::RateLimited { .. })
        ));
        // Reading jobs is not limited.
        for _ in 0..10 {
            client.get_job(&ids[0]).await.unwrap();
        }
        server.shutdown().await;
    }
}

// A restart on both stores. On SQLite the one node runs the turn a stop interrupted again
// at its next start (the simulated agent may: `reruns_interrupted_turns`). On PostgreSQL
// the stopped node's turn stays its own until its lease runs out; then a node (here the
// database's next start, under another name) fails it as interrupted and never runs it
// again, and a follow-up runs as usual.
on_both_stores_kept! {
    async fn jobs_survive_a_restart_and_active_ones_resume(db: DbLocation) {
        let lease = Duration::from_secs(1);
        let mut slow = options_on(&db);
        slow.agent.delay = Duration::from_secs(3600);
        slow.node_name = "first".into();
        slow.lease = lease;
        let server = start(slow).await;
        let client = client(&server);
        let created = client.create_job("Survive a restart").await.unwrap();
        let id = created.id.clone().unwrap();
        eventually("the turn to run", || async {
            let job = client.get_job(&id).await.unwrap();
            (job.run_state.as_deref() == Some("running")).then_some(())
        })
        .await;
        server.shutdown().await;
        let stopped = std::time::Instant::now();

        let mut again = options_on(&db);
        again.node_name = "second".into();
        again.lease = lease;
        let server = start(again).await;
        let client = common::client(&server);
        if !matches!(db, DbLocation::Postgres(_)) {
            let done = until_status(&client, &id, JobStatus::Completed).await;
            assert_eq!(done.created_at, created.created_at);
            assert!(done.pr_link.is_some());
            server.shutdown().await;
            return;
        }
        let failed = until_status(&client, &id, JobStatus::Failed).await;
        assert!(
            stopped.elapsed() >= lease / 2,
            "failed {:?} after the stop, before the lease ran out",
            stopped.elapsed()
        );
        assert_eq!(failed.created_at, created.created_at);
        assert_eq!(
            failed.failure_reason.as_deref(),
            Some(docdeck::server::agent::NODE_STOPPED)
        );
        assert!(failed.pr_link.is_none(), "the interrupted turn ran again");
        assert_eq!(failed.node.as_deref(), Some("first"), "it ran on the first node only");
        // The job goes on: a follow-up is run, once, by the node that is up.
        client.send_message(&id, "try again").await.unwrap();
        let done = until_status(&client, &id, JobStatus::Completed).await;
        assert!(done.pr_link.is_some());
        assert_eq!(done.node.as_deref(), Some("second"));
        server.shutdown().await;
    }
}

#[tokio::test]
async fn outcomes_are_reproducible_for_a_seed() {
    outcomes_repeat([DbLocation::Memory, DbLocation::Memory]).await;
}

/// The same on PostgreSQL, a fresh database for each run (the node loop runs the turns).
#[tokio::test]
async fn outcomes_are_reproducible_for_a_seed_on_postgres() {
    let first = pg_or_skip_async!();
    let second = pg_or_skip_async!();
    outcomes_repeat([DbLocation::parse(&first), DbLocation::parse(&second)]).await;
}

/// Two runs of 12 jobs, one at a time, on the agent's seed 11: the same statuses.
async fn outcomes_repeat(stores: [DbLocation; 2]) {
    let mut runs = Vec::new();
    for db in stores {
        let mut options = common::options_on(&db);
        options.agent.weights = OutcomeWeights::default();
        options.agent.seed = 11;
        let server = start(options).await;
        let client = client(&server);
        let mut statuses = Vec::new();
        for n in 0..12 {
            let id = client
                .create_job(&format!("task {n}"))
                .await
                .unwrap()
                .id
                .unwrap();
            let status = eventually("a final status", || async {
                let job = client.get_job(&id).await.unwrap();
                job.status.filter(JobStatus::is_final)
            })
            .await;
            statuses.push(status);
        }
        runs.push(statuses);
        server.shutdown().await;
    }
    assert_eq!(runs[0], runs[1]);
    assert!(runs[0].contains(&JobStatus::Completed));
}
