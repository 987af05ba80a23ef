//! The person's own settings in the real console loop, against the local service on port
//! 0: remapped keys drive it, `notify_command` runs when a job ends (both with a job run
//! on each store), and the warnings of the start are on screen.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use docdeck::config::KeyOverride;
use docdeck::journal::Journal;
use docdeck::server::db::DbLocation;
use docdeck::tui::app::Prefs;
use docdeck::tui::message::AlertCommand;

use common::DEADLINE;
use common::console::{Console, line_with};

fn key(context: &str, action: &str, keys: &[&str]) -> KeyOverride {
    KeyOverride {
        context: context.into(),
        action: action.into(),
        keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        line: 1,
    }
}

fn console(server: &docdeck::server::RunningServer, prefs: Prefs) -> Console {
    let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
    let poll = Duration::from_millis(50);
    Console::open_with_prefs(&server.base_url(), poll, journal, "false", (120, 40), prefs)
}

/// Waits for `path` to be written whole (the script renames it into place).
async fn wait_for_file(path: &std::path::Path) -> Vec<u8> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Ok(bytes) = std::fs::read(path) {
            return bytes;
        }
        assert!(
            Instant::now() < deadline,
            "{} was never written",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

on_both_stores! {
    async fn remapped_keys_start_a_job_send_it_and_quit(db: DbLocation) {
        let server = common::start(common::options_on(&db)).await;
        let prefs = Prefs::with_keys(&[
            key("global", "quit", &["ctrl-q"]),
            key("jobs", "new_job", &["c"]),
            key("composer", "send", &["ctrl-d"]),
        ])
        .unwrap();
        let mut console = console(&server, prefs);
        let screen = console
            .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
            .await;
        assert!(
            screen.contains("`c` writes a prompt for a new job"),
            "{screen}"
        );
        assert!(screen.contains("? help · Ctrl+Q quit"), "{screen}");
        console.key(KeyCode::Char('n'));
        console.key(KeyCode::Char('c'));
        let screen = console
            .wait_for("the composer", |s| s.contains("New job"))
            .await;
        assert!(screen.contains("Ctrl+D send"), "{screen}");
        console.type_text("Fix the typo");
        console.ctrl('d');
        console
            .wait_for("the job completed", |s| {
                line_with(s, "Fix the typo").is_some_and(|l| l.contains("completed"))
            })
            .await;
        // `q` quits no more (it would have quit long before the job completed); Ctrl+Q does.
        console.key(KeyCode::Esc);
        console.key(KeyCode::Char('q'));
        console.ctrl('q');
        let app = tokio::time::timeout(DEADLINE, console.task)
            .await
            .expect("Ctrl+Q quits")
            .unwrap();
        assert!(app.quit);
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn notify_command_gets_the_finished_job_in_its_environment(db: DbLocation) {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("alert.env");
        let script = dir.path().join("alert.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\n/usr/bin/env -0 > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let server = common::start(common::options_on(&db)).await;
        let prefs = Prefs {
            alert: Some(AlertCommand::new(vec![
                script.display().to_string(),
                out.display().to_string(),
            ])),
            ..Prefs::default()
        };
        let mut console = console(&server, prefs);
        console
            .wait_for("the empty list", |s| s.contains("No tracked jobs yet"))
            .await;
        console.start_job("Document the webhooks").await;
        let env = wait_for_file(&out).await;
        let env: HashMap<String, String> = env
            .split(|b| *b == 0)
            .filter_map(|entry| {
                let text = String::from_utf8_lossy(entry).into_owned();
                let (k, v) = text.split_once('=')?;
                Some((k.to_owned(), v.to_owned()))
            })
            .collect();
        let tracked = console
            .journal
            .lock()
            .unwrap()
            .tracked(&console.scope)
            .unwrap();
        assert_eq!(env["DOCDECK_JOB_ID"], tracked[0].id);
        assert_eq!(env["DOCDECK_JOB_STATUS"], "completed");
        assert_eq!(
            env["DOCDECK_PR_LINK"],
            "https://forge.invalid/acme/docs/pull/1"
        );
        assert_eq!(env["DOCDECK_PROMPT"], "Document the webhooks");
        assert!(!env.contains_key("DOCDECK_API_KEY"), "{env:?}");
        assert!(
            env.values().all(|v| !v.contains(common::KEY)),
            "the API key reached the command: {env:?}"
        );
        console.quit().await;
        server.shutdown().await;
    }
}

#[tokio::test]
async fn warnings_of_the_start_are_on_screen_when_it_opens() {
    let server = common::start(common::fast_options(DbLocation::Memory)).await;
    let prefs = Prefs {
        warnings: vec![
            "/h/.config/docdeck/config.toml holds an API key and other users of this machine can read it (mode 644): run chmod 600 /h/.config/docdeck/config.toml".into(),
        ],
        ..Prefs::default()
    };
    let mut console = console(&server, prefs);
    console
        .wait_for("the warning", |s| s.contains("run chmod 600"))
        .await;
    console.quit().await;
    server.shutdown().await;
}

#[test]
fn a_mistake_in_the_keys_or_colours_stops_docdeck_at_its_line() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    let cases = [
        (
            "[keys.jobs]\nup = \"k\"\ndown = \"n\"\n",
            "line 3: the key n is bound to both down",
        ),
        (
            "[keys.jobs]\nsned = \"x\"\n",
            "line 2: \"sned\" is not an action of [keys.jobs]",
        ),
        (
            "\n[keys.job]\ndown = \"j\"\n",
            "line 3: there is no [keys.job]",
        ),
        (
            "[keys.global]\nquit = \"ctlr-q\"\n",
            "line 2: cannot read the key \"ctlr-q\"",
        ),
        (
            "theme = \"solarized\"\n",
            "line 1: there is no theme \"solarized\"",
        ),
        (
            "[theme.styles]\nselected = \"blak\"\n",
            "line 2: the style of selected",
        ),
    ];
    for (text_of_file, expected) in cases {
        std::fs::write(&config, text_of_file).unwrap();
        let out = common::docdeck_command(home.path())
            .env("DOCDECK_CONFIG", &config)
            .env("DOCDECK_PROJECT_ID", "p1")
            .env("DOCDECK_API_KEY", "mint_x_0123456789")
            .env("DOCDECK_BASE_URL", "http://127.0.0.1:9")
            .output()
            .unwrap();
        let err = common::text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("{}, {expected}", config.display())),
            "{err}"
        );
        assert!(!err.contains("needs a terminal"), "{err}");
    }
}

