//! The local service at the HTTP level: status codes, error bodies and headers for every
//! operation, checked against the service's own OpenAPI document in both directions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{KEY, eventually, options_on, start};
use docdeck::server::db::DbLocation;
use reqwest::Method;
use serde_json::{Value, json};

const CREATE: &str = "/v2/agent/{projectId}/job";
const GET: &str = "/v2/agent/{projectId}/job/{id}";
const MESSAGE: &str = "/v2/agent/{projectId}/job/{id}/message";
const VISITORS: &str = "/v1/analytics/{projectId}/visitors";
const OPENAPI: &str = "/openapi.json";
/// The other analytics reads (issue 27): template, path under the project, a query it
/// refuses.
const SIGNALS: [(&str, &str, &str); 4] = [
    (
        "/v1/analytics/{projectId}/searches",
        "searches",
        "?limit=101",
    ),
    (
        "/v1/analytics/{projectId}/feedback",
        "feedback",
        "?status=open",
    ),
    (
        "/v1/analytics/{projectId}/feedback/by-page",
        "feedback/by-page",
        "?source=email",
    ),
    (
        "/v1/analytics/{projectId}/assistant",
        "assistant",
        "?cursor=made-up",
    ),
];

/// Sends requests and remembers which (path template, method, status) were seen.
struct Probe {
    http: reqwest::Client,
    base: String,
    seen: BTreeSet<(String, String, u16)>,
}

struct Request<'a> {
    method: Method,
    template: &'a str,
    path: String,
    auth: Option<String>,
    content_type: Option<&'a str>,
    body: Option<Vec<u8>>,
}

impl<'a> Request<'a> {
    fn new(method: Method, template: &'a str, path: impl Into<String>) -> Self {
        Self {
            method,
            template,
            path: path.into(),
            auth: Some(format!("Bearer {KEY}")),
            content_type: None,
            body: None,
        }
    }

    fn json(mut self, body: &Value) -> Self {
        self.content_type = Some("application/json");
        self.body = Some(body.to_string().into_bytes());
        self
    }

    fn raw(mut self, content_type: Option<&'a str>, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = content_type;
        self.body = Some(body.into());
        self
    }

    fn auth(mut self, auth: Option<&str>) -> Self {
        self.auth = auth.map(str::to_owned);
        self
    }
}

impl Probe {
    async fn send(&mut self, request: Request<'_>) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut builder = self.http.request(
            request.method.clone(),
            format!("{}{}", self.base, request.path),
        );
        if let Some(auth) = &request.auth {
            builder = builder.header("authorization", auth);
        }
        if let Some(content_type) = request.content_type {
            builder = builder.header("content-type", content_type);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let response = builder.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body: Value =
            serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or(Value::Null);
        self.seen.insert((
            request.template.to_owned(),
            request.method.as_str().to_lowercase(),
            status,
        ));
        (status, headers, body)
    }

    /// Sends and checks the status, and that any error has the documented body.
    async fn expect(&mut self, request: Request<'_>, status: u16) -> Value {
        let what = format!("{} {}", request.method, request.path);
        let (got, headers, body) = self.send(request).await;
        assert_eq!(got, status, "{what}: {body}");
        if status >= 400 {
            assert!(body["error"].is_string(), "{what}: error body {body}");
            assert_eq!(
                body["details"].is_array(),
                status == 400,
                "{what}: details only on 400: {body}"
            );
            assert_eq!(headers.contains_key("retry-after"), status == 429, "{what}");
        }
        // A rate-limited call states its limit, so a client follows this service's.
        let limited = request_spends_a_use(&what) && (status < 300 || status == 429);
        if limited {
            for name in ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] {
                assert!(headers.contains_key(name), "{what}: {name} in {headers:?}");
            }
            if status == 429 {
                assert_eq!(headers["ratelimit-remaining"], "0", "{what}");
            }
        }
        body
    }
}

/// Whether `what` ("METHOD /path") is a create, a follow-up or a visitors read.
fn request_spends_a_use(what: &str) -> bool {
    (what.starts_with("POST ") && what.contains("/job"))
        || (what.starts_with("GET ") && what.contains("/visitors"))
}

fn documented(openapi: &Value) -> BTreeSet<(String, String, u16)> {
    let mut set = BTreeSet::new();
    for (path, operations) in openapi["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            for status in operation["responses"].as_object().unwrap().keys() {
                set.insert((path.clone(), method.clone(), status.parse().unwrap()));
            }
        }
    }
    set
}

