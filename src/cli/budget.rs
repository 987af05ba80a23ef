//! The analytics budget on the command line. Every analytics request is counted in the
//! journal; before work that needs more than 10 the command says how many and asks (on
//! a terminal: y/N on standard error; otherwise it refuses unless `--yes`, saying the
//! count), and work that needs more than are left is refused, saying when enough free
//! up. The count is this machine's, per service and project.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use chrono::{DateTime, Utc};

use super::{CliError, warn};
use crate::api::StatedLimit;
use crate::journal::{ANALYTICS_HOURLY_LIMIT, Decision, Journal, Scope};

/// How many requests some work needs: exactly, or at most (a whole range ends when
/// `hasMore` does, which is not known before).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Need {
    Exactly(u32),
    AtMost(u32),
}

impl Need {
    fn count(self) -> u32 {
        match self {
            Self::Exactly(n) | Self::AtMost(n) => n,
        }
    }

    fn text(self) -> String {
        let n = self.count();
        let noun = if n == 1 { "request" } else { "requests" };
        match self {
            Self::Exactly(_) => format!("{n} analytics {noun}"),
            Self::AtMost(_) => format!("up to {n} analytics {noun}"),
        }
    }
}

/// The command line's guard on the analytics budget: the journal's count of analytics
/// requests for one scope, and the user's `--yes`.
pub(super) struct Guard<'a> {
    journal: &'a mut Journal,
    scope: &'a Scope,
    yes: bool,
}

impl<'a> Guard<'a> {
    pub fn new(journal: &'a mut Journal, scope: &'a Scope, yes: bool) -> Self {
        Self {
            journal,
            scope,
            yes,
        }
    }

    /// Whether `what` (such as "the trend") may spend `need`: `Ok` to go ahead. `smaller`
    /// says how to make the work smaller, for a refusal.
    pub fn allow(&self, what: &str, need: Need, smaller: &str) -> Result<(), CliError> {
        let now = Utc::now();
        let budget = self
            .journal
            .analytics_budget(self.scope, ANALYTICS_HOURLY_LIMIT, now)?;
        match budget.decide(need.count()) {
            Decision::Go => Ok(()),
            Decision::Ask { .. } if self.yes => Ok(()),
            Decision::Ask { .. } => ask(&format!(
                "{what} needs {} ({})",
                need.text(),
                budget.counted_words()
            )),
            Decision::Refuse { enough_at, .. } => {
                let free_again = enough_at.map(|at| when(at, now));
                Err(CliError::failed(budget.refusal(
                    what,
                    &need.text(),
                    free_again.as_deref(),
                    smaller,
                )))
            }
        }
    }

    /// One request: counted, and refused when none is left this hour.
    pub fn allow_one(&self) -> Result<(), CliError> {
        self.allow(
            "this request",
            Need::Exactly(1),
            "wait for the hour to pass",
        )
    }

    /// Like [`Self::allow`], for work already past [`crate::journal::ASK_ABOVE`] requests: it asks
    /// (unless `--yes`) whatever `need` is, and refuses what would go over what is left.
    pub fn allow_past(&self, what: &str, need: Need, smaller: &str) -> Result<(), CliError> {
        let budget =
            self.journal
                .analytics_budget(self.scope, ANALYTICS_HOURLY_LIMIT, Utc::now())?;
        match budget.decide(need.count()) {
            Decision::Refuse { .. } => self.allow(what, need, smaller),
            Decision::Go | Decision::Ask { .. } if self.yes => Ok(()),
            Decision::Go | Decision::Ask { .. } => ask(&format!(
                "{what} needs {} ({} of {} left this hour, {})",
                need.text(),
                budget.left(),
                budget.limit,
                budget.source.words()
            )),
        }
    }

    /// Counts `requests` sent just now, and keeps the limit the service stated in its
    /// answers (the budget follows it from then on). A journal that cannot count them is
    /// said, not fatal: the data was fetched.
    pub fn record(&mut self, requests: u32, stated: Option<StatedLimit>) {
        let now = Utc::now();
        if let Err(err) = self.journal.record_analytics(self.scope, requests, now) {
            warn(&format!(
                "the {requests} analytics requests just made were not counted: {err}"
            ));
        }
        if let Some(stated) = stated
            && let Err(err) = self
                .journal
                .note_analytics_limit(self.scope, stated.limit, now)
        {
            warn(&format!(
                "the analytics limit the service states ({}) was not kept: {err}",
                stated.limit
            ));
        }
    }
}

/// `at 03:12 UTC (in 41 min)`.
fn when(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let minutes = ((at - now).num_seconds().max(0) + 59) / 60;
    format!("at {} UTC (in {minutes} min)", at.format("%H:%M"))
}

/// Asks on the terminal; refuses without one (nothing was sent either way).
fn ask(question: &str) -> Result<(), CliError> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(CliError::usage(format!(
            "{question}; nothing was sent: add --yes to go ahead without being asked"
        )));
    }
    eprint!("docdeck: {question}. Go on? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|err| CliError::usage(format!("cannot read the answer: {err}")))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::usage(
            "stopped: nothing was sent (--yes goes ahead without asking)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_need_says_whether_it_is_exact() {
        assert_eq!(Need::Exactly(1).text(), "1 analytics request");
        assert_eq!(Need::AtMost(19).text(), "up to 19 analytics requests");
    }

    #[test]
    fn the_time_enough_free_up_is_told_in_utc_and_minutes() {
        let now = DateTime::parse_from_rfc3339("2026-11-20T10:00:30Z")
            .unwrap()
            .with_timezone(&Utc);
        let at = now + chrono::TimeDelta::seconds(41 * 60 - 10);
        assert_eq!(when(at, now), "at 10:41 UTC (in 41 min)");
    }
}
