//! The agent behind the local service, as a trait with two implementations: the simulated
//! agent (tests, `--agent simulated`) and the real one, which runs a command in a git
//! worktree per job and opens pull requests (issue 14).

use std::future::Future;
use std::pin::Pin;

use super::jobs::{PendingTurn, TurnResult};

mod forge;
mod git;
mod output;
mod process;
mod real;
mod request;
mod setup;
mod simulated;

pub use forge::{Forge, GITHUB_API};
pub use real::{INTERRUPTED, RealAgent, RealAgentConfig, worktree_of};
pub use simulated::{OutcomeWeights, SimulatedAgent};

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

    /// Drops what the agent keeps for a job that is archived (its worktree).
    fn forget<'a>(&'a self, _job_id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
