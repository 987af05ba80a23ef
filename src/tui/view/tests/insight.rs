//! Screens of the visitors pane's insight: the chart (and the pane without it), the
//! comparison with the period before, the whole range with a filter being typed, and
//! pages marked for a job.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::message::{InsightMsg, WholeEnd};

fn generation_of(scene: &Scene) -> crate::tui::message::Generation {
    scene.app.visitors.load().generation().unwrap()
}

/// The pane on a page of 50 rows (the clock says 2026-11-22: the last 7 days are
/// 2026-11-16 to 2026-11-23).
fn pane() -> Scene {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = generation_of(&scene);
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    scene
}

fn day(human: u64, ai: u64, total: u64) -> VisitorTotals {
    VisitorTotals { human, ai, total }
}

fn with_chart() -> Scene {
    let mut scene = pane();
    scene.key(KeyCode::Char('c'));
    let generation = scene.app.visitors.trend.generation().unwrap();
    let totals = vec![
        day(2_100, 410, 2_420),
        day(2_300, 450, 2_650),
        day(1_200, 380, 1_500),
        day(1_100, 420, 1_450),
        day(2_400, 520, 2_800),
        day(2_500, 610, 2_990),
        day(900, 300, 1_150),
    ];
    scene.send(Msg::Insight(InsightMsg::Trend {
        generation,
        result: Ok(totals),
        requests: 7,
    }));
    scene
}

#[test]
fn the_chart_is_labelled_as_unique_visitors_per_day_that_do_not_add_up() {
    let scene = with_chart();
    let wide = scene.render(120, 40);
    assert!(
        wide.contains("unique visitors per day, each day counted alone: they do not add up"),
        "{wide}"
    );
    assert!(
        wide.contains("2026-11-16") && wide.contains("2026-11-22"),
        "{wide}"
    );
    assert!(
        wide.contains("2,500"),
        "the axis says the top of the lines: {wide}"
    );
    let small = scene.render(80, 24);
    assert!(
        small.contains("unique visitors per day (each counted alone; no sum)"),
        "{small}"
    );
    both("visitors_chart_on", &scene);
}

#[test]
fn without_the_chart_the_rows_have_the_room() {
    let mut scene = with_chart();
    scene.key(KeyCode::Char('c'));
    let screen = scene.render(80, 24);
    assert!(!screen.contains("unique visitors per day"), "{screen}");
    both("visitors_chart_off", &scene);
}

#[test]
fn the_comparison_says_the_change_of_each_number_and_of_the_ai_share() {
    let mut scene = pane();
    scene.key(KeyCode::Char('v'));
    let crate::tui::app::PreviousLoad::Fetching { generation, .. } =
        scene.app.visitors.previous.clone()
    else {
        panic!("{:?}", scene.app.visitors.previous)
    };
    scene.send(Msg::Insight(InsightMsg::Previous {
        generation,
        result: Ok(VisitorsPage {
            totals: day(12_000, 2_500, 14_000),
            visitors: Vec::new(),
            has_more: false,
        }),
    }));
    let wide = scene.render(120, 40);
    // 12,496 − 12,000 = +496 (+4.1%); 3,525 − 2,500 = +1,025 (+41.0%); AI share 23.3% − 17.9%.
    assert!(
        wide.contains("vs 2026-11-09 → 2026-11-16: human +496 (+4.1%) · AI +1,025 (+41.0%) · total +1,100 (+7.9%) · AI share +5.5 pp"),
        "{wide}"
    );
    both("visitors_compare", &scene);
}

#[test]
fn a_filter_typed_on_the_whole_range_narrows_the_rows_and_says_how_many() {
    let mut scene = pane();
    scene.key(KeyCode::Char('v'));
    let previous = match scene.app.visitors.previous.clone() {
        crate::tui::app::PreviousLoad::Fetching { generation, .. } => generation,
        other => panic!("{other:?}"),
    };
    scene.send(Msg::Insight(InsightMsg::Previous {
        generation: previous,
        result: Ok(VisitorsPage {
            totals: day(12_000, 2_500, 14_000),
            visitors: Vec::new(),
            has_more: false,
        }),
    }));
    scene.key(KeyCode::Char('w'));
    let generation = scene.app.visitors.whole.generation().unwrap();
    let mut before = page().visitors;
    before.retain(|r| r.path != "/guides/page-01");
    for row in &mut before {
        row.total = row.total.saturating_sub(5);
    }
    scene.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::All {
            page: page(),
            previous: Some(before),
        }),
        requests: 2,
    }));
    scene.key(KeyCode::Char('/'));
    for c in "page-0".chars() {
        scene.key(KeyCode::Char(c));
    }
    let screen = scene.render(120, 40);
    assert!(screen.contains("/page-0▏ 10 of 50"), "{screen}");
    assert!(
        screen.contains("new"),
        "a path absent before says so: {screen}"
    );
    assert!(screen.contains("+5 (+"), "{screen}");
    both("visitors_filter_typed", &scene);
}

#[test]
fn marked_pages_carry_a_dot_and_the_count_shows() {
    let mut scene = pane();
    scene.key(KeyCode::Char(' '));
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Char(' '));
    let screen = scene.render(80, 24);
    assert!(screen.contains("● /introduction"), "{screen}");
    assert!(screen.contains("2 marked (n: job)"), "{screen}");
    both("visitors_marked", &scene);
}

#[test]
fn the_question_says_how_many_requests_and_how_many_are_left() {
    let mut scene = pane();
    scene.key(KeyCode::Char('c'));
    let generation = scene.app.visitors.trend.generation().unwrap();
    scene.send(Msg::Insight(InsightMsg::TrendNeeds {
        generation,
        requests: 30,
    }));
    let screen = scene.render(80, 24);
    assert!(screen.contains("needs 30 analytics"), "{screen}");
    assert!(screen.contains("y yes"), "{screen}");
}
