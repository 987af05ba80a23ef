//! docdeck against a small fake server that answers the way an outside server did (a
//! Prism mock of the public document, or a proxy or bug upstream): paging that never
//! ends, an answer about another job, a reused job id, a job years old, and 404s from
//! the wrong place. Each fake is a std `TcpListener` on port 0 in this process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use common::console::{Console, flat, line_with};
use common::{KEY, PROJECT, cli_command, text};
use crossterm::event::KeyCode;
use docdeck::api::{ApiError, PagingFault, VisitorsQuery};
use docdeck::journal::{Journal, Scope, SubmissionKind};

/// How long one CLI run may take against a fake: a loop that never ends fails here.
const RUN_LIMIT: Duration = Duration::from_secs(15);

/// An answer of the fake: status and body (`application/json` unless it starts with `<`).
type Reply = (u16, String);

/// A fake service: every request goes to `route(method, target)`.
struct Fake {
    base_url: String,
    hits: Arc<AtomicUsize>,
}

fn fake(route: impl Fn(&str, &str) -> Reply + Send + Sync + 'static) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let (route, counter) = (Arc::new(route), Arc::clone(&hits));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            let (route, counter) = (Arc::clone(&route), Arc::clone(&counter));
            std::thread::spawn(move || answer(stream, route.as_ref(), &counter));
        }
    });
    Fake { base_url, hits }
}

/// Reads one request (head and body) and answers it, closing the connection after.
fn answer(mut stream: TcpStream, route: &dyn Fn(&str, &str) -> Reply, hits: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).unwrap_or(0) == 0 {
        return;
    }
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    hits.fetch_add(1, Ordering::SeqCst);
    let mut parts = first.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, body) = route(method, target);
    let kind = if body.starts_with('<') {
        "text/html"
    } else {
        "application/json"
    };
    let response = format!(
        "HTTP/1.1 {status} Fake\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}

fn job_json(id: &str, created: chrono::DateTime<Utc>) -> String {
    serde_json::json!({
        "id": id, "status": "active", "model": "fake",
        "source": {"repository": "https://github.com/acme/docs", "ref": "main"},
        "prLink": null, "createdAt": created.to_rfc3339(), "archivedAt": null,
    })
    .to_string()
}

/// A page of `rows` rows named after `offset`, with `hasMore` as given.
fn page_json(offset: u64, rows: u64, has_more: bool) -> String {
    let visitors: Vec<_> = (0..rows)
        .map(|i| serde_json::json!({"path": format!("/p{}", offset + i), "human": 1, "ai": 0, "total": 1}))
        .collect();
    serde_json::json!({
        "totals": {"human": 9, "ai": 0, "total": 9}, "visitors": visitors, "hasMore": has_more,
    })
    .to_string()
}

fn query_value(target: &str, name: &str) -> Option<u64> {
    let query = target.split_once('?')?.1;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .and_then(|value| value.parse().ok())
}

/// Runs the CLI against `base_url` in `home`, failing the test if it has not ended within
/// [`RUN_LIMIT`] (it is killed then).
fn run(home: &std::path::Path, base_url: &str, args: &[&str]) -> Output {
    let child = cli_command(home, base_url, KEY)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("docdeck runs");
    let pid = child.id();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match finished.recv_timeout(RUN_LIMIT) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            common::signal(pid, "-KILL");
            panic!("docdeck {args:?} did not end within {RUN_LIMIT:?}");
        }
    }
}

/// Exit 1 with exactly one stderr line, which contains every one of `words`.
fn assert_one_line_failure(output: &Output, words: &[&str]) -> String {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    for word in words {
        assert!(stderr.contains(word), "{word:?} missing from {stderr}");
    }
    stderr
}