on_both_stores! {
    async fn every_status_the_service_sends_is_documented_and_every_documented_one_is_sent(db: DbLocation) {
        docdeck::api::client::install_crypto_provider();
        let mut options = options_on(&db);
        options.rate_limit = 2;
        let server = start(options).await;
        let mut probe = Probe {
            http: reqwest::Client::new(),
            base: server.base_url(),
            seen: BTreeSet::new(),
        };
        let job_path = |id: &str| format!("/v2/agent/demo/job/{id}");
        let prompt = json!({"prompt": "Fix the typos"});

        // Create: refusals before the budget is checked do not spend it.
        let create = || Request::new(Method::POST, CREATE, "/v2/agent/demo/job");
        probe.expect(create().json(&prompt).auth(None), 401).await;
        probe
            .expect(create().json(&prompt).auth(Some("Basic abc")), 401)
            .await;
        probe
            .expect(
                create().json(&prompt).auth(Some("Bearer mint_unknown")),
                401,
            )
            .await;
        let foreign = Request::new(Method::POST, CREATE, "/v2/agent/elsewhere/job").json(&prompt);
        probe.expect(foreign, 403).await;
        // Not JSON: 400 (the public document lists no 415), saying what came and what to send.
        for (content_type, received) in [
            (Some("text/plain"), "Content-Type \"text/plain\""),
            (None, "no Content-Type header"),
        ] {
            let reply = probe
                .expect(create().raw(content_type, prompt.to_string()), 400)
                .await;
            let detail = reply["details"][0]["message"].as_str().unwrap();
            assert!(
                detail.contains(received) && detail.contains("Content-Type: application/json"),
                "{reply}"
            );
        }
        for (body, detail) in [
            ("{\"prompt\": ", "not valid JSON"),
            ("[\"prompt\"]", "JSON object"),
            ("{}", "prompt is required"),
            ("{\"prompt\": null}", "prompt is required"),
            ("{\"prompt\": 5}", "must be a string"),
            ("{\"prompt\": \"\"}", "at least 1 character"),
        ] {
            let reply = probe
                .expect(create().raw(Some("application/json"), body), 400)
                .await;
            assert!(
                reply["details"][0]["message"]
                    .as_str()
                    .unwrap()
                    .contains(detail),
                "{body}: {reply}"
            );
        }
        let huge = json!({"prompt": "x".repeat(1024 * 1024 + 1)});
        probe.expect(create().json(&huge), 413).await;
        probe
            .expect(
                Request::new(Method::POST, CREATE, "/v2/agent/%FF/job").json(&prompt),
                400,
            )
            .await;
        probe
            .expect(
                create().raw(Some("application/json; charset=utf-8"), prompt.to_string()),
                201,
            )
            .await;
        let job = probe.expect(create().json(&prompt), 201).await;
        for field in [
            "id",
            "status",
            "source",
            "model",
            "prLink",
            "createdAt",
            "archivedAt",
        ] {
            assert!(job.get(field).is_some(), "{field} is always sent: {job}");
        }
        assert_eq!(
            (&job["status"], &job["prLink"]),
            (&json!("active"), &Value::Null)
        );
        assert_eq!(job["source"]["ref"], "main");
        probe.expect(create().json(&prompt), 429).await;

        // Get (not rate limited).
        let id = job["id"].as_str().unwrap().to_owned();
        probe
            .expect(
                Request::new(Method::GET, GET, job_path(&id)).auth(None),
                401,
            )
            .await;
        probe
            .expect(
                Request::new(Method::GET, GET, format!("/v2/agent/elsewhere/job/{id}")),
                403,
            )
            .await;
        probe
            .expect(Request::new(Method::GET, GET, job_path("job_missing")), 404)
            .await;
        probe
            .expect(Request::new(Method::GET, GET, job_path("%FF")), 400)
            .await;
        probe
            .expect(Request::new(Method::GET, GET, job_path(&id)), 200)
            .await;

        // Message: refusals give the use back, so two follow-ups still fit after them.
        let message =
            |job: &str| Request::new(Method::POST, MESSAGE, format!("{}/message", job_path(job)));
        probe
            .expect(message(&id).json(&prompt).auth(None), 401)
            .await;
        let foreign = Request::new(
            Method::POST,
            MESSAGE,
            format!("/v2/agent/elsewhere/job/{id}/message"),
        );
        probe.expect(foreign.json(&prompt), 403).await;
        let reply = probe
            .expect(
                message(&id).raw(Some("application/x-www-form-urlencoded"), "x"),
                400,
            )
            .await;
        assert!(
            reply["details"][0]["message"]
                .as_str()
                .unwrap()
                .contains("\"application/x-www-form-urlencoded\""),
            "{reply}"
        );
        probe
            .expect(message(&id).raw(Some("application/json"), "{}"), 400)
            .await;
        probe.expect(message("%FF").json(&prompt), 400).await;
        probe.expect(message(&id).json(&huge), 413).await;
        probe
            .expect(message("job_missing").json(&prompt), 404)
            .await;
        probe.expect(message(&id).json(&prompt), 200).await;
        probe.expect(message(&id).json(&prompt), 200).await;
        probe.expect(message(&id).json(&prompt), 429).await;

        // Visitors: invalid queries are refused before the budget is checked.
        let visitors = |query: &str| {
            Request::new(
                Method::GET,
                VISITORS,
                format!("/v1/analytics/demo/visitors{query}"),
            )
        };
        probe.expect(visitors("").auth(None), 401).await;
        probe
            .expect(
                Request::new(Method::GET, VISITORS, "/v1/analytics/elsewhere/visitors"),
                403,
            )
            .await;
        for (query, detail) in [
            ("?limit=0", "limit"),
            ("?limit=251", "limit"),
            ("?limit=ten", "limit \"ten\" is not a whole number"),
            ("?limit=1.5", "limit \"1.5\" is not a whole number"),
            ("?offset=abc", "offset \"abc\" is not a whole number"),
            ("?offset=-1", "offset -1 is out of range"),
            (
                "?dateFrom=%202024-03-01",
                "dateFrom \" 2024-03-01\" has blank space",
            ),
            ("?dateFrom=2024-03-01%2010:30:00Z", "dateFrom"),
            ("?dateFrom=2024-02-30", "dateFrom"),
            ("?dateTo=yesterday", "dateTo"),
            ("?dateFrom=2024-03-02&dateTo=2024-03-01", "after"),
            ("?limit=5&limit=6", "more than once"),
        ] {
            let reply = probe.expect(visitors(query), 400).await;
            assert!(
                reply["details"][0]["message"]
                    .as_str()
                    .unwrap()
                    .contains(detail),
                "{query}: {reply}"
            );
        }
        probe
            .expect(visitors(&format!("?x={}", "a".repeat(5000))), 400)
            .await;
        let empty = probe
            .expect(
                visitors("?dateFrom=2024-01-01&dateTo=2024-01-01&utm_source=x"),
                200,
            )
            .await;
        assert_eq!(
            empty,
            json!({"totals": {"human": 0, "ai": 0, "total": 0}, "visitors": [], "hasMore": false})
        );
        // Searches, feedback and the assistant: refused before the shared budget is checked,
        // then, once visitors spent it, 429 as well.
        for (template, path, refused) in SIGNALS {
            let read = |project: &str, query: &str| {
                Request::new(
                    Method::GET,
                    template,
                    format!("/v1/analytics/{project}/{path}{query}"),
                )
            };
            probe.expect(read("demo", "").auth(None), 401).await;
            probe.expect(read("elsewhere", ""), 403).await;
            probe.expect(read("demo", refused), 400).await;
        }
        probe.expect(visitors(""), 200).await;
        probe.expect(visitors(""), 429).await;
        for (template, path, _) in SIGNALS {
            let url = format!("/v1/analytics/demo/{path}");
            probe
                .expect(Request::new(Method::GET, template, url), 429)
                .await;
        }

        // The document itself, and what is not an operation.
        let document = probe
            .expect(Request::new(Method::GET, OPENAPI, OPENAPI).auth(None), 200)
            .await;
        let stray = probe
            .expect(Request::new(Method::GET, "(none)", "/v2/agent"), 404)
            .await;
        assert!(stray["error"].as_str().unwrap().contains("/openapi.json"));
        probe
            .expect(Request::new(Method::DELETE, "(none)", job_path(&id)), 405)
            .await;
        server.shutdown().await;

        // A second service archives idle jobs after 200 ms, for the 409.
        let mut options = options_on(&db);
        options.archive_after = Duration::from_millis(200);
        let archiving = start(options).await;
        probe.base = archiving.base_url();
        let old = probe.expect(create().json(&prompt), 201).await;
        let old_id = old["id"].as_str().unwrap().to_owned();
        let (http, url) = (
            probe.http.clone(),
            format!("{}{}", probe.base, job_path(&old_id)),
        );
        eventually("the job to be archived", || async {
            let body = http
                .get(&url)
                .bearer_auth(KEY)
                .send()
                .await
                .ok()?
                .bytes()
                .await
                .ok()?;
            let job: Value = serde_json::from_slice(&body).ok()?;
            (job["status"] == "archived").then_some(())
        })
        .await;
        probe.expect(message(&old_id).json(&prompt), 409).await;
        for (template, path, _) in SIGNALS {
            let url = format!("/v1/analytics/demo/{path}");
            probe
                .expect(Request::new(Method::GET, template, url), 200)
                .await;
        }
        // The page widget's feedback: no key; the address's hourly 20 then a 429.
        const WIDGET: &str = "/v1/feedback/{projectId}";
        let widget = |project: &str| {
            Request::new(Method::POST, WIDGET, format!("/v1/feedback/{project}")).auth(None)
        };
        let thumb = json!({"path": "/quickstart", "helpful": true});
        probe
            .expect(
                Request::new(Method::OPTIONS, WIDGET, "/v1/feedback/demo").auth(None),
                204,
            )
            .await;
        probe
            .expect(widget("demo").json(&json!({"path": "/a"})), 400)
            .await;
        probe.expect(widget("elsewhere").json(&thumb), 404).await;
        probe.expect(widget("demo").json(&huge), 413).await;
        for _ in 0..docdeck::server::http::WIDGET_HOURLY {
            probe.expect(widget("demo").json(&thumb), 201).await;
        }
        probe.expect(widget("demo").json(&thumb), 429).await;
        archiving.shutdown().await;

        let served: BTreeSet<_> = probe
            .seen
            .iter()
            .filter(|(template, ..)| template != "(none)")
            .cloned()
            .collect();
        let all_documented = documented(&document);
        let mut expected = all_documented.clone();
        // A 500, 503 and 507 need a failing, held or full database: documented, and their
        // mapping tested in server::http::error, but not provoked here. A 408 needs a body
        // trickled in for the body timeout: provoked in service_hostile.
        expected.retain(|(_, _, status)| !matches!(status, 408 | 500 | 503 | 507));
        let never_sent: Vec<_> = expected.difference(&served).collect();
        assert!(
            never_sent.is_empty(),
            "documented but never sent: {never_sent:?}"
        );
        let undocumented: Vec<_> = served.difference(&all_documented).collect();
        assert!(
            undocumented.is_empty(),
            "sent but not documented: {undocumented:?}"
        );
    }
}

