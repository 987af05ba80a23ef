//! What the service's answers mean, as lines of the report: no I/O here, so every
//! verdict is tested with made-up answers.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::Url;

use super::Check;
use crate::api::{ApiError, Asked, HumanWait, Missing, Probe};
use crate::config::Origin;

/// How far the clocks may disagree before dates and ages shown go wrong.
const CLOCK_TOLERANCE: Duration = Duration::from_secs(60);

/// The line for a request that got no answer, with the likely cause: TLS (rustls names
/// its failures: certificates, alerts, a reply that is not TLS at all) or the connection.
pub(crate) fn unreachable(url: &Url, err: &ApiError) -> Check {
    let reason = match err {
        ApiError::Network { host, reason, .. } => format!("no answer from {host}: {reason}"),
        other => other.to_string(),
    };
    let lower = reason.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|word| lower.contains(word));
    let fix = if url.scheme() != "https" {
        format!(
            "check that a service runs at {url} and that no firewall or proxy stands in the way"
        )
    } else if has(&["invalidcontenttype"]) {
        "the port answered, but not with TLS: it likely serves plain http (use http:// for this machine) or the URL has the wrong port".to_owned()
    } else if has(&["certificate", "issuer", "expired"]) {
        "the service's TLS certificate is not trusted here: check the host name in the base URL, the system's CA certificates, and any proxy that intercepts TLS".to_owned()
    } else if has(&["tls", "handshake", "alert", "corrupt message", "peer"]) {
        "the TLS handshake failed: check the base URL, and any proxy or firewall that intercepts TLS".to_owned()
    } else {
        format!(
            "check that a service runs at {url} and that no firewall or proxy stands in the way"
        )
    };
    Check::fail("service", reason, fix)
}

pub(crate) fn answered(url: &Url, elapsed: Duration) -> Check {
    let how = if url.scheme() == "https" {
        "over TLS, certificate verified"
    } else {
        "over plain http"
    };
    Check::ok(
        "service",
        format!("{url} answered in {} ms, {how}", elapsed.as_millis()),
    )
}

/// What the service's answer to a read of a job that cannot exist says about the key.
/// `made_up` is the status a made-up key got, asked only after a 404.
pub(crate) fn key_accepted(
    probe: &Probe,
    made_up: Option<u16>,
    project: &str,
    key_origin: &Origin,
) -> Check {
    const NAME: &str = "key accepted";
    let status = probe.status;
    if (200..300).contains(&status) {
        return Check::ok(
            NAME,
            format!("the key reads project {project} (HTTP {status})"),
        );
    }
    match ApiError::for_request(Asked::Job, status, None, &probe.body) {
        ApiError::NotFound {
            missing: Missing::Job | Missing::Project,
            ..
        } if made_up == Some(404) => Check::fail(
            NAME,
            "the service answers 404 to a made-up key as well: the base URL is not the API's root, so the key was not tested",
            "check the base URL (such as https://api.mintlify.com, with no path after it)",
        ),
        ApiError::NotFound {
            missing: Missing::Job | Missing::Project,
            ..
        } => Check::ok(
            NAME,
            format!(
                "a read of a job that cannot exist in project {project} got 404 from the service: the key works"
            ),
        ),
        ApiError::NotFound {
            missing: Missing::Service,
            ..
        } => Check::fail(
            NAME,
            "got 404 without the service's JSON error: something other than the service answered",
            "check the base URL (it should be the API's root, such as https://api.mintlify.com)",
        ),
        ApiError::Unauthorized { .. } => Check::fail(
            NAME,
            format!("the service rejected the key ({key_origin}) with 401"),
            "put a valid admin key there (keys are made on the dashboard's API keys page)",
        ),
        ApiError::Forbidden { .. } => Check::fail(
            NAME,
            format!("the key ({key_origin}) is not allowed to read project {project} (403)"),
            "check that the key belongs to this project and has the read scope, and that this machine's IP is on its allowlist",
        ),
        ApiError::BadRequest { .. } => Check::warn(
            NAME,
            format!("the service refused the made-up job id ({status}) rather than the key"),
            "the key is most likely accepted; run a real command (docdeck jobs list --refresh) to be sure",
        ),
        ApiError::RateLimited { .. } => Check::fail(
            NAME,
            "rate limited (429): the key could not be tested",
            "wait a while and run docdeck doctor again",
        ),
        other => Check::fail(
            NAME,
            other.to_string(),
            "try again later; if it lasts, check the base URL",
        ),
    }
}