#[test]
fn visitors_all_ends_quickly_on_paging_that_never_ends() {
    // Each fake says `hasMore: true` forever; only the pages differ.
    let repeating = fake(|_, _| (200, page_json(0, 2, true)));
    let short = fake(|_, target| {
        (
            200,
            page_json(query_value(target, "offset").unwrap_or(0), 7, true),
        )
    });
    let endless = fake(|_, target| {
        let offset = query_value(target, "offset").unwrap_or(0);
        let limit = query_value(target, "limit").unwrap_or(50);
        (200, page_json(offset, limit, true))
    });
    let home = tempfile::tempdir().unwrap();
    let cases: [(&Fake, &[&str], &[&str], usize); 3] = [
        (&repeating, &["--limit", "2"], &["offset 2", "same rows"], 2),
        (&short, &[], &["offset 0", "7 rows where 250"], 1),
        (
            &endless,
            &["--limit", "3"],
            &["offset 300", "after 100 pages"],
            100,
        ),
    ];
    for (fake, extra, words, requests) in cases {
        let mut args = vec!["visitors", "--all"];
        args.extend_from_slice(extra);
        let output = run(home.path(), &fake.base_url, &args);
        assert_one_line_failure(&output, words);
        assert!(
            output.stdout.is_empty(),
            "no partial table passes for the whole"
        );
        assert_eq!(fake.hits.load(Ordering::SeqCst), requests, "{words:?}");
    }
}

#[tokio::test]
async fn an_export_that_stops_keeps_the_rows_it_had() {
    let fake = fake(|_, target| {
        let offset = query_value(target, "offset").unwrap_or(0);
        (200, page_json(offset.min(4), 4, true))
    });
    let client = common::client_with(&fake.base_url, PROJECT, KEY);
    let query = VisitorsQuery {
        limit: Some(4),
        ..VisitorsQuery::default()
    };
    let mut seen = 0;
    let incomplete = client
        .visitors_all(&query, |page| seen += page.visitors.len())
        .await
        .unwrap_err();
    assert_eq!(
        incomplete.error,
        ApiError::BrokenPaging {
            offset: 8,
            fault: PagingFault::Repeated
        }
    );
    let kept = incomplete.kept.expect("the rows of the good pages");
    let paths: Vec<_> = kept.visitors.iter().map(|row| row.path.as_str()).collect();
    assert_eq!(
        paths,
        ["/p0", "/p1", "/p2", "/p3", "/p4", "/p5", "/p6", "/p7"]
    );
    assert_eq!(seen, 8, "progress saw exactly the rows kept");
    assert_eq!(fake.hits.load(Ordering::SeqCst), 3);
}

