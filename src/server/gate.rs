//! The demo seed's views are written in the background, so the service answers (and
//! `docdeck demo` draws) at once. Analytics answers wait at this gate until the views are
//! written: a count over half of them would be a wrong number, not a slow one. Jobs never
//! wait here.

use tokio::sync::watch;

/// Where the seed's views stand.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Writing,
    Written,
    Failed(String),
}

/// What an analytics request waits on.
#[derive(Debug, Clone)]
pub struct SeedGate {
    state: watch::Receiver<State>,
}

/// Opens the gate when the seed's views are written (or failed).
#[derive(Debug)]
pub struct SeedDone {
    state: watch::Sender<State>,
}

impl SeedGate {
    /// A gate that is open: nothing is being seeded.
    #[must_use]
    pub fn open() -> Self {
        let (_, state) = watch::channel(State::Written);
        Self { state }
    }

    /// A closed gate, and what opens it.
    #[must_use]
    pub fn closed() -> (SeedDone, Self) {
        let (sender, state) = watch::channel(State::Writing);
        (SeedDone { state: sender }, Self { state })
    }

    /// Waits until the seed's views are written; their failure, if they could not be.
    pub async fn wait(&self) -> Result<(), String> {
        let mut state = self.state.clone();
        let result = state
            .wait_for(|state| *state != State::Writing)
            .await
            .map(|state| state.clone());
        match result {
            Ok(State::Failed(reason)) => Err(reason),
            Ok(_) => Ok(()),
            // Dropped without a word: the writing task ended abnormally.
            Err(_) => Err("the demo data's writer stopped".to_owned()),
        }
    }
}

impl SeedDone {
    /// The views are written (`Ok`) or could not be.
    pub fn finish(self, result: Result<(), String>) {
        self.state.send_replace(match result {
            Ok(()) => State::Written,
            Err(reason) => State::Failed(reason),
        });
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt as _;

    use super::*;

    #[tokio::test]
    async fn requests_wait_until_the_views_are_written() {
        assert_eq!(SeedGate::open().wait().await, Ok(()));
        let (done, gate) = SeedGate::closed();
        assert_eq!(gate.wait().now_or_never(), None, "closed while writing");
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.wait().await }
        });
        done.finish(Ok(()));
        assert_eq!(waiting.await.unwrap(), Ok(()));
        assert_eq!(gate.wait().now_or_never(), Some(Ok(())), "and stays open");

        let (done, gate) = SeedGate::closed();
        done.finish(Err("disk full".to_owned()));
        assert_eq!(gate.wait().await, Err("disk full".to_owned()));
        let (done, gate) = SeedGate::closed();
        drop(done);
        assert!(gate.wait().await.is_err());
    }
}
