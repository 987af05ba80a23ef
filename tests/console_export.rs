//! The console's export against a service that pages without end: the status line says
//! where and why it stopped, the rows fetched are kept in a file of their own, and the
//! console goes on. The local service never does this, so a small fake one does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossterm::event::KeyCode;
use docdeck::journal::Journal;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use common::console::Console;

/// A service whose first page of visitors is full and says there is more, and whose
/// every later page is empty yet still says there is more. Counts the requests.
async fn endless_pager() -> (String, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&requests);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                counter.fetch_add(1, Ordering::SeqCst);
                let line = String::from_utf8_lossy(&head)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned();
                let (status, body) = answer(&line);
                let reply = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (base, requests)
}

fn param(line: &str, name: &str) -> Option<u64> {
    let query = line.split_whitespace().nth(1)?.split_once('?')?.1;
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{name}="))?.parse().ok())
}

fn answer(line: &str) -> (&'static str, String) {
    if !line.contains("/visitors") {
        return ("404 Not Found", r#"{"error":"not here"}"#.to_owned());
    }
    let offset = param(line, "offset").unwrap_or(0);
    let limit = param(line, "limit").unwrap_or(50);
    let rows: Vec<String> = if offset == 0 {
        (0..limit)
            .map(|i| {
                format!(
                    r#"{{"path":"/p/{i:03}","human":{h},"ai":1,"total":{h}}}"#,
                    h = 1000 - i
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let body = format!(
        r#"{{"totals":{{"human":5000,"ai":300,"total":5100}},"visitors":[{}],"hasMore":true}}"#,
        rows.join(",")
    );
    ("200 OK", body)
}

#[tokio::test]
async fn an_export_from_a_service_that_never_stops_paging_stops_and_keeps_its_rows() {
    let (base, requests) = endless_pager().await;
    let dir = tempfile::tempdir().unwrap();
    let journal = Arc::new(Mutex::new(Journal::open_in_memory().unwrap()));
    let mut console = Console::open_at(&base, Duration::from_secs(3), journal, "false", (120, 40));
    console.wait_for("the list", |s| s.contains("Jobs")).await;
    console.key(KeyCode::Char('3'));
    console
        .wait_for("page 1", |s| s.contains("page 1 · rows 1–50 · more"))
        .await;
    console.key(KeyCode::Char('e'));
    console.key(KeyCode::Tab);
    for _ in 0..80 {
        console.key(KeyCode::Backspace);
    }
    let target = dir.path().join("out.csv");
    console.type_text(target.to_str().unwrap());
    console.key(KeyCode::Enter);
    let screen = console
        .wait_for("the stop said", |s| s.contains("export stopped"))
        .await;
    assert!(screen.contains("offset 250"), "{screen}");
    assert!(screen.contains("kept 250 rows in"), "{screen}");
    assert!(screen.contains("out.incomplete.csv"), "{screen}");
    // The rows fetched are kept, never in the file asked for.
    assert!(!target.exists());
    let kept = std::fs::read_to_string(dir.path().join("out.incomplete.csv")).unwrap();
    assert_eq!(kept.lines().count(), 251, "a header and 250 rows");
    // A few requests, not a loop: the pane's page, the chart's 7 days (shown by default
    // at 40 rows), then the export's pages.
    assert!(requests.load(Ordering::SeqCst) <= 6 + 7, "{requests:?}");
    // And the console goes on.
    console.key(KeyCode::Char('f'));
    console
        .wait_for("the filter form", |s| s.contains("Dates and page size"))
        .await;
    console.quit().await;
}
