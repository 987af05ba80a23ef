//! The visitors pane's insight: marks and the job made of them, templates, the chart's
//! trend and what it costs, the comparison with the period before.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::app::{Overlay, PreviousLoad, TrendLoad};
use crate::tui::message::{InsightIo, InsightMsg};

fn page() -> VisitorsPage {
    VisitorsPage {
        totals: VisitorTotals {
            human: 120,
            ai: 40,
            total: 150,
        },
        visitors: vec![
            visit_row("/intro", 100, 30, 120),
            visit_row("/quickstart", 20, 10, 28),
            visit_row("/faq", 5, 0, 5),
        ],
        has_more: false,
    }
}

fn visitors() -> Harness {
    visitors_showing(page())
}

fn trend_fetch(effects: &[Effect]) -> Option<(crate::tui::message::Generation, u32)> {
    effects.iter().find_map(|e| match e {
        Effect::Io(Io::Insight(InsightIo::FetchTrend {
            generation, allow, ..
        })) => Some((*generation, *allow)),
        _ => None,
    })
}

#[test]
fn space_marks_and_unmarks_the_page_under_the_cursor_and_the_count_shows() {
    let mut h = visitors();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.visitors.marks.len(), 2);
    assert!(h.app.notice.as_ref().unwrap().text().contains("2 marked"));
    h.key(KeyCode::Char('k'));
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.visitors.marks.len(), 1);
    assert!(h.app.visitors.marks.contains("/quickstart"));
    assert!(!h.app.visitors.marks.contains("/intro"));
}

#[test]
fn n_opens_the_composer_on_a_prompt_naming_the_marked_pages_and_sends_nothing() {
    let mut h = visitors();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char(' '));
    let effects = h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Composer);
    assert_eq!(h.app.composer.target, DraftKey::NewJob);
    let text = h.app.composer.text();
    assert!(text.contains("easier for AI agents"), "{text}");
    assert!(
        text.contains("- /intro (human 100, AI 30, total 120)")
            && text.contains("- /quickstart (human 20, AI 10, total 28)"),
        "{text}"
    );
    // The numbers say which days they count.
    assert!(
        text.contains("(numbers: unique visitors from ")
            && text.contains("(UTC, the end excluded))"),
        "{text}"
    );
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::Submit { .. }))),
        "nothing is sent on its own: {effects:?}"
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::SaveDraft { .. }))),
        "the prompt is a draft, saved as typed text is"
    );
}

#[test]
fn n_with_nothing_marked_opens_the_template_alone() {
    let mut h = visitors();
    h.key(KeyCode::Char('n'));
    let text = h.app.composer.text();
    assert!(text.starts_with("Make these pages easier"), "{text}");
    assert!(!text.contains("- /"), "{text}");
}

#[test]
fn ctrl_t_cycles_templates_for_the_same_pages_but_never_over_an_edit() {
    let mut h = visitors();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('n'));
    h.ctrl('t');
    let text = h.app.composer.text();
    assert!(
        text.starts_with("Review these pages for accuracy"),
        "{text}"
    );
    assert!(text.contains("- /intro"), "{text}");
    h.ctrl('t');
    assert!(h.app.composer.text().starts_with("Make these pages easier"));
    h.type_text("!");
    let edited = h.app.composer.text();
    h.ctrl('t');
    assert_eq!(h.app.composer.text(), edited, "an edit is never replaced");
    assert!(h.app.notice.as_ref().unwrap().text().contains("was edited"));
}

#[test]
fn one_undo_takes_an_inserted_template_back() {
    let mut h = visitors();
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Char('n'));
    h.type_text("my own words");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('n'));
    assert!(h.app.composer.text().contains("Make these pages"));
    h.ctrl('u');
    assert_eq!(
        h.app.composer.text(),
        "my own words",
        "one undo, and the draft is as it was"
    );

    let mut h = visitors();
    h.key(KeyCode::Char('n'));
    assert!(h.app.composer.has_text());
    h.ctrl('u');
    assert_eq!(h.app.composer.text(), "", "the template alone, taken back");
}

#[test]
fn an_earlier_new_job_draft_is_kept_above_the_template() {
    let mut h = visitors();
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Char('n'));
    h.type_text("my own words");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('n'));
    let text = h.app.composer.text();
    assert!(
        text.starts_with("my own words\n\nMake these pages"),
        "{text}"
    );
    h.ctrl('t');
    assert!(
        h.app
            .composer
            .text()
            .starts_with("my own words\n\nReview these pages"),
        "the draft stays above the next template too"
    );
}

