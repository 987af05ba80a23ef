//! Pure tests of `update`: messages in, state and effects out. No terminal, no network,
//! no real clock. This file holds the harness and the jobs and polling tests.

mod composer;
mod connection;
mod copy;
mod elsewhere;
mod feedback;
mod impact;
mod insight;
mod keys;
mod lists;
mod mouse;
mod poll;
mod prefs;
mod searches;
mod searches_all;
pub(in crate::tui) mod signals;
mod track;
mod trial;
mod truth;
mod visitors;
mod visitors_where;
mod whole;

use std::time::{Duration, Instant};

use chrono::{TimeZone as _, Utc};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::api::{Job, JobStatus, PathVisitors, VisitorTotals, VisitorsPage};
use crate::journal::TrackedJob;
use crate::tui::message::{Clock, DraftKey, Effect, Io, Msg, Startup, Submitted, Tty};

pub(super) struct Harness {
    pub app: App,
    base: Instant,
    secs: f64,
}

pub(super) fn config() -> ConsoleOptions {
    ConsoleOptions {
        profile: None,
        project: "p".into(),
        host: "127.0.0.1:1".into(),
        read_only: false,
        notify: NotifyMode::Bell,
        has_display: false,
        poll_interval: Duration::from_secs(3),
        hourly_limit: 100,
        seed: 7,
        templates: crate::insight::templates::all(&[]),
        whole_max_rows: crate::insight::whole::DEFAULT_MAX_ROWS,
        columns: JobColumn::DEFAULT.to_vec(),
        mouse: true,
        prefs: Prefs::default(),
        clipboard: Default::default(),
    }
}

pub(super) fn job(id: &str, status: &str, created_min: i64) -> Job {
    Job {
        id: Some(id.into()),
        status: Some(JobStatus::parse(status)),
        created_at: Some(
            Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
                + chrono::Duration::minutes(created_min),
        ),
        ..Job::default()
    }
}

pub(super) fn tracked(id: &str, status: &str, created_min: i64) -> TrackedJob {
    TrackedJob {
        id: id.into(),
        snapshot: Some(job(id, status, created_min)),
        seen_at: None,
        changed_at: None,
        first_prompt: Some(format!("prompt of {id}")),
    }
}

impl Harness {
    pub(super) fn new(jobs: Vec<TrackedJob>) -> Self {
        Self::with_config(config(), jobs)
    }

    pub(super) fn with_config(config: ConsoleOptions, jobs: Vec<TrackedJob>) -> Self {
        let mut h = Self {
            app: App::new(config),
            base: Instant::now(),
            secs: 0.0,
        };
        let effects = h.send(Msg::Loaded(Box::new(Startup {
            jobs,
            ..Startup::default()
        })));
        h.fetched_now(&effects);
        h
    }

    pub(super) fn clock(&self) -> Clock {
        Clock {
            mono: self.base + Duration::from_secs_f64(self.secs),
            wall: Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
                + chrono::Duration::milliseconds((self.secs * 1000.0) as i64),
        }
    }

    pub(super) fn at(&mut self, secs: f64) -> &mut Self {
        self.secs = secs;
        self
    }

    pub(super) fn send(&mut self, msg: Msg) -> Vec<Effect> {
        let now = self.clock();
        self.app.update(msg, now)
    }

    pub(super) fn key(&mut self, code: KeyCode) -> Vec<Effect> {
        self.send(Msg::Input(Event::Key(KeyEvent::new(
            code,
            KeyModifiers::NONE,
        ))))
    }

