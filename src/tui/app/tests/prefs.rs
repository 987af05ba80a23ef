//! The person's own settings in `update`: remapped keys, `notify_command`, and the
//! warnings of the start said on screen.

use std::time::Duration;

use crossterm::event::KeyCode;

use super::*;
use crate::config::KeyOverride;
use crate::tui::message::{Alert, AlertCommand, AlertError};

fn with_prefs(prefs: Prefs) -> Harness {
    let config = ConsoleOptions { prefs, ..config() };
    Harness::with_config(config, vec![tracked("a", "active", 0)])
}

fn keys(entries: &[(&str, &str, &[&str])]) -> Prefs {
    let overrides: Vec<KeyOverride> = entries
        .iter()
        .enumerate()
        .map(|(line, (context, action, keys))| KeyOverride {
            context: (*context).into(),
            action: (*action).into(),
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            line: line + 1,
        })
        .collect();
    Prefs::with_keys(&overrides).unwrap()
}

#[test]
fn a_remapped_key_does_the_action_and_the_default_no_longer_does() {
    let mut h = with_prefs(keys(&[("global", "quit", &["ctrl-q"])]));
    h.key(KeyCode::Char('q'));
    assert!(!h.app.quit, "q is not quit any more");
    h.ctrl('q');
    assert!(h.app.quit);
}

#[test]
fn ctrl_c_taken_from_quit_says_which_key_quits_instead_of_doing_nothing_silently() {
    let mut h = with_prefs(keys(&[("global", "quit", &["ctrl-q"])]));
    h.ctrl('c');
    assert!(!h.app.quit);
    let notice = &h.app.notice.as_ref().unwrap().text();
    assert!(notice.contains("Ctrl+Q quits"), "{notice}");
}

#[test]
fn messages_name_the_key_in_force() {
    let mut h = with_prefs(keys(&[("global", "toggle_pause", &["ctrl-p"])]));
    h.ctrl('p');
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.text(), "polling paused: Ctrl+P resumes");
    // With no key at all, the message names the action instead of a key that does not work.
    let mut h = with_prefs(keys(&[("global", "refresh", &[])]));
    h.tick(3.0);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Err(crate::api::ApiError::NotFound {
            message: "no such job".into(),
            missing: crate::api::Missing::Job,
        }),
    });
    let problem = h.app.jobs.get("a").unwrap().problem.clone().unwrap();
    assert!(
        problem.ends_with("(polling stopped; refresh (no key bound) retries)"),
        "{problem}"
    );
}

#[test]
fn a_final_status_runs_notify_command_with_the_job() {
    let command = AlertCommand {
        argv: vec!["notify-send".into(), "docdeck".into()],
        limit: Duration::from_secs(10),
    };
    let mut h = with_prefs(Prefs {
        alert: Some(command.clone()),
        ..Prefs::default()
    });
    h.tick(3.0);
    let mut done = job("a", "failed", 0);
    done.pr_link = Some("https://github.com/o/r/pull/9".into());
    let effects = h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(done),
    });
    let expected = Alert {
        command,
        job_id: "a".into(),
        status: "failed".into(),
        pr_link: Some("https://github.com/o/r/pull/9".into()),
        prompt: Some("prompt of a".into()),
    };
    assert!(
        effects.contains(&Effect::Io(Io::Alert(Box::new(expected)))),
        "{effects:?}"
    );
    assert!(
        effects.contains(&Effect::Tty(Tty::Bell)),
        "the bell still rings"
    );
}

#[test]
fn without_notify_command_nothing_is_run() {
    let mut h = with_prefs(Prefs::default());
    h.tick(3.0);
    let effects = h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "completed", 0)),
    });
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::Alert(_)))),
        "{effects:?}"
    );
}

#[test]
fn a_failed_alert_is_a_warning_that_says_what_to_check() {
    let mut h = with_prefs(Prefs::default());
    h.send(Msg::AlertFailed(AlertError::Exited {
        program: "notify-send".into(),
        code: 1,
    }));
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Warning);
    assert!(notice.text().contains("run it by hand"), "{notice:?}");
}

#[test]
fn warnings_of_the_start_are_a_notice_from_the_first_frame() {
    let warnings = vec![
        "/h/config.toml holds an API key and other users of this machine can read it (mode 644): run chmod 600 /h/config.toml".to_owned(),
        "the key does not look like an admin key".to_owned(),
    ];
    let mut h = with_prefs(Prefs {
        warnings,
        ..Prefs::default()
    });
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Warning);
    assert!(notice.text().contains("chmod 600"), "{notice:?}");
    assert!(
        notice.text().contains(" · the key does not look"),
        "{notice:?}"
    );
    // A journal set aside at start is said after them, not instead of them.
    h.send(Msg::Loaded(Box::new(Startup {
        set_aside: Some("the journal was moved to /d/x".into()),
        ..Startup::default()
    })));
    let notice = h.app.notice.clone().unwrap();
    assert!(
        notice.text().contains("chmod 600") && notice.text().ends_with("moved to /d/x"),
        "{notice:?}"
    );
}
