//! A job's impact (`i` in its detail) and a page's comments (Enter in the visitors
//! pane): read on demand within the analytics budget, never by a poll; a reply no longer
//! wanted is dropped; the jobs list's impact column sums what was read.

use chrono::TimeDelta;
use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::{FeedbackItem, Kind};
use crate::insight::impact::{Impact, PageImpact, Sources, Windows};
use crate::insight::impact_merge::{Merged, NotMerged};
use crate::insight::impact_read::NotReady;
use crate::tui::app::{COMMENT_PAGES, CommentsLoad, ImpactLoad};
use crate::tui::message::{Comments, Generation, ImpactFailed, ImpactRead, SignalIo, SignalMsg};

fn impact_reads(effects: &[Effect]) -> Vec<(String, u32)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Io(Io::Signal(SignalIo::ReadImpact { id, allow, .. })) => {
                Some((id.clone(), *allow))
            }
            _ => None,
        })
        .collect()
}

/// A list with one completed job, its detail open.
fn detail_open() -> Harness {
    let mut h = Harness::new(vec![tracked("job_a", "completed", 0)]);
    h.key(KeyCode::Enter);
    assert!(matches!(h.app.overlay, Some(Overlay::Detail(_))));
    h
}

pub(in crate::tui) fn read() -> ImpactRead {
    let at = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    };
    let totals = |human, ai| VisitorTotals {
        human,
        ai,
        total: human + ai,
    };
    ImpactRead {
        merge: Merged {
            at: at("2026-11-08T12:00:00Z"),
            by: "git",
            what: Some("0123456789abcdef0123456789abcdef01234567".into()),
        },
        windows: Windows::around(
            at("2026-11-08T12:00:00Z"),
            TimeDelta::days(14),
            at("2026-11-22T12:00:00Z"),
        )
        .unwrap(),
        impact: Impact {
            pages: vec![
                PageImpact {
                    path: "/guides/webhooks".into(),
                    sources: Sources {
                        change: true,
                        marked: true,
                    },
                    before: totals(200, 40),
                    after: totals(230, 61),
                },
                PageImpact {
                    path: "/faq".into(),
                    sources: Sources {
                        change: false,
                        marked: true,
                    },
                    before: totals(50, 3),
                    after: totals(44, 3),
                },
            ],
            site_before: totals(2_400, 500),
            site_after: totals(2_460, 560),
        },
        gap: None,
    }
}

#[test]
fn i_in_the_detail_reads_the_impact_once_within_ten_analytics_requests() {
    let mut h = detail_open();
    let effects = h.key(KeyCode::Char('i'));
    assert_eq!(impact_reads(&effects), [("job_a".to_owned(), 10)]);
    assert_eq!(h.app.jobs.impacts.of("job_a"), Some(&ImpactLoad::Reading));
    assert!(
        impact_reads(&h.key(KeyCode::Char('i'))).is_empty(),
        "a second i while reading sends nothing"
    );
    assert_eq!(h.app.jobs.impacts.cell("job_a"), "…");
    h.send(Msg::Signal(SignalMsg::Impact {
        id: "job_a".into(),
        result: Box::new(Ok(read())),
        requests: 2,
        read: Some(Ok(())),
    }));
    assert!(matches!(
        h.app.jobs.impacts.of("job_a"),
        Some(ImpactLoad::Read(_))
    ));
    // 250 → 274 humans on the two pages.
    assert_eq!(h.app.jobs.impacts.cell("job_a"), "+10% humans");
    assert_eq!(h.app.jobs.impacts.cell("job_b"), "-");
}

#[test]
fn polls_never_read_the_impact() {
    let mut h = Harness::new(vec![tracked("job_a", "completed", 0)]);
    for secs in [5.0, 60.0, 600.0] {
        let effects = h.at(secs).send(Msg::Tick);
        assert!(impact_reads(&effects).is_empty(), "{effects:?}");
    }
}

