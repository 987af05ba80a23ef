//! The searches pane (issue 27): its reads over the visitors pane's dates, once per
//! range, each through the analytics pause; the two lists; marks of both becoming the
//! missing-page prompt in the composer, with nothing sent.

use std::time::Duration;

use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::{
    AssistantPage, Conversation, Kind, SearchRow, SearchesPage, SignalsQuery,
};
use crate::api::{ApiError, DateParam};
use crate::insight::templates::{Wanted, WantedQuery, WantedQuestion, missing_page};
use crate::tui::app::{ListError, Which};
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

fn search(query: &str, hits: u64, ctr: f64, page: Option<&str>) -> SearchRow {
    SearchRow {
        search_query: query.into(),
        hits,
        ctr,
        top_clicked_page: page.map(str::to_owned),
        last_searched_at: "2026-11-20T10:00:00.000Z".into(),
    }
}

fn searches(cursor: Option<&str>) -> SearchesPage {
    SearchesPage {
        searches: vec![
            search("api key", 12, 0.75, Some("/guides/authentication")),
            search("sso saml", 5, 0.0, None),
            search("rotate api key", 2, 0.5, Some("/guides/authentication")),
            search("terraform provider", 3, 0.0, None),
        ],
        total_searches: 22,
        next_cursor: cursor.map(str::to_owned),
    }
}

fn asked(id: &str, question: &str, answered: bool) -> Conversation {
    Conversation {
        id: id.into(),
        timestamp: "2026-11-21T02:00:00.000Z".into(),
        query: question.into(),
        response: String::new(),
        response_type: None,
        sources: Vec::new(),
        resolution_status: if answered { "answered" } else { "unanswered" }.into(),
        query_category: None,
        page_url: None,
    }
}

fn questions() -> AssistantPage {
    AssistantPage {
        conversations: vec![
            asked("c1", "How do I delete a project and its data?", false),
            asked("c2", "What is the rate limit for creates?", true),
        ],
        next_cursor: None,
        has_more: false,
    }
}

fn week() -> (Option<DateParam>, Option<DateParam>) {
    (
        Some(DateParam::parse("dateFrom", "2026-11-16").unwrap()),
        Some(DateParam::parse("dateTo", "2026-11-23").unwrap()),
    )
}

/// The pane shown, its searches answered with `page`.
fn showing(page: SearchesPage) -> Harness {
    let mut h = Harness::new(vec![]);
    let sent = reads(&h.key(KeyCode::Char('4')));
    assert_eq!(sent.len(), 1, "one read: {sent:?}");
    let (generation, query) = &sent[0];
    assert_eq!(query.kind, Kind::Searches);
    assert_eq!(
        (query.date_from, query.date_to),
        week(),
        "the visitors pane's dates"
    );
    assert_eq!(query.limit, Some(100));
    h.send(Msg::Signals {
        generation: *generation,
        result: Ok(SignalsPage::Searches(page)),
    });
    h
}

#[test]
fn four_reads_the_searches_once_and_shows_the_unclicked_first() {
    let mut h = showing(searches(None));
    assert_eq!(h.app.focus, Pane::Searches);
    let order: Vec<&str> = (h.app.searches.searches.rows().iter())
        .map(|r| r.search_query.as_str())
        .collect();
    assert_eq!(
        order,
        [
            "sso saml",
            "terraform provider",
            "api key",
            "rotate api key"
        ]
    );
    h.key(KeyCode::Char('1'));
    assert!(
        reads(&h.key(KeyCode::Char('4'))).is_empty(),
        "the range is read"
    );
    // Other dates in the visitors pane: the pane reads them when shown again.
    h.app.visitors.range = DateRange::LastDays(30);
    let sent = reads(&h.key(KeyCode::Char('4')));
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].1.date_from,
        Some(DateParam::parse("dateFrom", "2026-10-24").unwrap())
    );
}