#[test]
fn the_marks_are_cleared_once_the_job_made_of_them_is_accepted() {
    let mut h = visitors();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('n'));
    h.ctrl('s');
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Accepted(Box::new(job("job_new", "active", 0))),
    });
    assert!(h.app.visitors.marks.is_empty());
    assert!(h.app.composer.fill.is_none());
}

#[test]
fn the_chart_is_hidden_at_80x24_and_shown_from_30_rows_and_c_decides_after() {
    let mut h = visitors();
    h.send(Msg::Input(Event::Resize(80, 24)));
    assert!(!h.app.visitors.chart_shown(h.app.size));
    let effects = h.send(Msg::Input(Event::Resize(120, 40)));
    assert!(h.app.visitors.chart_shown(h.app.size));
    assert!(
        trend_fetch(&effects).is_some(),
        "shown, it reads its trend: {effects:?}"
    );
    h.key(KeyCode::Char('c'));
    assert!(!h.app.visitors.chart_shown(h.app.size));
    h.send(Msg::Input(Event::Resize(200, 60)));
    assert!(
        !h.app.visitors.chart_shown(h.app.size),
        "c's choice stays over a resize"
    );
}

#[test]
fn a_trend_of_a_week_is_read_without_asking_and_shown() {
    let mut h = visitors();
    let effects = h.key(KeyCode::Char('c'));
    let (generation, allow) = trend_fetch(&effects).expect("c reads the trend");
    assert_eq!(allow, 10, "at most 10 requests without asking");
    h.send(Msg::Insight(InsightMsg::TrendProgress {
        generation,
        done: 3,
        of: 7,
    }));
    assert!(matches!(
        h.app.visitors.trend,
        TrendLoad::Fetching { done: 3, of: 7, .. }
    ));
    let totals = vec![VisitorTotals::default(); 7];
    h.send(Msg::Insight(InsightMsg::Trend {
        generation,
        result: Ok(totals),
        requests: 7,
    }));
    assert!(matches!(h.app.visitors.trend, TrendLoad::Shown { .. }));
}

#[test]
fn a_trend_that_needs_more_than_ten_requests_asks_first_and_yes_allows_them() {
    let mut h = visitors();
    let (generation, _) = trend_fetch(&h.key(KeyCode::Char('c'))).unwrap();
    h.send(Msg::Insight(InsightMsg::TrendNeeds {
        generation,
        requests: 30,
    }));
    let Some(Overlay::Confirm(question)) = &h.app.overlay else {
        panic!("a question: {:?}", h.app.overlay)
    };
    assert!(question.text().contains("30 analytics requests"));
    assert!(question.text().contains("100 of this hour's"));
    let effects = h.key(KeyCode::Char('y'));
    assert_eq!(trend_fetch(&effects), Some((generation, 30)));
    assert!(h.app.overlay.is_none());
}

#[test]
fn no_to_the_question_reads_nothing_and_says_how_to_ask_again() {
    let mut h = visitors();
    let (generation, _) = trend_fetch(&h.key(KeyCode::Char('c'))).unwrap();
    h.send(Msg::Insight(InsightMsg::TrendNeeds {
        generation,
        requests: 30,
    }));
    let effects = h.key(KeyCode::Char('n'));
    assert!(trend_fetch(&effects).is_none());
    assert!(matches!(h.app.visitors.trend, TrendLoad::Declined { .. }));
    // The notice is about this pane's chart: it leaves with the pane.
    assert!(
        h.app
            .notice
            .as_ref()
            .unwrap()
            .text()
            .contains("nothing was read")
    );
    h.key(KeyCode::Char('1'));
    assert!(h.app.notice.is_none(), "{:?}", h.app.notice);
    h.key(KeyCode::Char('3'));
    assert!(
        trend_fetch(&h.key(KeyCode::Char('j'))).is_none(),
        "not asked again by itself"
    );
    let again = h.key(KeyCode::Char('r'));
    assert!(trend_fetch(&again).is_none(), "the page first");
    let generation = h.app.visitors.load().generation().unwrap();
    let again = h.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    assert!(
        trend_fetch(&again).is_some(),
        "r asks again, once the page is read"
    );
}

