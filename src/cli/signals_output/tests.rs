//! How the signal listings print: the footers' counts and nouns, and the contact
//! column of feedback.

use super::*;
use crate::api::signals::{FeedbackItem, Kind};

fn item(contact: Option<Option<String>>) -> FeedbackItem {
    FeedbackItem {
        id: "fb_1".to_owned(),
        path: "/faq".to_owned(),
        comment: Some("where are retries".to_owned()),
        created_at: Some("2026-11-20T10:00:00Z".to_owned()),
        source: "contextual".to_owned(),
        status: "pending".to_owned(),
        helpful: Some(false),
        contact,
        code: None,
        filename: None,
        lang: None,
    }
}

#[test]
fn a_range_nobody_searched_says_where_searches_come_from() {
    let query = SignalsQuery::new(Kind::Searches);
    let shown = || Shown {
        all: false,
        of: None,
        requests: 0,
    };
    let none = searches(&SearchesPage::default(), &query, shown(), Format::Table).unwrap();
    assert!(none.contains("--search-url"), "{none}");
    assert!(none.contains("0 queries · the last page"), "{none}");
}

#[test]
fn a_listing_that_read_on_names_what_it_read_as_the_one_page_count_does() {
    let query = SignalsQuery::new(Kind::Searches);
    let shown = |requests| Shown {
        all: false,
        of: Some(4),
        requests,
    };
    let page = SearchesPage::default;
    let one = searches(&page(), &query, shown(0), Format::Table).unwrap();
    assert!(one.contains("(of 4 queries)"), "{one}");
    let on = searches(&page(), &query, shown(2), Format::Table).unwrap();
    assert!(on.contains("(4 queries read in 2 requests)"), "{on}");
    let query = SignalsQuery::new(Kind::Assistant);
    let asked = assistant(&AssistantPage::default(), &query, shown(2), Format::Table);
    let asked = asked.unwrap();
    assert!(
        asked.contains("(4 conversations read in 2 requests)"),
        "{asked}"
    );
}

#[test]
fn a_contact_the_reader_left_is_shown_and_one_piece_is_said_in_the_singular() {
    let page = FeedbackPage {
        feedback: vec![item(Some(Some("ann@example.com".to_owned())))],
        next_cursor: None,
        has_more: false,
    };
    let query = SignalsQuery::new(Kind::Feedback);
    let table = feedback(&page, &query, false, Format::Table).unwrap();
    assert!(table.contains("CONTACT"), "{table}");
    assert!(table.contains("ann@example.com"), "{table}");
    assert!(
        table.contains("1 piece of feedback · the last page"),
        "{table}"
    );
    let csv = feedback(&page, &query, false, Format::Csv).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",contact"), "{csv}");
    assert!(csv.contains("ann@example.com"), "{csv}");
    let none = FeedbackPage {
        feedback: vec![item(Some(None)), item(None)],
        ..page
    };
    let table = feedback(&none, &query, false, Format::Table).unwrap();
    assert!(
        !table.contains("CONTACT"),
        "no column when nobody left one: {table}"
    );
    assert!(table.contains("2 pieces of feedback"), "{table}");
}
