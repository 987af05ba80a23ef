//! When each tracked job is read next. Active jobs every poll interval, completed and
//! failed ones rarely (they can still be archived, or revived by a follow-up sent from
//! elsewhere), archived never. At most
//! `MAX_IN_FLIGHT` reads at once and never two for one job; errors back off
//! exponentially with jitter; a 429 on a read pauses the reads until its `Retry-After`
//! (429s on creates, follow-ups and analytics pause only those: see `rate.rs`).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use foldhash::fast::RandomState;

use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

use crate::api::JobStatus;

/// Reads in flight at once, across all jobs.
pub const MAX_IN_FLIGHT: usize = 4;
/// Reads are started on a grid of this step: every read due within one step waits for
/// the step's end, so 100 jobs polled every 3 s wake the console a few times a second,
/// not once per read. A read is never early, and late by less than one step.
pub const WAKE_STEP: Duration = Duration::from_millis(500);
/// The longest wait after errors.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// A 429 without `Retry-After` pauses this long.
pub const DEFAULT_RATE_PAUSE: Duration = Duration::from_secs(60);

/// When a newly scheduled job is first read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstRead {
    Now,
    AfterCadence,
    /// At a random point within one cadence: a journal of many completed jobs does not
    /// turn into a burst of reads at start.
    Spread,
}

/// How often each kind of job is read.
#[derive(Debug, Clone, Copy)]
pub struct Cadences {
    pub active: Duration,
    pub completed: Duration,
    pub unknown: Duration,
}

impl Cadences {
    /// Active jobs every `poll_interval`; completed and failed every 10 minutes (a
    /// follow-up sent from another machine revives either, and both archive); a status this build
    /// does not know every minute (it is not final, but nothing says it moves fast).
    #[must_use]
    pub fn with_interval(poll_interval: Duration) -> Self {
        Self {
            active: poll_interval,
            completed: Duration::from_secs(600),
            unknown: Duration::from_secs(60),
        }
    }

