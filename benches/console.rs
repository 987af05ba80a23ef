//! The console's own costs, without a terminal: a full redraw of each pane at 120x40 with
//! big data (10,000 tracked jobs; a 250-row visitors page), the pure `update` on job
//! reads, and loading a journal of 10,000 jobs.
//!
//! ```sh
//! cargo bench --bench console
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use chrono::{TimeZone as _, Utc};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use docdeck::api::{Job, JobStatus, PathVisitors, Source, VisitorTotals, VisitorsPage};
use docdeck::journal::{Journal, Scope, SentPrompt, StatusChange, SubmissionKind, TrackedJob};
use docdeck::tui::app::{App, ConsoleOptions, NotifyMode, Prefs};
use docdeck::tui::message::{Budget, Clock, Msg, Startup};
use docdeck::tui::view::theme::Theme;
use docdeck::tui::view::{ViewContext, ViewMemory, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const JOBS: usize = 10_000;

fn config() -> ConsoleOptions {
    ConsoleOptions {
        profile: Some("work".into()),
        project: "acme-docs".into(),
        host: "api.mintlify.com".into(),
        read_only: false,
        notify: NotifyMode::Bell,
        has_display: false,
        poll_interval: Duration::from_secs(3),
        hourly_limit: 100,
        seed: 7,
        templates: docdeck::insight::templates::all(&[]),
        whole_max_rows: docdeck::insight::whole::DEFAULT_MAX_ROWS,
        columns: docdeck::tui::app::JobColumn::DEFAULT.to_vec(),
        mouse: true,
        prefs: Prefs::default(),
        clipboard: Default::default(),
    }
}

fn job(i: usize) -> Job {
    let status = match i % 10 {
        0 => "active",
        1 => "failed",
        2 => "archived",
        _ => "completed",
    };
    Job {
        id: Some(format!("job_{i:020}")),
        status: Some(JobStatus::parse(status)),
        source: Some(Source {
            repository: Some("https://github.com/acme/docs".into()),
            git_ref: Some("main".into()),
        }),
        model: Some("docdeck-simulated".into()),
        pr_link: i
            .is_multiple_of(3)
            .then(|| format!("https://github.com/acme/docs/pull/{i}")),
        created_at: Some(Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()),
        archived_at: None,
        ..Job::default()
    }
}

fn tracked(n: usize) -> Vec<TrackedJob> {
    (0..n)
        .map(|i| TrackedJob {
            id: format!("job_{i:020}"),
            snapshot: Some(job(i)),
            seen_at: Some(Utc::now()),
            changed_at: None,
            first_prompt: Some(format!(
                "Rewrite page {i} of the guides so that it explains the new API"
            )),
        })
        .collect()
}

fn clock(base: Instant) -> Clock {
    Clock {
        mono: base,
        wall: Utc::now(),
    }
}

fn app_with_jobs(base: Instant) -> App {
    let mut app = App::new(config());
    let _ = app.update(
        Msg::Loaded(Box::new(Startup {
            jobs: tracked(JOBS),
            drafts: vec![("new".into(), "Explain the rate limits".into())],
            visitors_filter: None,
            budget: Budget::default(),
            set_aside: None,
            unsure: Vec::new(),
        })),
        clock(base),
    );
    app
}

fn key(app: &mut App, code: KeyCode, base: Instant) {
    let _ = app.update(
        Msg::Input(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))),
        clock(base),
    );
}

fn full_redraw(c: &mut Criterion, name: &str, app: &App, base: Instant) {
    let cx = ViewContext {
        wall: Utc::now(),
        mono: base,
        theme: Theme::default(),
        utc: true,
    };
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let mut memory = ViewMemory::default();
    c.bench_function(name, |b| {
        b.iter(|| {
            // A cleared screen makes every cell new: the whole frame is laid out and sent.
            terminal.clear().unwrap();
            terminal
                .draw(|frame| draw(frame, app, &cx, &mut memory))
                .unwrap();
        });
    });
}

