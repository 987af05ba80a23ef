//! `w` in the searches pane (issue 27): every page left is read, the order is over all
//! of them and the count exact; past 10 pages the spend question asks, and a budget with
//! nothing left stops the read in the CLI's words.

use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::{SearchRow, SearchesPage, SignalsQuery};
use crate::tui::app::{ListError, unclicked};
use crate::tui::message::{Generation, SignalsPage};

fn reads(effects: &[Effect]) -> Vec<(Generation, SignalsQuery)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Io(Io::ReadSignals { generation, query }) => Some((*generation, query.clone())),
            _ => None,
        })
        .collect()
}

/// Page `n`: one query, clicked on even pages, nobody clicked on odd ones.
fn page(n: usize, next: Option<String>) -> SignalsPage {
    let clicked = n.is_multiple_of(2);
    SignalsPage::Searches(SearchesPage {
        searches: vec![SearchRow {
            search_query: format!("q{n:02}"),
            hits: 100 - n as u64,
            ctr: if clicked { 0.5 } else { 0.0 },
            top_clicked_page: clicked.then(|| "/a".to_owned()),
            last_searched_at: "2026-11-20T10:00:00.000Z".into(),
        }],
        total_searches: 1_000,
        next_cursor: next,
    })
}

/// The searches shown, their first page of `last + 1` read.
fn first_page(last: usize) -> Harness {
    let mut h = Harness::new(vec![]);
    let sent = reads(&h.key(KeyCode::Char('4')));
    let next = (last > 0).then(|| "c1".to_owned());
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Ok(page(0, next)),
    });
    h
}

/// Answers reads while they come, pages `from..=last`; returns the next page to answer.
fn answer_on(
    h: &mut Harness,
    mut sent: Vec<(Generation, SignalsQuery)>,
    from: usize,
    last: usize,
) -> usize {
    let mut n = from;
    while let [(generation, query)] = sent.as_slice() {
        assert_eq!(query.cursor, Some(format!("c{n}")));
        let next = (n < last).then(|| format!("c{}", n + 1));
        sent = reads(&h.send(Msg::Signals {
            generation: *generation,
            result: Ok(page(n, next)),
        }));
        n += 1;
    }
    n
}

#[test]
fn w_reads_every_page_left_asking_past_ten_then_orders_them_all() {
    let mut h = first_page(14);
    let sent = reads(&h.key(KeyCode::Char('w')));
    assert!(h.app.searches.reading_all());
    let next = answer_on(&mut h, sent, 1, 14);
    assert_eq!(next, 11, "10 pages without asking");
    let Some(Overlay::Confirm(question)) = &h.app.overlay else {
        panic!("the question: {:?}", h.app.overlay)
    };
    assert_eq!(question.requests, 90);
    assert!(
        question.text().starts_with("Reading on past 10 pages"),
        "{}",
        question.text()
    );
    let sent = reads(&h.key(KeyCode::Char('y')));
    assert_eq!(answer_on(&mut h, sent, 11, 14), 15);
    assert!(!h.app.searches.reading_all());
    let rows = h.app.searches.searches.rows();
    assert_eq!(rows.len(), 15);
    assert!(
        rows[..7].iter().all(unclicked),
        "the 7 unclicked of 15 first"
    );
    assert_eq!(rows[0].search_query, "q01");
    assert_eq!(
        h.app.searches.searches.next_cursor(),
        None,
        "the count is exact"
    );
    let said = h.app.notice.as_ref().map(|n| n.text()).unwrap_or_default();
    assert_eq!(
        said,
        "the whole range of searches is read (15 queries): the order and count are exact"
    );
    assert!(reads(&h.key(KeyCode::Char('w'))).is_empty(), "nothing left");
}

#[test]
fn no_to_the_question_stops_and_the_rows_read_stay() {
    let mut h = first_page(14);
    let sent = reads(&h.key(KeyCode::Char('w')));
    answer_on(&mut h, sent, 1, 14);
    assert!(reads(&h.key(KeyCode::Char('n'))).is_empty());
    assert!(!h.app.searches.reading_all());
    assert_eq!(h.app.searches.searches.rows().len(), 11);
    let said = h.app.notice.as_ref().map(|n| n.text()).unwrap_or_default();
    assert!(said.contains("w asks again"), "{said}");
    assert_eq!(
        reads(&h.key(KeyCode::Char(']'))).len(),
        1,
        "] still reads a page"
    );
}

#[test]
fn a_budget_spent_part_way_stops_the_read_in_the_clis_words() {
    let mut h = first_page(5);
    let sent = reads(&h.key(KeyCode::Char('w')));
    let spent = h.clock().wall - chrono::TimeDelta::minutes(20);
    h.send(Msg::Budget(crate::tui::message::Budget {
        analytics: crate::journal::AnalyticsBudget::new(100, vec![spent; 100]),
        ..Default::default()
    }));
    assert_eq!(
        answer_on(&mut h, sent, 1, 5),
        2,
        "no page after the budget ran out"
    );
    assert!(!h.app.searches.reading_all());
    let Some(ListError::Failed(why)) = h.app.searches.error() else {
        panic!("{:?}", h.app.searches.error())
    };
    assert!(
        why.starts_with("this request needs 1 analytics request, more than are left (0 of 100"),
        "{why}"
    );
}
