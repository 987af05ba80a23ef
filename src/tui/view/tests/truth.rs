//! Issue 23 on screen: a job waiting for an agent reads `◌ queued #2`, a completed job
//! that changed nothing reads `no change`, and a failed job's detail says why and where
//! its output is (fields only the local service sends).

use crossterm::event::KeyCode;

use super::*;

const OUTPUT: &str = "http://127.0.0.1:8080/output/acme-docs/job_0c8d4e6f1a2b/1";

fn truthful_scene() -> Scene {
    let mut scene = Scene::new();
    let mut queued = job("job_7f3a9c21d0e4", "active", 0, None);
    queued.run_state = Some("queued".into());
    queued.queue_position = Some(2);
    scene.send(Msg::JobFetched {
        id: "job_7f3a9c21d0e4".into(),
        result: Ok(queued),
    });
    let mut failed = job("job_0c8d4e6f1a2b", "failed", 26, None);
    failed.failure_reason = Some(
        "the agent command ended with exit status: 1; its output is in /srv/docdeck/output/job_0c8d4e6f1a2b/turn-1.log"
            .into(),
    );
    failed.output_link = Some(OUTPUT.into());
    scene.send(Msg::JobFetched {
        id: "job_0c8d4e6f1a2b".into(),
        result: Ok(failed),
    });
    scene.send(Msg::Tracked {
        id: "job_5e5e5e5e5e5e".into(),
        result: Ok(job("job_5e5e5e5e5e5e", "completed", 5, None)),
        first_prompt: Some("Is the intro still right?".into()),
    });
    scene
}

#[test]
fn queued_jobs_and_jobs_that_changed_nothing_say_so_in_their_rows() {
    let scene = truthful_scene();
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        let row = |text: &str| {
            screen
                .lines()
                .find(|l| l.contains(text))
                .unwrap_or_else(|| panic!("no {text}:\n{screen}"))
                .to_owned()
        };
        assert!(row("job_7f3a9c21").contains("◌ queued #2"), "{screen}");
        assert!(row("job_5e5e5e5e").contains("no change"), "{screen}");
        assert!(
            !row("job_0c8d4e6f").contains("no change"),
            "a failed job without a link is not 'no change'"
        );
    }
    both("jobs_truth", &scene);
}

/// The local service answers `runState: "starting"` for a job an agent is being started
/// for: the row and the detail said plain `active` (issue 27).
#[test]
fn a_job_an_agent_is_starting_for_says_so_in_its_row_and_detail() {
    let mut scene = truthful_scene();
    let mut starting = job("job_0c8d4e6f1a2b", "active", 26, None);
    starting.run_state = Some("starting".into());
    scene.send(Msg::JobFetched {
        id: "job_0c8d4e6f1a2b".into(),
        result: Ok(starting),
    });
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        let row = (screen.lines())
            .find(|l| l.contains("job_0c8d4e6f"))
            .unwrap_or_else(|| panic!("no row:\n{screen}"));
        assert!(row.contains("◌ starting"), "{screen}");
    }
    both("jobs_starting", &scene);
    scene.app.jobs.select("job_0c8d4e6f1a2b");
    scene.key(KeyCode::Enter);
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("status   ◌ starting (an agent is being started for it)"),
        "{screen}"
    );
    both("detail_starting", &scene);
}

#[test]
fn a_failed_jobs_detail_says_why_and_where_its_output_is() {
    let mut scene = truthful_scene();
    scene.app.jobs.select("job_0c8d4e6f1a2b");
    scene.key(KeyCode::Enter);
    scene.send(Msg::Detail {
        id: "job_0c8d4e6f1a2b".into(),
        conversation: Vec::new(),
        timeline: Vec::new(),
    });
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("reason   the agent command ended with exit status: 1"),
        "{screen}"
    );
    assert!(
        screen.contains("output   http://127.0.0.1:8080/output/"),
        "{screen}"
    );
    both("detail_failed", &scene);
}

