//! `docdeck serve` with the real agent, as a process: what the agent's environment holds
//! (and never holds), pull requests through GitHub's REST API against a scripted local
//! peer that records every call (both on SQLite and on PostgreSQL), and the flags'
//! refusals (made before any store is opened).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;
mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use agent_common::Repos;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use common::{KEY, ServeProcess, db_arg, docdeck_command, run_cli, text};
use docdeck::server::db::DbLocation;
use serde_json::{Value, json};

const TOKEN: &str = "ghp_docdeckTestToken0123456789";
const OTHER_KEY: &str = "mint_other_secret_key_42";

/// One request the scripted GitHub received.
#[derive(Debug, Clone)]
struct Call {
    method: Method,
    path: String,
    query: Option<String>,
    auth: Option<String>,
    body: Value,
}

#[derive(Clone, Default)]
struct Peer {
    calls: Arc<Mutex<Vec<Call>>>,
}

/// GitHub as far as docdeck uses it: the first create succeeds, later ones answer 422
/// "already exists", the lookup finds pull request 7, and an update succeeds.
async fn github(
    State(peer): State<Peer>,
    method: Method,
    uri: Uri,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let call = Call {
        method: method.clone(),
        path: uri.path().to_owned(),
        query,
        auth: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let created_before = {
        let mut calls = peer.calls.lock().unwrap();
        let before = calls.iter().any(|c| c.method == Method::POST);
        calls.push(call);
        before
    };
    let pr = json!({"number": 7, "html_url": "https://github.example/acme/docs/pull/7"});
    let reply = match (method, created_before) {
        (Method::POST, false) => (StatusCode::CREATED, pr),
        (Method::POST, true) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"message": "Validation Failed", "errors": [{"message": "A pull request already exists for acme:docdeck/x."}]}),
        ),
        (Method::GET, _) => (StatusCode::OK, json!([pr])),
        _ => (StatusCode::OK, pr),
    };
    (reply.0, reply.1.to_string())
}

