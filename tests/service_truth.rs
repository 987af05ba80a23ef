//! Issue 23 at the local service's start: the demo's seeded jobs are handed to the
//! console as a first read would show them, so one idle past the archive age reads
//! archived at once (as the README's screenshot shows), not completed for ten minutes;
//! on SQLite and on PostgreSQL, where the seed is written too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use docdeck::api::JobStatus;
use docdeck::server::db::DbLocation;

on_both_stores! {
async fn a_seeded_job_past_the_archive_age_is_handed_over_archived(db: DbLocation) {
    let mut options = common::options_on(&db);
    options.seed = docdeck::server::SeedKind::Demo;
    let server = common::start(options).await;
    let status = |prompt: &str| {
        server
            .seeded_jobs
            .iter()
            .find(|job| job.prompts[0].0 == prompt)
            .and_then(|job| job.job.status.clone())
    };
    // 20 days old, past the default 7 days.
    assert_eq!(
        status("Translate the FAQ into Spanish"),
        Some(JobStatus::Archived)
    );
    assert_eq!(
        status("Fix the broken links in the quickstart"),
        Some(JobStatus::Completed),
        "six days old: still completed"
    );
    let archived = server
        .seeded_jobs
        .iter()
        .find(|job| job.job.status == Some(JobStatus::Archived))
        .unwrap();
    let read = common::client(&server).get_job(&archived.id).await.unwrap();
    assert_eq!(read, archived.job, "as the service answers a read");
    server.shutdown().await;
}
}
