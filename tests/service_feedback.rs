//! `POST /v1/feedback/{projectId}`, the page widget's door (issue 27): no key, a few a
//! day per address, checked field by field, contact never required, a URL joined to its
//! page, and answers a browser on another origin may read.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{KEY, PROJECT, options_on, start};
use docdeck::server::db::DbLocation;
use serde_json::{Value, json};

async fn post(base: &str, project: &str, body: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{base}/v1/feedback/{project}"))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let headers = answer.headers().clone();
    let body = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap_or(Value::Null);
    (status, headers, body)
}

/// `GET /v1/analytics/demo/{what}` with the test key, as JSON.
async fn get(base: &str, what: &str) -> Value {
    let bytes = reqwest::Client::new()
        .get(format!("{base}/v1/analytics/{PROJECT}/{what}"))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

// Each on SQLite and on PostgreSQL (issue 26).
on_both_stores! {
    async fn a_thumb_and_a_comment_arrive_without_a_key_and_join_their_page(db: DbLocation) {
    docdeck::api::client::install_crypto_provider();
    let server = start(options_on(&db)).await;
    let base = server.base_url();
    let down = json!({"path": "https://docs.acme.dev/guides/webhooks/?ref=nav", "helpful": false,
        "comment": "Nothing about retries"});
    let (status, headers, body) = post(&base, PROJECT, &down.to_string()).await;
    assert_eq!(status, 201, "{body}");
    assert!(body["id"].as_str().unwrap().starts_with("fb_"));
    assert_eq!(headers["access-control-allow-origin"], "*");
    // A real widget may send more than it must: fields the service does not know are
    // ignored, not refused.
    let up = json!({"path": "/guides/webhooks", "helpful": true, "widgetVersion": "2.1"});
    assert_eq!(post(&base, PROJECT, &up.to_string()).await.0, 201);

    let by_page = get(&base, "feedback/by-page").await;
    assert_eq!(
        by_page["feedback"],
        json!([{"path": "/guides/webhooks", "thumbsUp": 1, "thumbsDown": 1, "code": 0, "total": 2}])
    );
    let listed = get(&base, "feedback").await;
    let comment = &listed["feedback"][1];
    assert_eq!(comment["source"], "contextual");
    assert_eq!(comment["comment"], "Nothing about retries");
    assert_eq!(comment["contact"], Value::Null, "contact is never required");
    assert_eq!(comment["status"], "pending");
    assert_eq!(listed["feedback"][0]["source"], "thumbs_only");

    // A thumb with a way to reach the reader keeps it, as contextual feedback (the hosted
    // export carries `contact` on contextual items only).
    let reach = json!({"path": "/faq", "helpful": false, "contact": "ann@example.com"});
    assert_eq!(post(&base, PROJECT, &reach.to_string()).await.0, 201);
    let listed = get(&base, "feedback").await;
    assert_eq!(listed["feedback"][0]["source"], "contextual");
    assert_eq!(listed["feedback"][0]["contact"], "ann@example.com");

    let preflight = reqwest::Client::new()
        .request(
            reqwest::Method::OPTIONS,
            format!("{base}/v1/feedback/{PROJECT}"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert_eq!(
        preflight.headers()["access-control-allow-headers"],
        "content-type"
    );
    server.shutdown().await;
}

    async fn wrong_feedback_is_refused_field_by_field_and_an_address_is_limited(db: DbLocation) {
    docdeck::api::client::install_crypto_provider();
    let server = start(options_on(&db)).await;
    let base = server.base_url();
    for (body, says) in [
        (json!({"helpful": true}), "path is required"),
        (json!({"path": "/a"}), "send helpful"),
        (
            json!({"path": "/a", "helpful": "yes"}),
            "body must be a JSON object",
        ),
        (
            json!({"path": "/a", "comment": "x".repeat(2001)}),
            "at most 2000",
        ),
        (json!({"path": "x", "helpful": true}), "starting with /"),
    ] {
        let (status, _, answer) = post(&base, PROJECT, &body.to_string()).await;
        assert_eq!(status, 400, "{body}");
        let detail = answer["details"][0]["message"].as_str().unwrap();
        assert!(detail.contains(says), "{body}: {detail}");
    }
    let thumb = json!({"path": "/a", "helpful": true}).to_string();
    let (status, _, answer) = post(&base, "elsewhere", &thumb).await;
    assert_eq!(status, 404, "a project with no key is not served: {answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("keys add --project"),
        "says how to serve it: {answer}"
    );
    for _ in 0..docdeck::server::http::WIDGET_HOURLY {
        assert_eq!(post(&base, PROJECT, &thumb).await.0, 201);
    }
    let (status, headers, answer) = post(&base, PROJECT, &thumb).await;
    assert_eq!(status, 429, "{answer}");
    assert!(headers.contains_key("retry-after"));
    assert_eq!(headers["access-control-allow-origin"], "*");
    server.shutdown().await;
}
}