    pub(super) fn ctrl(&mut self, c: char) -> Vec<Effect> {
        self.send(Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        ))))
    }

    pub(super) fn type_text(&mut self, text: &str) -> Vec<Effect> {
        text.chars()
            .flat_map(|c| self.key(KeyCode::Char(c)))
            .collect()
    }

    pub(super) fn tick(&mut self, secs: f64) -> Vec<Effect> {
        self.at(secs).send(Msg::Tick)
    }

    /// Answers every fetch in `effects` with the job's current snapshot.
    pub(super) fn fetched_now(&mut self, effects: &[Effect]) {
        for id in fetches(effects) {
            let status = self
                .app
                .jobs
                .get(&id)
                .and_then(|r| r.status())
                .map_or("active".to_owned(), |s| s.as_wire().to_owned());
            self.send(Msg::JobFetched {
                id: id.clone(),
                result: Ok(job(&id, &status, 0)),
            });
        }
    }
}

pub(super) fn visit_row(path: &str, human: u64, ai: u64, total: u64) -> PathVisitors {
    PathVisitors {
        path: path.into(),
        human,
        ai,
        total,
    }
}

/// The visitors pane with `page` shown as its first page.
pub(super) fn visitors_showing(page: VisitorsPage) -> Harness {
    let mut h = Harness::new(vec![]);
    let effects = h.key(KeyCode::Char('3'));
    let generation = effects
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::FetchVisitors { generation, .. }) => Some(*generation),
            _ => None,
        })
        .expect("the first page is fetched");
    h.send(Msg::Visitors {
        generation,
        result: Ok(page),
    });
    h
}

pub(super) fn fetches(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Io(Io::FetchJob(id)) => Some(id.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn network_error(maybe_sent: bool) -> crate::api::ApiError {
    crate::api::ApiError::Network {
        host: "h".into(),
        reason: "timed out".into(),
        may_have_reached_server: maybe_sent,
    }
}

#[test]
fn the_cursor_stays_on_its_job_across_refreshes_and_new_jobs() {
    let mut h = Harness::new(vec![
        tracked("new", "active", 3),
        tracked("mid", "active", 2),
        tracked("old", "active", 1),
    ]);
    h.key(KeyCode::Char('j'));
    assert_eq!(h.app.jobs.selected().unwrap().id, "mid");
    // A job tracked by id that is newer than all the others goes on top...
    h.send(Msg::Tracked {
        id: "newest".into(),
        result: Ok(job("newest", "active", 10)),
        first_prompt: None,
    });
    h.key(KeyCode::Char('j'));
    assert_eq!(h.app.jobs.rows[0].id, "newest");
    // ...and a refresh reordering nothing keeps the cursor where it was.
    let before = h.app.jobs.selected().unwrap().id.clone();
    h.send(Msg::JobFetched {
        id: "old".into(),
        result: Ok(job("old", "completed", 1)),
    });
    assert_eq!(h.app.jobs.selected().unwrap().id, before);
    // Untracking the selected job moves the cursor to the one that took its place.
    let removed = h.app.jobs.selected().unwrap().id.clone();
    let effects = h.key(KeyCode::Char('x'));
    assert!(effects.contains(&Effect::Io(Io::Untrack(removed.clone()))));
    assert!(h.app.jobs.get(&removed).is_none());
    assert!(h.app.jobs.selected().is_some());
    assert_eq!(removed, "old");
    h.key(KeyCode::Char('G'));
    assert_eq!(h.app.jobs.selected().unwrap().id, "mid");
    h.key(KeyCode::Char('g'));
    assert_eq!(h.app.jobs.selected().unwrap().id, "newest");
}

#[test]
fn a_final_status_seen_live_is_announced_once() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.tick(3.0);
    let mut done = job("a", "completed", 0);
    done.pr_link = Some("https://github.com/o/r/pull/7\x1b]52;c;x\x07".into());
    let effects = h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(done.clone()),
    });
    assert!(effects.contains(&Effect::Tty(Tty::Bell)));
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Done);
    assert!(
        notice.text().contains("completed") && !notice.text().contains('\x1b'),
        "{notice:?}"
    );
    h.tick(700.0);
    let again = h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(done),
    });
    assert!(
        !again.contains(&Effect::Tty(Tty::Bell)),
        "no second bell for the same status"
    );
}

