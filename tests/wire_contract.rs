//! The wire types against the public service's OpenAPI document (a copy in
//! tests/fixtures): every schema's example round-trips through our types unchanged, and
//! our types and the local service's document use exactly the public property names.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use docdeck::api::{ErrorBody, Job, JobStatus, VisitorsPage};
use serde_json::{Map, Value, json};

const PUBLIC: &str = include_str!("fixtures/public-api.openapi.json");
const LOCAL: &str = include_str!("../assets/openapi.json");

fn doc(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// An instance of `schema`: its `example` where the document gives one, otherwise a
/// value of the declared type, with every property present.
fn example(doc: &Value, schema: &Value) -> Value {
    let schema = resolve(doc, schema);
    if let Some(example) = schema.get("example") {
        return example.clone();
    }
    match schema["type"].as_str().unwrap_or("object") {
        "object" => {
            let mut object = Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                object.insert(name.clone(), example(doc, property));
            }
            Value::Object(object)
        }
        "array" => json!([example(doc, &schema["items"])]),
        "string" => match (schema.get("enum"), schema["format"].as_str()) {
            (Some(values), _) => values[0].clone(),
            (None, Some("date-time")) => json!("2024-05-06T07:08:09.123Z"),
            (None, Some("uri")) => json!("https://example.com/resource"),
            (None, _) => json!("some text"),
        },
        "number" | "integer" => json!(12),
        "boolean" => json!(true),
        other => panic!("no example for type {other}"),
    }
}

fn properties(doc: &Value, schema: &str) -> Vec<String> {
    let mut names: Vec<String> = doc["components"]["schemas"][schema]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

fn keys(value: &Value) -> Vec<String> {
    let mut names: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

#[test]
fn the_job_example_round_trips_for_every_documented_status() {
    let public = doc(PUBLIC);
    let schema = &public["components"]["schemas"]["AgentJob"];
    let base = example(&public, schema);
    assert_eq!(
        base["prLink"], "https://github.com/org/repo/pull/123",
        "the document's own example is used"
    );
    for status in schema["properties"]["status"]["enum"].as_array().unwrap() {
        let mut instance = base.clone();
        instance["status"] = status.clone();
        let job: Job = serde_json::from_value(instance.clone()).unwrap();
        assert!(
            !matches!(job.status, Some(JobStatus::Unknown(_))),
            "{status} is known"
        );
        assert_eq!(
            serde_json::to_value(&job).unwrap(),
            instance,
            "round trip with status {status}"
        );
    }
}

#[test]
fn nullable_job_fields_accept_null_and_every_field_may_be_missing() {
    let public = doc(PUBLIC);
    let schema = &public["components"]["schemas"]["AgentJob"];
    let mut instance = example(&public, schema);
    for name in ["prLink", "archivedAt"] {
        assert_eq!(schema["properties"][name]["nullable"], true);
        instance[name] = Value::Null;
    }
    instance["source"]["ref"] = Value::Null;
    let job: Job = serde_json::from_value(instance.clone()).unwrap();
    assert_eq!(serde_json::to_value(&job).unwrap(), instance);
    for name in properties(&public, "AgentJob") {
        let mut partial = example(&public, schema);
        partial.as_object_mut().unwrap().remove(&name);
        assert!(
            serde_json::from_value::<Job>(partial).is_ok(),
            "{name} may be missing"
        );
    }
}

#[test]
fn the_visitors_example_round_trips() {
    let public = doc(PUBLIC);
    let instance = example(
        &public,
        &public["components"]["schemas"]["VisitorsByPageResponse"],
    );
    let page: VisitorsPage = serde_json::from_value(instance.clone()).unwrap();
    assert_eq!(serde_json::to_value(&page).unwrap(), instance);
    let required = public["components"]["schemas"]["VisitorsByPageResponse"]["required"]
        .as_array()
        .unwrap();
    for name in required {
        let mut partial = instance.clone();
        partial
            .as_object_mut()
            .unwrap()
            .remove(name.as_str().unwrap());
        assert!(
            serde_json::from_value::<VisitorsPage>(partial).is_err(),
            "{name} is required"
        );
    }
}

#[test]
fn both_error_shapes_round_trip() {
    let public = doc(PUBLIC);
    for schema in ["Error", "AnalyticsErrorResponse"] {
        let instance = example(&public, &public["components"]["schemas"][schema]);
        let body: ErrorBody = serde_json::from_value(instance.clone()).unwrap();
        assert_eq!(serde_json::to_value(&body).unwrap(), instance, "{schema}");
    }
}

#[test]
fn our_types_and_the_local_document_use_the_public_property_names() {
    let public = doc(PUBLIC);
    let local = doc(LOCAL);
    let job = serde_json::to_value(Job::default()).unwrap();
    assert_eq!(keys(&job), properties(&public, "AgentJob"));
    let page = serde_json::to_value(VisitorsPage::default()).unwrap();
    assert_eq!(keys(&page), properties(&public, "VisitorsByPageResponse"));
    for schema in [
        "AgentJob",
        "VisitorsTrafficTotals",
        "VisitorsPathRow",
        "VisitorsByPageResponse",
        "PromptRequest",
    ] {
        // The local service's own fields are marked as such; every other name is public.
        let shared: Vec<String> = properties(&local, schema)
            .into_iter()
            .filter(|name| {
                local["components"]["schemas"][schema]["properties"][name]["x-docdeck-local"]
                    != true
            })
            .collect();
        assert_eq!(shared, properties(&public, schema), "{schema}");
    }
    let local_job = Job {
        failure_reason: Some("exit 1".into()),
        output_link: Some("http://h/output/p/j/1".into()),
        run_state: Some("queued".into()),
        queue_position: Some(2),
        change: Some(Box::default()),
        node: Some("build-3:4121".into()),
        ..Job::default()
    };
    let job = serde_json::to_value(local_job).unwrap();
    assert_eq!(
        keys(&job),
        properties(&local, "AgentJob"),
        "the client's type reads every field of the local service's job"
    );
    let public_paths: Vec<_> = public["paths"].as_object().unwrap().keys().collect();
    for path in public_paths {
        assert!(
            local["paths"].get(path).is_some(),
            "the local service serves {path}"
        );
    }
}
