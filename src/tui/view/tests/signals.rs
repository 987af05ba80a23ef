//! Screens of "Did the change help?" in a job's detail (what `i` read, and a merge that
//! cannot be known), the jobs list's impact column, and a visitors page with its
//! comments (issue 27), at 80x24 and 120x40, with hostile text from the service.

use chrono::TimeDelta;
use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::FeedbackItem;
use crate::insight::impact::{Impact, PageImpact, Sources, Windows};
use crate::insight::impact_merge::{Merged, NotMerged};
use crate::insight::impact_read::NotReady;
use crate::tui::app::{CommentsLoad, JobColumn};
use crate::tui::message::{Comments, ImpactFailed, ImpactRead, SignalMsg};

const JOB: &str = "job_51be07aa93c2";

fn totals(human: u64, ai: u64) -> VisitorTotals {
    VisitorTotals {
        human,
        ai,
        total: human + ai,
    }
}

pub(super) fn read() -> ImpactRead {
    let merged = wall() - chrono::Duration::days(20);
    ImpactRead {
        merge: Merged {
            at: merged,
            by: "git",
            what: Some("0123456789abcdef0123456789abcdef01234567".into()),
        },
        windows: Windows::around(merged, TimeDelta::days(14), wall()).unwrap(),
        impact: Impact {
            pages: vec![
                PageImpact {
                    path: "/guides/webhooks".into(),
                    sources: Sources {
                        change: true,
                        marked: true,
                    },
                    before: totals(1_204, 310),
                    after: totals(1_388, 402),
                },
                PageImpact {
                    path: "/x\x1b[2J\x07/faq".into(),
                    sources: Sources {
                        change: false,
                        marked: true,
                    },
                    before: totals(50, 3),
                    after: totals(0, 0),
                },
            ],
            site_before: totals(12_496, 3_525),
            site_after: totals(12_890, 3_611),
        },
        gap: None,
    }
}

/// The completed job's detail open, `i` pressed, and `result` come back.
pub(super) fn impact_scene(result: Result<ImpactRead, ImpactFailed>) -> Scene {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Enter);
    scene.send(Msg::Detail {
        id: JOB.into(),
        conversation: vec![SentPrompt {
            prompt:
                "Make these pages easier.\n\n- /guides/webhooks (human 1,204, AI 310, total 1,421)"
                    .into(),
            sent_at: wall() - chrono::Duration::days(22),
            kind: SubmissionKind::Create,
        }],
        timeline: Vec::new(),
    });
    scene.key(KeyCode::Char('i'));
    scene.send(Msg::Signal(SignalMsg::Impact {
        id: JOB.into(),
        result: Box::new(result),
        requests: 2,
        read: Some(Ok(())),
    }));
    scene
}

#[test]
fn the_detail_shows_each_page_before_and_after_beside_the_site_and_the_caveat_once() {
    let scene = impact_scene(Ok(read()));
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        assert!(screen.contains("Did the change help?"), "{screen}");
        assert!(!screen.contains('\x1b') && !screen.contains('\x07'));
    }
    let wide = scene.render(120, 40);
    assert!(
        wide.contains("human 1,204 → 1,388 +184 (+15.3%) · AI 310 → 402 +92 (+29.7%)"),
        "{wide}"
    );
    assert!(wide.contains("(whole site)"), "{wide}");
    assert_eq!(wide.matches("not the change's effect").count(), 1, "{wide}");
    both("job_impact", &scene);
}

#[test]
fn a_merge_that_cannot_be_known_says_why_and_what_to_do() {
    let not = NotMerged {
        id: JOB.into(),
        reasons: vec![
            "git: not merged yet: the branch docdeck/job_51be07aa93c2 is not in main".into(),
            "GitHub: no GITHUB_TOKEN in the environment to read the pull request's merge time with"
                .into(),
        ],
    };
    let scene = impact_scene(Err(ImpactFailed::NotReady(NotReady::NotMerged(not))));
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("cannot tell when the change was merged"),
        "{screen}"
    );
    assert!(screen.contains("git: not merged yet"), "{screen}");
    assert!(screen.contains("--merged-at TIME"), "{screen}");
    both("job_impact_not_merged", &scene);
}

