//! Real material no one here wrote (tests/fixtures/real, with sources and licences in its
//! README): a public blog's access log, whose numbers were worked out by hand and by an
//! independent script beside it, and user agents from public lists the rules were not
//! built from.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{db_arg, docdeck_command, text};
use docdeck::server::db::DbLocation;
use docdeck::server::traffic::rules::{Class, Rules};

fn real(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real")
        .join(name)
}

/// (path, human, ai, total) per page, sorted by path, and the site's totals.
type Table = (Vec<(String, u64, u64, u64)>, (u64, u64, u64));

fn expected() -> Table {
    let text = std::fs::read_to_string(real("apache_semicomplete_2015.expected.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let n = |value: &serde_json::Value, key: &str| value[key].as_u64().unwrap();
    let mut rows: Vec<_> = json["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["path"].as_str().unwrap().to_owned(),
                n(row, "human"),
                n(row, "ai"),
                n(row, "total"),
            )
        })
        .collect();
    rows.sort();
    let site = &json["site"];
    (rows, (n(site, "human"), n(site, "ai"), n(site, "total")))
}

on_both_stores_multi! {
    /// The whole log, imported as a new user would (no --format), gives the hand-checked
    /// numbers: downloads, feed polls and the Digg feed fetcher counted nowhere, the
    /// `.pdf.html` page under its own name.
    async fn a_real_access_log_gives_the_hand_checked_numbers(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let out = docdeck_command(home.path())
            .args(["import", "--db", &db_arg(&db), "--project", "demo"])
            .arg(real("apache_semicomplete_2015.log"))
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        assert!(
            stderr.contains("as --format combined (recognised from its first lines)"),
            "{stderr}"
        );
        for part in [
            "read 455 lines: kept 92 views (human 92, AI 0) from 2015-05-17 to 2015-05-20 (UTC)",
            "feed polls 38",
            "not GET or HEAD 4",
            "redirects and errors 23",
            "skipped 1 broken line",
        ] {
            assert!(stdout.contains(part), "{part:?} in {stdout}");
        }
        let (rows, totals) = common::visitors_in(&db).await;
        let (want_rows, want_totals) = expected();
        assert_eq!(totals, want_totals, "site (human, ai, total)");
        assert_eq!(rows, want_rows, "per page");
        assert!(
            rows.iter()
                .any(|row| row.0.ends_with("puppet-at-loggly.pdf.html"))
        );
        assert!(
            !rows
                .iter()
                .any(|row| row.0.ends_with(".jar") || row.0.ends_with(".deb"))
        );
    }
}

/// Share of `agents` put in each class by the shipped rules; those not in `want` are
/// printed with the rule that placed them, so a failure says what to look at.
fn shares(agents: &str, want: Class) -> (usize, [usize; 3]) {
    let rules = Rules::shipped().unwrap();
    let mut counts = [0usize; 3]; // human, ai, neither
    let mut n = 0;
    for agent in agents.lines().filter(|line| !line.trim().is_empty()) {
        n += 1;
        let verdict = rules.classify(agent);
        let slot = match verdict.class {
            Class::Human => 0,
            Class::AiAnswer => 1,
            _ => 2,
        };
        if (verdict.class == Class::Human) != (want == Class::Human) {
            let rule = verdict.rule.map_or("-", |rule| rule.pattern.as_str());
            eprintln!("{:?} by {rule:?}: {agent}", verdict.class);
        }
        counts[slot] += 1;
    }
    (n, counts)
}

/// What the lists' "not a bot" side holds beside browsers: apps' own HTTP clients, media
/// players, mail clients and attack strings. None of them runs a page, so none is
/// counted human; they are left out of the browsers' figure (and counted in
/// RELIABILITY.md).
fn is_app_client(agent: &str) -> bool {
    const APPS: &[&str] = &[
        "CFNetwork",
        "Microsoft Office",
        "Outlook-",
        "Sonos/",
        "ExoPlayer",
        "libhttp",
        "QuickTime/",
        "Dalvik/",
        "[FBAN",
        "Player",
        "App/",
        "SELECT ",
        "<?",
        "vert.x",
        "GalaxyClient",
        "RadiosNet",
        "YelpApp",
        "Pinterest/",
        "Tweetbot",
        "WebKit.Networking",
        "NetworkingExtension",
    ];
    // Apps write their names in any case (`pinterest/0.`, `espn app … dalvik/2.1.0`).
    let lower = agent.to_ascii_lowercase();
    !agent.trim_start().starts_with("Mozilla/")
        && APPS
            .iter()
            .any(|app| lower.contains(&app.to_ascii_lowercase()))
}

/// RELIABILITY.md keeps these figures; the floors are the issue's.
#[test]
fn user_agents_the_rules_never_saw_are_counted_right() {
    let listed = std::fs::read_to_string(real("ua_browsers.txt")).unwrap();
    let (all, [all_human, _, _]) = shares(&listed, Class::Human);
    eprintln!(
        "not-a-bot list {all}: human {all_human} ({:.1}%)",
        100.0 * all_human as f64 / all as f64
    );
    let browsers: String = listed
        .lines()
        .filter(|agent| !is_app_client(agent))
        .map(|agent| format!("{agent}\n"))
        .collect();
    let crawlers = std::fs::read_to_string(real("ua_crawlers.txt")).unwrap();
    let (n, [human, ai, _]) = shares(&browsers, Class::Human);
    let human_share = human as f64 / n as f64;
    let ai_share = ai as f64 / n as f64;
    let (m, [crawler_human, _, _]) = shares(&crawlers, Class::OtherBot);
    let crawler_human_share = crawler_human as f64 / m as f64;
    eprintln!(
        "browsers {n}: human {human} ({:.1}%), ai {ai} ({:.1}%); crawlers {m}: human {crawler_human} ({:.1}%)",
        100.0 * human_share,
        100.0 * ai_share,
        100.0 * crawler_human_share
    );
    // The floor: 97% (these lists reach 97.2%, 809 of 832; RELIABILITY.md says
    // which agents are missed and why).
    assert!(
        human_share >= 0.97,
        "browsers counted human: {human_share:.3}"
    );
    assert!(ai_share <= 0.01, "browsers counted AI: {ai_share:.3}");
    assert!(
        crawler_human_share <= 0.05,
        "crawlers counted human: {crawler_human_share:.3}"
    );
}

/// `docdeck import … | head -1` and `docdeck classify … | head`: a reader that has gone
/// ends the output quietly, never a panic (exit 101).
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let runs: [Vec<std::ffi::OsString>; 2] = [
        vec!["classify".into(), "curl/8.5.0".into(), "/guide".into()],
        vec![
            "import".into(),
            "--db".into(),
            db.clone().into(),
            real("apache_semicomplete_2015.log").into(),
        ],
    ];
    for args in runs {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = docdeck_command(home.path())
            .args(&args)
            .stdout(writer)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
