//! The team's clone stays theirs (issue 23, point 10): `--repo` naming a folder a person
//! works in gets no worktree and no `docdeck/*` branch from a job; docdeck works in its own
//! clone, fetches the base from the folder (or its remote) and pushes where the folder
//! pushes; worktrees an earlier version left in the folder are handed over at start.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use agent_common::{Repos, git, options};
use common::{client, eventually, start};
use docdeck::api::{Client, JobStatus};
use docdeck::server::db::DbLocation;

/// The job's final status, and why it failed when it did.
async fn until_final(client: &Client, id: &str) -> (JobStatus, Option<String>) {
    eventually("a final status", || async {
        let job = client.get_job(id).await.unwrap();
        let status = job.status?;
        status.is_final().then_some((status, job.failure_reason))
    })
    .await
}

const DONE: (JobStatus, Option<String>) = (JobStatus::Completed, None);

/// The worktrees the team's clone has registered, its own checkout included.
fn worktrees(dir: &std::path::Path) -> Vec<String> {
    git(dir, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|line| line.strip_prefix("worktree ").map(str::to_owned))
        .collect()
}

on_both_stores! {
    async fn jobs_and_follow_ups_leave_no_worktree_and_no_branch_in_the_team_clone(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script("edit.sh", "cat >> intro.mdx");
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = client.create_job("Add a line").await.unwrap().id.unwrap();
        assert_eq!(until_final(&client, &id).await, DONE);
        client.send_message(&id, "And another").await.unwrap();
        assert_eq!(until_final(&client, &id).await, DONE);

        let team = repos.clone_dir();
        assert_eq!(worktrees(&team).len(), 1, "{:?}", worktrees(&team));
        let branches = git(&team, &["branch", "--list", "docdeck/*"]);
        assert!(branches.trim().is_empty(), "{branches}");
        let log = git(
            &repos.remote(),
            &["log", "--format=%s", &format!("docdeck/{id}")],
        );
        assert_eq!(
            log.lines().collect::<Vec<_>>(),
            ["And another", "Add a line", "First pages"],
            "pushed where the team's clone pushes"
        );
        let job = client.get_job(&id).await.unwrap();
        let shown = job.source.unwrap().repository.unwrap();
        assert_eq!(
            std::path::Path::new(&shown).canonicalize().unwrap(),
            team.canonicalize().unwrap(),
            "the job names the folder given, not docdeck's clone"
        );
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn a_folder_with_no_remote_is_fetched_from_and_keeps_no_branch(db: DbLocation) {
        let repos = Repos::new();
        let team = repos.clone_dir();
        git(&team, &["remote", "remove", "origin"]);
        std::fs::write(team.join("new.mdx"), "# New\n").unwrap();
        git(&team, &["add", "new.mdx"]);
        git(&team, &["commit", "--quiet", "-m", "New page, not pushed"]);
        let script = repos.script("edit.sh", "echo edited >> new.mdx");
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = client
            .create_job("Edit the new page")
            .await
            .unwrap()
            .id
            .unwrap();
        assert_eq!(until_final(&client, &id).await, DONE);
        let page = reqwest::get(format!("{}/changes/demo/{id}", server.base_url()))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            page.contains("+edited") && page.contains("new.mdx"),
            "the job started from the folder's own latest commit: {page}"
        );
        assert_eq!(worktrees(&team).len(), 1);
        assert!(
            git(&team, &["branch", "--list", "docdeck/*"])
                .trim()
                .is_empty()
        );
        server.shutdown().await;
    }
}

#[tokio::test]
async fn worktrees_an_earlier_version_registered_are_handed_over_at_start() {
    let repos = Repos::new();
    let team = repos.clone_dir();
    let old = repos.work_dir().join("worktrees").join("job_old");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    let target = old.to_str().unwrap();
    git(
        &team,
        &[
            "worktree",
            "add",
            "--quiet",
            "-b",
            "docdeck/job_old",
            target,
        ],
    );
    std::fs::write(old.join("intro.mdx"), "# Changed by an old turn\n").unwrap();
    git(&old, &["commit", "--quiet", "-am", "Old turn"]);
    let dirty = repos.work_dir().join("worktrees").join("job_dirty");
    let target = dirty.to_str().unwrap();
    git(
        &team,
        &[
            "worktree",
            "add",
            "--quiet",
            "-b",
            "docdeck/job_dirty",
            target,
        ],
    );
    std::fs::write(dirty.join("intro.mdx"), "uncommitted\n").unwrap();
    assert_eq!(worktrees(&team).len(), 3);

    let script = repos.script("edit.sh", "true");
    let server = start(options(&repos, DbLocation::Memory, &script)).await;
    let left = worktrees(&team);
    assert_eq!(
        left.len(),
        2,
        "the clean one is gone, the dirty one kept: {left:?}"
    );
    assert!(
        left.iter().any(|path| path.ends_with("job_dirty")),
        "{left:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dirty.join("intro.mdx")).unwrap(),
        "uncommitted\n",
        "uncommitted work is never thrown away"
    );
    let ours = repos.work_dir().join("clone");
    let moved = git(&ours, &["log", "--format=%s", "docdeck/job_old"]);
    assert_eq!(moved.lines().next(), Some("Old turn"), "{moved}");
    server.shutdown().await;
}
