//! Faults on demand: the local service can answer like a flaky network and a misbehaving
//! service would, so that docdeck (and anyone's own integration) can be tested against
//! them. Off unless asked for.
//!
//! Each request draws once: it may wait (latency), then at most one of: an error status
//! before the handler runs, a dropped connection (before or after the handler, so a POST
//! may or may not have been carried out), or a 200 with a body that is not the documented
//! JSON (after the handler, so the call was carried out but its answer is unreadable).

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::api::ErrorBody;

/// A share of requests, from 0 to 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Rate(f64);

impl Rate {
    pub const ZERO: Self = Self(0.0);

    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }
}

impl FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().parse::<f64>() {
            Ok(value) if (0.0..=1.0).contains(&value) => Ok(Self(value)),
            _ => Err(format!(
                "{text:?} is not a share of requests: give a number from 0 to 1, such as 0.05"
            )),
        }
    }
}

/// Milliseconds added before each answer, drawn uniformly from `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latency {
    pub min_ms: u64,
    pub max_ms: u64,
}

impl FromStr for Latency {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "{text:?} is not a latency: give MIN..MAX in milliseconds, such as 50..400, or one number"
            )
        };
        let (min, max) = match text.split_once("..") {
            Some((min, max)) => (min.trim(), max.trim()),
            None => (text.trim(), text.trim()),
        };
        let min_ms = min.parse::<u64>().map_err(|_| bad())?;
        let max_ms = max.parse::<u64>().map_err(|_| bad())?;
        if min_ms > max_ms {
            return Err(format!(
                "latency {text:?}: MIN is larger than MAX; write it as {max_ms}..{min_ms}"
            ));
        }
        if max_ms > 600_000 {
            return Err(format!(
                "latency {text:?}: more than 10 minutes per request is not a useful test; use at most 600000"
            ));
        }
        Ok(Self { min_ms, max_ms })
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{} ms", self.min_ms, self.max_ms)
    }
}

/// What the service is asked to get wrong.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultPlan {
    /// Share of requests answered 500, 502 or 503 without being carried out.
    pub fault_rate: Rate,
    /// Share of requests whose connection is closed without a response.
    pub drop_rate: Rate,
    /// Share of requests carried out and answered 200 with a body that is not the
    /// documented JSON.
    pub garbage_rate: Rate,
    pub latency: Option<Latency>,
    /// 429 answers lose their `Retry-After` header, as the hosted service documents none.
    pub rate_limit_no_retry_after: bool,
    /// Seed of the draws: the same seed and order of requests give the same faults.
    pub seed: u64,
}

impl FaultPlan {
    /// True when nothing would ever be injected.
    #[must_use]
    pub fn is_off(&self) -> bool {
        self.fault_rate == Rate::ZERO
            && self.drop_rate == Rate::ZERO
            && self.garbage_rate == Rate::ZERO
            && self.latency.is_none()
            && !self.rate_limit_no_retry_after
    }

    /// The three shares are exclusive outcomes of one draw, so together they cannot pass 1.
    pub fn validate(&self) -> Result<(), String> {
        let sum = self.fault_rate.0 + self.drop_rate.0 + self.garbage_rate.0;
        if sum > 1.0 + 1e-9 {
            return Err(format!(
                "--fault-rate, --drop-rate and --garbage-rate add up to {sum}: each request gets at most one of them, so keep their sum at most 1"
            ));
        }
        Ok(())
    }

    /// A short description for the log and the start-up line.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (name, rate) in [
            ("errors", self.fault_rate),
            ("drops", self.drop_rate),
            ("garbage", self.garbage_rate),
        ] {
            if rate != Rate::ZERO {
                parts.push(format!("{name} {:.1}%", rate.0 * 100.0));
            }
        }
        if let Some(latency) = self.latency {
            parts.push(format!("latency {latency}"));
        }
        if self.rate_limit_no_retry_after {
            parts.push("429 without Retry-After".to_owned());
        }
        parts.join(", ")
    }
}

/// One request's fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    Error(StatusCode),
    DropBefore,
    DropAfter,
    Garbage(usize),
}

/// The plan and its random source, shared by every request.
pub struct Faults {
    plan: FaultPlan,
    rng: Mutex<ChaCha8Rng>,
}

/// Bodies a broken service or a proxy in the way might send with a 200.
const GARBAGE: &[&str] = &[
    "<html><body><h1>502 Bad Gateway</h1></body></html>",
    "{\"id\": \"job_",
    "[]",
    "{\"totals\": \"many\", \"visitors\": {}, \"hasMore\": \"perhaps\"}",
    "not json at all \u{1b}[2J\u{1b}]0;owned\u{7}",
    "",
    "null",
];

impl Faults {
    #[must_use]
    pub fn new(plan: FaultPlan) -> Arc<Self> {
        let rng = ChaCha8Rng::seed_from_u64(plan.seed);
        Arc::new(Self {
            plan,
            rng: Mutex::new(rng),
        })
    }

