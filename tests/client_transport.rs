//! How the client behaves when the network or the service misbehaves: what is retried,
//! what is never resent, and what the errors say. The peer here is a scripted TCP
//! listener, because the local service does not misbehave on demand (yet).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use docdeck::api::{
    ApiError, Client, ClientOptions, JobStatus, PagingFault, RetryPolicy, VisitorsQuery,
};
use docdeck::config::Secret;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const KEY: &str = "mint_transport_secret_value";

/// What the peer does with the n-th connection (the last entry repeats).
#[derive(Clone)]
enum Reply {
    /// Read the request and never answer.
    Silence,
    /// Answer with this status and body, then close.
    Answer(u16, &'static str),
}

struct Peer {
    base_url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

async fn peer(script: Vec<Reply>) -> Peer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    tokio::spawn(async move {
        let mut index = 0;
        while let Ok((mut socket, _)) = listener.accept().await {
            let reply = script[index.min(script.len() - 1)].clone();
            index += 1;
            let seen = seen.clone();
            tokio::spawn(async move {
                let request = read_request(&mut socket).await;
                seen.lock().unwrap().push(request);
                match reply {
                    Reply::Silence => std::future::pending::<()>().await,
                    Reply::Answer(status, body) => {
                        let response = format!(
                            "HTTP/1.1 {status} Whatever\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = socket.write_all(response.as_bytes()).await;
                    }
                }
            });
        }
    });
    Peer { base_url, requests }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> String {
    let mut data = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = socket.read(&mut buffer).await.unwrap_or(0);
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&data);
        if let Some(head_end) = text.find("\r\n\r\n") {
            let length = text[..head_end]
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if data.len() >= head_end + 4 + length {
                break;
            }
        }
    }
    String::from_utf8_lossy(&data).into_owned()
}

fn client(base_url: &str) -> Client {
    let mut options = ClientOptions::new(base_url.parse().unwrap(), "demo", Secret::new(KEY));
    options.request_timeout = Duration::from_millis(400);
    options.retry = RetryPolicy {
        attempts: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    };
    Client::new(options).unwrap()
}

const JOB: &str = r#"{"id":"job_1","status":"completed","prLink":"https://x/pull/1"}"#;

#[tokio::test]
async fn a_post_without_an_answer_is_sent_once_and_reported_as_maybe_done() {
    let peer = peer(vec![Reply::Silence]).await;
    let err = client(&peer.base_url)
        .create_job("Fix links")
        .await
        .unwrap_err();
    assert!(err.may_have_reached_server(), "{err:?}");
    assert!(
        err.to_string().contains("may have been carried out"),
        "{err}"
    );
    assert_eq!(
        peer.requests.lock().unwrap().len(),
        1,
        "a create is never resent"
    );
    let err = client(&peer.base_url)
        .send_message("job_1", "More")
        .await
        .unwrap_err();
    assert!(err.may_have_reached_server());
    assert_eq!(peer.requests.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_post_answered_with_a_server_error_is_not_resent() {
    let peer = peer(vec![
        Reply::Answer(503, r#"{"error":"busy"}"#),
        Reply::Answer(201, JOB),
    ])
    .await;
    let err = client(&peer.base_url)
        .create_job("Fix links")
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ApiError::Server {
            status: 503,
            message: "busy".into()
        }
    );
    assert_eq!(peer.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn gets_are_retried_on_gateway_errors_and_silence() {
    let peer = peer(vec![
        Reply::Answer(502, ""),
        Reply::Silence,
        Reply::Answer(200, JOB),
    ])
    .await;
    let job = client(&peer.base_url).get_job("job_1").await.unwrap();
    assert_eq!(job.status, Some(JobStatus::Completed));
    assert_eq!(peer.requests.lock().unwrap().len(), 3);

    let always_down = self::peer(vec![Reply::Answer(503, "")]).await;
    let err = client(&always_down.base_url)
        .get_job("job_1")
        .await
        .unwrap_err();
    assert!(
        matches!(err, ApiError::Server { status: 503, .. }),
        "{err:?}"
    );
    assert_eq!(
        always_down.requests.lock().unwrap().len(),
        3,
        "gives up after the policy's attempts"
    );
}

#[tokio::test]
async fn requests_carry_the_key_and_errors_never_do() {
    let peer = peer(vec![Reply::Answer(401, r#"{"error":"Invalid API key"}"#)]).await;
    let err = client(&peer.base_url).get_job("a b/c").await.unwrap_err();
    let request = peer.requests.lock().unwrap()[0].clone();
    assert!(
        request.starts_with("GET /v2/agent/demo/job/a%20b%2Fc HTTP/1.1"),
        "{request}"
    );
    assert!(request.to_ascii_lowercase().contains(&format!(
        "authorization: bearer {}",
        KEY.to_ascii_lowercase()
    )));
    assert!(!format!("{err} {err:?}").contains(KEY));
}

#[tokio::test]
async fn unreadable_answers_are_decode_errors_with_an_excerpt() {
    let peer = peer(vec![Reply::Answer(
        200,
        "<html>\u{1b}[2Jmaintenance</html>",
    )])
    .await;
    let err = client(&peer.base_url).get_job("job_1").await.unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, ApiError::Decode { status: 200, .. }),
        "{err:?}"
    );
    assert!(
        text.contains("maintenance") && !text.contains('\u{1b}'),
        "{text}"
    );
}

#[tokio::test]
async fn paging_that_promises_more_but_sends_nothing_stops_with_an_error() {
    let body = r#"{"totals":{"human":1,"ai":0,"total":1},"visitors":[],"hasMore":true}"#;
    let peer = peer(vec![Reply::Answer(200, body)]).await;
    let err = client(&peer.base_url)
        .visitors_all(&VisitorsQuery::default(), |_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.error,
            ApiError::BrokenPaging {
                offset: 0,
                fault: PagingFault::Empty
            }
        ),
        "{err:?}"
    );
    assert!(err.kept.is_none(), "an empty page keeps nothing");
    assert_eq!(peer.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn nothing_listening_is_a_clear_network_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let err = client(&url).create_job("Fix").await.unwrap_err();
    assert!(
        !err.may_have_reached_server(),
        "a refused connection sent nothing: {err:?}"
    );
    assert!(
        err.to_string().starts_with("could not reach 127.0.0.1"),
        "{err}"
    );
    // A service that is down (seen in a soak over a restart): the base URL is not to blame,
    // and the port says which service.
    assert!(err.to_string().contains("is the service running?"), "{err}");
    let port = url.rsplit(':').next().unwrap();
    assert!(
        err.to_string()
            .starts_with(&format!("could not reach 127.0.0.1:{port}")),
        "{err}"
    );
}

#[tokio::test]
async fn a_404_that_is_not_the_services_error_points_at_the_base_url() {
    let peer = peer(vec![Reply::Answer(404, "<html>Not Found</html>")]).await;
    let client = client(&peer.base_url);
    let visitors = client
        .visitors(&VisitorsQuery::default())
        .await
        .unwrap_err();
    let job = client.get_job("job_1").await.unwrap_err();
    let created = client.create_job("Fix").await.unwrap_err();
    for err in [visitors, job, created] {
        let text = err.to_string();
        assert!(
            text.contains("check --base-url") && !text.contains("job id"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_404_of_the_service_names_what_to_check_for_what_was_asked() {
    let peer = peer(vec![Reply::Answer(404, r#"{"error":"Not found"}"#)]).await;
    let client = client(&peer.base_url);
    let visitors = client
        .visitors(&VisitorsQuery::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        visitors.contains("check the project id") && !visitors.contains("job id"),
        "{visitors}"
    );
    let job = client.get_job("job_1").await.unwrap_err().to_string();
    assert!(job.contains("check the job id and the project id"), "{job}");
}