#[test]
fn marks_of_both_lists_become_the_missing_page_prompt_and_nothing_is_sent() {
    let mut h = showing(searches(None));
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.searches.marks.len(), 2);
    let sent = reads(&h.key(KeyCode::Char('a')));
    assert_eq!(h.app.searches.showing, Which::Questions);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1.kind, Kind::Assistant);
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Ok(SignalsPage::Assistant(questions())),
    });
    assert_eq!(
        h.app.searches.questions.rows().len(),
        1,
        "only the unanswered"
    );
    h.key(KeyCode::Char(' '));
    let effects = h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Composer);
    let range = "from 2026-11-16 to 2026-11-23 (UTC, the end excluded)";
    let expected = missing_page(&Wanted {
        queries: vec![
            WantedQuery {
                query: "sso saml".into(),
                hits: 5,
                ctr: 0.0,
                top_clicked_page: None,
                range: range.into(),
            },
            WantedQuery {
                query: "api key".into(),
                hits: 12,
                ctr: 0.75,
                top_clicked_page: Some("/guides/authentication".into()),
                range: range.into(),
            },
        ],
        questions: vec![WantedQuestion {
            question: "How do I delete a project and its data?".into(),
            asked_at: "2026-11-21 02:00 UTC".into(),
            range: range.into(),
        }],
    });
    let text = h.app.composer.text();
    assert_eq!(text.trim_end(), expected.trim_end());
    assert!(
        text.contains("- \"sso saml\": searched 5 times, no result clicked\n")
            && text.contains("- \"api key\": searched 12 times, 75% clicked a result, most often /guides/authentication\n")
            && text.contains("- \"How do I delete a project and its data?\" (asked 2026-11-21 02:00 UTC)"),
        "{text}"
    );
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::Submit { .. }))),
        "nothing is sent before Ctrl+S"
    );
    // Esc goes back to the pane, marks kept.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, Pane::Searches);
    assert_eq!(h.app.searches.marks.len(), 3);
    // Sent with Ctrl+S: the prompt as shown, and the marks are in a job now.
    h.key(KeyCode::Char('n'));
    let sent = h.ctrl('s');
    let prompt = sent.iter().find_map(|e| match e {
        Effect::Io(Io::Submit { prompt, .. }) => Some(prompt.clone()),
        _ => None,
    });
    assert_eq!(
        prompt.as_deref().map(str::trim_end),
        Some(expected.trim_end())
    );
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Accepted(Box::new(job("job_new", "active", 0))),
    });
    assert!(h.app.searches.marks.is_empty(), "marking starts over");
}

#[test]
fn n_with_nothing_marked_says_how_to_mark() {
    let mut h = showing(searches(None));
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Searches);
    let notice = h.app.notice.as_ref().map(Notice::text).unwrap_or_default();
    assert!(notice.contains("Space marks"), "{notice}");
}

#[test]
fn the_next_page_follows_the_cursor_and_joins_the_order() {
    let mut h = showing(searches(Some("c2")));
    let sent = reads(&h.key(KeyCode::Char(']')));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1.cursor.as_deref(), Some("c2"));
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Ok(SignalsPage::Searches(SearchesPage {
            searches: vec![search("audit log export", 1, 0.0, None)],
            total_searches: 22,
            next_cursor: None,
        })),
    });
    let rows = h.app.searches.searches.rows();
    assert_eq!(rows.len(), 5);
    assert_eq!(
        rows[2].search_query, "audit log export",
        "unclicked, before the clicked"
    );
    assert!(
        reads(&h.key(KeyCode::Char(']'))).is_empty(),
        "no more pages"
    );
}

#[test]
fn a_pause_waits_and_its_error_goes_when_the_pause_ends() {
    let mut h = showing(searches(None));
    let sent = reads(&h.key(KeyCode::Char('r')));
    assert_eq!(sent.len(), 1, "r reads the list again");
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Err(ApiError::RateLimited {
            message: "slow down".into(),
            retry_after: Some(Duration::from_secs(30)),
        }),
    });
    assert!(matches!(h.app.searches.error(), Some(ListError::Paused(_))));
    assert_eq!(h.app.searches.searches.rows().len(), 4, "the rows stay");
    assert!(reads(&h.key(KeyCode::Char('r'))).is_empty(), "paused");
    let Some(ListError::Paused(said)) = h.app.searches.error().cloned() else {
        panic!("the pane says it waits: {:?}", h.app.searches.error())
    };
    assert!(said.contains("read once the pause ends"), "{said}");
    assert!(reads(&h.tick(10.0)).is_empty(), "still paused");
    let sent = reads(&h.tick(31.0));
    assert_eq!(sent.len(), 1, "read once the pause is over");
    assert!(
        h.app.searches.error().is_none(),
        "the error went with its cause"
    );
}

