//! The link to the service: 429 pauses per class of call, auth failures and recovery, the
//! start-up check, waking for ages on screen, the opener's failure and Ctrl+Z.

use crossterm::event::KeyCode;

use super::*;
use crate::api::ApiError;

fn limited(secs: u64) -> ApiError {
    ApiError::RateLimited {
        message: String::new(),
        retry_after: Some(Duration::from_secs(secs)),
    }
}

fn unauthorized() -> ApiError {
    ApiError::Unauthorized {
        message: "invalid key".into(),
    }
}

fn submits(effects: &[Effect]) -> usize {
    effects
        .iter()
        .filter(|e| matches!(e, Effect::Io(Io::Submit { .. })))
        .count()
}

fn visitor_fetches(effects: &[Effect]) -> usize {
    effects
        .iter()
        .filter(|e| matches!(e, Effect::Io(Io::FetchVisitors { .. })))
        .count()
}

#[test]
fn an_analytics_429_pauses_analytics_only() {
    let mut h = Harness::new(vec![tracked("a", "active", 1)]);
    let first = h.key(KeyCode::Char('3'));
    let Some(Effect::Io(Io::FetchVisitors { generation, .. })) = first.first().cloned() else {
        panic!("{first:?}")
    };
    h.send(Msg::Visitors {
        generation,
        result: Err(limited(3597)),
    });
    // Jobs are still read on their schedule...
    assert_eq!(fetches(&h.tick(3.0)), vec!["a"]);
    // ...and a new job can still be sent.
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Char('n'));
    h.type_text("add a page");
    assert_eq!(submits(&h.ctrl('s')), 1, "{:?}", h.app.composer.error);
    // Only analytics wait, and the notice and the visitors pane say so.
    let notice = &h.app.notice.as_ref().unwrap().text();
    assert!(notice.contains("analytics"), "{notice}");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('3'));
    assert_eq!(visitor_fetches(&h.key(KeyCode::Char('r'))), 0);
    let error = h.app.visitors.load().error().unwrap();
    assert!(
        error.contains("analytics") && error.contains("status bar"),
        "{error}"
    );
    let paused: Vec<CallClass> = h
        .app
        .link
        .pauses
        .active(h.clock().mono)
        .into_iter()
        .map(|(class, _)| class)
        .collect();
    assert_eq!(paused, vec![CallClass::Analytics]);
    assert_eq!(
        h.app.link.connection,
        Connection::Online,
        "a 429 is an answer"
    );
    // The pause ends on time.
    h.at(3598.0);
    assert_eq!(visitor_fetches(&h.key(KeyCode::Char('r'))), 1);
}

#[test]
fn a_429_on_a_read_pauses_reads_only_until_retry_after() {
    let mut h = Harness::new(vec![tracked("a", "active", 1), tracked("b", "active", 0)]);
    assert_eq!(fetches(&h.tick(3.0)).len(), 2);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Err(limited(30)),
    });
    h.send(Msg::JobFetched {
        id: "b".into(),
        result: Ok(job("b", "active", 0)),
    });
    assert!(fetches(&h.tick(10.0)).is_empty(), "b is due but reads wait");
    assert!(fetches(&h.tick(32.9)).is_empty());
    // Creating is another class: it goes on.
    h.key(KeyCode::Char('n'));
    h.type_text("hello");
    assert_eq!(submits(&h.ctrl('s')), 1);
    h.key(KeyCode::Esc);
    assert_eq!(fetches(&h.tick(33.0)).len(), 2);
}

#[test]
fn a_429_on_create_refuses_new_jobs_but_not_follow_ups() {
    let mut h = Harness::new(vec![tracked("a", "completed", 1)]);
    h.key(KeyCode::Char('n'));
    h.type_text("one");
    h.ctrl('s');
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(limited(120)),
    });
    assert_eq!(submits(&h.ctrl('s')), 0);
    let error = h.app.composer.error.as_deref().unwrap();
    assert!(
        error.contains("new jobs") && error.contains("paused") && error.contains("kept"),
        "{error}"
    );
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('m'));
    h.type_text("more");
    assert_eq!(submits(&h.ctrl('s')), 1, "{:?}", h.app.composer.error);
}