on_both_stores! {
    async fn the_served_document_is_the_one_in_assets(db: DbLocation) {
        docdeck::api::client::install_crypto_provider();
        let server = start(options_on(&db)).await;
        let response = reqwest::get(format!("{}/openapi.json", server.base_url()))
            .await
            .unwrap();
        assert_eq!(response.headers()["content-type"], "application/json");
        let served: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        let file: Value = serde_json::from_str(include_str!("../assets/openapi.json")).unwrap();
        assert_eq!(served, file);
        server.shutdown().await;
    }
}

/// The `pattern` of `dateFrom` and `dateTo` in the served document is the one the parser
/// follows: every string it admits is accepted (but for a day the month lacks, or an
/// instant outside the years 0000-9999 in UTC, both said in the document), and every
/// string accepted matches it, so fuzzers and generated clients know what a date is.
#[test]
fn the_documented_date_pattern_is_what_the_service_accepts() {
    use docdeck::api::{QueryError, VisitorsQuery, query::DATE_PATTERN};
    use proptest::prelude::*;
    let document: Value = serde_json::from_str(include_str!("../assets/openapi.json")).unwrap();
    for parameter in document["paths"][VISITORS]["get"]["parameters"]
        .as_array()
        .unwrap()
    {
        if parameter["name"] == "dateFrom" || parameter["name"] == "dateTo" {
            assert_eq!(parameter["schema"]["pattern"], DATE_PATTERN);
        }
    }
    let pattern = regex::Regex::new(DATE_PATTERN).unwrap();
    let sent = |value: &str| VisitorsQuery::from_pairs([("dateFrom", value)]);
    let generator = DATE_PATTERN.trim_start_matches('^').trim_end_matches('$');
    let config = ProptestConfig::with_cases(2000);
    proptest!(config, |(value in proptest::string::string_regex(generator).unwrap())| {
        match sent(&value) {
            Ok(_) => {}
            Err(QueryError::BadDate { .. }) => {
                let (y, m, d) = (&value[0..4], &value[5..7], &value[8..10]);
                let day_exists = chrono::NaiveDate::from_ymd_opt(
                    y.parse().unwrap(), m.parse().unwrap(), d.parse().unwrap()
                ).is_some();
                let edge_year = y == "0000" || y == "9999";
                prop_assert!(!day_exists || edge_year, "{} matches the pattern but was refused", value);
            }
            Err(other) => prop_assert!(false, "{}: {}", value, other),
        }
    });
    let near_misses = concat!(
        "[0-9]{2,5}-[0-9]{1,3}-[0-9]{1,3}",
        "([Tt ][0-9]{1,3}:[0-9]{1,3}(:[0-9]{1,3}(\\.[0-9]{0,4})?)?",
        "([Zz]|[+-][0-9]{1,3}:?[0-9]{0,3})?)?[ Z]?"
    );
    proptest!(config, |(value in proptest::string::string_regex(near_misses).unwrap())| {
        if sent(&value).is_ok() {
            prop_assert!(pattern.is_match(&value), "{} is accepted but not in the pattern", value);
        }
    });
    for good in [
        "2024-01-31",
        "2024-01-31T10:30",
        "2024-01-31T10:30Z",
        "2024-01-31T10:30:00.250+02:00",
    ] {
        assert!(sent(good).is_ok() && pattern.is_match(good), "{good}");
    }
}