/// Compares the service's `Date` header with this machine's clock at the request's midpoint.
pub(crate) fn clock(date: Option<&str>, local: DateTime<Utc>) -> Check {
    const NAME: &str = "clock";
    let Some(date) = date else {
        return Check::warn(
            NAME,
            "the service sent no Date header: the clocks cannot be compared",
            "check this machine's clock by other means (timedatectl)",
        );
    };
    let Ok(service) = DateTime::parse_from_rfc2822(date) else {
        return Check::warn(
            NAME,
            format!(
                "the service's Date header {:?} is not a date",
                crate::text::excerpt(date, 40)
            ),
            "check this machine's clock by other means (timedatectl)",
        );
    };
    let skew = local - service.with_timezone(&Utc);
    let apart = skew.abs().to_std().unwrap_or_default();
    // The header has whole seconds: a second apart is agreement.
    let shown = Duration::from_secs(apart.as_secs());
    if apart <= CLOCK_TOLERANCE {
        return Check::ok(
            NAME,
            format!(
                "agrees with the service's clock ({} apart)",
                HumanWait(shown)
            ),
        );
    }
    let side = if skew > chrono::TimeDelta::zero() {
        "ahead of"
    } else {
        "behind"
    };
    Check::fail(
        NAME,
        format!(
            "this machine's clock is {} {side} the service's",
            HumanWait(shown)
        ),
        "set the clock right (turn on time sync: timedatectl set-ntp true): date ranges and ages are computed from it",
    )
}

#[cfg(test)]
mod tests {
    use super::super::Verdict;
    use super::*;

    const FROM_ENV: Origin = Origin::Env("DOCDECK_API_KEY");

    fn probe(status: u16, body: &str) -> Probe {
        Probe {
            status,
            date: None,
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_404_from_the_service_proves_the_key_and_401_403_say_what_to_do() {
        let not_found = probe(404, r#"{"error":"Job not found"}"#);
        let works = key_accepted(&not_found, Some(401), "demo", &FROM_ENV);
        assert_eq!(works.verdict, Verdict::Ok, "{works}");
        let no_api_here = key_accepted(&not_found, Some(404), "demo", &FROM_ENV);
        assert_eq!(no_api_here.verdict, Verdict::Fail);
        assert!(
            no_api_here.to_string().contains("not the API's root"),
            "{no_api_here}"
        );
        let rejected = key_accepted(
            &probe(401, r#"{"error":"bad key"}"#),
            Some(401),
            "demo",
            &FROM_ENV,
        );
        assert_eq!(rejected.verdict, Verdict::Fail);
        assert!(
            rejected
                .to_string()
                .contains("(environment DOCDECK_API_KEY) with 401 → put a valid admin key there"),
            "{rejected}"
        );
        let forbidden = key_accepted(&probe(403, ""), Some(401), "demo", &FROM_ENV);
        assert!(forbidden.to_string().contains("allowlist"), "{forbidden}");
        let elsewhere = key_accepted(
            &probe(404, "<html>nginx</html>"),
            Some(401),
            "demo",
            &FROM_ENV,
        );
        assert_eq!(elsewhere.verdict, Verdict::Fail);
        assert!(
            elsewhere.to_string().contains("check the base URL"),
            "{elsewhere}"
        );
        assert_eq!(
            key_accepted(&probe(400, "{}"), Some(401), "demo", &FROM_ENV).verdict,
            Verdict::Warn
        );
        assert_eq!(
            key_accepted(&probe(500, "{}"), Some(401), "demo", &FROM_ENV).verdict,
            Verdict::Fail
        );
    }

    #[test]
    fn clocks_within_a_minute_agree() {
        let local = DateTime::parse_from_rfc3339("2026-11-24T00:00:30Z")
            .unwrap()
            .with_timezone(&Utc);
        let same = clock(Some("Tue, 24 Nov 2026 00:00:00 GMT"), local);
        assert_eq!(same.verdict, Verdict::Ok, "{same}");
        assert!(same.text.contains("30 s apart"), "{same}");
        let ahead = clock(Some("Mon, 23 Nov 2026 23:55:00 GMT"), local);
        assert_eq!(ahead.verdict, Verdict::Fail);
        assert!(ahead.text.contains("5 min 30 s ahead of"), "{ahead}");
        let behind = clock(Some("Tue, 24 Nov 2026 01:00:30 GMT"), local);
        assert!(behind.text.contains("1 h 0 min behind"), "{behind}");
        assert_eq!(clock(None, local).verdict, Verdict::Warn);
        assert_eq!(clock(Some("soon"), local).verdict, Verdict::Warn);
    }

    #[test]
    fn a_failed_connection_says_whether_tls_or_the_network_is_at_fault() {
        let failure = |reason: &str| ApiError::Network {
            host: "h".into(),
            reason: reason.into(),
            may_have_reached_server: false,
        };
        let https: Url = "https://h:8443/".parse().unwrap();
        let http: Url = "http://h:8080/".parse().unwrap();
        let plain = unreachable(
            &https,
            &failure("received corrupt message of type InvalidContentType"),
        );
        assert!(plain.to_string().contains("not with TLS"), "{plain}");
        let untrusted = unreachable(&https, &failure("invalid peer certificate: UnknownIssuer"));
        assert!(
            untrusted.to_string().contains("certificate is not trusted"),
            "{untrusted}"
        );
        let refused = unreachable(&http, &failure("Connection refused (os error 111)"));
        assert_eq!(
            refused.to_string(),
            "FAIL  service        no answer from h: Connection refused (os error 111) → check that a service runs at http://h:8080/ and that no firewall or proxy stands in the way"
        );
    }
}
