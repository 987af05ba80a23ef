//! The whole range in the visitors pane: read when small enough, sorted and filtered as
//! typed, asked about when it needs more than 10 requests, paged when too large.

use crossterm::event::KeyCode;

use super::*;
use crate::api::VisitorsQuery;
use crate::insight::SortKey;
use crate::listing::Direction;
use crate::tui::app::{Overlay, VisitorsColumn, WholeLoad};
use crate::tui::message::{InsightIo, InsightMsg, WholeEnd};

fn page(rows: Vec<PathVisitors>) -> VisitorsPage {
    VisitorsPage {
        totals: VisitorTotals {
            human: 200,
            ai: 60,
            total: 240,
        },
        visitors: rows,
        has_more: false,
    }
}

fn rows() -> Vec<PathVisitors> {
    vec![
        visit_row("/intro", 100, 30, 120),
        visit_row("/api/auth", 20, 40, 50),
        visit_row("/quickstart", 60, 10, 60),
        visit_row("/api/users", 20, 10, 25),
    ]
}

fn visitors() -> Harness {
    visitors_showing(page(rows()))
}

fn whole_fetch(
    effects: &[Effect],
) -> Option<(crate::tui::message::Generation, Option<VisitorsQuery>, u32)> {
    effects.iter().find_map(|e| match e {
        Effect::Io(Io::Insight(InsightIo::FetchWhole {
            generation,
            previous,
            allow,
            ..
        })) => Some((*generation, previous.clone(), *allow)),
        _ => None,
    })
}

/// `w`, answered with every row (and `previous` when comparing).
fn read_whole(h: &mut Harness, previous: Option<Vec<PathVisitors>>) {
    let (generation, _, _) = whole_fetch(&h.key(KeyCode::Char('w'))).expect("w fetches");
    h.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::All {
            page: page(rows()),
            previous,
        }),
        requests: 1,
    }));
}

fn shown(h: &Harness) -> Vec<String> {
    let whole = h.app.visitors.whole.table().expect("whole");
    whole
        .arrangement
        .order()
        .iter()
        .map(|&i| whole.rows[i].visitors.path.clone())
        .collect()
}

#[test]
fn w_fetches_up_to_ten_requests_without_asking_and_holds_every_row_by_total() {
    let mut h = visitors();
    let (generation, previous, allow) = whole_fetch(&h.key(KeyCode::Char('w'))).unwrap();
    assert_eq!(allow, 10);
    assert_eq!(previous, None, "no comparison asked");
    assert!(h.app.overlay.is_none(), "no question for a small range");
    h.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::All {
            page: page(rows()),
            previous: None,
        }),
        requests: 1,
    }));
    assert_eq!(
        shown(&h),
        ["/intro", "/quickstart", "/api/auth", "/api/users"]
    );
}

#[test]
fn s_sorts_by_the_next_column_and_ties_stay_by_path_ascending_either_way() {
    let mut h = visitors();
    read_whole(&mut h, None);
    h.key(KeyCode::Char('s'));
    let sort = h.app.visitors.whole.table().unwrap().arrangement.sort();
    assert_eq!(
        sort,
        Some((
            VisitorsColumn::Visitors(SortKey::AiShare),
            Direction::Descending
        ))
    );
    h.key(KeyCode::Char('s'));
    // No comparison: the change column is skipped, back to the path.
    let sort = h.app.visitors.whole.table().unwrap().arrangement.sort();
    assert_eq!(
        sort,
        Some((
            VisitorsColumn::Visitors(SortKey::Path),
            Direction::Ascending
        ))
    );
    h.key(KeyCode::Char('s'));
    // Human: /api/auth and /api/users tie at 20; the path decides, ascending.
    assert_eq!(
        shown(&h),
        ["/intro", "/quickstart", "/api/auth", "/api/users"]
    );
    h.key(KeyCode::Char('S'));
    assert_eq!(
        shown(&h),
        ["/api/auth", "/api/users", "/quickstart", "/intro"],
        "reversed: the tie keeps the path ascending"
    );
}

/// After `s` or `S` the cursor is on the first row of the new order (the view scrolls
/// with it), not on the row it was on, somewhere down the list.
#[test]
fn a_new_order_is_shown_from_its_top() {
    let mut h = visitors();
    read_whole(&mut h, None);
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('j'));
    let at = |h: &Harness| {
        let whole = h.app.visitors.whole.table().unwrap();
        (
            whole.arrangement.cursor_position(),
            whole.cursor_row().map(|r| r.path.clone()),
        )
    };
    assert_eq!(at(&h).0, Some(3));
    h.key(KeyCode::Char('s'));
    assert_eq!(at(&h), (Some(0), Some(shown(&h)[0].clone())));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('S'));
    assert_eq!(at(&h), (Some(0), Some(shown(&h)[0].clone())));
}

