//! Screens of the visitors pane's feedback columns (issue 27): 👍, 👎 and 👎 per 1,000
//! human visitors beside the page and the whole range read, words under `NO_COLOR`,
//! and what the footer says of a partial list.

use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::{FeedbackByPage, PageFeedback};
use crate::tui::app::FeedbackLoad;
use crate::tui::message::{InsightMsg, WholeEnd};

fn by_page(has_more: bool) -> FeedbackByPage {
    let row = |path: &str, up: u64, down: u64| PageFeedback {
        path: path.into(),
        thumbs_up: up,
        thumbs_down: down,
        code: 0,
        total: up + down,
    };
    FeedbackByPage {
        feedback: vec![
            row("/introduction", 23, 2),
            row("/guides/page-03", 6, 14),
            row("/guides/page-07", 11, 4),
            row("/guides/page-47", 3, 7),
        ],
        has_more,
    }
}

fn with_feedback(has_more: bool) -> Scene {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    let FeedbackLoad::Fetching { generation, .. } = scene.app.visitors.feedback.clone() else {
        panic!("the page reads its feedback")
    };
    scene.send(Msg::Insight(InsightMsg::Feedback {
        generation,
        result: Ok(by_page(has_more)),
    }));
    scene
}

#[test]
fn the_feedback_columns_beside_the_page() {
    let scene = with_feedback(false);
    let screen = scene.render(120, 40);
    let row = screen
        .lines()
        .find(|l| l.contains("/guides/page-03"))
        .unwrap();
    // 14 down of 376 human visitors: 37.2 per 1,000.
    assert!(row.contains("14") && row.contains("37.2"), "{row}");
    both("visitors_feedback", &scene);
}

#[test]
fn no_color_writes_the_thumbs_as_words() {
    let scene = with_feedback(false);
    for (width, height) in [(80, 24), (120, 40)] {
        let plain = scene
            .draw_in(width, height, Theme::default().without_color())
            .backend()
            .to_string();
        assert!(
            plain.contains("UP") && plain.contains("DOWN/1k"),
            "{width}x{height}:\n{plain}"
        );
        assert!(!plain.contains('👍') && !plain.contains('👎'), "{plain}");
        insta::assert_snapshot!(
            format!("visitors_feedback_no_color_{width}x{height}"),
            plain
        );
    }
}

#[test]
fn a_partial_list_says_so_and_marks_the_pages_it_does_not_name() {
    let scene = with_feedback(true);
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("feedback of the top 100 pages only"),
        "{screen}"
    );
    let row = screen
        .lines()
        .find(|l| l.contains("/guides/page-05"))
        .unwrap();
    assert!(row.contains(" ? "), "{row}");
}

#[test]
fn the_whole_range_sorted_by_thumbs_down() {
    let mut scene = with_feedback(false);
    scene.key(KeyCode::Char('w'));
    let Some(generation) = scene.app.visitors.whole.generation() else {
        panic!("w fetches")
    };
    let mut all = page();
    all.has_more = false;
    scene.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::All {
            page: all,
            previous: None,
        }),
        requests: 1,
    }));
    // Total → AI share → (no change) → 👍 → 👎.
    for _ in 0..3 {
        scene.key(KeyCode::Char('s'));
    }
    let screen = scene.render(120, 40);
    let first = screen.lines().nth(5).unwrap_or_default();
    assert!(first.contains("/guides/page-03"), "{screen}");
    both("visitors_feedback_whole", &scene);
}

#[test]
fn at_the_narrowest_width_the_thumbs_up_and_the_rate_give_way_before_the_path() {
    let scene = with_feedback(false);
    let screen = scene.render(60, 20);
    let header = screen.lines().find(|l| l.contains("PATH")).unwrap();
    assert!(header.contains('👎'), "{header}");
    assert!(
        !header.contains('👍') && !header.contains("/1k"),
        "{header}"
    );
    let row = screen.lines().find(|l| l.contains("page-03")).unwrap();
    assert!(row.contains("/guides/page-03"), "the path is whole: {row}");
}
