//! The impact's last pieces (issue 27): `I` shows or hides the jobs list's impact column
//! without reading anything, `w` in a job's detail changes the windows' length and reads
//! again, and windows with more rows than 10 requests hold get the spend question rather
//! than a refusal.

use chrono::TimeDelta;
use crossterm::event::KeyCode;

use super::*;
use crate::tui::app::{ImpactLoad, JobColumn};
use crate::tui::message::{ImpactFailed, SignalIo, SignalMsg};

/// The impact reads asked for: job, window, requests allowed.
fn impact_reads(effects: &[Effect]) -> Vec<(String, TimeDelta, u32)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Io(Io::Signal(SignalIo::ReadImpact {
                id, window, allow, ..
            })) => Some((id.clone(), *window, *allow)),
            _ => None,
        })
        .collect()
}

fn detail_open() -> Harness {
    let mut h = Harness::new(vec![tracked("job_a", "completed", 0)]);
    h.key(KeyCode::Enter);
    assert!(matches!(h.app.overlay, Some(Overlay::Detail(_))));
    h
}

fn needs_more(h: &mut Harness, allowed: u32) -> Vec<Effect> {
    h.send(Msg::Signal(SignalMsg::Impact {
        id: "job_a".into(),
        result: Box::new(Err(ImpactFailed::NeedsMore(allowed))),
        requests: allowed,
        read: Some(Ok(())),
    }))
}

fn shown(h: &Harness) -> Vec<JobColumn> {
    h.app.jobs.impacts.columns(&h.app.config.columns)
}

#[test]
fn capital_i_shows_and_hides_the_impact_column_and_reads_nothing() {
    let mut h = Harness::new(vec![tracked("job_a", "completed", 0)]);
    assert!(!shown(&h).contains(&JobColumn::Impact), "off by default");
    let effects = h.key(KeyCode::Char('I'));
    assert!(impact_reads(&effects).is_empty(), "{effects:?}");
    let columns = shown(&h);
    assert_eq!(
        columns[columns.len() - 2..],
        [JobColumn::Impact, JobColumn::Prompt],
        "before the prompt"
    );
    assert_eq!(h.app.jobs.impacts.cell("job_a"), "-");
    let said = h.app.notice.as_ref().map(|n| n.text()).unwrap_or_default();
    assert!(said.starts_with("the impact column is shown"), "{said}");
    h.key(KeyCode::Char('I'));
    assert_eq!(shown(&h), h.app.config.columns);
    // A profile that chose it: `I` hides it.
    h.app.config.columns = vec![JobColumn::Id, JobColumn::Impact];
    h.key(KeyCode::Char('I'));
    assert_eq!(shown(&h), [JobColumn::Id]);
}

#[test]
fn w_in_the_detail_changes_the_window_and_reads_a_read_impact_again() {
    let mut h = detail_open();
    assert_eq!(h.app.jobs.impacts.window_days(), 14);
    assert!(
        impact_reads(&h.key(KeyCode::Char('w'))).is_empty(),
        "nothing read yet"
    );
    assert_eq!(h.app.jobs.impacts.window_days(), 28);
    let sent = impact_reads(&h.key(KeyCode::Char('i')));
    assert_eq!(sent, [("job_a".to_owned(), TimeDelta::days(28), 10)]);
    h.send(Msg::Signal(SignalMsg::Impact {
        id: "job_a".into(),
        result: Box::new(Ok(super::signals::read())),
        requests: 2,
        read: Some(Ok(())),
    }));
    let sent = impact_reads(&h.key(KeyCode::Char('w')));
    assert_eq!(sent, [("job_a".to_owned(), TimeDelta::days(7), 10)]);
    assert_eq!(h.app.jobs.impacts.of("job_a"), Some(&ImpactLoad::Reading));
    // While it is read, `w` changes the next read's window only.
    assert!(impact_reads(&h.key(KeyCode::Char('w'))).is_empty());
    assert_eq!(h.app.jobs.impacts.window_days(), 14);
}

#[test]
fn windows_past_ten_requests_ask_first_and_yes_reads_them_all_back_in_the_detail() {
    let mut h = detail_open();
    h.key(KeyCode::Char('i'));
    needs_more(&mut h, 10);
    let Some(Overlay::Confirm(question)) = &h.app.overlay else {
        panic!("the question: {:?}", h.app.overlay)
    };
    // 5,000 rows a window, 250 a request.
    assert_eq!(question.requests, 40);
    assert!(
        question.text().starts_with(
            "The two 14-day windows have more rows than 10 requests hold (250 each): reading the impact takes up to 40 analytics requests"
        ),
        "{}",
        question.text()
    );
    let sent = impact_reads(&h.key(KeyCode::Char('y')));
    assert_eq!(sent, [("job_a".to_owned(), TimeDelta::days(14), 40)]);
    assert!(
        matches!(&h.app.overlay, Some(Overlay::Detail(d)) if d.id == "job_a"),
        "back in the job's detail: {:?}",
        h.app.overlay
    );
}

#[test]
fn no_to_the_question_reads_nothing_and_says_how_to_ask_again() {
    let mut h = detail_open();
    h.key(KeyCode::Char('i'));
    needs_more(&mut h, 10);
    assert!(impact_reads(&h.key(KeyCode::Char('n'))).is_empty());
    assert_eq!(
        h.app.jobs.impacts.of("job_a"),
        Some(&ImpactLoad::Refused(
            "it needs 40 analytics requests; i asks again".into()
        ))
    );
    assert!(matches!(&h.app.overlay, Some(Overlay::Detail(_))));
}

#[test]
fn windows_the_hours_budget_cannot_afford_are_refused_in_the_clis_words() {
    let mut h = detail_open();
    let now = h.clock().wall;
    h.send(Msg::Budget(crate::tui::message::Budget {
        analytics: crate::journal::AnalyticsBudget::new(100, vec![now; 80]),
        ..Default::default()
    }));
    h.key(KeyCode::Char('i'));
    assert!(impact_reads(&needs_more(&mut h, 10)).is_empty());
    let Some(ImpactLoad::Refused(why)) = h.app.jobs.impacts.of("job_a") else {
        panic!("{:?}", h.app.jobs.impacts.of("job_a"))
    };
    assert!(
        why.starts_with(
            "reading the impact needs up to 40 analytics requests, more than are left (20 of 100 left this hour"
        ) && why.contains("nothing was sent: enough are free again at 13:00 UTC, or w picks a shorter window"),
        "{why}"
    );
}