#[test]
fn slash_filters_by_path_as_typed_and_esc_while_typing_clears() {
    let mut h = visitors();
    read_whole(&mut h, None);
    h.key(KeyCode::Char('/'));
    h.type_text("api");
    assert_eq!(shown(&h), ["/api/auth", "/api/users"]);
    h.type_text("*us");
    assert_eq!(shown(&h), ["/api/users"]);
    h.key(KeyCode::Enter);
    assert!(!h.app.visitors.filter_typing());
    h.key(KeyCode::Char(' '));
    assert!(
        h.app.visitors.marks.contains("/api/users"),
        "Space marks the row shown"
    );
    h.key(KeyCode::Char('/'));
    h.key(KeyCode::Esc);
    assert_eq!(shown(&h).len(), 4);
}

#[test]
fn q_while_typing_the_filter_is_text_not_quit() {
    let mut h = visitors();
    read_whole(&mut h, None);
    h.key(KeyCode::Char('/'));
    h.type_text("q");
    assert!(!h.app.quit);
    assert!(shown(&h).iter().all(|p| p.contains('q')));
}

#[test]
fn compared_rows_carry_their_change_and_a_new_path_says_so() {
    let mut h = visitors();
    h.key(KeyCode::Char('v'));
    let (generation, previous, _) = whole_fetch(&h.key(KeyCode::Char('w'))).unwrap();
    let previous = previous.expect("the period before is fetched whole too");
    assert_eq!(previous.date_from.unwrap().to_string(), "2026-11-09");
    h.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::All {
            page: page(rows()),
            previous: Some(vec![
                visit_row("/intro", 90, 10, 100),
                visit_row("/quickstart", 70, 5, 70),
            ]),
        }),
        requests: 2,
    }));
    let whole = h.app.visitors.whole.table().unwrap();
    assert!(whole.compared);
    let intro = whole
        .rows
        .iter()
        .find(|r| r.visitors.path == "/intro")
        .unwrap();
    assert_eq!(intro.visitors.total_change().absolute(), 20);
    assert!(
        whole
            .rows
            .iter()
            .find(|r| r.visitors.path == "/api/auth")
            .unwrap()
            .visitors
            .is_new()
    );
}

#[test]
fn a_range_that_needs_more_than_ten_requests_asks_for_the_most_it_may_take() {
    let mut h = visitors();
    let (generation, _, _) = whole_fetch(&h.key(KeyCode::Char('w'))).unwrap();
    h.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::NeedsMore),
        requests: 10,
    }));
    let Some(Overlay::Confirm(question)) = &h.app.overlay else {
        panic!("{:?}", h.app.overlay)
    };
    assert_eq!(question.requests, 20, "5,000 rows of 250");
    let (_, _, allow) = whole_fetch(&h.key(KeyCode::Char('y'))).unwrap();
    assert_eq!(allow, 20);
}

#[test]
fn a_range_over_the_threshold_stays_paged_and_sort_keys_say_why() {
    let mut h = visitors();
    let (generation, _, _) = whole_fetch(&h.key(KeyCode::Char('w'))).unwrap();
    h.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::TooMany { max_rows: 5_000 }),
        requests: 20,
    }));
    assert!(matches!(h.app.visitors.whole, WholeLoad::TooMany { .. }));
    h.key(KeyCode::Char('s'));
    let notice = &h.app.notice.as_ref().unwrap().text();
    assert!(notice.contains("more than 5000 rows"), "{notice}");
    assert!(h.app.visitors.load().shown().is_some(), "the page stays");
}

#[test]
fn esc_stops_the_fetch_and_the_page_stays_usable_meanwhile() {
    let mut h = visitors();
    h.key(KeyCode::Char('w'));
    h.key(KeyCode::Char('j'));
    assert_eq!(
        h.app.visitors.selected, 1,
        "the page moves while the rows come"
    );
    let effects = h.key(KeyCode::Esc);
    assert!(effects.contains(&Effect::Io(Io::Insight(InsightIo::CancelWhole))));
    assert!(matches!(h.app.visitors.whole, WholeLoad::Stopped(_)));
}

#[test]
fn new_dates_let_go_of_the_whole_range() {
    let mut h = visitors();
    read_whole(&mut h, None);
    h.key(KeyCode::Char('f'));
    h.key(KeyCode::Right);
    h.key(KeyCode::Enter);
    assert!(matches!(h.app.visitors.whole, WholeLoad::Off));
}

#[test]
fn the_export_of_a_whole_range_writes_what_is_shown_without_fetching_again() {
    let mut h = visitors();
    read_whole(&mut h, None);
    h.key(KeyCode::Char('/'));
    h.type_text("api");
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('e'));
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!("no export form")
    };
    assert_eq!(
        form.whole_rows,
        Some(2),
        "the form says the whole rows are written"
    );
    h.key(KeyCode::Tab);
    for _ in 0..80 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("/tmp/whole.csv");
    let effects = h.key(KeyCode::Enter);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::Export { .. }))),
        "nothing is fetched again: {effects:?}"
    );
    let Some((text, rows)) = effects.iter().find_map(|e| match e {
        Effect::Io(Io::ExportWhole {
            text, rows, path, ..
        }) if path.ends_with("whole.csv") => Some((text.clone(), *rows)),
        _ => None,
    }) else {
        panic!("no whole export in {effects:?}")
    };
    assert_eq!(rows, 2, "the filter's rows alone");
    assert_eq!(
        text, "path,human,ai,total\n/api/auth,20,40,50\n/api/users,20,10,25\n",
        "in the order shown"
    );
}