/// A failed job revived by a follow-up keeps its failed turn's output link while the new
/// turn runs: the detail said `output …/1` as if it were the running turn's (seen in a
/// soak, 2026-11-27).
#[test]
fn a_revived_jobs_detail_says_its_output_is_an_earlier_turns() {
    let mut scene = truthful_scene();
    let mut revived = job("job_0c8d4e6f1a2b", "active", 26, None);
    revived.run_state = Some("running".into());
    revived.output_link = Some(OUTPUT.into());
    scene.send(Msg::JobFetched {
        id: "job_0c8d4e6f1a2b".into(),
        result: Ok(revived),
    });
    scene.app.jobs.select("job_0c8d4e6f1a2b");
    scene.key(KeyCode::Enter);
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("/1 (turn 1, an earlier turn: this one has none"),
        "{screen}"
    );
}

#[test]
fn the_log_of_notices_shows_each_with_its_time_newest_first() {
    let mut scene = Scene::new();
    for id in ["job_7f3a9c21d0e4", "job_51be07aa93c2"] {
        scene.app.jobs.select(id);
        scene.key(KeyCode::Char('y'));
    }
    scene.key(KeyCode::Char('L'));
    let screen = scene.render(120, 40);
    let copied: Vec<&str> = screen.lines().filter(|l| l.contains("copied")).collect();
    assert_eq!(
        copied.len(),
        3,
        "both in the log, the last on the notice line:\n{screen}"
    );
    assert!(
        copied[0].contains("12:00:00  copied the PR link"),
        "{screen}"
    );
    assert!(
        copied[1].contains("12:00:00  copied the job id"),
        "{screen}"
    );
    both("notices", &scene);
}

#[test]
fn timeline_times_older_than_today_carry_their_date() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Enter);
    scene.send(Msg::Detail {
        id: "job_7f3a9c21d0e4".into(),
        conversation: Vec::new(),
        timeline: vec![
            StatusChange {
                status: JobStatus::Active,
                observed_at: wall() - chrono::Duration::days(2),
            },
            StatusChange {
                status: JobStatus::Failed,
                observed_at: wall() - chrono::Duration::minutes(5),
            },
        ],
    });
    let screen = scene.render(120, 40);
    let day = (wall() - chrono::Duration::days(2))
        .format("%Y-%m-%d")
        .to_string();
    assert!(
        flat_text(&screen).contains(&format!("active {day} 12:00:00 → failed 11:55:00")),
        "{screen}"
    );
}

fn flat_text(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_local_repository_keeps_its_distinguishing_end() {
    let mut scene = Scene::new();
    let mut local = job("job_10ca110ca110", "completed", 1, None);
    local.source = Some(Source {
        repository: Some("/home/someone/src/clients/acme/docs".into()),
        git_ref: Some("main".into()),
    });
    scene.send(Msg::Tracked {
        id: "job_10ca110ca110".into(),
        result: Ok(local),
        first_prompt: Some("Check the intro".into()),
    });
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        let row = screen
            .lines()
            .find(|l| l.contains("job_10ca110c"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(
            row.contains("…") && row.contains("/docs@main"),
            "{width}: {row}"
        );
    }
}

#[test]
fn with_nothing_to_poll_a_service_that_does_not_answer_says_when_it_is_tried_again() {
    let mut scene = Scene::new();
    scene.app.jobs.poll = crate::tui::app::poll::Scheduler::new(
        crate::tui::app::poll::Cadences::with_interval(Duration::from_secs(3)),
        1,
    );
    scene.send(Msg::ConnectionChecked(Err(crate::api::ApiError::Network {
        host: "api.mintlify.com".into(),
        reason: "connection refused".into(),
        may_have_reached_server: false,
    })));
    let screen = scene.render(120, 40);
    let bar = screen.lines().last().unwrap();
    assert!(bar.contains("▲ trouble"), "{bar}");
    assert!(bar.contains("next try 12:00:02"), "{bar}");
    assert!(!bar.contains("nothing to poll"), "{bar}");
}

#[test]
fn the_403_advice_is_whole_at_80_columns() {
    let mut scene = Scene::new();
    scene.send(Msg::ConnectionChecked(Err(
        crate::api::ApiError::Forbidden {
            message: "This API key does not belong to this project".into(),
        },
    )));
    let small = scene.render(80, 24);
    assert!(small.contains("✗ not allowed (403)"), "{small}");
    let said = flat_text(&small);
    assert!(
        said.contains("or an IP off its allowlist") && !said.contains("allowlist…"),
        "the whole advice is shown:\n{small}"
    );
}