#[test]
fn the_console_checks_the_key_at_once_and_says_when_it_is_rejected() {
    let mut h = Harness::new(vec![]);
    let mut fresh = App::new(config());
    let effects = fresh.update(Msg::Loaded(Box::default()), h.clock());
    assert!(
        effects.contains(&Effect::Io(Io::CheckConnection)),
        "{effects:?}"
    );
    h.send(Msg::ConnectionChecked(Err(unauthorized())));
    assert_eq!(h.app.link.connection, Connection::KeyRejected);
    let notice = h.app.notice.as_ref().unwrap();
    assert_eq!(notice.kind, NoticeKind::Error);
    assert!(notice.text().contains("401"), "{}", notice.text());
    assert_eq!(
        h.app.next_wake(),
        None,
        "a rejected key is not retried alone"
    );
    // `r` checks again; an accepted key answers 404 for the made-up job.
    assert!(
        h.key(KeyCode::Char('r'))
            .contains(&Effect::Io(Io::CheckConnection))
    );
    h.send(Msg::ConnectionChecked(Err(ApiError::NotFound {
        message: "Job not found".into(),
        missing: crate::api::Missing::Job,
    })));
    assert_eq!(h.app.link.connection, Connection::Online);
    assert_eq!(h.app.link.last_error, None, "recovery clears the error");
    assert_eq!(h.app.notice, None, "and its notice");
}

#[test]
fn a_404_that_is_not_the_services_own_shows_the_base_url_as_trouble() {
    let mut h = Harness::new(vec![]);
    h.send(Msg::ConnectionChecked(Err(ApiError::NotFound {
        message: String::new(),
        missing: crate::api::Missing::Service,
    })));
    assert_eq!(h.app.link.connection, Connection::Trouble);
    let notice = h.app.notice.as_ref().unwrap();
    assert_eq!(notice.kind, NoticeKind::Error);
    assert!(notice.text().contains("base URL"), "{}", notice.text());
    assert!(h.app.next_wake().is_some(), "checked again later");
}

#[test]
fn a_key_revoked_mid_session_or_another_projects_key_is_shown() {
    let mut h = Harness::new(vec![tracked("a", "active", 1)]);
    assert_eq!(h.app.link.connection, Connection::Online);
    h.tick(3.0);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Err(unauthorized()),
    });
    assert_eq!(h.app.link.connection, Connection::KeyRejected);
    h.send(Msg::ConnectionChecked(Err(ApiError::Forbidden {
        message: String::new(),
    })));
    assert_eq!(h.app.link.connection, Connection::NotAllowed);
    assert!(h.app.notice.as_ref().unwrap().text().contains("403"));
}

#[test]
fn a_visitors_page_that_failed_while_the_service_was_away_is_read_again_when_it_answers() {
    let mut h = Harness::new(vec![]);
    let first = h.key(KeyCode::Char('3'));
    let Some(Effect::Io(Io::FetchVisitors { generation, .. })) = first.first().cloned() else {
        panic!("{first:?}")
    };
    h.send(Msg::Visitors {
        generation,
        result: Err(network_error(false)),
    });
    assert_eq!(h.app.link.connection, Connection::Trouble);
    assert!(h.app.visitors.load().error().is_some());
    let answered = || {
        Msg::ConnectionChecked(Err(ApiError::NotFound {
            message: String::new(),
            missing: crate::api::Missing::Job,
        }))
    };
    let back = h.send(answered());
    assert_eq!(h.app.link.connection, Connection::Online);
    assert_eq!(visitor_fetches(&back), 1, "{back:?}");
    // Once the page is on its way, a service that stays up reads nothing more.
    assert_eq!(visitor_fetches(&h.send(answered())), 0);
}

#[test]
fn a_recovery_clears_the_links_failure_not_a_notice_that_reads_like_it() {
    let mut h = Harness::new(vec![]);
    h.send(Msg::ConnectionChecked(Err(network_error(false))));
    let error = h.app.link.last_error.clone().unwrap().to_string();
    // Another notice in the same words (a read of one job that failed the same way).
    h.app.notify(NoticeKind::Warning, error.clone());
    h.send(Msg::ConnectionChecked(Err(ApiError::NotFound {
        message: String::new(),
        missing: crate::api::Missing::Job,
    })));
    assert_eq!(h.app.link.connection, Connection::Online);
    assert_eq!(
        h.app.notice.as_ref().map(Notice::text),
        Some(error),
        "only the link's own failure leaves the notice line"
    );
}

#[test]
fn an_unreachable_service_is_checked_again_with_a_growing_wait() {
    let mut h = Harness::new(vec![]);
    h.send(Msg::ConnectionChecked(Err(network_error(false))));
    assert_eq!(h.app.link.connection, Connection::Trouble);
    let error = h.app.link.last_error.clone().unwrap().to_string();
    assert!(h.app.notice.as_ref().unwrap().text() == error);
    let first = h.app.next_wake().unwrap() - h.clock().mono;
    assert_eq!(first, Duration::from_secs(2));
    assert!(h.tick(2.0).contains(&Effect::Io(Io::CheckConnection)));
    h.send(Msg::ConnectionChecked(Err(network_error(false))));
    let second = h.app.next_wake().unwrap() - h.clock().mono;
    assert_eq!(second, Duration::from_secs(4));
    // The same error again is not announced again over a newer notice.
    h.app.notify(NoticeKind::Info, "something else");
    assert!(h.tick(6.0).contains(&Effect::Io(Io::CheckConnection)));
    h.send(Msg::ConnectionChecked(Err(network_error(false))));
    assert_eq!(h.app.notice.as_ref().unwrap().text(), "something else");
    h.tick(14.0);
    h.send(Msg::ConnectionChecked(Err(ApiError::NotFound {
        message: String::new(),
        missing: crate::api::Missing::Job,
    })));
    assert_eq!(
        (h.app.link.connection, h.app.link.last_error.as_ref()),
        (Connection::Online, None)
    );
    assert_eq!(h.app.next_wake(), None);
}

