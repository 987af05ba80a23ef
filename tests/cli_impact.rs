//! `docdeck jobs impact`: a real git repository made here, the real agent (a script that
//! edits a `.mdx` page) behind `docdeck serve` on a free port, the merge made here with a
//! fixed time, and views imported around it, so every number below is worked out by hand;
//! then the cases where the merge cannot be known, the simulated agent (no `change`),
//! and GitHub's `merged_at` from a scripted peer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use agent_common::{Repos, git};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use common::{
    KEY, ServeProcess, cli_command, import_views_into, run_cli, run_cli_failing, text, view,
};
use docdeck::server::db::DbLocation;
use serde_json::{Value, json};

/// The merge's time, as the test's merge commit carries it.
const MERGED: &str = "2025-03-10T12:00:00Z";

/// The job's prompt, as a job made from marked pages reads (`/faq` and `/guides/setup`
/// marked in the visitors pane).
const PROMPT: &str = "Review these pages for accuracy.\n\n- /faq (human 1, AI 0, total 1)\n- /guides/setup (human 2, AI 1, total 3)\n(numbers: unique visitors from 2025-03-03 to 2025-03-10)";

/// Views around the merge, 7-day windows: before = [03-03 12:00, 03-10 12:00), after =
/// [03-10 12:00, 03-17 12:00), each end excluded.
///
/// Before: /guides/setup h1, h2 (human), a1 (AI) → human 2, AI 1, total 3; /faq h1 →
/// human 1; / h3, h4. Site: humans h1 h2 h3 h4 = 4, AI a1 = 1, total 5. The view of h9 at
/// 11:59 on 03-03 is before the window and counts nowhere.
///
/// After: /guides/setup h1, h5 (at 12:00:00 sharp: after, not before), h6, and a1, a2 →
/// human 3, AI 2, total 5; /faq none → 0; / h3. Site: humans h1 h5 h6 h3 = 4, AI a1 a2 =
/// 2, total 6. The view of h7 at 12:00 on 03-17 is past the window's end.
fn views() -> Vec<String> {
    [
        ("2025-03-03T11:59:00Z", "/guides/setup", "h9", "human"),
        ("2025-03-04T09:00:00Z", "/guides/setup", "h1", "human"),
        ("2025-03-05T09:00:00Z", "/guides/setup", "h2", "human"),
        ("2025-03-06T09:00:00Z", "/guides/setup", "a1", "ai"),
        ("2025-03-06T10:00:00Z", "/faq", "h1", "human"),
        ("2025-03-07T10:00:00Z", "/", "h3", "human"),
        ("2025-03-08T10:00:00Z", "/", "h4", "human"),
        ("2025-03-10T12:00:00Z", "/guides/setup", "h5", "human"),
        ("2025-03-11T09:00:00Z", "/guides/setup", "h1", "human"),
        ("2025-03-12T09:00:00Z", "/guides/setup", "h6", "human"),
        ("2025-03-12T10:00:00Z", "/guides/setup", "a1", "ai"),
        ("2025-03-13T10:00:00Z", "/guides/setup", "a2", "ai"),
        ("2025-03-14T10:00:00Z", "/", "h3", "human"),
        ("2025-03-17T12:00:00Z", "/guides/setup", "h7", "human"),
    ]
    .iter()
    .map(|(ts, path, visitor, traffic)| view(ts, path, visitor, traffic))
    .collect()
}

/// The docs get a navigation file and the two pages it lists.
fn add_docs(repos: &Repos) {
    let clone = repos.clone_dir();
    std::fs::create_dir_all(clone.join("guides")).unwrap();
    std::fs::write(clone.join("index.mdx"), "# Acme\n").unwrap();
    std::fs::write(clone.join("guides/setup.mdx"), "# Setup\n\nInstall it.\n").unwrap();
    std::fs::write(
        clone.join("docs.json"),
        r#"{"name": "Acme", "navigation": {"groups": [{"group": "Start", "pages": ["index", "guides/setup"]}]}}"#,
    )
    .unwrap();
    git(&clone, &["add", "."]);
    git(&clone, &["commit", "--quiet", "-m", "Navigation"]);
    git(&clone, &["push", "--quiet", "origin", "main"]);
}