#[test]
fn doctor_names_a_mistake_in_the_keys_and_says_what_is_in_force() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    let doctor = || {
        common::docdeck_command(home.path())
            .env("DOCDECK_CONFIG", &config)
            .env("DOCDECK_BASE_URL", "http://127.0.0.1:9")
            .arg("doctor")
            .output()
            .unwrap()
    };
    std::fs::write(&config, "[keys.jobs]\nup = \"k\"\ndown = \"n\"\n").unwrap();
    let out = doctor();
    assert_eq!(out.status.code(), Some(1));
    let stdout = common::text(&out.stdout);
    let console = stdout.lines().find(|l| l.contains("console")).unwrap();
    assert!(console.starts_with("FAIL"), "{stdout}");
    assert!(
        console.contains("line 3: the key n is bound to both"),
        "{console}"
    );
    assert!(console.contains("Your own keys"), "{console}");

    std::fs::write(&config, "theme = \"dark\"\nnotify_command = [\"notify-send\", \"docdeck\"]\n[keys.global]\nquit = \"ctrl-q\"\n").unwrap();
    let stdout = common::text(&doctor().stdout);
    let console = stdout.lines().find(|l| l.contains("console")).unwrap();
    assert!(console.starts_with("ok"), "{stdout}");
    assert!(
        console.ends_with(
            "1 key setting of your own · theme dark · notify_command notify-send docdeck"
        ),
        "{console}"
    );
}