#[test]
fn ages_on_screen_wake_the_console_when_they_change_and_not_before() {
    // An archived job 3m22s old: never polled again, but its AGE reads `4m` in 38 s.
    let mut created = job("a", "archived", 0);
    created.created_at = Some(Utc.with_ymd_and_hms(2026, 11, 22, 11, 56, 38).unwrap());
    let mut h = Harness::new(vec![TrackedJob {
        snapshot: Some(created),
        ..tracked("a", "archived", 0)
    }]);
    h.send(Msg::ConnectionChecked(Err(ApiError::NotFound {
        message: String::new(),
        missing: crate::api::Missing::Job,
    })));
    let at_4m = h.clock().mono + Duration::from_secs(38);
    assert_eq!(h.app.next_wake(), Some(at_4m));
    h.app.take_dirty();
    h.tick(38.0);
    assert!(h.app.take_dirty(), "the new age is drawn");
    assert_eq!(
        h.app.next_wake(),
        Some(at_4m + Duration::from_secs(60)),
        "then once a minute"
    );
    // Off screen, ages wake nothing.
    h.key(KeyCode::Char('3'));
    let poll = h.app.jobs.poll.next_due();
    assert_eq!(h.app.next_wake(), poll);
}

#[test]
fn a_pause_counts_down_in_minutes_then_seconds_and_ends_on_screen() {
    let mut h = Harness::new(vec![]);
    h.send(Msg::ConnectionChecked(Err(limited(125))));
    let start = h.clock().mono;
    // 125 s reads `3m`; it reads `2m` at 120 s left, `60s` at 60 s left.
    assert_eq!(h.app.next_wake(), Some(start + Duration::from_secs(5)));
    assert_eq!(
        countdown_text(start + Duration::from_secs(125), start),
        "3m"
    );
    h.app.take_dirty();
    h.tick(5.0);
    assert!(h.app.take_dirty());
    assert_eq!(h.app.next_wake(), Some(start + Duration::from_secs(65)));
    h.tick(65.0);
    assert_eq!(h.app.next_wake(), Some(start + Duration::from_secs(66)));
    h.tick(124.5);
    assert_eq!(h.app.next_wake(), Some(start + Duration::from_secs(125)));
}

#[test]
fn a_failed_opener_copies_the_link_and_says_so() {
    let mut h = Harness::new(vec![]);
    let effects = h.send(Msg::OpenFailed {
        url: "https://x/pull/1".into(),
        reason: "xdg-open exited with 3".into(),
    });
    assert_eq!(
        effects,
        vec![Effect::Tty(Tty::Copy("https://x/pull/1".into()))]
    );
    let notice = h.app.notice.as_ref().unwrap();
    assert!(
        notice.text().contains("exited with 3") && notice.text().contains("copied"),
        "{}",
        notice.text()
    );
}

#[test]
fn ctrl_z_suspends_from_every_context() {
    let mut h = Harness::new(vec![tracked("a", "active", 1)]);
    assert_eq!(h.ctrl('z'), vec![Effect::Tty(Tty::Suspend)]);
    h.key(KeyCode::Char('n'));
    h.type_text("draft");
    assert_eq!(h.ctrl('z'), vec![Effect::Tty(Tty::Suspend)]);
    assert_eq!(h.app.composer.text(), "draft", "the key is not typed");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('a'));
    assert_eq!(h.ctrl('z'), vec![Effect::Tty(Tty::Suspend)]);
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('?'));
    assert_eq!(h.ctrl('z'), vec![Effect::Tty(Tty::Suspend)]);
}

