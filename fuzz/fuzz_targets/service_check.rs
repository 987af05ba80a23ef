//! The service's side: any request (method, path, query, headers, body) built from the
//! input gets a well-formed HTTP answer below 500, and the service keeps answering. Shared
//! by the fuzz target and by `tests/fuzz_corpus.rs`, which replays the corpus in CI.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::Duration;

use docdeck::config::Secret;
use docdeck::server::db::DbLocation;
use docdeck::server::{self, ServeOptions};

const KEY: &str = "mint_fuzz_0123456789";

/// One service for the whole run, on a free port, with a runtime of its own.
fn service() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().expect("a runtime");
            runtime.block_on(async move {
                let mut options = ServeOptions::new(DbLocation::Memory);
                options.api_key = Some(Secret::new(KEY));
                options.agent.delay = Duration::from_millis(1);
                options.rate_limit = u32::MAX;
                let running = server::start(options).await.expect("the service starts");
                tx.send(running.addr).expect("the address is taken");
                std::future::pending::<()>().await;
            });
        });
        rx.recv().expect("the service reports its address")
    })
}

const PATHS: &[&str] = &[
    "/v2/agent/demo/job",
    "/v2/agent/demo/job/",
    "/v2/agent/demo/job/job_x/message",
    "/v1/analytics/demo/visitors",
    "/v2/agent/other/job",
    "/openapi.json",
    "/",
];

pub fn check(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let method = ["GET", "POST", "PUT", "DELETE", "PATCH"][usize::from(data[0]) % 5];
    let path = PATHS[usize::from(data[1]) % PATHS.len()];
    let flags = data[2];
    let rest = &data[3..];
    // The rest is split into a tail for the path or query and a body.
    let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let (tail, body) = (&rest[..split], rest.get(split + 1..).unwrap_or_default());
    let tail: String = String::from_utf8_lossy(tail)
        .chars()
        .filter(|c| c.is_ascii_graphic())
        .collect();
    let target = if flags & 1 == 0 {
        format!("{path}?{tail}")
    } else {
        format!("{path}{tail}")
    };
    let mut request = format!("{method} {target} HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n");
    if flags & 2 == 0 {
        request.push_str(&format!("Authorization: Bearer {KEY}\r\n"));
    }
    if flags & 4 == 0 {
        request.push_str("Content-Type: application/json\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);

    match exchange(&bytes) {
        Some(status) => assert!(status < 500, "{method} {target}: {status}"),
        // A request hyper cannot parse is answered 400 and the connection closed; when the
        // body was still being written, the close can reset the connection before the 400
        // is read. That is fine as long as the service is still up.
        None => assert_eq!(
            exchange(b"GET /openapi.json HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n"),
            Some(200),
            "the service stopped answering after {method} {target}"
        ),
    }
}

/// Sends raw bytes and returns the answer's status, if an answer came.
fn exchange(bytes: &[u8]) -> Option<u16> {
    let mut stream = TcpStream::connect(service()).expect("the service is up");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    let _ = stream.write_all(bytes);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let head = String::from_utf8_lossy(&answer[..answer.len().min(12)]).into_owned();
    head.strip_prefix("HTTP/1.1 ")
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok())
}
