//! Issue 23 against the real agent: the local service says why a job failed and where its
//! output is, tells a queued job from a running one, runs prompts too big for one
//! environment variable, commits the whole request, and its change page says what there
//! is to see.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use agent_common::{Repos, options};
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

on_both_stores! {
    async fn a_failed_job_says_why_and_links_to_its_turns_output(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script(
            "choose.sh",
            r#"case "$(cat)" in
      fail*) echo "the build broke at line 3" >&2; exit 1 ;;
      *) echo edited >> intro.mdx ;;
    esac"#,
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let id = create(&client, "fail please").await;
        let failed = until_final(&client, &id).await;
        assert_eq!(failed.status, Some(JobStatus::Failed));
        let reason = failed.failure_reason.expect("a failed job says why");
        assert!(reason.contains("exit status: 1"), "{reason}");
        let link = failed.output_link.expect("and where its output is");
        assert_eq!(link, format!("{}/output/demo/{id}/1", server.base_url()));
        let page = reqwest::get(&link).await.unwrap();
        assert_eq!(page.status(), 200);
        assert!(
            page.text()
                .await
                .unwrap()
                .contains("the build broke at line 3")
        );
        let elsewhere = reqwest::get(format!("{}/output/other/{id}/1", server.base_url()))
            .await
            .unwrap();
        assert_eq!(
            elsewhere.status(),
            404,
            "an output is shown only under its project"
        );

        client.send_message(&id, "edit now").await.unwrap();
        let fixed = until_final(&client, &id).await;
        assert_eq!(fixed.status, Some(JobStatus::Completed));
        assert_eq!(
            fixed.failure_reason, None,
            "a revived job has no reason to fail"
        );
        assert_eq!(
            fixed.output_link,
            Some(format!("{}/output/demo/{id}/2", server.base_url())),
            "the link follows the last turn"
        );
        // The service sends its own fields as null when they say nothing.
        let body = reqwest::Client::new()
            .get(format!("{}/v2/agent/demo/job/{id}", server.base_url()))
            .bearer_auth(common::KEY)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let raw: serde_json::Value = serde_json::from_slice(&body).unwrap();
        for name in ["failureReason", "runState", "queuePosition"] {
            assert!(raw[name].is_null(), "{name} in {raw}");
        }
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn with_one_agent_a_waiting_job_says_queued_and_where(db: DbLocation) {
        let repos = Repos::new();
        let gate = repos.trace("gate");
        let script = repos.script(
            "wait.sh",
            &format!(
                "while [ ! -e '{}' ]; do sleep 0.05; done\necho done",
                gate.display()
            ),
        );
        let mut options = options(&repos, db.clone(), &script);
        if let Some(real) = &mut options.real_agent {
            real.max_agents = 1;
        }
        let server = start(options).await;
        let client = client(&server);
        // The agent is idle: the answer says the job is starting, not `queued #1`.
        let answer = client.create_job("one").await.unwrap();
        assert_eq!(answer.run_state.as_deref(), Some("starting"));
        assert_eq!(answer.queue_position, None);
        assert!(!answer.is_queued());
        let first = answer.id.unwrap();
        eventually("the first job runs", || async {
            let job = client.get_job(&first).await.unwrap();
            (job.run_state.as_deref() == Some("running")).then_some(())
        })
        .await;
        let second = client.create_job("two").await.unwrap();
        assert_eq!(
            second.run_state.as_deref(),
            Some("queued"),
            "no agent is free"
        );
        assert_eq!(second.queue_position, Some(1));
        let second = second.id.unwrap();
        let third = create(&client, "three").await;
        for (id, position) in [(&second, 1), (&third, 2)] {
            let job = client.get_job(id).await.unwrap();
            assert_eq!(job.status, Some(JobStatus::Active));
            assert_eq!(job.run_state.as_deref(), Some("queued"), "{id}");
            assert_eq!(job.queue_position, Some(position), "{id}");
            assert!(job.is_queued());
        }
        let running = client.get_job(&first).await.unwrap();
        assert_eq!(running.queue_position, None);
        std::fs::write(&gate, "").unwrap();
        for id in [&first, &second, &third] {
            let done = until_final(&client, id).await;
            assert_eq!(done.status, Some(JobStatus::Completed));
            assert_eq!(done.run_state, None, "an ended job neither runs nor waits");
        }
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn a_prompt_too_big_for_one_variable_reaches_the_agent_on_stdin_and_as_a_file(db: DbLocation) {
        let repos = Repos::new();
        let seen = repos.trace("seen");
        let script = repos.script(
            "big.sh",
            &format!(
                "{{ cat | wc -c; wc -c < \"$DOCDECK_PROMPT_FILE\"; echo \"var=${{DOCDECK_PROMPT:-unset}}\"; }} > '{}'\necho edited >> intro.mdx",
                seen.display()
            ),
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        // 300 KiB: past the 128 KiB one environment string may hold, within the 1 MiB a
        // request may carry.
        let prompt = format!("Rewrite the guide\n{}", "word ".repeat(60 * 1024));
        let id = create(&client, &prompt).await;
        let job = until_final(&client, &id).await;
        assert_eq!(
            job.status,
            Some(JobStatus::Completed),
            "{:?}",
            job.failure_reason
        );
        let seen = std::fs::read_to_string(&seen).unwrap();
        let lines: Vec<&str> = seen.lines().map(str::trim).collect();
        let size = prompt.len().to_string();
        assert_eq!(lines, [size.as_str(), size.as_str(), "var=unset"], "{seen}");
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn the_commit_holds_the_whole_request_and_the_job(db: DbLocation) {
        let repos = Repos::new();
        let script = repos.script("edit.sh", "echo \"small=$DOCDECK_PROMPT\" >> intro.mdx");
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let prompt = "Explain the setup step\n\nIn detail, with one example per plan.";
        let id = create(&client, prompt).await;
        let job = until_final(&client, &id).await;
        assert_eq!(job.status, Some(JobStatus::Completed));
        let branch = format!("docdeck/{id}");
        let message = agent_common::git(&repos.remote(), &["log", "-1", "--format=%B", &branch]);
        assert_eq!(
            message.trim_end(),
            format!("Explain the setup step\n\n{prompt}\n\nDocdeck-Job: {id}\nDocdeck-Turn: 1")
        );
        let intro = agent_common::git(&repos.remote(), &["show", &format!("{branch}:intro.mdx")]);
        assert!(
            intro.contains("small=Explain the setup step"),
            "a prompt that fits is still in DOCDECK_PROMPT: {intro}"
        );
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn the_change_page_of_a_job_without_a_change_says_what_there_is_to_see(db: DbLocation) {
        let repos = Repos::new();
        let gate = repos.trace("gate");
        let script = repos.script(
            "choose.sh",
            &format!(
                r#"prompt=$(cat)
    case "$prompt" in
      wait*) while [ ! -e '{}' ]; do sleep 0.05; done ;;
      fail*) echo "no such page" >&2; exit 1 ;;
      *) echo "nothing to change" ;;
    esac"#,
                gate.display()
            ),
        );
        let server = start(options(&repos, db.clone(), &script)).await;
        let client = client(&server);
        let page = |id: String| {
            let url = format!("{}/changes/demo/{id}", server.base_url());
            async move {
                let response = reqwest::get(url).await.unwrap();
                assert_eq!(response.status(), 200);
                response.text().await.unwrap()
            }
        };
        let running = create(&client, "wait for me").await;
        eventually("the job runs", || async {
            let job = client.get_job(&running).await.unwrap();
            (job.run_state.as_deref() == Some("running")).then_some(())
        })
        .await;
        let text = page(running.clone()).await;
        assert!(text.contains("is running"), "{text}");

        let failed = create(&client, "fail please").await;
        until_final(&client, &failed).await;
        let text = page(failed.clone()).await;
        assert!(
            text.contains("failed") && text.contains("exit status: 1"),
            "{text}"
        );
        assert!(text.contains(&format!("/output/demo/{failed}/1")), "{text}");

        let quiet = create(&client, "Is the intro fine?").await;
        until_final(&client, &quiet).await;
        let text = page(quiet).await;
        assert!(text.contains("changed nothing"), "{text}");
        std::fs::write(&gate, "").unwrap();
        until_final(&client, &running).await;
        server.shutdown().await;
    }
}

/// The demo seed beside a real agent: its jobs say they worked in the agent's repository,
/// as the jobs the agent runs do, not in the simulated agent's made-up forge
/// (`docdeck demo`'s merged job is in its own repository; issue 27).
#[tokio::test]
async fn the_demo_seed_beside_a_real_agent_names_the_agents_repository() {
    let repos = Repos::new();
    let script = repos.script("done.sh", "echo done");
    let mut options = options(&repos, DbLocation::Memory, &script);
    options.seed = docdeck::server::SeedKind::Demo;
    let server = start(options).await;
    let client = client(&server);
    let repository = repos.clone_dir().canonicalize().unwrap();
    let repository = repository.display().to_string();
    assert!(!server.seeded_jobs.is_empty());
    for seeded in &server.seeded_jobs {
        let job = client.get_job(&seeded.id).await.unwrap();
        for job in [&seeded.job, &job] {
            let source = job.source.as_ref().expect("a seeded job has a source");
            assert_eq!(source.repository.as_deref(), Some(repository.as_str()));
            assert_eq!(source.git_ref.as_deref(), Some("main"));
        }
        assert_eq!(job.model.as_deref(), Some("done.sh"));
    }
    let made = client.create_job("one").await.unwrap();
    let made = made.source.and_then(|s| s.repository);
    assert_eq!(
        made.as_deref(),
        Some(repository.as_str()),
        "as its own jobs"
    );
    server.shutdown().await;
}
