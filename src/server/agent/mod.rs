//! The agent behind the local service, as a trait with two implementations: the simulated
//! agent (tests, `--agent simulated`) and the real one, which runs a command in a git
//! worktree per job and opens pull requests (issue 14).

use std::future::Future;
use std::pin::Pin;

use super::jobs::{PendingTurn, TurnResult};

mod adopt;
mod forge;
mod git;
mod orphans;
pub mod output;
mod pages;
mod process;
mod real;
mod request;
mod setup;
mod simulated;
mod touched;
mod workdir;

pub use forge::{Forge, GITHUB_API};
pub use real::{INTERRUPTED, NODE_STOPPED, RealAgent, RealAgentConfig, worktree_of};
pub use simulated::{OutcomeWeights, SimulatedAgent};

/// Most of a change `/changes` sends: past it the diff is cut, with a marker that says so
/// and how large it was, so that a huge change (or many requests for one) cannot take the
/// service's memory.
pub const DIFF_LIMIT: usize = 10 * 1024 * 1024;

/// The diff as text: `kept` bytes (cut at a line's end when `total` is larger, so no
/// character is split) and a last line that says it was cut, of what size.
#[must_use]
pub fn cut_diff(kept: &[u8], total: u64) -> String {
    if total <= kept.len() as u64 {
        return String::from_utf8_lossy(kept).into_owned();
    }
    let end = kept
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(kept.len(), |i| i + 1);
    let mut text = String::from_utf8_lossy(&kept[..end]).into_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "[docdeck: the diff was cut here: it is {total} bytes ({:.1} MiB), and this page shows at most {} MiB of it; see the branch itself for the rest]\n",
        total as f64 / (1024.0 * 1024.0),
        DIFF_LIMIT / (1024 * 1024)
    ));
    text
}

/// A boxed future, so agents can be used as trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Carries out one turn of a job (the first prompt or a follow-up).
pub trait Agent: Send + Sync + 'static {
    fn run_turn<'a>(&'a self, turn: &'a PendingTurn) -> BoxFuture<'a, TurnResult>;

    /// How many turns may run at once; further turns wait and their jobs stay active.
    /// `None`: no limit.
    fn max_concurrent(&self) -> Option<usize> {
        None
    }

    /// Stops every agent this service still runs, at a clean stop (after the turns' tasks
    /// were dropped). Nothing for an agent that runs no process.
    fn stop_running(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Whether a turn that was under way when the service stopped may simply be run again
    /// at the next start. A real agent is not idempotent, so its turn is failed instead.
    fn reruns_interrupted_turns(&self) -> bool {
        true
    }

    /// The change a job made, as a unified diff against the base, when this agent serves
    /// it at `/changes/{project}/{job}`. `None`: this agent has no such page.
    fn changes<'a>(&'a self, _job_id: &'a str) -> BoxFuture<'a, Option<Result<String, String>>> {
        Box::pin(async { None })
    }

    /// The files a job's change touched, their pages and its merge (the job's `change`
    /// field, issue 27). `None`: this agent keeps no change it could look at.
    fn change_of<'a>(&'a self, _job_id: &'a str) -> BoxFuture<'a, Option<crate::api::JobChange>> {
        Box::pin(async { None })
    }

    /// Where the output of a job's turn is kept, if it is: linked for a turn the service
    /// stopped in the middle, whose end never recorded it.
    fn output_of(&self, _job_id: &str, _turn: i64) -> Option<String> {
        None
    }

    /// Drops what the agent keeps for a job that is archived (its worktree).
    fn forget<'a>(&'a self, _job_id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