#[test]
fn a_budget_with_fewer_than_two_requests_left_refuses_and_says_why() {
    let mut h = detail_open();
    let mut budget = crate::tui::message::Budget::default();
    let now = h.clock().wall;
    budget.analytics =
        crate::journal::AnalyticsBudget::new(crate::journal::ANALYTICS_HOURLY_LIMIT, vec![now; 99]);
    h.send(Msg::Budget(budget));
    assert!(impact_reads(&h.key(KeyCode::Char('i'))).is_empty());
    match h.app.jobs.impacts.of("job_a") {
        Some(ImpactLoad::Refused(why)) => {
            assert!(why.contains("needs at least 2 analytics requests"), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_merge_that_cannot_be_known_keeps_every_reason() {
    let mut h = detail_open();
    h.key(KeyCode::Char('i'));
    let not = NotMerged {
        id: "job_a".into(),
        reasons: vec![
            "git: not merged yet: the branch docdeck/job_a is not in main".into(),
            "GitHub: the job has no pull request link".into(),
        ],
    };
    h.send(Msg::Signal(SignalMsg::Impact {
        id: "job_a".into(),
        result: Box::new(Err(ImpactFailed::NotReady(NotReady::NotMerged(
            not.clone(),
        )))),
        requests: 0,
        read: Some(Ok(())),
    }));
    assert_eq!(
        h.app.jobs.impacts.of("job_a"),
        Some(&ImpactLoad::Failed(ImpactFailed::NotReady(
            NotReady::NotMerged(not)
        )))
    );
    assert_eq!(h.app.jobs.impacts.cell("job_a"), "-");
}

fn page() -> VisitorsPage {
    VisitorsPage {
        totals: VisitorTotals {
            human: 1_400,
            ai: 200,
            total: 1_560,
        },
        visitors: vec![
            PathVisitors::new("/quickstart", 1_000, 100, 1_080),
            PathVisitors::new("/guides/authentication", 400, 60, 440),
        ],
        has_more: false,
    }
}

fn comment_reads(effects: &[Effect]) -> Vec<(Generation, String, u32)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Io(Io::Signal(SignalIo::FetchComments {
                generation,
                path,
                pages,
                query,
            })) => {
                assert_eq!(query.kind, Kind::Feedback);
                assert_eq!(query.limit, Some(100));
                Some((*generation, path.clone(), *pages))
            }
            _ => None,
        })
        .collect()
}

pub(in crate::tui) fn item(path: &str, comment: Option<&str>, helpful: bool) -> FeedbackItem {
    FeedbackItem {
        id: format!("fb_{}", path.len()),
        path: path.into(),
        comment: comment.map(str::to_owned),
        created_at: Some("2026-11-20T14:02:00.000Z".into()),
        source: "contextual".into(),
        status: "pending".into(),
        helpful: Some(helpful),
        contact: None,
        code: None,
        filename: None,
        lang: None,
    }
}

fn visitors_shown() -> Harness {
    let mut h = Harness::new(vec![]);
    let effects = h.key(KeyCode::Char('3'));
    let generation = effects
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::FetchVisitors { generation, .. }) => Some(*generation),
            _ => None,
        })
        .unwrap();
    h.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    h
}

#[test]
fn enter_opens_the_page_and_reads_its_comments_esc_goes_back() {
    let mut h = visitors_shown();
    h.key(KeyCode::Down);
    let reads = comment_reads(&h.key(KeyCode::Enter));
    assert_eq!(reads.len(), 1);
    let (generation, path, pages) = reads[0].clone();
    assert_eq!(path, "/guides/authentication");
    assert_eq!(pages, COMMENT_PAGES);
    let open = h.app.visitors.page.as_ref().unwrap();
    assert_eq!(open.row.human, 400);
    // A stale reply is dropped; the one asked for is shown.
    h.send(Msg::Signal(SignalMsg::Comments {
        generation: Generation::test(999),
        result: Ok(Comments {
            items: vec![],
            looked: 0,
            more: false,
        }),
        requests: 1,
    }));
    assert_eq!(
        h.app.visitors.page.as_ref().unwrap().comments,
        CommentsLoad::Fetching(generation)
    );
    let comments = Comments {
        items: vec![item(
            "/guides/authentication",
            Some("Token refresh?"),
            false,
        )],
        looked: 40,
        more: false,
    };
    h.send(Msg::Signal(SignalMsg::Comments {
        generation,
        result: Ok(comments.clone()),
        requests: 1,
    }));
    assert_eq!(
        h.app.visitors.page.as_ref().unwrap().comments,
        CommentsLoad::Shown(comments)
    );
    // The table's keys wait while the page is open; Esc goes back.
    h.key(KeyCode::Char('c'));
    assert!(h.app.visitors.page.is_some());
    h.key(KeyCode::Esc);
    assert!(h.app.visitors.page.is_none());
}

#[test]
fn a_rate_pause_reads_no_comments_and_says_when() {
    let mut h = visitors_shown();
    h.send(Msg::Insight(crate::tui::message::InsightMsg::Previous {
        generation: Generation::test(12345),
        result: Err(crate::api::ApiError::RateLimited {
            retry_after: Some(Duration::from_secs(60)),
            message: "slow down".into(),
        }),
    }));
    let reads = comment_reads(&h.key(KeyCode::Enter));
    assert!(reads.is_empty());
    assert!(matches!(
        h.app.visitors.page.as_ref().unwrap().comments,
        CommentsLoad::Failed(_)
    ));
}

#[test]
fn a_click_under_an_open_page_selects_no_row_of_the_table_it_covers() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut h = visitors_shown();
    h.key(KeyCode::Enter);
    // As the last frame of the table measured it: rows from screen row 5.
    let mut viewport = crate::tui::message::Viewport {
        visitors_rows: 10,
        ..Default::default()
    };
    viewport.hits.rows = Some(crate::tui::message::RowsArea {
        area: ratatui::layout::Rect::new(0, 5, 80, 10),
        first: 0,
        drawn: 2,
    });
    h.send(Msg::Drawn(viewport));
    let click = |row| {
        Msg::Input(crossterm::event::Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 4,
            row,
            modifiers: crossterm::event::KeyModifiers::NONE,
        }))
    };
    for row in 0..20 {
        h.send(click(row));
    }
    assert_eq!(h.app.visitors.selected, 0);
    assert!(h.app.visitors.page.is_some());
}