#[test]
fn a_trend_beyond_the_hours_budget_is_refused_without_a_question() {
    let mut h = visitors();
    let now = h.clock().wall;
    h.send(Msg::Budget(crate::tui::message::Budget {
        analytics: crate::journal::AnalyticsBudget::new(100, vec![now; 95]),
        ..Default::default()
    }));
    let (generation, allow) = trend_fetch(&h.key(KeyCode::Char('c'))).unwrap();
    assert_eq!(allow, 5, "never more than is left");
    h.send(Msg::Insight(InsightMsg::TrendNeeds {
        generation,
        requests: 30,
    }));
    assert!(h.app.overlay.is_none());
    let TrendLoad::Declined { why, .. } = &h.app.visitors.trend else {
        panic!("{:?}", h.app.visitors.trend)
    };
    assert!(
        why.starts_with("the chart needs 30 analytics requests, more than are left (5 of 100 left"),
        "{why}"
    );
    assert!(why.contains("enough are free again at 13:00 UTC"), "{why}");
}

#[test]
fn esc_stops_the_trend_being_read() {
    let mut h = visitors();
    h.key(KeyCode::Char('c'));
    let effects = h.key(KeyCode::Esc);
    assert!(effects.contains(&Effect::Io(Io::Insight(InsightIo::CancelTrend))));
    assert!(matches!(h.app.visitors.trend, TrendLoad::Declined { .. }));
}

#[test]
fn all_time_has_no_trend_and_no_period_before_and_says_so() {
    let mut h = visitors();
    h.app.visitors.range = crate::tui::app::DateRange::AllTime;
    let effects = h.key(KeyCode::Char('c'));
    assert!(trend_fetch(&effects).is_none());
    assert_eq!(h.app.visitors.trend, TrendLoad::NeedsDates);
    h.key(KeyCode::Char('v'));
    assert_eq!(h.app.visitors.previous, PreviousLoad::NeedsDates);
}

#[test]
fn v_reads_the_period_just_before_of_the_same_length() {
    let mut h = visitors();
    let effects = h.key(KeyCode::Char('v'));
    let Some(Effect::Io(Io::Insight(InsightIo::FetchPrevious { generation, query }))) = effects
        .iter()
        .find(|e| matches!(e, Effect::Io(Io::Insight(InsightIo::FetchPrevious { .. }))))
        .cloned()
    else {
        panic!("{effects:?}")
    };
    // The last 7 days of 2026-11-22 are [11-16, 11-23); the week before, [11-09, 11-16).
    assert_eq!(query.date_from.unwrap().to_string(), "2026-11-09");
    assert_eq!(query.date_to.unwrap().to_string(), "2026-11-16");
    assert_eq!(query.limit, Some(1), "only its totals are wanted");
    h.send(Msg::Insight(InsightMsg::Previous {
        generation,
        result: Ok(page()),
    }));
    assert!(matches!(
        h.app.visitors.previous,
        PreviousLoad::Shown { .. }
    ));
    h.key(KeyCode::Char('v'));
    assert_eq!(h.app.visitors.previous, PreviousLoad::Off);
}

#[test]
fn n_is_refused_under_read_only() {
    let mut h = Harness::with_config(
        ConsoleOptions {
            read_only: true,
            ..config()
        },
        vec![],
    );
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Visitors);
    assert!(h.app.notice.as_ref().unwrap().text().contains("read-only"));
}

#[test]
fn the_chart_follows_the_page_so_it_never_takes_the_pages_requests() {
    let mut h = Harness::new(vec![]);
    h.send(Msg::Input(Event::Resize(120, 40)));
    let effects = h.key(KeyCode::Char('3'));
    assert!(
        trend_fetch(&effects).is_none(),
        "the page first: {effects:?}"
    );
    let generation = h.app.visitors.load().generation().unwrap();
    let effects = h.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    assert!(
        trend_fetch(&effects).is_some(),
        "then the chart: {effects:?}"
    );
}

/// Esc leaves the composer for the pane it was opened from: the visitors pane for a job
/// from its marked pages, the jobs list for `n` there.
#[test]
fn esc_from_a_composer_opened_in_the_visitors_pane_goes_back_there() {
    let mut h = visitors();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Composer);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, Pane::Visitors);
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Char('n'));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, Pane::Jobs);
}

/// `n` with no page marked, twice (Esc between): the template's instruction is in the
/// draft once, not appended again.
#[test]
fn n_twice_without_marks_puts_the_template_in_once() {
    let mut h = visitors();
    h.key(KeyCode::Char('n'));
    let once = h.app.composer.text();
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.composer.text(), once);
    assert_eq!(once.matches("easier for AI agents").count(), 1, "{once}");
    // As after a restart: the draft holds the template's text, its fill forgotten.
    h.app.composer.fill = None;
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.composer.text(), once, "not appended a second time");
}
