//! Snapshots of every pane at 80x24 and 120x40, with a fixed clock and fixed data.

use std::time::{Duration, Instant};

use chrono::{TimeZone as _, Utc};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;

mod jobs;
mod lists;
mod truth;
mod wire;
use crate::api::{Job, JobStatus, PathVisitors, Source, VisitorTotals, VisitorsPage};
use crate::journal::{SentPrompt, StatusChange, SubmissionKind, TrackedJob};
use crate::tui::app::{ConsoleOptions, NotifyMode, Prefs};
use crate::tui::message::{Awaits, Budget, Clock, Msg, Startup};

mod composer;
mod feedback;
mod insight;
mod searches;
mod signals;
mod themes;
mod trial;
mod visitors;
mod widths;

fn wall() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

fn job(id: &str, status: &str, hours_ago: i64, pr: Option<&str>) -> Job {
    Job {
        id: Some(id.into()),
        status: Some(JobStatus::parse(status)),
        source: Some(Source {
            repository: Some("https://github.com/acme/docs".into()),
            git_ref: Some("main".into()),
        }),
        model: Some("docdeck-simulated".into()),
        pr_link: pr.map(str::to_owned),
        created_at: Some(wall() - chrono::Duration::hours(hours_ago)),
        archived_at: (status == "archived").then(|| wall() - chrono::Duration::hours(1)),
        ..Job::default()
    }
}

fn jobs() -> Vec<TrackedJob> {
    let rows = [
        (
            "job_7f3a9c21d0e4",
            "active",
            0,
            None,
            "Document the new webhooks endpoint",
        ),
        (
            "job_51be07aa93c2",
            "completed",
            3,
            Some("https://github.com/acme/docs/pull/42"),
            "Fix the broken links in the quickstart",
        ),
        (
            "job_0c8d4e6f1a2b",
            "failed",
            26,
            None,
            "Rewrite the authentication guide",
        ),
        (
            "job_9a8b7c6d5e4f",
            "archived",
            200,
            Some("https://github.com/acme/docs/pull/7"),
            "Translate the FAQ into Spanish",
        ),
        (
            "job_hostile\x1b[2J",
            "paused\x1b]0;owned\x07",
            300,
            Some("https://evil.example/\x1b]52;c;ZXZpbA==\x07"),
            "\u{202E}gnp.exe",
        ),
    ];
    rows.iter()
        .map(|(id, status, hours, pr, prompt)| TrackedJob {
            id: (*id).into(),
            snapshot: Some(job(id, status, *hours, *pr)),
            seen_at: Some(wall()),
            changed_at: None,
            first_prompt: Some((*prompt).into()),
        })
        .collect()
}

fn page() -> VisitorsPage {
    let mut visitors = vec![PathVisitors {
        path: "/introduction".into(),
        human: 987,
        ai: 194,
        total: 1179,
    }];
    visitors.push(PathVisitors {
        path: "/x\x1b[2J\x1b]52;c;ZXZpbA==\x07/clear".into(),
        human: 500,
        ai: 300,
        total: 700,
    });
    for i in 0..48u64 {
        visitors.push(PathVisitors {
            path: format!("/guides/page-{i:02}"),
            human: 400 - i * 8,
            ai: 10 + i,
            total: 405 - i * 7,
        });
    }
    VisitorsPage {
        totals: VisitorTotals {
            human: 12_496,
            ai: 3_525,
            total: 15_100,
        },
        visitors,
        has_more: true,
    }
}

struct Scene {
    app: App,
    base: Instant,
    /// The view's memory, kept from render to render as the loop keeps it.
    memory: std::cell::RefCell<ViewMemory>,
}

impl Scene {
    fn new() -> Self {
        Self::with_prefs(Prefs::default())
    }