// Found by Schemathesis: the document puts no maximum on `offset`, so an offset past any
// integer type is a valid request; it is an empty page, as any offset past the rows is.
on_both_stores! {
    async fn an_offset_past_every_row_is_an_empty_page_however_large(db: DbLocation) {
        docdeck::api::client::install_crypto_provider();
        let server = start(options_on(&db)).await;
        for offset in ["9223372036854775807", "96472056601727152947200"] {
            let response = reqwest::Client::new()
                .get(format!(
                    "{}/v1/analytics/demo/visitors?offset={offset}",
                    server.base_url()
                ))
                .bearer_auth(KEY)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200, "offset {offset}");
            let page: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
            assert_eq!(page["visitors"], json!([]), "offset {offset}");
            assert_eq!(page["hasMore"], false, "offset {offset}");
        }
        server.shutdown().await;
    }
}

/// The demo seed writes its views after the service starts answering. A visitors request
/// sent at once waits for all of them: it never counts over none or half of them.
#[tokio::test]
async fn a_visitors_request_during_the_demo_seed_waits_for_all_of_it() {
    let dir = tempfile::tempdir().unwrap();
    visitors_wait_for_the_seed(DbLocation::File(dir.path().join("service.sqlite"))).await;
}

/// The same on PostgreSQL, where `--seed demo` writes its jobs and views too.
#[tokio::test]
async fn a_visitors_request_during_the_demo_seed_waits_for_all_of_it_on_postgres() {
    let url = pg_or_skip_async!();
    visitors_wait_for_the_seed(DbLocation::parse(&url)).await;
}

