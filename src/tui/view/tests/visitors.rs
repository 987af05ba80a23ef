//! Screens of the visitors pane and its forms: numbers never cut, one bar scale for the
//! whole range, counts that cannot be true, an export that stopped, messages that wrap.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::message::ExportEnd;

fn big_page() -> VisitorsPage {
    let row = |path: &str, human: u64, ai: u64, total: u64| PathVisitors {
        path: path.into(),
        human,
        ai,
        total,
    };
    VisitorsPage {
        totals: VisitorTotals {
            human: 98_765_432_101,
            ai: 1_234_567,
            total: 98_765_432_999,
        },
        visitors: vec![
            row("/introduction", 1_234_567, 234_567, 1_300_000),
            row("/quickstart", 999_999, 1_000, 1_000_500),
            row("/ai-heavy", 10, 1_234_567, 1_234_567),
            // Counts that cannot all be true: more AI visitors than visitors.
            row("/impossible", 100, 5_000, 4_000),
            row("/small", 4, 0, 4),
        ],
        has_more: false,
    }
}

fn scene_with(page: VisitorsPage) -> Scene {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page),
    });
    scene
}

#[test]
fn big_numbers_are_whole_or_compact_and_never_cut() {
    let scene = scene_with(big_page());
    for (width, height) in [(80, 24), (120, 40), (200, 50)] {
        let screen = scene.render(width, height);
        for line in screen.lines() {
            // A cut number starts at a separator: "│,234,567" or " ,234,567".
            assert!(
                !line.contains(" ,") && !line.contains("\",") && !line.contains(" .2M"),
                "a number was cut at {width}x{height}: {line}"
            );
        }
        let intro = screen
            .lines()
            .find(|l| l.contains("/introduction"))
            .unwrap();
        assert!(
            intro.contains("1,234,567") || intro.contains("1.2M"),
            "{width}x{height}: {intro}"
        );
        let totals = screen.lines().nth(2).unwrap();
        assert!(
            totals.contains("98,765,432,999") || totals.contains("98B"),
            "{width}x{height}: {totals}"
        );
    }
    both("visitors_big_numbers", &scene);
}

#[test]
fn a_row_whose_ai_exceeds_its_total_is_shown_and_marked() {
    let scene = scene_with(big_page());
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        let row = screen.lines().find(|l| l.contains("/impossible")).unwrap();
        assert!(row.contains("5,000") && row.contains("share n/a"), "{row}");
    }
}

#[test]
fn a_small_row_on_a_later_page_gets_a_small_bar() {
    let mut page = big_page();
    page.visitors = vec![PathVisitors {
        path: "/tiny".into(),
        human: 4,
        ai: 0,
        total: 4,
    }];
    let mut scene = scene_with(big_page());
    // Page 2 of the same range: the scale stays page 1's largest row.
    scene.app.visitors.offset = 50;
    scene.key(KeyCode::Char('r'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page),
    });
    let screen = scene.render(120, 40);
    let row = screen.lines().find(|l| l.contains("/tiny")).unwrap();
    assert_eq!(row.matches('█').count(), 1, "{row}");
    assert!(screen.contains("full = 1,300,000 (top page)"), "{screen}");
}

#[test]
fn an_export_that_stopped_says_it_under_the_table() {
    let mut scene = scene_with(page());
    scene.send(Msg::ExportDone(ExportEnd::Stopped {
        offset: 500,
        reason: crate::api::ApiError::BrokenPaging {
            offset: 500,
            fault: crate::api::PagingFault::Repeated,
        },
        rows: 500,
        kept: Some("/home/someone/reports/visitors-2026-11-16-2026-11-23.incomplete.csv".into()),
    }));
    let screen = scene.render(80, 24);
    assert!(
        screen.contains("export stopped: paging stopped at offset 500"),
        "{screen}"
    );
    assert!(screen.contains("2026-11-23.incomplete.csv"), "{screen}");
    both("visitors_export_stopped", &scene);
}

#[test]
fn forms_wrap_their_messages_and_fit_at_80_columns() {
    let mut scene = scene_with(page());
    scene.key(KeyCode::Char('f'));
    scene.key(KeyCode::Tab);
    scene.send(Msg::Input(crossterm::event::Event::Paste("x".into())));
    scene.key(KeyCode::Enter);
    let screen = scene.render(80, 24);
    assert!(screen.contains("fix the marked fields first"), "{screen}");
    assert!(
        screen.contains("│counted."),
        "the hint wraps, not cut:\n{screen}"
    );
    both("visitors_filter_refused", &scene);
    let narrow = scene.render(60, 15);
    assert!(
        narrow.contains("custom all"),
        "every choice shows at 60 columns:\n{narrow}"
    );
    scene.key(KeyCode::Esc);
    scene.key(KeyCode::Char('e'));
    let screen = scene.render(80, 24);
    assert!(
        screen.contains("Enter export · Esc cancel · Tab field"),
        "{screen}"
    );
    assert!(screen.contains("without asking"), "{screen}");
    both("visitors_export_form", &scene);
    let small = scene.render(60, 15);
    assert!(small.contains("Esc cancel"), "{small}");
}

#[test]
fn the_help_of_the_visitors_uses_the_width_of_80_columns_and_cuts_no_line() {
    let mut scene = scene_with(big_page());
    scene.key(KeyCode::Char('?'));
    let screen = scene.render(80, 24);
    assert!(
        screen.contains("next page (whole range: a screen)"),
        "{screen}"
    );
}

#[test]
fn an_empty_range_says_when_the_views_are_in_full_at_80_and_120_columns() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::ViewsSpan(crate::api::limit::ViewsSpan::from_millis(
        1_431_857_103_000,
        1_432_155_915_000,
    )));
    scene.send(Msg::Visitors {
        generation,
        result: Ok(crate::api::VisitorsPage::default()),
    });
    for width in [80, 120] {
        let screen = scene.render(width, 24);
        let flat: String = screen
            .lines()
            .map(|l| l.trim_matches('"').trim())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains("views run from 2015-05-17 to 2015-05-21 (UTC, the end excluded): f offers those dates"),
            "{screen}"
        );
    }
}

#[test]
fn a_failed_read_is_said_whole_without_rows_and_cut_with_an_ellipsis_beside_them() {
    let refused = || crate::api::ApiError::Network {
        host: "127.0.0.1:8790".into(),
        reason: "nothing listens there (Connection refused, os error 111): is the service running?"
            .into(),
        may_have_reached_server: false,
    };
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Err(refused()),
    });
    let screen = scene.render(80, 24);
    // The rows' area, above the footer, notice line and status bar.
    let flat: String = (screen.lines().take(20))
        .map(|l| l.trim_matches('"').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("is the service running?"), "{screen}");
    // With a page shown, the footer says the error as far as it fits, and that it goes on.
    let mut scene = scene_with(big_page());
    scene.key(KeyCode::Char('r'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Err(refused()),
    });
    let screen = scene.render(80, 24);
    let footer = (screen.lines())
        .find(|l| l.starts_with("\" page 1"))
        .unwrap();
    assert!(footer.contains("could not reach"), "{screen}");
    assert!(
        footer.trim_end_matches('"').trim_end().ends_with('…'),
        "{screen}"
    );
}
