//! What the new-user trial of stop 33 found in the console's behaviour: Ctrl+U in a
//! form field, the refusals' words, the detail's place after a spend question, and the
//! link found back after a send that timed out.

use crossterm::event::KeyCode;

use super::*;

fn from_field(h: &Harness) -> String {
    match &h.app.overlay {
        Some(Overlay::Filter(form)) => form.from.lines().join("⏎"),
        other => panic!("{other:?}"),
    }
}

/// #15: Ctrl+U in the dates form appended what was typed next to the old date
/// (`from "2026-11-012026-02-30"`): it clears the field, as in a shell.
#[test]
fn ctrl_u_clears_a_form_field() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    h.key(KeyCode::Tab);
    assert!(!from_field(&h).is_empty(), "the form opens filled");
    h.ctrl('u');
    assert_eq!(from_field(&h), "");
    h.type_text("2026-02-03");
    assert_eq!(from_field(&h), "2026-02-03");
}

/// #7 of the trial: after the spend question over a job's detail was answered, the
/// detail opened again at the top; it opens where it was scrolled.
#[test]
fn the_detail_keeps_its_place_after_the_spend_question() {
    use crate::tui::message::{ImpactFailed, SignalMsg};
    let mut h = Harness::new(vec![tracked("job_a", "completed", 0)]);
    h.key(KeyCode::Enter);
    for _ in 0..3 {
        h.key(KeyCode::Char('j'));
    }
    let scroll = |h: &Harness| match &h.app.overlay {
        Some(Overlay::Detail(d)) => d.scroll,
        other => panic!("the detail: {other:?}"),
    };
    assert_eq!(scroll(&h), 3);
    h.key(KeyCode::Char('i'));
    h.send(Msg::Signal(SignalMsg::Impact {
        id: "job_a".into(),
        result: Box::new(Err(ImpactFailed::NeedsMore(10))),
        requests: 10,
        read: Some(Ok(())),
    }));
    assert!(matches!(h.app.overlay, Some(Overlay::Confirm(_))));
    h.key(KeyCode::Char('y'));
    assert_eq!(scroll(&h), 3, "back where it was");
    // No keeps the place too.
    h.key(KeyCode::Char('i'));
    h.send(Msg::Signal(SignalMsg::Impact {
        id: "job_a".into(),
        result: Box::new(Err(ImpactFailed::NeedsMore(10))),
        requests: 10,
        read: Some(Ok(())),
    }));
    assert!(matches!(h.app.overlay, Some(Overlay::Confirm(_))));
    h.key(KeyCode::Char('n'));
    assert_eq!(scroll(&h), 3, "back where it was after no");
}

/// #6 of the trial: the chart's and the whole range's refusals kept their old words
/// while the impact's and the searches' used the CLI's; all say it the CLI's way now.
#[test]
fn the_chart_and_the_whole_range_refuse_in_the_clis_words() {
    use crate::tui::app::{TrendLoad, WholeLoad};
    use crate::tui::message::{Budget, InsightIo, InsightMsg, WholeEnd};
    let page = crate::api::VisitorsPage {
        visitors: vec![visit_row("/intro", 100, 30, 120)],
        has_more: true,
        ..Default::default()
    };
    let mut h = visitors_showing(page);
    let now = h.clock().wall;
    h.send(Msg::Budget(Budget {
        analytics: crate::journal::AnalyticsBudget::new(100, vec![now; 95]),
        ..Default::default()
    }));
    let clis = |why: &str, what: &str| {
        assert!(why.starts_with(what), "{why}");
        assert!(
            why.contains(
                ", more than are left (5 of 100 left this hour as counted on this machine"
            ),
            "{why}"
        );
        assert!(
            why.contains(
                "; nothing was sent: enough are free again at 13:00 UTC, or f chooses shorter dates"
            ),
            "{why}"
        );
    };
    let generation = h.key(KeyCode::Char('c')).iter().find_map(|e| match e {
        Effect::Io(Io::Insight(InsightIo::FetchTrend { generation, .. })) => Some(*generation),
        _ => None,
    });
    h.send(Msg::Insight(InsightMsg::TrendNeeds {
        generation: generation.expect("c reads the trend"),
        requests: 30,
    }));
    let TrendLoad::Declined { why, .. } = &h.app.visitors.trend else {
        panic!("{:?}", h.app.visitors.trend)
    };
    clis(why, "the chart needs 30 analytics requests");
    let generation = h.key(KeyCode::Char('w')).iter().find_map(|e| match e {
        Effect::Io(Io::Insight(InsightIo::FetchWhole { generation, .. })) => Some(*generation),
        _ => None,
    });
    h.send(Msg::Insight(InsightMsg::Whole {
        generation: generation.expect("w reads the range"),
        result: Ok(WholeEnd::NeedsMore),
        requests: 0,
    }));
    let WholeLoad::Stopped(why) = &h.app.visitors.whole else {
        panic!("{:?}", h.app.visitors.whole)
    };
    clis(
        why,
        "reading the whole range needs up to 20 analytics requests",
    );
}

/// #8 of the trial (the lead's fix checked): a create that timed out has the link
/// checked again, and the bar follows each try: it is redrawn when the try goes out
/// (it named a time then past) and when it fails again with the same error (nothing
/// else redrew it: the bar named a try a minute old), and online comes back by itself.
#[test]
fn after_a_timed_out_create_every_try_redraws_the_bar_until_online() {
    use crate::tui::message::{DraftKey, Submitted};
    let mut h = Harness::new(vec![]);
    // The start's check answered: online.
    h.send(Msg::ConnectionChecked(Ok(())));
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(network_error(true)),
    });
    assert_eq!(h.app.link.connection, Connection::Trouble);
    assert_eq!(
        h.app.next_wake().map(|at| at - h.clock().mono),
        Some(Duration::from_secs(2))
    );
    h.app.take_dirty();
    assert!(h.tick(2.0).contains(&Effect::Io(Io::CheckConnection)));
    assert!(h.app.take_dirty(), "the try went out: the bar says so");
    h.at(32.0)
        .send(Msg::ConnectionChecked(Err(network_error(false))));
    assert!(h.app.take_dirty(), "the next try's time is drawn");
    assert_eq!(
        h.app.next_wake().map(|at| at - h.clock().mono),
        Some(Duration::from_secs(4))
    );
    assert!(h.tick(36.0).contains(&Effect::Io(Io::CheckConnection)));
    h.at(37.0).send(Msg::ConnectionChecked(Ok(())));
    assert_eq!(h.app.link.connection, Connection::Online);
    assert_eq!(h.app.next_wake(), None);
}
