//! Screens the new-user trial of stop 33 found untrue or unusable: an impact read right
//! after a merge, a gap's advice in the console's own terms, a job without any change,
//! the timeline of what this console saw, the unknown-outcome row and the status bar at
//! 80 columns.

use chrono::TimeDelta;
use crossterm::event::KeyCode;

use super::signals::{impact_scene, read};
use super::*;
use crate::api::limit::ViewsSpan;
use crate::insight::impact::Windows;
use crate::insight::impact_read::{NotReady, gap_of};
use crate::tui::message::ImpactFailed;

/// The detail's text, its wrapped rows joined by a space: what a person reads.
fn flat(screen: &str) -> String {
    let rows: Vec<&str> = screen
        .lines()
        .filter_map(|line| line.split('│').nth(1))
        .map(str::trim)
        .filter(|row| !row.is_empty())
        .collect();
    rows.join(" ")
}

/// #12: two seconds after a merge the windows read `11:02 to 11:02`: under an hour they
/// are written to the second, and the detail says it is too soon to compare.
#[test]
fn an_impact_read_right_after_the_merge_gives_seconds_and_says_it_is_too_soon() {
    let mut just = read();
    just.merge.at = wall() - TimeDelta::seconds(2);
    just.windows = Windows::around(just.merge.at, TimeDelta::days(14), wall()).unwrap();
    let scene = impact_scene(Ok(just));
    let wide = scene.render(120, 40);
    assert!(
        wide.contains("(2026-11-22 11:59:56 to 2026-11-22 11:59:58 UTC)"),
        "{wide}"
    );
    assert!(
        wide.contains("merged 2 seconds ago: too soon to compare; i again later"),
        "{wide}"
    );
    both("job_impact_just_merged", &scene);
}

/// #12: the console has no `--merged-at` to give: a gap says what to do here, and the
/// CLI command (with the job's id) for what only the CLI does.
#[test]
fn a_gap_in_the_views_advises_what_the_console_can_do() {
    let mut outside = read();
    outside.gap = gap_of(
        &outside.windows,
        ViewsSpan {
            first: wall() - TimeDelta::days(400),
            last: wall() - TimeDelta::days(390),
        },
    );
    let screen = flat(&impact_scene(Ok(outside)).render(120, 40));
    assert!(!screen.contains("give --merged-at"), "{screen}");
    assert!(
        screen.contains("from the CLI: `docdeck jobs impact job_51be07aa93c2 --merged-at"),
        "{screen}"
    );
    // Views that hold 9 days either side of the merge: `w` picks 7-day windows.
    let mut part = read();
    part.gap = gap_of(
        &part.windows,
        ViewsSpan {
            first: part.merge.at - TimeDelta::days(9),
            last: part.merge.at + TimeDelta::days(9),
        },
    );
    let screen = flat(&impact_scene(Ok(part)).render(120, 40));
    assert!(
        screen.contains("windows of 7 days fit the data (w picks them)"),
        "{screen}"
    );
    assert!(!screen.contains("--window"), "{screen}");
}

/// #12: a merge a moment ago (or later than now) says `i` reads it again later.
#[test]
fn a_merge_too_recent_to_compare_says_i_reads_it_later() {
    let scene = impact_scene(Err(ImpactFailed::NotReady(NotReady::TooSoon(
        "job x's change was merged at 2026-11-22 12:00 UTC, just now: there is no window after the merge to compare yet".into(),
    ))));
    let screen = flat(&scene.render(120, 40));
    assert!(
        screen.contains("to compare yet; i reads it again later"),
        "{screen}"
    );
}

/// #15: the form's help says Ctrl+U clears a field (F1 opens it where text is typed).
#[test]
fn a_forms_help_says_ctrl_u_clears_the_field() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    scene.key(KeyCode::Char('f'));
    scene.key(KeyCode::F(1));
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("other keys edit the field (Ctrl+U clears it)"),
        "{screen}"
    );
    both("form_help", &scene);
}

/// #15: at 80 columns the jobs pane's bar dropped the analytics figure the README points
/// at after an impact read; the composer keeps the jobs' budget it spends.
#[test]
fn the_jobs_panes_bar_keeps_the_analytics_figure_at_80_columns() {
    let mut scene = Scene::new();
    let bar = |scene: &Scene| {
        let screen = scene.render(80, 24);
        screen.lines().last().unwrap_or_default().to_owned()
    };
    assert!(bar(&scene).contains("analytics 100/100"), "{}", bar(&scene));
    scene.key(KeyCode::Char('2'));
    assert!(
        bar(&scene).contains("new 87/100 msg 96/100"),
        "{}",
        bar(&scene)
    );
}

/// #6: the chart's refusal in the CLI's words, as the visitors pane shows it.
#[test]
fn the_charts_refusal_reads_as_the_clis() {
    use crate::tui::message::{Budget, Effect, InsightIo, InsightMsg, Io};
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    scene.send(Msg::Budget(Budget {
        analytics: crate::journal::AnalyticsBudget::new(100, vec![wall(); 95]),
        ..Budget::default()
    }));
    let now = scene.clock();
    let effects = scene.app.update(
        Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::NONE,
        ))),
        now,
    );
    let generation = effects.iter().find_map(|e| match e {
        Effect::Io(Io::Insight(InsightIo::FetchTrend { generation, .. })) => Some(*generation),
        _ => None,
    });
    scene.send(Msg::Insight(InsightMsg::TrendNeeds {
        generation: generation.expect("c reads the trend"),
        requests: 30,
    }));
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("the chart needs 30 analytics requests"),
        "{screen}"
    );
    both("visitors_chart_refused", &scene);
}

/// #8: while the try that finds the service back is out, the bar says so, not the time
/// it went out at (the trial's bar named a try a minute past).
#[test]
fn the_bar_says_a_try_is_out_while_the_service_does_not_answer() {
    let mut scene = Scene::new();
    scene.send(Msg::ConnectionChecked(Err(crate::api::ApiError::Network {
        host: "127.0.0.1:8787".into(),
        reason: "timed out".into(),
        may_have_reached_server: false,
    })));
    let bar = |scene: &Scene| {
        scene
            .render(80, 24)
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        bar(&scene).contains("▲ trouble · next try 12:00:02"),
        "{}",
        bar(&scene)
    );
    // The try goes out (as the loop takes it when due).
    scene.app.link.check.due = None;
    scene.app.link.check.in_flight = true;
    assert!(
        bar(&scene).contains("▲ trouble · trying again…"),
        "{}",
        bar(&scene)
    );
    both("status_trying_again", &scene);
}