#[test]
fn o_without_a_display_copies_the_link_and_says_so() {
    let mut h = Harness::new(vec![tracked("a", "completed", 0)]);
    let mut with_link = job("a", "completed", 0);
    with_link.pr_link = Some("https://github.com/o/r/pull/7".into());
    h.send(Msg::Tracked {
        id: "a".into(),
        result: Ok(with_link),
        first_prompt: None,
    });
    let effects = h.key(KeyCode::Char('o'));
    assert_eq!(
        effects,
        vec![Effect::Tty(Tty::Copy(
            "https://github.com/o/r/pull/7".into()
        ))]
    );
    assert!(h.app.notice.as_ref().unwrap().text().contains("copied"));
    let mut h = Harness::with_config(
        ConsoleOptions {
            has_display: true,
            ..config()
        },
        vec![],
    );
    h.send(Msg::Tracked {
        id: "b".into(),
        result: Ok(Job {
            pr_link: Some("https://x/pull/1".into()),
            ..job("b", "completed", 0)
        }),
        first_prompt: None,
    });
    assert_eq!(
        h.key(KeyCode::Char('o')),
        vec![Effect::Io(Io::OpenUrl("https://x/pull/1".into()))]
    );
}

/// The loop applies every waiting message before it draws: a reply that changed a row
/// and an unbound key in one batch must still draw the row.
#[test]
fn an_unbound_key_after_a_changed_row_in_one_batch_still_redraws() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.app.take_dirty();
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "completed", 0)),
    });
    h.key(KeyCode::F(12));
    assert!(
        h.app.take_dirty(),
        "the changed row is drawn although the batch ended with an unbound key"
    );
    h.key(KeyCode::F(12));
    assert!(!h.app.take_dirty(), "an unbound key alone draws nothing");
}

/// The same in the help, whose unbound keys also change nothing.
#[test]
fn an_unbound_key_in_the_help_keeps_an_earlier_redraw() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.key(KeyCode::Char('?'));
    h.app.take_dirty();
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "completed", 0)),
    });
    h.key(KeyCode::F(12));
    assert!(h.app.take_dirty());
}

#[test]
fn idle_with_nothing_to_poll_sets_no_timer() {
    let mut h = Harness::new(vec![tracked("x", "archived", 0)]);
    // The job is two hours old: its AGE changes at three hours, and not before.
    let three_hours = h.clock().mono + Duration::from_secs(3600);
    assert_eq!(
        h.app.jobs.poll.next_due(),
        None,
        "an archived job is not polled"
    );
    assert_eq!(
        h.app.next_wake(),
        Some(three_hours),
        "the only timer is the next change of the age on screen"
    );
    assert!(h.app.take_dirty(), "the first frame is drawn");
    assert!(!h.app.take_dirty(), "and nothing changed since");
    h.tick(100.0);
    assert!(
        !h.app.take_dirty(),
        "a stray tick with nothing shown moving redraws nothing"
    );
}

#[test]
fn a_journal_set_aside_at_start_is_said_on_screen() {
    let mut h = Harness {
        app: App::new(config()),
        base: Instant::now(),
        secs: 0.0,
    };
    h.send(Msg::Loaded(Box::new(Startup {
        set_aside: Some(
            "the journal /d/docdeck.sqlite could not be read; it was moved to /d/x".into(),
        ),
        ..Startup::default()
    })));
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Warning);
    assert!(notice.text().contains("moved to /d/x"), "{notice:?}");
}

#[test]
fn an_answer_without_a_status_keeps_the_last_known_state() {
    let mut h = Harness::new(vec![tracked("j1", "active", 0)]);
    h.send(Msg::JobFetched {
        id: "j1".into(),
        result: Ok(Job {
            id: Some("j1".into()),
            ..Job::default()
        }),
    });
    let row = h.app.jobs.get("j1").unwrap();
    assert_eq!(row.status(), Some(&JobStatus::Active));
    assert!(
        row.problem
            .as_deref()
            .is_some_and(|p| p.contains("no status")),
        "{row:?}"
    );
}
