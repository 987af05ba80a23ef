//! The real agent on hostile ground (issue 24): a huge change at `/changes`, who may read
//! the agents' folders and logs, `kill -9` of the service in the middle of a turn, and a
//! helper that leaves the agent's process group.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use agent_common::{Repos, alive, git, options};
use common::{DEADLINE, KEY, ServeProcess, client, eventually, run_cli, start, text};
use docdeck::api::JobStatus;
use docdeck::server::agent::{DIFF_LIMIT, worktree_of};
use docdeck::server::db::DbLocation;
use serde_json::Value;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

on_both_stores! {
    async fn a_change_past_ten_mebibytes_is_cut_with_a_marker_and_folders_and_logs_are_private(db: DbLocation) {
        let repos = Repos::new();
        // About 11.5 MB of diff: 110,000 lines of 100 letters.
        let script = repos.script(
            "big.sh",
            "awk 'BEGIN { for (i = 0; i < 110000; i++) printf \"%0100d\\n\", i }' > big.txt\necho wrote big.txt",
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = client
            .create_job("Add a big file")
            .await
            .unwrap()
            .id
            .unwrap();
        let job = eventually("the job to end", || async {
            let job = client.get_job(&id).await.unwrap();
            job.status
                .as_ref()
                .is_some_and(JobStatus::is_final)
                .then_some(job)
        })
        .await;
        assert_eq!(job.status, Some(JobStatus::Completed), "{job:?}");
        docdeck::api::client::install_crypto_provider();
        let page = reqwest::get(job.pr_link.unwrap()).await.unwrap();
        assert_eq!(page.status(), 200);
        assert_eq!(page.headers()["x-content-type-options"], "nosniff");
        let body = page.text().await.unwrap();
        assert!(body.len() <= DIFF_LIMIT + 300, "{} bytes", body.len());
        let marker = body.lines().last().unwrap();
        assert!(marker.contains("the diff was cut here"), "{marker}");
        let whole = git(&repos.remote(), &["diff", &format!("main...docdeck/{id}")]);
        assert!(whole.len() > DIFF_LIMIT);
        assert!(
            marker.contains(&format!("{} bytes", whole.len())),
            "{marker}"
        );
        assert!(whole.starts_with(body.strip_suffix(&format!("{marker}\n")).unwrap()));

        let work = repos.work_dir();
        for dir in [
            work.clone(),
            work.join("worktrees"),
            work.join("output"),
            worktree_of(&work, &id),
            work.join("output").join(&id),
        ] {
            assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        }
        let log = work.join("output").join(&id).join("turn-1.log");
        assert_eq!(mode(&log), 0o600);
        server.shutdown().await;
    }
}

/// An agent whose first turn edits half a file, starts a helper in its group and never
/// ends; later turns write `second.mdx` and end.
fn stuck_first_turn(repos: &Repos) -> std::path::PathBuf {
    let root = repos.root.path().display().to_string();
    repos.script(
        "stuck.sh",
        &format!(
            r#"if [ "$DOCDECK_TURN" = 1 ]; then
  echo "working on the first turn"
  echo "half done" >> intro.mdx
  (while true; do sleep 0.05; done) &
  echo $! > {root}/helper-pid
  echo $$ > {root}/agent-pid
  while true; do sleep 0.05; done
fi
echo "turn $DOCDECK_TURN" > second.mdx"#
        ),
    )
}

/// The body of `GET url` (`http://host:port/path`), read over a plain connection: this
/// test has no async runtime for the client.
fn plain_get(url: &str) -> String {
    use std::io::{Read as _, Write as _};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn pid_file(repos: &Repos, name: &str) -> Option<String> {
    std::fs::read_to_string(repos.trace(name))
        .ok()
        .filter(|pid| pid.ends_with('\n'))
}

#[test]
fn kill_9_of_serve_in_a_turn_ends_the_agent_and_the_follow_up_commits_only_its_own_work() {
    let repos = Repos::new();
    let home = tempfile::tempdir().unwrap();
    let script = stuck_first_turn(&repos);
    let db = home.path().join("service.sqlite");
    let clone = repos.clone_dir();
    let args = [
        "--db",
        db.to_str().unwrap(),
        "--seed",
        "none",
        "--repo",
        clone.to_str().unwrap(),
        "--agent-command",
        script.to_str().unwrap(),
    ];
    let env = [("DOCDECK_SERVE_API_KEY", KEY)];
    let mut first = ServeProcess::spawn_env(home.path(), &args, &env);
    let created = run_cli(home.path(), &first.base_url, &["jobs", "create", "First"]);
    let job: Value = serde_json::from_str(text(&created.stdout).lines().next().unwrap()).unwrap();
    let id = job["id"].as_str().unwrap().to_owned();
    let deadline = std::time::Instant::now() + DEADLINE;
    let (agent, helper) = loop {
        if let (Some(agent), Some(helper)) = (
            pid_file(&repos, "agent-pid"),
            pid_file(&repos, "helper-pid"),
        ) {
            break (agent, helper);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the agent never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    // The agent runs under `docdeck agent-exec`, which the kernel signals when the service
    // dies: the whole group goes without waiting for a restart.
    let deadline = std::time::Instant::now() + DEADLINE;
    while alive(&agent) || alive(&helper) {
        assert!(
            std::time::Instant::now() < deadline,
            "the agent or its helper outlived the service"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    let second = ServeProcess::spawn_env(home.path(), &args, &env);
    let url = &second.base_url;
    let failed = run_cli(home.path(), url, &["jobs", "get", &id, "--format", "json"]);
    let failed: Value = serde_json::from_slice(&failed.stdout).unwrap();
    assert_eq!(failed["status"], "failed", "{failed}");
    // What the interrupted turn printed before it was stopped is linked, as a failed
    // turn's is.
    let output = failed["outputLink"].as_str().expect("an output link");
    assert!(
        output.ends_with(&format!("/output/demo/{id}/1")),
        "{output}"
    );
    let printed = plain_get(output);
    assert!(printed.contains("working on the first turn"), "{printed}");
    let follow_up = run_cli(
        home.path(),
        url,
        &[
            "jobs",
            "message",
            &id,
            "Second",
            "--wait",
            "--timeout",
            "20s",
        ],
    );
    assert_eq!(
        follow_up.status.code(),
        Some(0),
        "{}",
        text(&follow_up.stderr)
    );

    let branch = format!("docdeck/{id}");
    let pushed = repos.remote();
    let subjects = git(&pushed, &["log", "--format=%s", &format!("main..{branch}")]);
    assert_eq!(subjects.trim(), "Second");
    let files = git(&pushed, &["show", "--name-only", "--format=", &branch]);
    assert_eq!(files.trim(), "second.mdx", "only the follow-up's own work");
    let stashed = git(
        &agent_common::docdeck_clone(home.path()),
        &["stash", "list"],
    );
    assert!(stashed.contains("set aside before turn 2"), "{stashed}");
}

on_both_stores_kept! {
    async fn a_key_of_another_project_cannot_make_the_real_agent_work_here(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script("touch.sh", "echo touched > touched.mdx");
        let other_key = docdeck::config::Secret::new("mint_elsewhere_0123456789");
        let registered = other_key.clone();
        common::with_sql(&db, move |sql| {
            let hasher = docdeck::server::keys::KeyHasher::load(sql)?;
            Ok(docdeck::server::keys::register(
                sql,
                &hasher,
                "elsewhere",
                &registered,
                0,
            ))
        })
        .unwrap();
        let server = start(options(&repos, db, &script)).await;
        let elsewhere = common::client_with(&server.base_url(), "elsewhere", other_key.expose());
        let refused = elsewhere
            .create_job("Edit this repository")
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("403"), "{refused}");
        assert!(!repos.clone_dir().join("touched.mdx").exists());
        server.shutdown().await;
    }
}

/// An agent that starts a helper in a session of its own (`setsid`: out of the agent's
/// process group, which a group kill misses), notes its pid, and then ends or hangs.
fn escaping(repos: &Repos, then: &str) -> std::path::PathBuf {
    let pid = repos.trace("escaped-pid");
    repos.script(
        "escape.sh",
        &format!(
            "setsid sh -c 'echo $$ > {pid}.tmp; mv {pid}.tmp {pid}; while true; do sleep 0.05; done' </dev/null >/dev/null 2>&1 &\nwhile [ ! -s {pid} ]; do sleep 0.01; done\necho edited >> intro.mdx\n{then}",
            pid = pid.display()
        ),
    )
}

on_both_stores! {
    async fn a_helper_that_left_the_agents_group_is_ended_with_the_turn(db: DbLocation) {
        for (then, ends) in [
            ("exit 0", JobStatus::Completed),
            ("sleep 600", JobStatus::Failed),
        ] {
            let repos = Repos::new();
            let script = escaping(&repos, then);
            let mut options = options(&repos, db.clone(), &script);
            if let Some(real) = &mut options.real_agent {
                real.launcher = Some(env!("CARGO_BIN_EXE_docdeck").into());
                real.timeout = std::time::Duration::from_secs(2);
            }
            let server = start(options).await;
            let client = client(&server);
            let id = client.create_job("Edit").await.unwrap().id.unwrap();
            let status = eventually("a final status", || async {
                let status = client.get_job(&id).await.unwrap().status?;
                status.is_final().then_some(status)
            })
            .await;
            assert_eq!(status, ends, "{then}");
            let escaped = std::fs::read_to_string(repos.trace("escaped-pid")).unwrap();
            eventually("the escaped helper ended", || async {
                (!alive(&escaped)).then_some(())
            })
            .await;
            server.shutdown().await;
        }
    }
}
