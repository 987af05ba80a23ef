//! The checks that need the network: the host resolves, the service answers (with TLS for
//! https), the key is accepted, and this machine's clock agrees with the service's.
//! One read of a job that cannot exist does the last three: a 404 proves the key.

use std::time::{Duration, Instant};

use chrono::Utc;
use reqwest::Url;

use super::settings::Target;
use super::verdict::{answered, clock, key_accepted, unreachable};
use super::{Check, Report};
use crate::api::client::MADE_UP_KEY;
use crate::api::{ApiError, Client, ClientOptions, Probe, RetryPolicy};
use crate::cli::CliError;
use crate::config::Secret;

/// The id read to test the key: no service makes an id like it.
const PROBE_JOB: &str = "docdeck-doctor-no-such-job";
const NAMES: [&str; 4] = ["address", "service", "key accepted", "clock"];

/// Runs the network checks in order, handing each line to `report` as soon as it is
/// known (a DNS or connect timeout should not leave the screen still for seconds).
pub(crate) async fn check(target: Option<&Target>, report: &mut Report) -> Result<(), CliError> {
    let Some(target) = target else {
        return skip_all(&NAMES, "the config must load first", report);
    };
    let resolved = resolve(&target.base_url).await;
    let failed = resolved.verdict == super::Verdict::Fail;
    report.add(&resolved)?;
    if failed {
        return skip_all(&NAMES[1..], "the host must resolve first", report);
    }
    // Without a usable key, a made-up one still shows whether the service answers and
    // what its clock says; it is never the user's key sent where it must not go.
    let (project, key) = match &target.credentials {
        Ok((project, key)) => (project.clone(), key.clone()),
        Err(_) => ("docdeck-doctor".to_owned(), Secret::new(MADE_UP_KEY)),
    };
    let before = Utc::now();
    let started = Instant::now();
    let answer = match probe(&target.base_url, &project, key).await {
        Ok(answer) => answer,
        Err(err) => {
            report.add(&unreachable(&target.base_url, &err))?;
            return skip_all(&NAMES[2..], "the service must answer first", report);
        }
    };
    let elapsed = started.elapsed();
    let midpoint = before + (Utc::now() - before) / 2;
    report.add(&answered(&target.base_url, elapsed))?;
    report.add(&match &target.credentials {
        Ok(_) => {
            // A 404 proves the key only where a made-up key gets 401: a path that is not
            // the API's gives every key the same 404.
            let made_up = if answer.status == 404 {
                let made_up = Secret::new(MADE_UP_KEY);
                probe(&target.base_url, &project, made_up)
                    .await
                    .ok()
                    .map(|p| p.status)
            } else {
                None
            };
            key_accepted(&answer, made_up, &project, &target.key_origin)
        }
        Err(why) => Check::skip("key accepted", why.clone()),
    })?;
    report.add(&clock(answer.date.as_deref(), midpoint))
}

/// One read of the job that cannot exist, sent once with short timeouts.
async fn probe(base_url: &Url, project: &str, key: Secret) -> Result<Probe, ApiError> {
    let mut options = ClientOptions::new(base_url.clone(), project, key);
    options.connect_timeout = Duration::from_secs(5);
    options.request_timeout = Duration::from_secs(10);
    options.retry = RetryPolicy {
        attempts: 1,
        ..RetryPolicy::default()
    };
    Client::new(options)?.probe_job(PROBE_JOB).await
}

fn skip_all(names: &[&'static str], why: &str, report: &mut Report) -> Result<(), CliError> {
    for name in names {
        report.add(&Check::skip(name, why))?;
    }
    Ok(())
}

async fn resolve(url: &Url) -> Check {
    let Some(host) = url.host_str() else {
        return Check::fail(
            "address",
            "the base URL has no host",
            "give a URL such as https://api.mintlify.com",
        );
    };
    if url
        .host()
        .is_some_and(|host| !matches!(host, url::Host::Domain(_)))
    {
        return Check::ok(
            "address",
            format!("{host} is an IP address: nothing to resolve"),
        );
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let lookup = tokio::net::lookup_host((host, port));
    match tokio::time::timeout(Duration::from_secs(10), lookup).await {
        Ok(Ok(addresses)) => {
            let addresses: Vec<String> = addresses.map(|a| a.ip().to_string()).collect();
            let shown = addresses
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = addresses.len().saturating_sub(3);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            Check::ok("address", format!("{host} resolves to {shown}{more}"))
        }
        Ok(Err(err)) => Check::fail(
            "address",
            format!("{host} does not resolve ({err})"),
            "check the host name in the base URL, and this machine's DNS",
        ),
        Err(_) => Check::fail(
            "address",
            format!("resolving {host} took more than 10 s"),
            "check this machine's DNS settings and network",
        ),
    }
}