fn render(c: &mut Criterion) {
    let base = Instant::now();
    let mut app = app_with_jobs(base);
    full_redraw(c, "redraw_120x40/jobs_10k", &app, base);

    key(&mut app, KeyCode::Char('G'), base);
    key(&mut app, KeyCode::Enter, base);
    let id = format!("job_{:020}", 0);
    let _ = app.update(
        Msg::Detail {
            id,
            conversation: (0..40)
                .map(|i| SentPrompt {
                    prompt: format!(
                        "Turn {i}: also fix the examples in the SDK pages and the changelog"
                    ),
                    sent_at: Utc::now(),
                    kind: if i == 0 {
                        SubmissionKind::Create
                    } else {
                        SubmissionKind::Message
                    },
                })
                .collect(),
            timeline: (0..40)
                .map(|i| StatusChange {
                    status: if i % 2 == 0 {
                        JobStatus::Active
                    } else {
                        JobStatus::Completed
                    },
                    observed_at: Utc::now(),
                })
                .collect(),
        },
        clock(base),
    );
    full_redraw(c, "redraw_120x40/detail_40_turns", &app, base);
    key(&mut app, KeyCode::Esc, base);

    key(&mut app, KeyCode::Char('n'), base);
    full_redraw(c, "redraw_120x40/composer", &app, base);
    key(&mut app, KeyCode::Esc, base);

    key(&mut app, KeyCode::Char('3'), base);
    let generation = app.visitors.load().generation().unwrap_or_default();
    let page = VisitorsPage {
        totals: VisitorTotals {
            human: 912_345,
            ai: 301_234,
            total: 1_100_000,
        },
        visitors: (0..250u64)
            .map(|i| PathVisitors {
                path: format!("/docs/guides/section-{}/page-{i}", i % 17),
                human: 90_000 - i * 300,
                ai: 30_000 - i * 100,
                total: 110_000 - i * 380,
            })
            .collect(),
        has_more: true,
    };
    let _ = app.update(
        Msg::Visitors {
            generation,
            result: Ok(page),
        },
        clock(base),
    );
    full_redraw(c, "redraw_120x40/visitors_250_rows", &app, base);
}

fn update(c: &mut Criterion) {
    let base = Instant::now();
    c.bench_function("update/job_read_10k_jobs", |b| {
        let mut app = app_with_jobs(base);
        let mut i = 0usize;
        b.iter(|| {
            i = (i + 7919) % JOBS;
            let id = format!("job_{i:020}");
            app.update(
                Msg::JobFetched {
                    id,
                    result: Ok(job(i)),
                },
                clock(base),
            )
        });
    });
    c.bench_function("update/key_down_10k_jobs", |b| {
        let mut app = app_with_jobs(base);
        b.iter(|| key(&mut app, KeyCode::Char('j'), base));
    });
}

fn journal(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docdeck.sqlite");
    let scope = Scope {
        service: "https://api.mintlify.com".into(),
        project: "acme-docs".into(),
    };
    {
        let mut journal = Journal::open(&path).unwrap();
        for (i, tracked) in tracked(JOBS).into_iter().enumerate() {
            let submission = journal
                .begin_submission(
                    &scope,
                    SubmissionKind::Create,
                    None,
                    tracked.first_prompt.as_deref().unwrap(),
                    Utc::now(),
                )
                .unwrap();
            journal
                .submission_accepted(&scope, submission, &job(i), Utc::now())
                .unwrap();
        }
    }
    c.bench_function("journal/open_and_load_10k_jobs", |b| {
        b.iter_batched(
            || (),
            |()| {
                let journal = Journal::open(&path).unwrap();
                let jobs = journal.tracked(&scope).unwrap();
                let drafts = journal.drafts(&scope).unwrap();
                let filter = journal.setting(&scope, "visitors.filter").unwrap();
                (jobs.len(), drafts.len(), filter)
            },
            BatchSize::PerIteration,
        );
    });
}

criterion_group!(benches, render, update, journal);
criterion_main!(benches);