    /// The scene with the person's own keys (or alert, or warnings).
    fn with_prefs(prefs: Prefs) -> Self {
        let config = ConsoleOptions {
            profile: Some("work".into()),
            project: "acme-docs".into(),
            host: "api.mintlify.com".into(),
            read_only: false,
            notify: NotifyMode::Bell,
            has_display: false,
            poll_interval: Duration::from_secs(3),
            hourly_limit: 100,
            seed: 7,
            templates: crate::insight::templates::all(&[]),
            whole_max_rows: crate::insight::whole::DEFAULT_MAX_ROWS,
            columns: crate::tui::app::JobColumn::DEFAULT.to_vec(),
            mouse: true,
            prefs,
            clipboard: Default::default(),
        };
        let mut scene = Self {
            app: App::new(config),
            base: Instant::now(),
            memory: std::cell::RefCell::default(),
        };
        scene.send(Msg::Loaded(Box::new(Startup {
            jobs: jobs(),
            drafts: vec![(
                "new".into(),
                "Explain rate limits\nwith an example per plan".into(),
            )],
            visitors_filter: None,
            set_aside: None,
            unsure: Vec::new(),
            budget: Budget {
                create_used: 13,
                message_used: 4,
                ..Budget::default()
            },
        })));
        scene.send(Msg::JobFetched {
            id: "job_7f3a9c21d0e4".into(),
            result: Ok(job("job_7f3a9c21d0e4", "active", 0, None)),
        });
        scene
    }

    fn clock(&self) -> Clock {
        Clock {
            mono: self.base,
            wall: wall(),
        }
    }

    fn send(&mut self, msg: Msg) {
        // As the loop does after each frame: the app learns what the last one measured.
        let now = self.clock();
        let drawn = Msg::Drawn(self.memory.borrow().viewport());
        let _ = self.app.update(drawn, now);
        let _ = self.app.update(msg, now);
    }

    fn key(&mut self, code: KeyCode) {
        self.send(Msg::Input(Event::Key(KeyEvent::new(
            code,
            KeyModifiers::NONE,
        ))));
    }

    fn render(&self, width: u16, height: u16) -> String {
        self.draw_in(width, height, Theme::default())
            .backend()
            .to_string()
    }

    /// The frame drawn with `theme`, its styles and all.
    fn draw_in(&self, width: u16, height: u16, theme: Theme) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let cx = ViewContext {
            wall: wall(),
            mono: self.base,
            theme,
            utc: true,
        };
        let mut memory = self.memory.borrow_mut();
        terminal
            .draw(|frame| draw(frame, &self.app, &cx, &mut memory))
            .unwrap();
        terminal
    }
}

fn both(name: &str, scene: &Scene) {
    let small = scene.render(80, 24);
    assert!(
        !small.contains('\x1b') && !small.contains('\x07'),
        "an escape reached the screen:\n{small}"
    );
    insta::assert_snapshot!(format!("{name}_80x24"), small);
    insta::assert_snapshot!(format!("{name}_120x40"), scene.render(120, 40));
}

#[test]
fn jobs_pane() {
    both("jobs", &Scene::new());
}

#[test]
fn job_detail() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Enter);
    scene.send(Msg::Detail {
        id: "job_51be07aa93c2".into(),
        conversation: vec![
            SentPrompt {
                prompt: "Fix the broken links in the quickstart".into(),
                sent_at: wall() - chrono::Duration::hours(3),
                kind: SubmissionKind::Create,
            },
            SentPrompt {
                prompt: "Also check the SDK pages".into(),
                sent_at: wall() - chrono::Duration::hours(2),
                kind: SubmissionKind::Message,
            },
        ],
        timeline: vec![
            StatusChange {
                status: JobStatus::Active,
                observed_at: wall() - chrono::Duration::minutes(180),
            },
            StatusChange {
                status: JobStatus::Completed,
                observed_at: wall() - chrono::Duration::minutes(176),
            },
        ],
    });
    both("detail", &scene);
}

#[test]
fn composer_new_job_and_follow_up() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('n'));
    both("composer_new", &scene);
    scene.key(KeyCode::Esc);
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Char('m'));
    both("composer_follow_up", &scene);
}

#[test]
fn visitors_pane() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page()),
    });
    both("visitors", &scene);
    scene.key(KeyCode::Char('f'));
    both("visitors_filter", &scene);
}

#[test]
fn help_overlay() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('?'));
    both("help_jobs", &scene);
}

#[test]
fn too_small() {
    insta::assert_snapshot!(Scene::new().render(50, 10));
}