#[test]
fn a_younger_job_read_or_tracked_later_brings_the_wake_forward() {
    let mut h = Harness::new(vec![tracked("old", "archived", 0)]);
    h.send(Msg::ConnectionChecked(Ok(())));
    let three_hours = h.clock().mono + Duration::from_secs(3600);
    assert_eq!(h.app.next_wake(), Some(three_hours));
    // A job tracked by id, 90 s old: its age reads `2m` in 30 s.
    let mut young = job("young", "archived", 0);
    young.created_at = Some(h.clock().wall - chrono::Duration::seconds(90));
    h.send(Msg::Tracked {
        id: "young".into(),
        result: Ok(young.clone()),
        first_prompt: None,
    });
    let in_30s = h.clock().mono + Duration::from_secs(30);
    assert_eq!(h.app.next_wake(), Some(in_30s));
    // Untracked: the wake that was for it comes, finds nothing changed on screen, and the
    // next one is the old job's again.
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('x'));
    assert!(h.app.jobs.get("young").is_none());
    h.app.take_dirty();
    h.tick(30.0);
    assert_eq!(h.app.next_wake(), Some(three_hours));
    // A read that brings a creation time where none was known counts at once.
    let mut h = Harness::new(vec![TrackedJob {
        snapshot: Some(Job {
            created_at: None,
            ..job("a", "active", 0)
        }),
        ..tracked("a", "active", 0)
    }]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('1'));
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(Job {
            created_at: Some(h.clock().wall - chrono::Duration::milliseconds(500)),
            ..job("a", "active", 0)
        }),
    });
    // Its age moves at +0.5 s; it is drawn at the next whole second.
    assert_eq!(
        h.app.next_wake(),
        Some(h.clock().mono + Duration::from_secs(1))
    );
}

/// A hundred jobs made a few milliseconds apart have ages that move at a hundred
/// different instants each second: they are drawn together, once a second.
#[test]
fn ages_of_jobs_made_apart_move_together_once_a_second() {
    let wall = Harness::new(vec![]).clock().wall;
    let jobs: Vec<TrackedJob> = (0..100)
        .map(|i| {
            let id = format!("j{i}");
            let mut row = tracked(&id, "failed", 0);
            if let Some(job) = &mut row.snapshot {
                job.created_at = Some(wall - chrono::Duration::milliseconds(20_000 + i * 7));
            }
            row
        })
        .collect();
    let mut h = Harness::new(jobs);
    h.send(Msg::ConnectionChecked(Ok(())));
    let start = h.clock().mono;
    let mut wakes = 0;
    while let Some(at) = h
        .app
        .next_wake()
        .filter(|at| *at <= start + Duration::from_secs(5))
    {
        wakes += 1;
        h.tick((at - start).as_secs_f64() + 0.000_001);
    }
    assert!(wakes <= 6, "{wakes} wakes in 5 s");
}

/// Found by using it: after the service came back, one job kept "active ⚠" for 50 s, its
/// read still waiting out the growing wait of its failures.
#[test]
fn a_job_whose_reads_failed_is_read_at_once_when_the_service_is_back() {
    let mut h = Harness::new(vec![tracked("a", "active", 1)]);
    let mut t = 3.0;
    assert_eq!(fetches(&h.tick(t)), vec!["a"]);
    h.send(Msg::ConnectionChecked(Err(network_error(false))));
    for _ in 0..4 {
        h.send(Msg::JobFetched {
            id: "a".into(),
            result: Err(network_error(false)),
        });
        loop {
            t += 0.5;
            assert!(t < 900.0, "the failing job is read again");
            if !fetches(&h.tick(t)).is_empty() {
                break;
            }
        }
    }
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Err(network_error(false)),
    });
    let wait = h.app.jobs.poll.next_due().unwrap() - h.clock().mono;
    assert!(wait > Duration::from_secs(10), "{wait:?}");
    let back = h.send(Msg::ConnectionChecked(Err(ApiError::NotFound {
        message: String::new(),
        missing: crate::api::Missing::Job,
    })));
    assert_eq!(h.app.link.connection, Connection::Online);
    assert_eq!(fetches(&back), vec!["a"], "{back:?}");
}

/// Found by using it: a hung service (stopped with SIGSTOP) read "● online · next poll 1s"
/// with a frozen clock for 16 s, then online for 2 minutes. A read out past 5 s is said
/// ("no answer for 5s"), and the console wakes each second to count it.
#[test]
fn a_read_out_too_long_is_said_and_counted_each_second() {
    let mut h = Harness::new(vec![tracked("a", "active", 1)]);
    assert_eq!(fetches(&h.tick(3.0)), vec!["a"]);
    assert_eq!(h.app.jobs.unanswered_for(h.clock().mono), None);
    // No answer: the console wakes when the wait becomes worth saying...
    let wake = h.app.next_wake().unwrap() - h.clock().mono;
    assert!(wake <= Duration::from_secs(5), "{wake:?}");
    h.tick(8.0);
    assert_eq!(
        h.app.jobs.unanswered_for(h.clock().mono),
        Some(Duration::from_secs(5))
    );
    // ...and each second after, to count it.
    let next = h.app.next_wake().unwrap() - h.clock().mono;
    assert!(next <= Duration::from_secs(1), "{next:?}");
    // The answer ends it.
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "active", 1)),
    });
    assert_eq!(h.app.jobs.unanswered_for(h.clock().mono), None);
}