async fn start_peer() -> (Peer, SocketAddr) {
    let peer = Peer::default();
    let app = Router::new().fallback(github).with_state(peer.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (peer, addr)
}

fn env_dump_agent(repos: &Repos) -> std::path::PathBuf {
    let dump = repos.trace("env");
    repos.script(
        "env.sh",
        &format!(
            "env > {dump}-$DOCDECK_TURN\necho \"$DOCDECK_PROMPT\" >> intro.mdx",
            dump = dump.display()
        ),
    )
}

on_both_stores_sync! {
    fn the_agent_gets_path_home_lang_the_named_variables_and_its_turn_and_no_secret(db: DbLocation) {
        let repos = Repos::new();
        let home = tempfile::tempdir().unwrap();
        let script = env_dump_agent(&repos);
        let service = ServeProcess::spawn_env(
            home.path(),
            &[
                "--db",
                &db_arg(&db),
                "--seed",
                "none",
                "--api-key",
                KEY,
                "--repo",
                repos.clone_dir().to_str().unwrap(),
                "--agent-command",
                &format!("'{}' --flag", script.display()),
                "--agent-env",
                "ANTHROPIC_API_KEY",
            ],
            &[
                ("GITHUB_TOKEN", TOKEN),
                ("DOCDECK_API_KEY", OTHER_KEY),
                ("ANTHROPIC_API_KEY", "passed-through"),
                ("UNRELATED", "left-behind"),
                ("LANG", "C.UTF-8"),
            ],
        );
        let out = run_cli(
            home.path(),
            &service.base_url,
            &[
                "jobs",
                "create",
                "--wait",
                "--timeout",
                "20s",
                "--format",
                "json",
                "Mention the env",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let env = std::fs::read_to_string(repos.trace("env-1")).unwrap();
        let names: Vec<&str> = env
            .lines()
            .filter_map(|l| l.split_once('=').map(|p| p.0))
            .collect();
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "ANTHROPIC_API_KEY",
            "DOCDECK_PROMPT",
            "DOCDECK_PROMPT_FILE",
            "DOCDECK_JOB_ID",
            "DOCDECK_TURN",
        ] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        assert!(env.contains("DOCDECK_PROMPT=Mention the env"), "{env}");
        assert!(env.contains("DOCDECK_TURN=1"), "{env}");
        assert!(env.contains("ANTHROPIC_API_KEY=passed-through"), "{env}");
        for secret in [TOKEN, OTHER_KEY, KEY, "left-behind"] {
            assert!(!env.contains(secret), "{secret} reached the agent:\n{env}");
        }
        let allowed = [
            "PATH",
            "HOME",
            "LANG",
            "ANTHROPIC_API_KEY",
            "DOCDECK_PROMPT",
            "DOCDECK_PROMPT_FILE",
            "DOCDECK_JOB_ID",
            "DOCDECK_TURN",
            "PWD",
            "SHLVL",
            "_",
            "OLDPWD",
        ];
        let extra: Vec<&&str> = names.iter().filter(|n| !allowed.contains(n)).collect();
        assert!(extra.is_empty(), "unexpected variables {extra:?}");
    }
}

on_both_stores_kept! {
    async fn github_pull_requests_are_created_then_found_and_updated_and_the_token_stays_hidden(db: DbLocation) {
        let (peer, addr) = start_peer().await;
        let repos = Repos::new();
        let home = tempfile::tempdir().unwrap();
        let script = env_dump_agent(&repos);
        let api = format!("http://{addr}");
        let mut service = ServeProcess::spawn_env(
            home.path(),
            &[
                "--db",
                &db_arg(&db),
                "--seed",
                "none",
                "--api-key",
                KEY,
                "--repo",
                repos.clone_dir().to_str().unwrap(),
                "--agent-command",
                script.to_str().unwrap(),
                "--forge",
                "github",
            ],
            &[
                ("GITHUB_TOKEN", TOKEN),
                ("DOCDECK_GITHUB_API_URL", &api),
                ("DOCDECK_LOG", "debug"),
            ],
        );
        let base_url = service.base_url.clone();
        let home_path = home.path().to_path_buf();
        let run = move |args: Vec<String>| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run_cli(&home_path, &base_url, &args)
        };
        let created = tokio::task::spawn_blocking({
            let run = run.clone();
            move || {
                run(vec![
                    "jobs".into(),
                    "create".into(),
                    "--wait".into(),
                    "--timeout".into(),
                    "20s".into(),
                    "--format".into(),
                    "json".into(),
                    "Document the CLI".into(),
                ])
            }
        })
        .await
        .unwrap();
        assert_eq!(created.status.code(), Some(0), "{}", text(&created.stderr));
        let job: Value = serde_json::from_str(text(&created.stdout).lines().last().unwrap()).unwrap();
        let id = job["id"].as_str().unwrap().to_owned();
        assert_eq!(job["prLink"], "https://github.example/acme/docs/pull/7");

        let follow = tokio::task::spawn_blocking({
            let id = id.clone();
            move || {
                run(vec![
                    "jobs".into(),
                    "message".into(),
                    id,
                    "--wait".into(),
                    "--timeout".into(),
                    "20s".into(),
                    "--format".into(),
                    "json".into(),
                    "Also the flags".into(),
                ])
            }
        })
        .await
        .unwrap();
        assert_eq!(follow.status.code(), Some(0), "{}", text(&follow.stderr));
        let job: Value = serde_json::from_str(text(&follow.stdout).lines().last().unwrap()).unwrap();
        assert_eq!(job["prLink"], "https://github.example/acme/docs/pull/7");

        let calls = peer.calls.lock().unwrap().clone();
        let shape: Vec<(Method, &str)> = calls
            .iter()
            .map(|c| (c.method.clone(), c.path.as_str()))
            .collect();
        assert_eq!(
            shape,
            [
                (Method::POST, "/repos/acme/docs/pulls"),
                (Method::POST, "/repos/acme/docs/pulls"),
                (Method::GET, "/repos/acme/docs/pulls"),
                (Method::PATCH, "/repos/acme/docs/pulls/7"),
            ]
        );
        for call in &calls {
            assert_eq!(
                call.auth.as_deref(),
                Some(format!("Bearer {TOKEN}").as_str())
            );
        }
        let branch = format!("docdeck/{id}");
        assert_eq!(calls[0].body["head"], branch.as_str());
        assert_eq!(calls[0].body["base"], "main");
        assert_eq!(calls[0].body["title"], "Document the CLI");
        assert_eq!(
            calls[2].query.as_deref(),
            Some(format!("head=acme:{branch}&state=open").as_str())
        );
        let body = calls[3].body["body"].as_str().unwrap();
        assert!(
            body.contains("1. Document the CLI") && body.contains("2. Also the flags"),
            "{body}"
        );
        assert!(agent_common::git(&repos.remote(), &["branch", "--list", &branch]).contains(&branch));

        let _ = service.child.kill();
        let _ = service.child.wait();
        let logs: Vec<String> = service.stderr.try_iter().collect();
        assert!(
            logs.iter().any(|l| l.contains("agent turn started")),
            "{logs:?}"
        );
        assert!(
            logs.iter().all(|l| !l.contains(TOKEN)),
            "the token is in a log line"
        );
        for clone in [repos.clone_dir(), agent_common::docdeck_clone(home.path())] {
            let config = std::fs::read_to_string(clone.join(".git").join("config")).unwrap();
            assert!(
                !config.contains(TOKEN) && !config.contains("extraheader"),
                "{config}"
            );
        }
        for turn in ["env-1", "env-2"] {
            let env = std::fs::read_to_string(repos.trace(turn)).unwrap();
            assert!(!env.contains(TOKEN) && !env.contains("GIT_CONFIG"), "{env}");
        }
    }
}

#[test]
fn the_real_agent_refuses_a_non_loopback_address_and_half_its_flags() {
    let home = tempfile::tempdir().unwrap();
    let repos = Repos::new();
    let repo = repos.clone_dir();
    let run = |args: &[&str]| {
        docdeck_command(home.path())
            .env_remove("GITHUB_TOKEN")
            .args(["serve", "--db", ":memory:", "--seed", "none"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[
        "--addr",
        "0.0.0.0:0",
        "--repo",
        repo.to_str().unwrap(),
        "--agent-command",
        "true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("--allow-remote-agent") && err.contains("loopback"),
        "{err}"
    );

    let out = run(&["--agent-command", "claude -p"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--repo"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&[
        "--addr",
        "127.0.0.1:0",
        "--repo",
        repo.to_str().unwrap(),
        "--agent-command",
        "no-such-agent-xyz -p",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("not found on PATH"), "{err}");

    let out = run(&[
        "--addr",
        "127.0.0.1:0",
        "--repo",
        "/no/such/folder",
        "--agent-command",
        "true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no such folder"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&[
        "--repo",
        repo.to_str().unwrap(),
        "--agent-command",
        "true",
        "--agent-env",
        "GITHUB_TOKEN",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("never reaches"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&[
        "--addr",
        "127.0.0.1:0",
        "--repo",
        repo.to_str().unwrap(),
        "--agent-command",
        "true",
        "--forge",
        "github",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("GITHUB_TOKEN"),
        "{}",
        text(&out.stderr)
    );
}
