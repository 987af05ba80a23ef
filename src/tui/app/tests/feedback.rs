//! The feedback columns of the visitors pane (issue 27): one read per range, joined to
//! the rows by path, dropped when it is of a range no longer shown, and sortable once
//! the whole range is read.

use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::{FeedbackByPage, Kind, PageFeedback, SignalsQuery};
use crate::insight::SortKey;
use crate::listing::Direction;
use crate::tui::app::{FEEDBACK_PAGES, FeedbackLoad, Thumbs, VisitorsColumn};
use crate::tui::message::{Generation, InsightIo, InsightMsg, WholeEnd};

fn page() -> VisitorsPage {
    VisitorsPage {
        totals: VisitorTotals {
            human: 1_400,
            ai: 200,
            total: 1_560,
        },
        visitors: vec![
            visit_row("/quickstart", 1_000, 100, 1_080),
            visit_row("/guides/authentication", 400, 60, 440),
            visit_row("/api-reference/jobs/create", 0, 40, 40),
        ],
        has_more: false,
    }
}

/// As the service answers for the demo: the URL form already reduced to its path.
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
            row("/quickstart", 23, 2),
            row("/guides/authentication", 6, 14),
            row("/api-reference/jobs/create", 3, 7),
        ],
        has_more,
    }
}

fn feedback_reads(effects: &[Effect]) -> Vec<(Generation, SignalsQuery)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Io(Io::Insight(InsightIo::FetchFeedback { generation, query })) => {
                Some((*generation, query.clone()))
            }
            _ => None,
        })
        .collect()
}

fn visitors_generation(effects: &[Effect]) -> Generation {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::FetchVisitors { generation, .. }) => Some(*generation),
            _ => None,
        })
        .expect("a page is fetched")
}

/// The pane on its first page: returns the feedback read the page started.
fn shown() -> (Harness, Generation, SignalsQuery) {
    let mut h = Harness::new(vec![]);
    let generation = visitors_generation(&h.key(KeyCode::Char('3')));
    let effects = h.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    let mut reads = feedback_reads(&effects);
    assert_eq!(
        reads.len(),
        1,
        "one feedback read with the page: {effects:?}"
    );
    let (generation, query) = reads.remove(0);
    (h, generation, query)
}

fn answered(h: &mut Harness, generation: Generation, result: FeedbackByPage) {
    h.send(Msg::Insight(InsightMsg::Feedback {
        generation,
        result: Ok(result),
    }));
}

fn thumbs_of(h: &Harness, path: &str) -> Option<Thumbs> {
    let query = &h.app.visitors.load().shown().unwrap().query;
    h.app.visitors.feedback.of_range(query)?.of(path)
}

#[test]
fn the_first_page_reads_the_ranges_feedback_with_the_most_pages_a_request_holds() {
    let (h, _, query) = shown();
    let range = &h.app.visitors.load().shown().unwrap().query;
    assert_eq!(query.kind, Kind::FeedbackByPage);
    assert_eq!(query.limit, Some(FEEDBACK_PAGES));
    assert_eq!(
        (query.date_from, query.date_to),
        (range.date_from, range.date_to)
    );
    assert!(matches!(
        h.app.visitors.feedback,
        FeedbackLoad::Fetching { .. }
    ));
}

#[test]
fn the_feedback_is_joined_to_the_rows_by_path() {
    let (mut h, generation, _) = shown();
    answered(&mut h, generation, by_page(false));
    assert_eq!(
        thumbs_of(&h, "/guides/authentication"),
        Some(Thumbs { up: 6, down: 14 })
    );
    assert_eq!(
        thumbs_of(&h, "/nobody-said"),
        Some(Thumbs::default()),
        "a complete list: a page not in it had no feedback"
    );
}

#[test]
fn a_partial_list_leaves_the_pages_it_does_not_name_unknown() {
    let (mut h, generation, _) = shown();
    answered(&mut h, generation, by_page(true));
    assert_eq!(thumbs_of(&h, "/nobody-said"), None);
    let query = &h.app.visitors.load().shown().unwrap().query;
    assert!(h.app.visitors.feedback.of_range(query).unwrap().partial);
}

#[test]
fn another_page_of_the_same_range_reads_no_feedback_and_r_reads_it_again() {
    let (mut h, generation, _) = shown();
    answered(&mut h, generation, by_page(false));
    h.app.visitors.offset = 0;
    let next = visitors_generation(&h.key(KeyCode::Char('+')));
    let effects = h.send(Msg::Visitors {
        generation: next,
        result: Ok(page()),
    });
    assert!(
        feedback_reads(&effects).is_empty(),
        "the same range: {effects:?}"
    );
    let again = visitors_generation(&h.key(KeyCode::Char('r')));
    let effects = h.send(Msg::Visitors {
        generation: again,
        result: Ok(page()),
    });
    assert_eq!(feedback_reads(&effects).len(), 1, "r reads it again");
}

#[test]
fn a_new_range_reads_its_feedback_and_drops_the_reply_for_the_old_one() {
    let (mut h, old, _) = shown();
    h.key(KeyCode::Char('f'));
    h.key(KeyCode::Tab);
    for _ in 0..12 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("2026-11-01");
    let generation = visitors_generation(&h.key(KeyCode::Enter));
    let effects = h.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    let reads = feedback_reads(&effects);
    assert_eq!(reads.len(), 1, "{effects:?}");
    assert_eq!(
        reads[0].1.date_from.map(|d| d.to_string()).as_deref(),
        Some("2026-11-01")
    );
    answered(&mut h, old, by_page(false));
    assert_eq!(thumbs_of(&h, "/quickstart"), None, "the old range's reply");
    answered(&mut h, reads[0].0, by_page(false));
    assert_eq!(
        thumbs_of(&h, "/quickstart"),
        Some(Thumbs { up: 23, down: 2 })
    );
}

