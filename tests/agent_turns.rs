//! The real agent with real git and real processes: scripts that edit, change nothing,
//! fail, commit by themselves, hang with a grandchild, and print too much; follow-ups on
//! one branch; and the `/changes` page against `git diff`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::time::Duration;

use agent_common::{Repos, alive, git, options};
use common::{client, eventually, start};
use docdeck::api::{Client, Job, JobStatus};
use docdeck::server::db::DbLocation;

async fn until_final(client: &Client, id: &str) -> Job {
    eventually("a final status", || async {
        let job = client.get_job(id).await.unwrap();
        job.status
            .as_ref()
            .is_some_and(JobStatus::is_final)
            .then_some(job)
    })
    .await
}

async fn create(client: &Client, prompt: &str) -> String {
    client.create_job(prompt).await.unwrap().id.unwrap()
}

const EDIT: &str = r#"prompt=$(cat)
printf '\n%s\n' "$prompt" >> intro.mdx
echo "turn $DOCDECK_TURN edited intro.mdx""#;

on_both_stores! {
    async fn an_edit_is_committed_pushed_and_shown_at_the_changes_link_as_git_diff_has_it(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script("edit.sh", EDIT);
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = create(&client, "Explain the setup step\n\nIn detail.").await;
        let job = until_final(&client, &id).await;
        assert_eq!(job.status, Some(JobStatus::Completed));
        let link = job.pr_link.unwrap();
        assert_eq!(
            link,
            format!("{}/changes/demo/{id}", server.base_url()),
            "a remote that is no known forge gets the service's own page"
        );
        let branch = format!("docdeck/{id}");
        let pushed = git(&repos.remote(), &["log", "--format=%s", &branch]);
        assert_eq!(
            pushed.lines().next(),
            Some("Explain the setup step"),
            "{pushed}"
        );
        let page = reqwest::get(&link).await.unwrap();
        assert_eq!(page.status(), 200);
        let shown = page.text().await.unwrap();
        let expected = git(&repos.remote(), &["diff", &format!("main...{branch}")]);
        assert_eq!(shown, expected);
        assert!(shown.contains("+Explain the setup step"), "{shown}");
        let missing = reqwest::get(format!("{}/changes/demo/job_nope", server.base_url()))
            .await
            .unwrap();
        assert_eq!(missing.status(), 404);
        let other = reqwest::get(format!("{}/changes/other/{id}", server.base_url()))
            .await
            .unwrap();
        assert_eq!(other.status(), 404, "a job is shown only under its project");
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn a_job_and_two_follow_ups_work_on_one_branch_in_one_worktree(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script(
            "edit.sh",
            &format!("{EDIT}\npwd >> {}", repos.trace("dirs").display()),
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = create(&client, "First").await;
        let first = until_final(&client, &id).await;
        for prompt in ["Second", "Third"] {
            client.send_message(&id, prompt).await.unwrap();
            let job = until_final(&client, &id).await;
            assert_eq!(job.status, Some(JobStatus::Completed));
            assert_eq!(job.pr_link, first.pr_link, "one change page for the job");
        }
        let log = git(
            &repos.remote(),
            &["log", "--format=%s", &format!("docdeck/{id}")],
        );
        assert_eq!(
            log.lines().collect::<Vec<_>>(),
            ["Third", "Second", "First", "First pages"]
        );
        let dirs = std::fs::read_to_string(repos.trace("dirs")).unwrap();
        let dirs: Vec<&str> = dirs.lines().collect();
        assert_eq!(dirs.len(), 3);
        assert!(
            dirs.iter().all(|d| *d == dirs[0] && d.ends_with(&id)),
            "{dirs:?}"
        );
        let output = repos.work_dir().join("output").join(&id).join("turn-3.log");
        assert_eq!(
            std::fs::read_to_string(output).unwrap(),
            "turn 3 edited intro.mdx\n"
        );
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn nothing_changed_completes_without_a_link_and_exit_1_fails(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script(
            "choose.sh",
            r#"case "$DOCDECK_PROMPT" in
      fail*) echo "cannot do that" >&2; exit 1 ;;
      edit*) echo edited >> intro.mdx ;;
      *) echo "nothing to change" ;;
    esac"#,
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let quiet = create(&client, "Is the intro fine?").await;
        let job = until_final(&client, &quiet).await;
        assert_eq!(job.status, Some(JobStatus::Completed));
        assert_eq!(job.pr_link, None);
        let branches = git(&repos.remote(), &["branch", "--list", "docdeck/*"]);
        assert!(branches.trim().is_empty(), "nothing is pushed: {branches}");

        let failing = create(&client, "fail please").await;
        assert_eq!(
            until_final(&client, &failing).await.status,
            Some(JobStatus::Failed)
        );
        // A failed turn does not lose the link an earlier turn made.
        client.send_message(&failing, "edit now").await.unwrap();
        let fixed = until_final(&client, &failing).await;
        assert_eq!(fixed.status, Some(JobStatus::Completed));
        let link = fixed.pr_link.unwrap();
        client.send_message(&failing, "fail again").await.unwrap();
        let failed = until_final(&client, &failing).await;
        assert_eq!(failed.status, Some(JobStatus::Failed));
        assert_eq!(failed.pr_link.as_deref(), Some(link.as_str()));
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn an_agent_that_commits_by_itself_is_pushed_as_it_committed(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script(
            "commit.sh",
            r#"echo "Self-made" > guide.mdx
    git add guide.mdx
    git -c user.name=Aider -c user.email=aider@example.com commit --quiet -m "aider: add the guide""#,
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = create(&client, "Add a guide").await;
        let job = until_final(&client, &id).await;
        assert_eq!(job.status, Some(JobStatus::Completed));
        assert!(job.pr_link.is_some());
        let log = git(
            &repos.remote(),
            &["log", "--format=%an %s", &format!("docdeck/{id}")],
        );
        assert_eq!(
            log.lines().next(),
            Some("Aider aider: add the guide"),
            "{log}"
        );
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn a_hanging_agent_and_its_grandchild_are_killed_at_the_timeout(db: DbLocation) {
        let repos = Repos::new();
        let pids = repos.trace("pids");
        let script = repos.script(
            "hang.sh",
            &format!(
                "sh -c 'echo $$ >> {pids}; exec sleep 600' &\necho $$ >> {pids}\nsleep 600",
                pids = pids.display()
            ),
        );
        let mut options = options(&repos, db.clone(), &script);
        if let Some(real) = &mut options.real_agent {
            real.timeout = Duration::from_secs(2);
        }
        let server = start(options).await;
        let client = client(&server);
        let id = create(&client, "Take forever").await;
        let job = until_final(&client, &id).await;
        assert_eq!(job.status, Some(JobStatus::Failed));
        let pids = std::fs::read_to_string(&pids).unwrap();
        let pids: Vec<&str> = pids.lines().collect();
        assert_eq!(
            pids.len(),
            2,
            "the agent and its grandchild started: {pids:?}"
        );
        eventually("both processes gone", || async {
            pids.iter().all(|pid| !alive(pid)).then_some(())
        })
        .await;
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn output_past_one_mebibyte_is_cut_with_a_marker(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script(
            "loud.sh",
            "head -c 10485760 /dev/zero | tr '\\0' 'x'\necho done >&2",
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = create(&client, "Say a lot").await;
        let job = until_final(&client, &id).await;
        assert_eq!(job.status, Some(JobStatus::Completed));
        let log = repos.work_dir().join("output").join(&id).join("turn-1.log");
        let kept = std::fs::read(&log).unwrap();
        assert!(
            kept.len() > 1024 * 1024 && kept.len() < 1024 * 1024 + 200,
            "{}",
            kept.len()
        );
        let tail = String::from_utf8_lossy(&kept[1024 * 1024..]);
        assert!(tail.contains("more bytes were not kept"), "{tail}");
        server.shutdown().await;
    }
}