#[test]
fn a_follow_up_answered_about_another_job_is_refused() {
    let fake = fake(|method, target| {
        let created = Utc::now();
        match (method, target) {
            ("GET", "/v2/agent/demo/job/job_a") => (200, job_json("job_a", created)),
            ("POST", "/v2/agent/demo/job/job_a/message") => (200, job_json("job_b", created)),
            _ => (404, r#"{"error":"Job not found"}"#.to_owned()),
        }
    });
    let home = tempfile::tempdir().unwrap();
    let tracked = run(home.path(), &fake.base_url, &["jobs", "track", "job_a"]);
    assert!(tracked.status.success(), "{}", text(&tracked.stderr));
    let sent = run(
        home.path(),
        &fake.base_url,
        &["jobs", "message", "job_a", "more"],
    );
    let stderr = text(&sent.stderr);
    assert_eq!(sent.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("job job_a") && stderr.contains("job job_b"),
        "{stderr}"
    );
    assert!(stderr.contains("MAY HAVE BEEN RECEIVED"), "{stderr}");
    let list = run(
        home.path(),
        &fake.base_url,
        &["jobs", "list", "--format", "csv"],
    );
    let list = text(&list.stdout);
    assert!(list.contains("job_a") && !list.contains("job_b"), "{list}");
}

#[test]
fn a_create_answered_with_a_known_id_is_refused_and_the_first_job_kept() {
    let fake = fake(|method, _| match method {
        "POST" => (201, job_json("job_same", Utc::now())),
        _ => (200, job_json("job_same", Utc::now())),
    });
    let home = tempfile::tempdir().unwrap();
    let first = run(
        home.path(),
        &fake.base_url,
        &["jobs", "create", "fix the links"],
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let second = run(
        home.path(),
        &fake.base_url,
        &["jobs", "create", "add a FAQ"],
    );
    let stderr = text(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("job job_same"), "{stderr}");
    assert!(stderr.contains("MAY HAVE BEEN CREATED"), "{stderr}");
    let list = run(
        home.path(),
        &fake.base_url,
        &["jobs", "list", "--format", "table"],
    );
    let list = text(&list.stdout);
    assert!(
        line_with(&list, "job_same").is_some_and(|line| line.contains("fix the links")),
        "{list}"
    );
    assert!(!list.contains("add a FAQ"), "{list}");
}

#[tokio::test]
async fn the_console_says_so_when_a_new_job_has_a_known_id() {
    let fake = fake(|method, target| match (method, target) {
        (_, t) if t.contains("/visitors") => (200, page_json(0, 0, false)),
        ("POST", _) => (201, job_json("job_same", Utc::now())),
        _ => (200, job_json("job_same", Utc::now())),
    });
    let journal = Journal::open_in_memory().unwrap();
    let journal = Arc::new(Mutex::new(journal));
    {
        let scope = Scope {
            service: fake.base_url.clone(),
            project: PROJECT.into(),
        };
        let mut j = journal.lock().unwrap();
        let job = serde_json::from_str(&job_json("job_same", Utc::now())).unwrap();
        let sub = j
            .begin_submission(
                &scope,
                SubmissionKind::Create,
                None,
                "fix the links",
                Utc::now(),
            )
            .unwrap();
        j.submission_accepted(&scope, sub, &job, Utc::now())
            .unwrap();
    }
    let mut console = Console::open_at(
        &fake.base_url,
        Duration::from_secs(60),
        Arc::clone(&journal),
        "false",
        (120, 40),
    );
    console
        .wait_for("the known job", |s| s.contains("fix the links"))
        .await;
    console.key(KeyCode::Char('n'));
    console
        .wait_for("the composer", |s| s.contains("New job"))
        .await;
    console.type_text("add a FAQ");
    console.ctrl('s');
    let screen = console
        .wait_for("the refusal", |s| flat(s).contains("cannot be trusted"))
        .await;
    assert!(flat(&screen).contains("job job_same"), "{screen}");
    console.quit().await;
    let scope = Scope {
        service: fake.base_url.clone(),
        project: PROJECT.into(),
    };
    let tracked = journal.lock().unwrap().tracked(&scope).unwrap();
    assert_eq!(tracked.len(), 1);
    assert_eq!(tracked[0].first_prompt.as_deref(), Some("fix the links"));
}

#[test]
fn a_job_years_old_shows_its_age_with_a_unit() {
    let created = Utc::now() - TimeDelta::days(1_057);
    let fake = fake(move |_, _| (201, job_json("job_old", created)));
    let home = tempfile::tempdir().unwrap();
    let made = run(home.path(), &fake.base_url, &["jobs", "create", "old"]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let list = run(
        home.path(),
        &fake.base_url,
        &["jobs", "list", "--format", "table"],
    );
    let list = text(&list.stdout);
    let row = line_with(&list, "job_old").unwrap_or_default();
    assert!(row.contains(" 2y ") && !row.contains("1057"), "{list}");
}

#[test]
fn a_404_says_what_to_check_from_what_was_asked_and_who_answered() {
    let html = fake(|_, _| (404, "<html><h1>Not Found</h1></html>".to_owned()));
    let json = fake(|_, _| (404, r#"{"error":"Not found"}"#.to_owned()));
    let home = tempfile::tempdir().unwrap();
    for args in [&["visitors"][..], &["jobs", "get", "job_x"]] {
        let output = run(home.path(), &html.base_url, args);
        let line = assert_one_line_failure(&output, &["404", "--base-url"]);
        assert!(!line.contains("job id"), "{line}");
    }
    let visitors = run(home.path(), &json.base_url, &["visitors"]);
    let line = assert_one_line_failure(&visitors, &["404", "project id"]);
    assert!(!line.contains("job id"), "{line}");
    let job = run(home.path(), &json.base_url, &["jobs", "get", "job_x"]);
    assert_one_line_failure(&job, &["404", "check the job id and the project id"]);
}