    fn for_status(&self, status: Option<&JobStatus>) -> Option<Duration> {
        match status {
            None | Some(JobStatus::Active) => Some(self.active),
            Some(JobStatus::Completed | JobStatus::Failed) => Some(self.completed),
            Some(JobStatus::Unknown(_)) => Some(self.unknown),
            Some(JobStatus::Archived) => None,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    /// The job's id, shared with its place in the queue (one allocation per job: a start
    /// with 10,000 jobs schedules them all at once).
    id: Arc<str>,
    next_due: Option<Instant>,
    in_flight: bool,
    failures: u32,
    /// Rescheduled (by a send) while a read was on its way: that read's answer may predate
    /// the send, so it is not believed.
    stale: bool,
}

/// The per-job schedule. `queue` indexes the entries that wait for a read by when, so
/// finding what is due costs the number due, not the number of jobs (10,000 are fine).
#[derive(Debug)]
pub struct Scheduler {
    cadences: Cadences,
    entries: HashMap<Arc<str>, Entry, RandomState>,
    queue: BTreeSet<(Instant, Arc<str>)>,
    /// The reads out, with when each went (a few: at most [`MAX_IN_FLIGHT`]).
    flying: Vec<(Arc<str>, Instant)>,
    rate_paused_until: Option<Instant>,
    paused: bool,
    rng: ChaCha8Rng,
    /// Where the grid of [`WAKE_STEP`] starts.
    epoch: Instant,
}

impl Scheduler {
    /// `seed` makes the jitter reproducible in tests.
    #[must_use]
    pub fn new(cadences: Cadences, seed: u64) -> Self {
        Self {
            cadences,
            entries: HashMap::default(),
            queue: BTreeSet::new(),
            flying: Vec::new(),
            rate_paused_until: None,
            paused: false,
            rng: ChaCha8Rng::seed_from_u64(seed),
            epoch: Instant::now(),
        }
    }

    /// When the loop should wake for the next read: the end of the grid step the next
    /// read falls in (see [`WAKE_STEP`]).
    #[must_use]
    pub fn next_wake(&self) -> Option<Instant> {
        // With every slot taken, waking for an overdue read would start nothing: the next
        // answer frees a slot, and its message wakes the loop.
        if self.flying.len() >= MAX_IN_FLIGHT {
            return None;
        }
        let due = self.next_due()?;
        let step = WAKE_STEP.as_nanos();
        let since = due.saturating_duration_since(self.epoch).as_nanos();
        let late = (step - since % step) % step;
        Some(due + Duration::from_nanos(u64::try_from(late).unwrap_or(0)))
    }

    /// Schedules a job from its last known status, first read as `first` says.
    pub fn schedule(
        &mut self,
        id: &str,
        status: Option<&JobStatus>,
        now: Instant,
        first: FirstRead,
    ) {
        let cadence = self.cadences.for_status(status);
        let next_due = cadence.map(|every| match first {
            FirstRead::Now => now,
            FirstRead::AfterCadence => now + every,
            FirstRead::Spread => {
                let millis = u64::try_from(every.as_millis()).unwrap_or(u64::MAX).max(1);
                now + Duration::from_millis(self.rng.random_range(0..millis))
            }
        });
        if !self.entries.contains_key(id) {
            let id: Arc<str> = Arc::from(id);
            self.entries.insert(
                Arc::clone(&id),
                Entry {
                    id,
                    next_due: None,
                    in_flight: false,
                    failures: 0,
                    stale: false,
                },
            );
        }
        self.change(id, |entry| {
            entry.next_due = next_due;
            entry.failures = 0;
            entry.stale = entry.in_flight;
        });
    }

    /// Room for `more` jobs, so that scheduling a whole journal at start grows nothing.
    pub fn reserve(&mut self, more: usize) {
        self.entries.reserve(more);
    }

    /// Changes one entry and keeps `queue` and `flying` in step with it.
    fn change<T>(&mut self, id: &str, edit: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let entry = self.entries.get_mut(id)?;
        let queued = |e: &Entry| e.next_due.filter(|_| !e.in_flight);
        if let Some(at) = queued(entry) {
            self.queue.remove(&(at, Arc::clone(&entry.id)));
        }
        let was_in_flight = entry.in_flight;
        let result = edit(entry);
        if let Some(at) = queued(entry) {
            self.queue.insert((at, Arc::clone(&entry.id)));
        }
        // A read going out is recorded with its time by `take_due`, the one place that
        // sends one.
        if was_in_flight && !entry.in_flight {
            let id = Arc::clone(&entry.id);
            self.flying.retain(|(out, _)| *out != id);
        }
        Some(result)
    }

    /// True when the answer of the read in flight must not be believed (see `Entry::stale`);
    /// the job is then read again at once.
    pub fn answered_stale(&mut self, id: &str, now: Instant) -> bool {
        self.change(id, |entry| {
            let stale = entry.stale;
            if stale {
                entry.stale = false;
                entry.in_flight = false;
                entry.next_due = Some(now);
            }
            stale
        })
        .unwrap_or(false)
    }

    pub fn remove(&mut self, id: &str) {
        self.change(id, |entry| {
            entry.in_flight = false;
            entry.next_due = None;
        });
        self.entries.remove(id);
    }

    /// The jobs to read now, marked in flight: the most overdue first, as many as the
    /// in-flight limit allows. Nothing while paused.
    pub fn take_due(&mut self, now: Instant) -> Vec<String> {
        if self.paused || self.rate_paused_until.is_some_and(|until| now < until) {
            return Vec::new();
        }
        self.rate_paused_until = None;
        let room = MAX_IN_FLIGHT.saturating_sub(self.flying.len());
        let ids: Vec<String> = self
            .queue
            .iter()
            .take_while(|(at, _)| *at <= now)
            .take(room)
            .map(|(_, id)| id.to_string())
            .collect();
        for id in &ids {
            self.change(id, |entry| entry.in_flight = true);
            if let Some(entry) = self.entries.get(id.as_str()) {
                self.flying.push((Arc::clone(&entry.id), now));
            }
        }
        ids
    }

    /// A read answered: the next one follows the job's cadence for `status`.
    pub fn succeeded(&mut self, id: &str, status: Option<&JobStatus>, now: Instant) {
        let next_due = self.cadences.for_status(status).map(|every| now + every);
        self.change(id, |entry| {
            entry.in_flight = false;
            entry.failures = 0;
            entry.next_due = next_due;
        });
    }

    /// A read failed: retry after an exponential, jittered wait (at least the cadence).
    /// Returns the wait.
    pub fn failed(&mut self, id: &str, now: Instant) -> Option<Duration> {
        let base = self.cadences.active;
        let failures = self.entries.get(id)?.failures.saturating_add(1);
        let ceiling = base
            .saturating_mul(2u32.saturating_pow(failures.min(16)))
            .min(MAX_BACKOFF)
            .max(base);
        // "Equal jitter": half fixed, half random, so a wait never collapses to zero.
        let half = ceiling / 2;
        let jitter = self.rng.random_range(0..=half.as_millis().max(1));
        let wait = half + Duration::from_millis(u64::try_from(jitter).unwrap_or(0));
        self.change(id, |entry| {
            entry.in_flight = false;
            entry.failures = failures;
            entry.next_due = Some(now + wait);
        });
        Some(wait)
    }

    /// The service answers again: the reads waiting out a failure's growing wait go now,
    /// so that no row keeps the outage's warning for the rest of that wait.
    pub fn service_back(&mut self, now: Instant) {
        let waiting: Vec<Arc<str>> = (self.entries.values())
            .filter(|entry| entry.failures > 0 && !entry.in_flight && entry.next_due.is_some())
            .map(|entry| Arc::clone(&entry.id))
            .collect();
        for id in waiting {
            self.change(&id, |entry| {
                entry.failures = 0;
                entry.next_due = Some(now);
            });
        }
    }

    /// When the oldest read still out went: a service that takes long to answer (or hangs)
    /// is said from it, not from the last answer.
    #[must_use]
    pub fn oldest_out(&self) -> Option<Instant> {
        self.flying.iter().map(|(_, at)| *at).min()
    }

    /// A read was refused for the rate limit: every read waits until `now + retry_after`.
    pub fn rate_limited(&mut self, id: Option<&str>, now: Instant, retry_after: Option<Duration>) {
        let until = now + retry_after.unwrap_or(DEFAULT_RATE_PAUSE);
        self.rate_paused_until = Some(self.rate_paused_until.map_or(until, |u| u.max(until)));
        if let Some(id) = id {
            self.change(id, |entry| {
                entry.in_flight = false;
                entry.next_due = Some(until);
            });
        }
    }

    /// A job that was not found or is not allowed: stop reading it until asked.
    pub fn stop(&mut self, id: &str) {
        self.change(id, |entry| {
            entry.in_flight = false;
            entry.next_due = None;
        });
    }

    /// `r`: every job that is still polled is due now (a rate-limit pause still holds).
    /// Jobs that had stopped after an error are read again too.
    pub fn refresh_all(&mut self, statuses: &[(String, Option<JobStatus>)], now: Instant) {
        for (id, status) in statuses {
            if self.cadences.for_status(status.as_ref()).is_some() {
                self.change(id, |entry| {
                    entry.next_due = Some(now);
                    entry.failures = 0;
                });
            }
        }
    }

    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// When the next read is due (after any pause), or `None` when nothing is polled.
    #[must_use]
    pub fn next_due(&self) -> Option<Instant> {
        if self.paused {
            return None;
        }
        let next = self.queue.first().map(|(at, _)| *at)?;
        Some(self.rate_paused_until.map_or(next, |until| next.max(until)))
    }

    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.flying.len()
    }
}

/// Whole seconds of a wait, rounded up: how long the user is told to wait.
#[must_use]
pub fn ceil_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_due_within_one_step_share_one_wake_and_none_is_early() {
        let mut poll = Scheduler::new(Cadences::with_interval(Duration::from_secs(3)), 1);
        let start = poll.epoch;
        // Ten jobs spread over one cadence, as a journal of active jobs is at start.
        for i in 0..10 {
            poll.schedule(&format!("j{i}"), None, start, FirstRead::Spread);
        }
        let mut now = start;
        let mut wakes = 0;
        let mut read = 0;
        while read < 10 {
            let due = poll.next_due().unwrap();
            let wake = poll.next_wake().unwrap();
            assert!(wake >= due, "never early");
            assert!(wake - due < WAKE_STEP, "late by less than one step");
            let on_grid = (wake - start).as_nanos() % WAKE_STEP.as_nanos();
            assert_eq!(on_grid, 0, "wakes fall on the grid");
            now = now.max(wake);
            wakes += 1;
            for id in poll.take_due(now) {
                // Answered at once: read again after a cadence.
                poll.succeeded(&id, None, now + Duration::from_secs(3600));
                read += 1;
            }
        }
        assert!(
            wakes <= 3000 / 500,
            "ten reads over 3 s take at most one wake per step, took {wakes}"
        );
    }