/// A fresh home, `db` (either store) holding [`views`], and `docdeck serve` on it with
/// `args`.
fn serve_over_views(db: DbLocation, args: &[&str]) -> (tempfile::TempDir, ServeProcess) {
    let home = tempfile::tempdir().unwrap();
    import_views_into(&db, common::PROJECT, &views());
    let service = ServeProcess::over_store(home.path(), &db, args);
    (home, service)
}

/// The docs repository of [`add_docs`], and a service over [`views`] in `db` whose real
/// agent runs the shell `script` in a clone of it.
fn real_agent(db: DbLocation, script: &str) -> (Repos, tempfile::TempDir, ServeProcess) {
    let repos = Repos::new();
    add_docs(&repos);
    let script = repos.script("agent.sh", script);
    let (home, service) = serve_over_views(
        db,
        &[
            "--repo",
            repos.clone_dir().to_str().unwrap(),
            "--agent-command",
            script.to_str().unwrap(),
        ],
    );
    (repos, home, service)
}

/// Merges the job's branch into main on the remote, with a merge commit made at `MERGED`.
fn merge(repos: &Repos, job: &str) {
    let clone = repos.clone_dir();
    git(&clone, &["fetch", "--quiet", "origin"]);
    let status = std::process::Command::new("git")
        .args(["merge", "--quiet", "--no-ff", "-m", "Merge the job"])
        .arg(format!("origin/docdeck/{job}"))
        .current_dir(&clone)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", MERGED)
        .env("GIT_COMMITTER_DATE", MERGED)
        .status()
        .unwrap();
    assert!(status.success());
    git(&clone, &["push", "--quiet", "origin", "main"]);
}

