//! `--wait`: poll a job until it reaches a final status, printing each status seen, with
//! backoff on failures, an optional `--timeout`, and a clean stop on Ctrl+C, SIGTERM and
//! SIGHUP that says how to pick the job up again.

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::time::Duration;

use chrono::Utc;
use tokio::time::Instant;

use super::output::{self, Format, emit_data};
use super::setup::Setup;
use super::{CliError, Outcome, warn};
use crate::api::{ApiError, Client, HumanWait, Job, JobStatus};
use crate::journal::Journal;

/// Longest wait between polls after repeated network or server failures.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Exit code when `--timeout` runs out before the job ends.
pub const TIMED_OUT: u8 = 5;

/// What ended a wait before the job did.
enum Stop {
    Signal { name: &'static str, code: u8 },
    TimedOut,
}

/// Waits for whichever stop signal comes first. Without a handler (none could be set up)
/// this never ends, and the signal keeps its default effect.
struct Signals {
    #[cfg(unix)]
    streams: Option<[tokio::signal::unix::Signal; 3]>,
}

impl Signals {
    fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = (|| {
                Some([
                    signal(SignalKind::interrupt()).ok()?,
                    signal(SignalKind::terminate()).ok()?,
                    signal(SignalKind::hangup()).ok()?,
                ])
            })();
            Self { streams }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// The name of the signal and the code a shell reports for a process it ended
    /// (128 + its number).
    async fn next(&mut self) -> (&'static str, u8) {
        #[cfg(unix)]
        if let Some([int, term, hup]) = &mut self.streams {
            return tokio::select! {
                _ = int.recv() => ("interrupted", 130),
                _ = term.recv() => ("terminated (SIGTERM)", 143),
                _ = hup.recv() => ("hung up (SIGHUP)", 129),
            };
        }
        std::future::pending().await
    }
}

/// Ends at the deadline; never without one.
async fn expiry(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Runs `work` unless a signal or the deadline comes first.
async fn unless_stopped<T>(
    work: impl Future<Output = T>,
    signals: &mut Signals,
    deadline: Option<Instant>,
) -> Result<T, Stop> {
    tokio::select! {
        done = work => Ok(done),
        (name, code) = signals.next() => Err(Stop::Signal { name, code }),
        () = expiry(deadline) => Err(Stop::TimedOut),
    }
}

/// How the wait for job `id` stopped early, in words, with the command that resumes it.
fn stopped(
    stop: &Stop,
    id: &str,
    status: Option<&JobStatus>,
    timeout: Option<Duration>,
) -> Outcome {
    let id = crate::text::sanitize(id);
    let status = status.map_or_else(|| "not final".to_owned(), ToString::to_string);
    let resume = format!("It continues on the service; resume with `docdeck jobs get {id} --wait`");
    match stop {
        Stop::TimedOut => Err(CliError {
            code: TIMED_OUT,
            message: format!(
                "job {id} is still {status} after {}.\n{resume}",
                HumanWait(timeout.unwrap_or_default())
            ),
        }),
        Stop::Signal { name, code } => {
            // On a terminal the line starts after the `^C` it echoed. Standard error may be
            // gone (a closed terminal): the exit code still tells.
            let mut stderr = std::io::stderr();
            let fresh_line = if stderr.is_terminal() { "\n" } else { "" };
            let _ = writeln!(
                stderr,
                "{fresh_line}docdeck: {name}: stopped waiting for job {id} ({status}).\n{resume}"
            );
            Ok(ExitCode::from(*code))
        }
    }
}

/// Polls until the job reaches a final status, printing each status seen. The journal,
/// when open, records what is seen. Exit: 0 completed, 3 failed, 4 archived,
/// [`TIMED_OUT`] when `timeout` passes first; 130/143/129 on Ctrl+C, SIGTERM, SIGHUP.
pub async fn wait_for(
    client: &Client,
    mut journal: Option<&mut Journal>,
    ctx: &Setup,
    mut job: Job,
    format: Format,
    timeout: Option<Duration>,
) -> Outcome {
    let id = job.id.clone().ok_or_else(|| {
        CliError::failed("the service did not return the job's id, so it cannot be waited for")
    })?;
    let deadline = timeout.map(|timeout| Instant::now() + timeout);
    let mut signals = Signals::listen();
    let interval = ctx.settings.poll_interval;
    let mut shown: Option<Option<JobStatus>> = None;
    let mut failures = 0u32;
    loop {
        let mut delay = interval;
        if shown.as_ref() != Some(&job.status) {
            let first = shown.is_none();
            emit_data(
                &output::transition(&job, format, first, Utc::now())?,
                format,
            )?;
            shown = Some(job.status.clone());
        }
        match &job.status {
            Some(JobStatus::Completed) => return Ok(ExitCode::SUCCESS),
            Some(JobStatus::Failed) => return Ok(ExitCode::from(3)),
            Some(JobStatus::Archived) => return Ok(ExitCode::from(4)),
            // A status this build does not know is not final; it is checked less often.
            Some(JobStatus::Unknown(_)) => delay = interval * 4,
            Some(JobStatus::Active) | None => {}
        }
        loop {
            let read = unless_stopped(
                async {
                    tokio::time::sleep(delay).await;
                    client.get_job(&id).await
                },
                &mut signals,
                deadline,
            )
            .await;
            let read = match read {
                Ok(read) => read,
                Err(stop) => return stopped(&stop, &id, job.status.as_ref(), timeout),
            };
            match read {
                Ok(fresh) => {
                    if let Some(journal) = journal.as_deref_mut()
                        && let Err(err) = journal.observe(&ctx.scope, &fresh, Utc::now())
                    {
                        warn(&format!(
                            "the journal could not record the job's status: {err}"
                        ));
                    }
                    failures = 0;
                    job = fresh;
                    break;
                }
                Err(err @ ApiError::RateLimited { .. }) => {
                    delay = err.retry_after().unwrap_or(MAX_BACKOFF);
                    warn(&format!(
                        "rate limited; polling again in {}",
                        HumanWait(delay)
                    ));
                }
                Err(err @ (ApiError::Network { .. } | ApiError::Server { .. })) => {
                    failures += 1;
                    delay = interval
                        .saturating_mul(2u32.saturating_pow(failures))
                        .min(MAX_BACKOFF);
                    warn(&format!(
                        "{err}; still waiting, next try in {}",
                        HumanWait(delay)
                    ));
                }
                Err(err) => return Err(err.into()),
            }
        }
    }
}