#[test]
fn a_failed_first_read_is_said_in_the_pane_and_r_reads_again() {
    let mut h = Harness::new(vec![]);
    let sent = reads(&h.key(KeyCode::Char('4')));
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Err(ApiError::Server {
            status: 500,
            message: "boom".into(),
        }),
    });
    assert!(h.app.searches.error().is_some());
    let sent = reads(&h.key(KeyCode::Char('r')));
    assert_eq!(sent.len(), 1);
    assert!(h.app.searches.error().is_none());
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Ok(SignalsPage::Searches(searches(None))),
    });
    assert_eq!(h.app.searches.searches.rows().len(), 4);
}

#[test]
fn a_read_failed_while_the_service_was_down_is_read_again_when_it_answers() {
    let mut h = showing(searches(None));
    let sent = reads(&h.key(KeyCode::Char('r')));
    h.send(Msg::Signals {
        generation: sent[0].0,
        result: Err(network_error(false)),
    });
    assert!(matches!(h.app.searches.error(), Some(ListError::Failed(_))));
    assert_eq!(h.app.searches.searches.rows().len(), 4, "the rows stay");
    let sent = reads(&h.send(Msg::ConnectionChecked(Ok(()))));
    assert_eq!(sent.len(), 1, "read again once the service answers");
    assert!(
        h.app.searches.error().is_none(),
        "the error went with its cause"
    );
}

#[test]
fn the_missing_page_notice_leaves_when_its_draft_is_emptied_or_left() {
    let mut h = showing(searches(None));
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Composer);
    let said = |h: &Harness| h.app.notice.as_ref().map(|n| n.text().to_string());
    assert!(said(&h).unwrap().contains("missing-page prompt"));
    // Esc back to the pane: the notice was about the prompt.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, Pane::Searches);
    assert_eq!(said(&h), None);
    h.key(KeyCode::Char('n'));
    assert!(said(&h).unwrap().contains("missing-page prompt"));
    // Ctrl+U takes the prompt back out: the draft is empty, the notice goes.
    h.ctrl('u');
    assert_eq!(h.app.composer.text(), "");
    assert_eq!(said(&h), None);
}

#[test]
fn a_read_the_hours_budget_cannot_afford_is_not_sent_and_says_so_in_the_clis_words() {
    let mut h = Harness::new(vec![]);
    // The CLI spent the 3 an hour the service states, 20 minutes ago.
    let spent = h.clock().wall - chrono::TimeDelta::minutes(20);
    h.send(Msg::Budget(crate::tui::message::Budget {
        analytics: crate::journal::AnalyticsBudget::new(3, vec![spent; 3]),
        ..Default::default()
    }));
    assert!(reads(&h.key(KeyCode::Char('4'))).is_empty(), "nothing sent");
    let Some(ListError::Failed(why)) = h.app.searches.error() else {
        panic!("{:?}", h.app.searches.error())
    };
    assert!(
        why.starts_with(
            "this request needs 1 analytics request, more than are left (0 of 3 left this hour"
        ) && why.contains("nothing was sent: enough are free again at 12:40 UTC"),
        "{why}"
    );
    // The visitors pane's page is not sent either.
    let sent = h.key(KeyCode::Char('3'));
    assert!(
        !sent
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::FetchVisitors { .. }))),
        "{sent:?}"
    );
    // Once the oldest use is an hour old, the read goes.
    h.at(41.0 * 60.0);
    h.key(KeyCode::Char('4'));
    assert_eq!(reads(&h.key(KeyCode::Char('r'))).len(), 1);
}