fn json_of(out: &std::process::Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn create(home: &Path, base_url: &str, prompt: &str) -> String {
    let out = run_cli(
        home,
        base_url,
        &[
            "jobs",
            "create",
            "--wait",
            "--timeout",
            "20s",
            "--format",
            "json",
            prompt,
        ],
    );
    let line = text(&out.stdout);
    let last: Value = serde_json::from_str(line.lines().last().unwrap()).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    last["id"].as_str().unwrap().to_owned()
}

on_both_stores_sync! {
    fn a_merged_job_of_the_real_agent_shows_its_pages_before_and_after_beside_the_site(db: DbLocation) {
        let (repos, home, service) = real_agent(
            db,
            "printf '\\nRun the installer first.\\n' >> guides/setup.mdx\nmkdir -p images && echo '<svg/>' > images/flow.svg",
        );
        let url = &service.base_url;
        let id = create(home.path(), url, PROMPT);

        // Not merged yet: said, with what to do, and nothing is fetched.
        let err = run_cli_failing(
            home.path(),
            url,
            &["jobs", "impact", &id, "--window", "7d"],
            1,
        );
        assert!(err.contains("not merged yet: the branch docdeck/"), "{err}");
        assert!(err.contains("is no GitHub pull request"), "{err}");
        assert!(err.contains("--merged-at"), "{err}");

        merge(&repos, &id);
        let args = ["jobs", "impact", &id[..8], "--window", "7d"];
        let out = run_cli(
            home.path(),
            url,
            &[&args[..], &["--format", "json"]].concat(),
        );
        let report = json_of(&out);
        assert_eq!(report["job"], id.as_str());
        assert_eq!(report["merged"]["at"], "2025-03-10T12:00:00.000Z");
        assert_eq!(report["merged"]["by"], "git");
        assert_eq!(
            report["before"],
            json!({"from": "2025-03-03T12:00:00.000Z", "to": "2025-03-10T12:00:00.000Z"})
        );
        assert_eq!(
            report["after"],
            json!({"from": "2025-03-10T12:00:00.000Z", "to": "2025-03-17T12:00:00.000Z"})
        );
        assert_eq!(
            report["window"],
            json!({"askedSeconds": 604_800, "seconds": 604_800, "shortened": false})
        );
        let counts = |h: u64, a: u64, t: u64| json!({"human": h, "ai": a, "total": t});
        assert_eq!(
            report["site"],
            json!({"before": counts(4, 1, 5), "after": counts(4, 2, 6)})
        );
        assert_eq!(
            report["pages"],
            json!([
                {"path": "/guides/setup", "from": "change+marked", "before": counts(2, 1, 3), "after": counts(3, 2, 5)},
                {"path": "/faq", "from": "marked", "before": counts(1, 0, 1), "after": counts(0, 0, 0)},
            ])
        );
        assert_eq!(
            report["files"],
            json!([
                {"file": "guides/setup.mdx", "page": "/guides/setup", "foundBy": "navigation"},
                {"file": "images/flow.svg", "page": null, "foundBy": null},
            ])
        );
        assert!(
            report["caveat"]
                .as_str()
                .unwrap()
                .contains("not the change's effect")
        );

        let csv = run_cli(
            home.path(),
            url,
            &[&args[..], &["--format", "csv"]].concat(),
        );
        assert_eq!(
            text(&csv.stdout),
            "row,path,from,human_before,human_after,ai_before,ai_after,total_before,total_after\n\
             page,/guides/setup,change+marked,2,3,1,2,3,5\n\
             page,/faq,marked,1,0,0,0,1,0\n\
             site,,,4,4,1,2,5,6\n"
        );

        let table = cli_command(home.path(), url, KEY)
            .args(args)
            .args(["--format", "table"])
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        let table = text(&table.stdout);
        assert!(
            table.contains(&format!(
                "Job {id}: merged 2025-03-10 12:00 UTC (git: merge commit "
            )),
            "{table}"
        );
        assert!(
            table.contains("in the 7 days before the merge (2025-03-03 12:00 to 2025-03-10 12:00 UTC)"),
            "{table}"
        );
        let row = |path: &str| {
            table
                .lines()
                .find(|line| line.starts_with(path))
                .unwrap_or_else(|| panic!("no row {path}: {table}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            row("/guides/setup"),
            "/guides/setup change+marked 2 → 3 +1 (+50.0%) 1 → 2 +1 (+100.0%)"
        );
        assert_eq!(row("/faq"), "/faq marked 1 → 0 -1 (gone) 0 → 0 ±0");
        assert_eq!(
            row("(whole site)"),
            "(whole site) 4 → 4 ±0 (0.0%) 1 → 2 +1 (+100.0%)"
        );
        assert_eq!(
            table.matches("not the change's effect").count(),
            1,
            "{table}"
        );

        // A second job merged by a fast-forward: git keeps no time for it, and says so.
        let second = create(home.path(), url, PROMPT);
        let clone = repos.clone_dir();
        git(&clone, &["fetch", "--quiet", "origin"]);
        git(
            &clone,
            &[
                "merge",
                "--quiet",
                "--ff-only",
                &format!("origin/docdeck/{second}"),
            ],
        );
        git(&clone, &["push", "--quiet", "origin", "main"]);
        let err = run_cli_failing(home.path(), url, &["jobs", "impact", &second], 1);
        assert!(
            err.contains("git: the change reached main by a fast-forward"),
            "{err}"
        );
        // Merged already: the hint does not say to wait for the merge (it did, in a trial).
        assert!(!err.contains("Once it is merged"), "{err}");
        assert!(err.contains("if it is (a fast-forward or squash"), "{err}");
    }
}

on_both_stores_sync! {
    /// The simulated agent keeps no change: the marked pages alone, and the merge only when
    /// given; with no page marked either, it says there is nothing to show.
    fn without_the_change_the_marked_pages_are_shown_once_the_merge_time_is_given(db: DbLocation) {
        let (home, service) = serve_over_views(
            db,
            &[
                "--agent-delay-ms",
                "30",
                "--agent-outcomes",
                "pr=1,nochange=0,fail=0",
            ],
        );
        let url = &service.base_url;
        let id = create(home.path(), url, PROMPT);
        let err = run_cli_failing(home.path(), url, &["jobs", "impact", &id], 1);
        assert!(err.contains("cannot tell when job"), "{err}");
        assert!(err.contains("git: the service does not say"), "{err}");
        assert!(err.contains("GitHub: "), "{err}");

        let given = [
            "jobs",
            "impact",
            &id,
            "--window",
            "7d",
            "--merged-at",
            MERGED,
            "--format",
            "json",
        ];
        let report = json_of(&run_cli(home.path(), url, &given));
        assert_eq!(report["merged"]["by"], "given");
        let paths: Vec<&str> = report["pages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["/faq", "/guides/setup"]);
        assert_eq!(report["pages"][1]["after"]["human"], 3);
        assert_eq!(report["files"], json!([]));
        // Two requests, one a window, counted in the hour's budget; the refused run before
        // sent none.
        let journal = docdeck::journal::Journal::open(&common::journal_path(home.path())).unwrap();
        let scope = docdeck::journal::Scope {
            service: url.clone(),
            project: common::PROJECT.into(),
        };
        let budget = journal
            .analytics_budget(&scope, 100, chrono::Utc::now())
            .unwrap();
        assert_eq!(budget.used(), 2);

        let plain = create(home.path(), url, "Fix the typos in the quickstart");
        let err = run_cli_failing(
            home.path(),
            url,
            &["jobs", "impact", &plain, "--merged-at", MERGED],
            1,
        );
        assert!(err.contains("has no page to show"), "{err}");
        assert!(err.contains("does not say which files"), "{err}");

        let err = run_cli_failing(
            home.path(),
            url,
            &["jobs", "impact", &id, "--window", "0s"],
            2,
        );
        assert!(err.contains("is not a window"), "{err}");
        let err = run_cli_failing(
            home.path(),
            url,
            &["jobs", "impact", &id, "--merged-at", "2099-01-01"],
            2,
        );
        assert!(err.contains("is in the future"), "{err}");
        // More rows than --max-rows holds: impact's own advice, and times as people read them
        // (it said "page through it with --page", which impact has not, and showed nanoseconds).
        let err = run_cli_failing(
            home.path(),
            url,
            &[
                "jobs",
                "impact",
                &id,
                "--merged-at",
                MERGED,
                "--max-rows",
                "1",
            ],
            1,
        );
        assert!(
            err.contains("use a shorter --window or a higher --max-rows"),
            "{err}"
        );
        assert!(!err.contains("--page"), "{err}");
        assert!(err.contains(" UTC to ") || err.contains(" UTC "), "{err}");
    }
}

/// A request the scripted GitHub received: its path and its Authorization header.
type Call = (String, Option<String>);

#[derive(Clone, Default)]
struct Peer {
    calls: Arc<Mutex<Vec<Call>>>,
}

/// GitHub's pull request 1 of acme/docs, merged at `MERGED`.
async fn pulls(State(peer): State<Peer>, uri: Uri, headers: HeaderMap) -> (StatusCode, String) {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    peer.calls
        .lock()
        .unwrap()
        .push((uri.path().to_owned(), auth));
    if uri.path() == "/repos/acme/docs/pulls/1" {
        (
            StatusCode::OK,
            json!({"number": 1, "state": "closed", "merged_at": MERGED}).to_string(),
        )
    } else {
        (
            StatusCode::NOT_FOUND,
            json!({"message": "Not Found"}).to_string(),
        )
    }
}

on_both_stores_multi! {
    async fn the_merge_time_comes_from_the_pull_request_on_github_with_a_token(db: DbLocation) {
        let peer = Peer::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let app = Router::new().fallback(pulls).with_state(peer.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });

        let (home, service) = serve_over_views(
            db,
            &[
                "--agent-delay-ms",
                "30",
                "--agent-outcomes",
                "pr=1,nochange=0,fail=0",
                "--repository",
                "https://github.com/acme/docs",
            ],
        );
        let url = service.base_url.clone();
        let home_path = home.path().to_owned();
        let out = tokio::task::spawn_blocking(move || {
            let id = create(&home_path, &url, PROMPT);
            let run = |token: Option<&str>| {
                let mut command = cli_command(&home_path, &url, KEY);
                command
                    .args(["jobs", "impact", &id, "--window", "7d", "--format", "json"])
                    .env("DOCDECK_GITHUB_API_URL", format!("http://{addr}"))
                    .env_remove("GITHUB_TOKEN");
                if let Some(token) = token {
                    command.env("GITHUB_TOKEN", token);
                }
                command.output().unwrap()
            };
            (run(None), run(Some("ghp_impactTestToken42")))
        })
        .await
        .unwrap();
        let (without, with) = out;
        let err = text(&without.stderr);
        assert_eq!(without.status.code(), Some(1), "{err}");
        assert!(err.contains("GitHub: no GITHUB_TOKEN"), "{err}");
        let report = json_of(&with);
        assert_eq!(
            report["merged"],
            json!({"at": "2025-03-10T12:00:00.000Z", "by": "github", "what": "pull request #1"})
        );
        assert_eq!(report["site"]["after"]["total"], 6);
        let calls = peer.calls.lock().unwrap().clone();
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].0, "/repos/acme/docs/pulls/1");
        assert_eq!(calls[0].1.as_deref(), Some("Bearer ghp_impactTestToken42"));
        assert!(
            !text(&with.stderr).contains("ghp_"),
            "the token is never printed"
        );
    }
}

/// A service that refuses an unknown query parameter (the hosted one may): the job is
/// read again without `include=change`, and has no change.
#[tokio::test]
async fn a_service_that_refuses_include_change_is_read_without_it() {
    async fn strict(uri: Uri) -> (StatusCode, String) {
        if uri.query().is_some() {
            let body = json!({"error": "Unknown query parameter: include"});
            return (StatusCode::BAD_REQUEST, body.to_string());
        }
        let job = json!({"id": "job_1", "status": "completed", "prLink": null});
        (StatusCode::OK, job.to_string())
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, Router::new().fallback(strict)).await });
    let client = common::client_with(&format!("http://{addr}"), common::PROJECT, KEY);
    let job = client.get_job_with_change("job_1").await.unwrap();
    assert_eq!(job.id.as_deref(), Some("job_1"));
    assert_eq!(job.change, None);
}