async fn visitors_wait_for_the_seed(db: DbLocation) {
    docdeck::api::client::install_crypto_provider();
    let mut options = common::options_on(&db);
    options.seed = docdeck::server::SeedKind::Demo;
    let mut server = start(options).await;
    assert_eq!(server.seeded_jobs.len(), 5, "the jobs are there at once");
    let api = common::client(&server);
    let everything = docdeck::api::VisitorsQuery::default();
    let first = api.visitors(&everything).await.unwrap();
    let seeded = server
        .seeded()
        .await
        .unwrap()
        .expect("a new project is seeded");
    let after = api.visitors(&everything).await.unwrap();
    assert!(seeded.views > 50_000, "{seeded:?}");
    assert!(first.totals.total > 1_000, "{:?}", first.totals);
    assert_eq!(first, after);
    server.shutdown().await;
}

on_both_stores_kept! {
    async fn a_visitors_answer_says_when_the_projects_views_begin_and_end(db: DbLocation) {
        docdeck::api::client::install_crypto_provider();
        common::import_views_into(
            &db,
            "demo",
            &[
                common::view("2015-05-17T10:05:03Z", "/a", "v1", "human"),
                common::view("2015-05-20T21:05:15Z", "/b", "v2", "ai"),
            ],
        );
        let server = start(options_on(&db)).await;
        let answer = reqwest::Client::new()
            .get(format!(
                "{}/v1/analytics/demo/visitors?dateFrom=2026-11-01",
                server.base_url()
            ))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        assert_eq!(
            answer.headers()["docdeck-views-span"],
            "2015-05-17T10:05:03.000Z/2015-05-20T21:05:15.000Z",
            "an empty range still says where the views are"
        );
        let client = common::client(&server);
        let empty = client
            .visitors(&docdeck::api::VisitorsQuery {
                date_from: Some(docdeck::api::DateParam::parse("dateFrom", "2026-11-01").unwrap()),
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(empty.visitors.is_empty());
        let span = client.views_span().unwrap();
        assert_eq!(span.first.to_rfc3339(), "2015-05-17T10:05:03+00:00");
        server.shutdown().await;
    }
}