#[test]
fn a_failed_read_says_why_and_the_page_stays() {
    let (mut h, generation, _) = shown();
    h.send(Msg::Insight(InsightMsg::Feedback {
        generation,
        result: Err(network_error(true)),
    }));
    assert!(h.app.visitors.feedback.error().is_some());
    assert_eq!(h.app.visitors.rows().len(), 3);
}

/// `w` holds the range; the feedback joins it whichever comes first.
fn whole_with_feedback(feedback_first: bool) -> Harness {
    let (mut h, generation, _) = shown();
    if feedback_first {
        answered(&mut h, generation, by_page(false));
    }
    let whole = h
        .key(KeyCode::Char('w'))
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::Insight(InsightIo::FetchWhole { generation, .. })) => Some(*generation),
            _ => None,
        })
        .expect("w fetches");
    h.send(Msg::Insight(InsightMsg::Whole {
        generation: whole,
        result: Ok(WholeEnd::All {
            page: page(),
            previous: None,
        }),
        requests: 1,
    }));
    if !feedback_first {
        answered(&mut h, generation, by_page(false));
    }
    h
}

fn order(h: &Harness) -> Vec<String> {
    let whole = h.app.visitors.whole.table().unwrap();
    whole
        .arrangement
        .order()
        .iter()
        .map(|&i| whole.rows[i].visitors.path.clone())
        .collect()
}

#[test]
fn s_sorts_the_whole_ranges_rows_by_thumbs_up_down_and_down_per_thousand_humans() {
    for feedback_first in [true, false] {
        let mut h = whole_with_feedback(feedback_first);
        assert!(h.app.visitors.whole.table().unwrap().feedback);
        // From the total: the share, (no change), then the feedback's three columns.
        h.key(KeyCode::Char('s'));
        h.key(KeyCode::Char('s'));
        let sort = h.app.visitors.whole.table().unwrap().arrangement.sort();
        assert_eq!(
            sort,
            Some((VisitorsColumn::ThumbsUp, Direction::Descending))
        );
        assert_eq!(
            order(&h),
            [
                "/quickstart",
                "/guides/authentication",
                "/api-reference/jobs/create"
            ]
        );
        h.key(KeyCode::Char('s'));
        assert_eq!(
            order(&h),
            [
                "/guides/authentication",
                "/api-reference/jobs/create",
                "/quickstart"
            ]
        );
        h.key(KeyCode::Char('s'));
        // 14 down of 400 humans is 35 per 1,000, 2 of 1,000 is 2; a page no human read
        // has no rate and comes last.
        assert_eq!(
            order(&h),
            [
                "/guides/authentication",
                "/quickstart",
                "/api-reference/jobs/create"
            ]
        );
        h.key(KeyCode::Char('s'));
        let sort = h.app.visitors.whole.table().unwrap().arrangement.sort();
        assert_eq!(
            sort,
            Some((
                VisitorsColumn::Visitors(SortKey::Path),
                Direction::Ascending
            ))
        );
    }
}

#[test]
fn without_feedback_s_skips_its_columns_and_the_filter_still_narrows_by_path() {
    let (mut h, _, _) = shown();
    let whole = h
        .key(KeyCode::Char('w'))
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::Insight(InsightIo::FetchWhole { generation, .. })) => Some(*generation),
            _ => None,
        })
        .unwrap();
    h.send(Msg::Insight(InsightMsg::Whole {
        generation: whole,
        result: Ok(WholeEnd::All {
            page: page(),
            previous: None,
        }),
        requests: 1,
    }));
    h.key(KeyCode::Char('s'));
    h.key(KeyCode::Char('s'));
    let sort = h.app.visitors.whole.table().unwrap().arrangement.sort();
    assert_eq!(
        sort,
        Some((
            VisitorsColumn::Visitors(SortKey::Path),
            Direction::Ascending
        ))
    );
    h.key(KeyCode::Char('/'));
    h.type_text("guides");
    assert_eq!(order(&h), ["/guides/authentication"]);
}

/// The read range's export, as `name` (`.csv` or `.json`), without fetching again.
fn exported(h: &mut Harness, name: &str) -> String {
    h.key(KeyCode::Char('e'));
    if name.ends_with(".json") {
        h.key(KeyCode::Right);
    }
    h.key(KeyCode::Tab);
    for _ in 0..80 {
        h.key(KeyCode::Backspace);
    }
    h.type_text(&format!("/tmp/{name}"));
    let effects = h.key(KeyCode::Enter);
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::ExportWhole { text, .. }) => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no whole export in {effects:?}"))
}

#[test]
fn the_export_of_a_whole_range_carries_the_feedback_columns() {
    let mut h = whole_with_feedback(true);
    let csv = exported(&mut h, "whole.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("path,human,ai,total,thumbs_up,thumbs_down,thumbs_down_per_1k")
    );
    // 14 👎 of 400 human visitors: 35.0 per 1,000; no human visitors: no rate.
    assert!(
        csv.contains("\n/guides/authentication,400,60,440,6,14,35.0\n"),
        "{csv}"
    );
    assert!(
        csv.contains("\n/api-reference/jobs/create,0,40,40,3,7,\n"),
        "{csv}"
    );
    h.send(Msg::ExportDone(crate::tui::message::ExportEnd::Written {
        path: "/tmp/whole.csv".into(),
        rows: 3,
    }));
    let json = exported(&mut h, "whole.json");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = value["visitors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["path"] == "/guides/authentication")
        .unwrap();
    assert_eq!(
        row["feedback"],
        serde_json::json!({"thumbsUp": 6, "thumbsDown": 14, "thumbsDownPer1k": 35.0})
    );
}