on_both_stores_multi! {
    /// The console's "Did the change help?" is the CLI's: the same merged job of the real
    /// agent, read with `i` in its detail (the console on the same journal, so the pages
    /// its first prompt marks are known), gives the numbers `docdeck jobs impact --format
    /// json` prints, and costs a few analytics requests, once.
    async fn the_consoles_impact_equals_the_clis_json(db: DbLocation) {
        use crossterm::event::KeyCode;
        use docdeck::journal::{ANALYTICS_HOURLY_LIMIT, Journal};
        use docdeck::tui::app::ImpactLoad;

        docdeck::api::client::install_crypto_provider();
        let (repos, home, service) = real_agent(
            db,
            "printf '\\nRun the installer first.\\n' >> guides/setup.mdx",
        );
        let url = service.base_url.clone();
        let id = create(home.path(), &url, PROMPT);
        merge(&repos, &id);
        let cli = json_of(&run_cli(
            home.path(),
            &url,
            &["jobs", "impact", &id, "--format", "json"],
        ));

        let journal = Arc::new(Mutex::new(
            Journal::open(&common::journal_path(home.path())).unwrap(),
        ));
        let mut console = common::console::Console::open_at(
            &url,
            std::time::Duration::from_secs(3),
            Arc::clone(&journal),
            "false",
            (120, 40),
        );
        let scope = console.scope.clone();
        let short = &id[..12];
        console
            .wait_for("the job", |s| s.contains(short) && s.contains("completed"))
            .await;
        let used_before = journal
            .lock()
            .unwrap()
            .analytics_budget(&scope, ANALYTICS_HOURLY_LIMIT, chrono::Utc::now())
            .unwrap()
            .used();
        console.key(KeyCode::Enter);
        console
            .wait_for("the detail", |s| s.contains("Did the change help?"))
            .await;
        console.key(KeyCode::Char('i'));
        let screen = console
            .wait_for("the impact", |s| s.contains("(whole site)"))
            .await;
        assert!(screen.contains("/guides/setup"), "{screen}");
        let app = console.quit().await;
        let Some(ImpactLoad::Read(read)) = app.jobs.impacts.of(&id) else {
            panic!("{:?}", app.jobs.impacts.of(&id))
        };
        let counts =
            |t: docdeck::api::VisitorTotals| json!({"human": t.human, "ai": t.ai, "total": t.total});
        assert_eq!(
            json!({"before": counts(read.impact.site_before), "after": counts(read.impact.site_after)}),
            cli["site"]
        );
        let pages: Vec<Value> = read
            .impact
            .pages
            .iter()
            .map(|p| {
                json!({"path": p.path, "from": p.sources.words(), "before": counts(p.before), "after": counts(p.after)})
            })
            .collect();
        assert_eq!(Value::from(pages), cli["pages"]);
        assert_eq!(
            docdeck::api::format_timestamp(&read.merge.at),
            cli["merged"]["at"].as_str().unwrap()
        );
        assert_eq!(read.merge.by, "git");
        assert_eq!(
            docdeck::api::format_timestamp(&read.windows.before.0),
            cli["before"]["from"].as_str().unwrap()
        );
        assert_eq!(
            docdeck::api::format_timestamp(&read.windows.after.1),
            cli["after"]["to"].as_str().unwrap()
        );
        // Both windows of this small site: one request each.
        let used = journal
            .lock()
            .unwrap()
            .analytics_budget(&scope, ANALYTICS_HOURLY_LIMIT, chrono::Utc::now())
            .unwrap()
            .used();
        assert_eq!(used - used_before, 2, "two windows, 250 rows a request");
        drop(service);
    }
}

/// Found by a trial: a merge time in the future failed with exit 1 after reading the job,
/// and a negative window was taken for an unknown flag `-3`. Both are mistakes in how
/// docdeck was called (exit 2), said before anything is sent.
#[test]
fn a_merge_in_the_future_and_a_negative_window_are_usage_mistakes() {
    let home = tempfile::tempdir().unwrap();
    let future = common::docdeck_command(home.path())
        .args(["jobs", "impact", "job_abc123", "--merged-at", "2030-01-01"])
        .output()
        .unwrap();
    assert_eq!(future.status.code(), Some(2), "{}", text(&future.stderr));
    let said = text(&future.stderr);
    assert!(
        said.contains("--merged-at 2030-01-01T00:00:00Z is in the future"),
        "{said}"
    );
    let negative = common::docdeck_command(home.path())
        .args(["jobs", "impact", "job_abc123", "--window", "-3d"])
        .output()
        .unwrap();
    assert_eq!(
        negative.status.code(),
        Some(2),
        "{}",
        text(&negative.stderr)
    );
    let said = text(&negative.stderr);
    assert!(said.contains("\"-3d\" is not a window"), "{said}");
}