#[test]
fn the_impact_column_shows_what_was_read_and_a_dash_otherwise() {
    let mut scene = impact_scene(Ok(read()));
    scene.key(KeyCode::Esc);
    scene.app.config.columns = vec![
        JobColumn::Status,
        JobColumn::Id,
        JobColumn::Impact,
        JobColumn::Prompt,
    ];
    let screen = scene.render(120, 40);
    let row = screen.lines().find(|l| l.contains("job_51be07aa")).unwrap();
    // 1,254 → 1,388 humans on the two pages.
    assert!(row.contains("+11% humans"), "{row}");
    let other = screen.lines().find(|l| l.contains("job_7f3a9c21")).unwrap();
    assert!(other.contains(" - "), "{other}");
    both("jobs_impact_column", &scene);
}

fn item(path: &str, comment: Option<&str>, helpful: bool, at: &str) -> FeedbackItem {
    FeedbackItem {
        id: format!("fb_{at}"),
        path: path.into(),
        comment: comment.map(str::to_owned),
        created_at: Some(at.into()),
        source: "contextual".into(),
        status: "pending".into(),
        helpful: Some(helpful),
        contact: None,
        code: None,
        filename: None,
        lang: None,
    }
}

#[test]
fn a_page_shows_its_figures_thumbs_and_recent_comments() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    scene.key(KeyCode::Enter);
    let Some(CommentsLoad::Fetching(generation)) =
        scene.app.visitors.page.as_ref().map(|p| p.comments.clone())
    else {
        panic!("Enter reads the page's comments")
    };
    scene.send(Msg::Signal(SignalMsg::Comments {
        generation,
        result: Ok(Comments {
            items: vec![
                item(
                    "/introduction",
                    Some("The install step fails on Windows.\nWhich shell?"),
                    false,
                    "2026-11-20T14:02:00.000Z",
                ),
                item("/introduction", None, true, "2026-11-19T09:00:00.000Z"),
                item(
                    "https://docs.acme.dev/introduction",
                    Some("Great intro \x1b[2J\x07"),
                    true,
                    "2026-11-18T08:30:00.000Z",
                ),
            ],
            looked: 100,
            more: true,
        }),
        requests: 3,
    }));
    let screen = scene.render(120, 40);
    assert!(screen.contains("Page /introduction"), "{screen}");
    assert!(
        screen.contains("The install step fails on Windows."),
        "{screen}"
    );
    assert!(screen.contains("and 1 without words"), "{screen}");
    both("visitors_page_comments", &scene);
}

#[test]
fn a_job_with_no_change_to_merge_is_offered_no_impact_until_asked() {
    // The active job is first in the list.
    let mut scene = Scene::new();
    scene.key(KeyCode::Enter);
    let screen = scene.render(80, 24);
    assert!(!screen.contains("Did the change help?"), "{screen}");
    scene.key(KeyCode::Char('i'));
    let screen = scene.render(80, 24);
    assert!(screen.contains("Did the change help?"), "{screen}");
    assert!(screen.contains("reading…"), "{screen}");
}

/// `I` shows the impact column in the default columns (the demo reads no profile), and
/// `w` in the detail says the new window in the footer as it reads again (issue 27).
#[test]
fn capital_i_shows_the_impact_column_and_w_says_the_window() {
    let mut scene = impact_scene(Ok(read()));
    scene.key(KeyCode::Char('w'));
    let wide = scene.render(120, 40);
    assert!(wide.contains("i impact · w 28d window"), "{wide}");
    assert!(wide.contains("reading…"), "{wide}");
    assert!(scene.render(80, 24).contains("i impact · w 28d"));
    both("job_impact_window", &scene);
    scene.key(KeyCode::Esc);
    scene.key(KeyCode::Char('I'));
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        assert!(screen.contains("IMPACT"), "{screen}");
        let other = screen.lines().find(|l| l.contains("job_7f3a9c21")).unwrap();
        assert!(other.contains(" - "), "never read by itself: {other}");
    }
    both("jobs_impact_key", &scene);
}