    #[test]
    fn with_every_slot_taken_no_timer_is_set_for_reads_that_could_not_start() {
        let mut poll = Scheduler::new(Cadences::with_interval(Duration::from_secs(3)), 1);
        let start = poll.epoch;
        for i in 0..(MAX_IN_FLIGHT + 3) {
            poll.schedule(&format!("j{i}"), None, start, FirstRead::Now);
        }
        let taken = poll.take_due(start);
        assert_eq!(taken.len(), MAX_IN_FLIGHT);
        assert!(
            poll.next_due().is_some_and(|due| due <= start),
            "reads are overdue"
        );
        assert_eq!(
            poll.next_wake(),
            None,
            "an overdue read that cannot start must not wake the loop again and again"
        );
        poll.succeeded(&taken[0], None, start);
        assert_eq!(
            poll.next_wake(),
            Some(start),
            "a free slot wakes it at once"
        );
    }

    #[test]
    fn reads_waiting_out_a_failure_go_at_once_when_the_service_is_back() {
        let mut poll = Scheduler::new(Cadences::with_interval(Duration::from_secs(3)), 1);
        let start = poll.epoch;
        poll.schedule("failing", None, start, FirstRead::Now);
        poll.schedule("fine", None, start, FirstRead::Now);
        assert_eq!(poll.take_due(start).len(), 2);
        // Three failures in a row: the next read waits tens of seconds.
        let mut now = start;
        for _ in 0..3 {
            let wait = poll.failed("failing", now).unwrap();
            now += wait;
            assert_eq!(poll.take_due(now), vec!["failing".to_owned()]);
        }
        let wait = poll.failed("failing", now).unwrap();
        assert!(wait > Duration::from_secs(10), "{wait:?}");
        poll.succeeded("fine", None, now);
        poll.service_back(now);
        assert_eq!(poll.take_due(now), vec!["failing".to_owned()]);
        // A job read without trouble keeps its own cadence.
        assert!(poll.next_due().is_some_and(|due| due > now));
    }
}
