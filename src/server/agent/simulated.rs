//! The simulated agent, for tests and `--agent simulated`: a fixed delay per turn and a
//! seeded outcome, with no repository and no process.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Agent, BoxFuture};
use crate::server::jobs::{PendingTurn, TurnOutcome, TurnResult};

/// Relative weights of the three outcomes of a simulated turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutcomeWeights {
    pub pr: u32,
    pub nochange: u32,
    pub fail: u32,
}

impl Default for OutcomeWeights {
    fn default() -> Self {
        Self {
            pr: 75,
            nochange: 15,
            fail: 10,
        }
    }
}

impl fmt::Display for OutcomeWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pr={},nochange={},fail={}",
            self.pr, self.nochange, self.fail
        )
    }
}

impl FromStr for OutcomeWeights {
    type Err = String;

    /// Reads `pr=75,nochange=15,fail=10`; outcomes left out weigh zero.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let usage =
            "write it as pr=75,nochange=15,fail=10 (whole numbers, at least one above zero)";
        let mut weights = Self {
            pr: 0,
            nochange: 0,
            fail: 0,
        };
        let mut seen = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} has no '=': {usage}"))?;
            let value: u32 = value
                .trim()
                .parse()
                .map_err(|_| format!("{:?} is not a whole number: {usage}", value.trim()))?;
            let name = name.trim();
            if seen.contains(&name) {
                return Err(format!("{name} is given twice: {usage}"));
            }
            seen.push(name);
            match name {
                "pr" => weights.pr = value,
                "nochange" => weights.nochange = value,
                "fail" => weights.fail = value,
                other => {
                    return Err(format!(
                        "unknown outcome {other:?}: the outcomes are pr, nochange and fail"
                    ));
                }
            }
        }
        if u64::from(weights.pr) + u64::from(weights.nochange) + u64::from(weights.fail) == 0 {
            return Err(format!("all weights are zero: {usage}"));
        }
        Ok(weights)
    }
}

/// Takes `delay` per turn, then picks an outcome from `weights`. The pick depends only on
/// the seed, the job's creation order and the turn number, so a run is reproducible
/// whatever order the turns finish in.
#[derive(Debug, Clone)]
pub struct SimulatedAgent {
    pub delay: Duration,
    pub weights: OutcomeWeights,
    pub seed: u64,
}

impl SimulatedAgent {
    /// The outcome of turn `turn` of the `job_seq`-th job.
    #[must_use]
    pub fn outcome(&self, job_seq: i64, turn: i64) -> TurnOutcome {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&self.seed.to_le_bytes());
        seed[8..16].copy_from_slice(&job_seq.to_le_bytes());
        seed[16..24].copy_from_slice(&turn.to_le_bytes());
        let mut rng = ChaCha8Rng::from_seed(seed);
        let w = self.weights;
        let total = u64::from(w.pr) + u64::from(w.nochange) + u64::from(w.fail);
        let roll = rng.random_range(0..total.max(1));
        if roll < u64::from(w.pr) {
            TurnOutcome::PullRequest
        } else if roll < u64::from(w.pr) + u64::from(w.nochange) {
            TurnOutcome::NoChange
        } else {
            TurnOutcome::Failed
        }
    }
}

impl Agent for SimulatedAgent {
    fn run_turn<'a>(&'a self, turn: &'a PendingTurn) -> BoxFuture<'a, TurnResult> {
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            match self.outcome(turn.job_seq, turn.turn) {
                TurnOutcome::Failed => TurnResult::failed(
                    "the simulated agent drew a failure (its odds are --agent-outcomes)",
                ),
                outcome => TurnResult::of(outcome),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_parse_with_clear_errors() {
        let parsed: OutcomeWeights = "pr=75, nochange=15,fail=10".parse().unwrap();
        assert_eq!(parsed, OutcomeWeights::default());
        assert_eq!("fail=1".parse::<OutcomeWeights>().unwrap().pr, 0);
        for (bad, hint) in [
            ("pr=x", "whole number"),
            ("pr", "no '='"),
            ("pr=1,pr=2", "twice"),
            ("merge=1", "unknown outcome"),
            ("pr=0", "all weights are zero"),
            ("", "all weights are zero"),
        ] {
            let err = bad.parse::<OutcomeWeights>().unwrap_err();
            assert!(err.contains(hint), "{bad}: {err}");
        }
    }

    #[test]
    fn outcomes_are_reproducible_and_follow_the_weights() {
        let agent = SimulatedAgent {
            delay: Duration::ZERO,
            weights: OutcomeWeights::default(),
            seed: 42,
        };
        let run: Vec<_> = (1..=400).map(|seq| agent.outcome(seq, 1)).collect();
        let again: Vec<_> = (1..=400).map(|seq| agent.outcome(seq, 1)).collect();
        assert_eq!(run, again);
        let prs = run
            .iter()
            .filter(|o| **o == TurnOutcome::PullRequest)
            .count();
        assert!(
            (250..350).contains(&prs),
            "{prs} pull requests of 400 at weight 75%"
        );
        let other_seed = SimulatedAgent {
            seed: 43,
            ..agent.clone()
        };
        assert_ne!(
            run,
            (1..=400)
                .map(|seq| other_seed.outcome(seq, 1))
                .collect::<Vec<_>>()
        );
        let only_fail = SimulatedAgent {
            weights: "fail=1".parse().unwrap(),
            ..agent
        };
        assert!((1..50).all(|seq| only_fail.outcome(seq, 2) == TurnOutcome::Failed));
    }
}