#[test]
fn no_color_draws_without_any_colour_but_keeps_every_status_word() {
    let scene = Scene::new();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let cx = ViewContext {
        wall: wall(),
        mono: scene.base,
        theme: Theme::default().without_color(),
        utc: true,
    };
    terminal
        .draw(|frame| draw(frame, &scene.app, &cx, &mut ViewMemory::default()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let coloured = buffer
        .content
        .iter()
        .filter(|c| c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset)
        .count();
    assert_eq!(coloured, 0);
    let text = terminal.backend().to_string();
    for word in ["● active", "✓ completed", "✗ failed", "▪ archived"] {
        assert!(text.contains(word), "{word} missing:\n{text}");
    }
}

/// Text a hostile or broken service could send: terminal escapes (7-bit and the 8-bit CSI),
/// bidi overrides and isolates, a pile of combining marks, NUL, DEL, tabs and newlines, and
/// values far longer than any screen.
fn hostile_texts() -> Vec<String> {
    vec![
        format!("job_{}", "z\u{301}\u{316}\u{35c}".repeat(400)),
        format!("/{}", "very-long-path-segment/".repeat(500)),
        "\u{9b}2J\u{9b}31m eight-bit CSI".into(),
        "\u{2067}isolate\u{2069}\u{202D}override\u{202C}".into(),
        "nul\0del\x7ftab\tnew\nline\r".into(),
        format!(
            "https://evil.example/{}\x1b]0;title\x07",
            "a".repeat(10_000)
        ),
        "\u{fe0f}\u{200d}\u{200b}zero-width".into(),
    ]
}

#[test]
fn hostile_server_text_never_reaches_the_terminal_raw_nor_breaks_the_layout() {
    let texts = hostile_texts();
    let mut scene = Scene::new();
    let ids: Vec<String> = (0..texts.len())
        .map(|i| format!("job_h{i}{}", texts[i]))
        .collect();
    let mut tracked = jobs();
    tracked.extend(ids.iter().zip(&texts).map(|(id, text)| TrackedJob {
        id: id.clone(),
        snapshot: None,
        seen_at: None,
        changed_at: None,
        first_prompt: Some(text.clone()),
    }));
    scene.send(Msg::TrackedList(tracked));
    for (id, text) in ids.iter().zip(&texts) {
        scene.send(Msg::JobFetched {
            id: id.clone(),
            result: Ok(job(id, text, 1, Some(text))),
        });
    }
    let mut page = page();
    for (i, text) in texts.iter().enumerate() {
        page.visitors.insert(
            i,
            PathVisitors {
                path: text.clone(),
                human: 9_999_999,
                ai: u64::MAX,
                total: u64::MAX,
            },
        );
    }
    let forbidden = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    let check = |scene: &Scene, what: &str| {
        for (width, height) in [(80, 24), (120, 40), (200, 60)] {
            let screen = scene.render(width, height);
            assert!(
                !screen.chars().any(forbidden),
                "{what} at {width}x{height} let a control or bidi character through:\n{screen}"
            );
            // The TestBackend prints one quoted line per row: the layout still has all of
            // them, so nothing pushed the frame out of shape.
            assert_eq!(screen.lines().count(), usize::from(height), "{what}");
        }
    };
    check(&scene, "the jobs pane");
    scene.key(KeyCode::Enter);
    check(&scene, "the detail");
    scene.key(KeyCode::Esc);
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(page),
    });
    check(&scene, "the visitors pane");
    assert!(
        scene.render(120, 40).contains("/introduction"),
        "ordinary rows still show"
    );
}

#[test]
fn a_rejected_key_and_an_analytics_pause_are_readable_at_80_columns() {
    let mut scene = Scene::new();
    scene.send(Msg::Visitors {
        generation: crate::tui::message::Generation::default(),
        result: Err(crate::api::ApiError::RateLimited {
            message: "Rate limit exceeded".into(),
            retry_after: Some(Duration::from_secs(3597)),
        }),
    });
    scene.send(Msg::ConnectionChecked(Err(
        crate::api::ApiError::Unauthorized {
            message: "Invalid API key".into(),
        },
    )));
    let small = scene.render(80, 24);
    assert!(small.contains("✗ key rejected (401)"), "{small}");
    assert!(small.contains("⏸ analytics 60m"), "{small}");
    assert!(
        small.contains("DOCDECK_API_KEY"),
        "the whole error is shown:\n{small}"
    );
    both("link_failing", &scene);
}