    fn draw(&self) -> (Option<Duration>, Option<Fault>) {
        let mut rng = self
            .rng
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let wait = self
            .plan
            .latency
            .map(|l| Duration::from_millis(rng.random_range(l.min_ms..=l.max_ms)));
        let roll: f64 = rng.random();
        let error = self.plan.fault_rate.0;
        let drop = error + self.plan.drop_rate.0;
        let garbage = drop + self.plan.garbage_rate.0;
        let fault = if roll < error {
            let statuses = [
                StatusCode::INTERNAL_SERVER_ERROR,
                StatusCode::BAD_GATEWAY,
                StatusCode::SERVICE_UNAVAILABLE,
            ];
            Some(Fault::Error(statuses[rng.random_range(0..statuses.len())]))
        } else if roll < drop {
            Some(if rng.random::<bool>() {
                Fault::DropBefore
            } else {
                Fault::DropAfter
            })
        } else if roll < garbage {
            Some(Fault::Garbage(rng.random_range(0..GARBAGE.len())))
        } else {
            None
        };
        (wait, fault)
    }
}

/// The middleware that applies the plan to every request.
pub async fn inject(State(faults): State<Arc<Faults>>, request: Request, next: Next) -> Response {
    let (wait, fault) = faults.draw();
    if let Some(wait) = wait {
        tokio::time::sleep(wait).await;
    }
    let path = request.uri().path().to_owned();
    match fault {
        Some(Fault::Error(status)) => {
            tracing::debug!(%path, %status, "injected an error");
            let body = ErrorBody {
                error: Some(format!(
                    "Injected fault: {}",
                    status.canonical_reason().unwrap_or("error")
                )),
                details: None,
            };
            return (status, Json(body)).into_response();
        }
        Some(Fault::DropBefore) => {
            tracing::debug!(%path, "injected a dropped connection before handling");
            return dropped();
        }
        _ => {}
    }
    let mut response = next.run(request).await;
    match fault {
        Some(Fault::DropAfter) => {
            tracing::debug!(%path, "injected a dropped connection after handling");
            return dropped();
        }
        Some(Fault::Garbage(which)) => {
            tracing::debug!(%path, "injected a garbage body after handling");
            let mut garbage = Response::new(Body::from(GARBAGE[which]));
            garbage.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            return garbage;
        }
        _ => {}
    }
    if faults.plan.rate_limit_no_retry_after && response.status() == StatusCode::TOO_MANY_REQUESTS {
        response.headers_mut().remove(header::RETRY_AFTER);
    }
    response
}

/// A response whose body fails before its first byte: hyper then closes the connection
/// without sending the status line, which is what a client sees when a connection drops.
fn dropped() -> Response {
    let failing = futures_util::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::other("injected drop"))
    });
    Response::new(Body::from_stream(failing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_latencies_parse_with_clear_errors() {
        assert_eq!("0.25".parse::<Rate>().unwrap().get(), 0.25);
        assert!("1.5".parse::<Rate>().unwrap_err().contains("from 0 to 1"));
        assert!("-0.1".parse::<Rate>().is_err());
        assert!("NaN".parse::<Rate>().is_err());
        assert_eq!(
            "50..400".parse::<Latency>().unwrap(),
            Latency {
                min_ms: 50,
                max_ms: 400
            }
        );
        assert_eq!("7".parse::<Latency>().unwrap().max_ms, 7);
        assert!(
            "400..50"
                .parse::<Latency>()
                .unwrap_err()
                .contains("50..400")
        );
        assert!("fast".parse::<Latency>().is_err());
    }

    #[test]
    fn rates_that_add_past_one_are_refused() {
        let plan = FaultPlan {
            fault_rate: Rate(0.6),
            drop_rate: Rate(0.5),
            ..FaultPlan::default()
        };
        assert!(plan.validate().unwrap_err().contains("at most 1"));
        assert!(FaultPlan::default().is_off());
    }

    #[test]
    fn draws_follow_the_rates_and_the_seed() {
        let plan = FaultPlan {
            fault_rate: Rate(0.2),
            drop_rate: Rate(0.1),
            garbage_rate: Rate(0.1),
            seed: 7,
            ..FaultPlan::default()
        };
        let count = |faults: &Faults| {
            let mut seen = [0usize; 4];
            for _ in 0..10_000 {
                match faults.draw().1 {
                    None => seen[0] += 1,
                    Some(Fault::Error(_)) => seen[1] += 1,
                    Some(Fault::DropBefore | Fault::DropAfter) => seen[2] += 1,
                    Some(Fault::Garbage(_)) => seen[3] += 1,
                }
            }
            seen
        };
        let first = count(&Faults::new(plan.clone()));
        assert_eq!(first, count(&Faults::new(plan)), "same seed, same faults");
        // Within 4 standard deviations of the expected shares.
        for (seen, share) in first.iter().zip([0.6_f64, 0.2, 0.1, 0.1]) {
            let expected = 10_000.0 * share;
            let sd = (10_000.0 * share * (1.0 - share)).sqrt();
            assert!((*seen as f64 - expected).abs() < 4.0 * sd, "{first:?}");
        }
    }
}
