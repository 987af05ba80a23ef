//! Saying once that the database cannot be reached, and once that it can again: a node's
//! loops retry every few seconds while PostgreSQL is down, and a line per retry buried the
//! log (two long lines every 2.5–5 s per node, and no word when it came back).

use std::time::{Duration, Instant};

/// How often a continuing outage is said again.
const SAY_AGAIN: Duration = Duration::from_secs(60);

/// One loop's view of the database: reachable, or down since a time.
#[derive(Debug, Default)]
pub struct Outage {
    down: Option<(Instant, Instant)>,
}

impl Outage {
    /// A failure of `what`: logged the first time, then once a minute while it lasts.
    pub fn failed(&mut self, what: &str, err: &dyn std::fmt::Display) {
        let now = Instant::now();
        match &mut self.down {
            None => {
                tracing::error!("{what}: {err}");
                self.down = Some((now, now));
            }
            Some((since, said)) if now.duration_since(*said) >= SAY_AGAIN => {
                tracing::error!(
                    "{what}, still, after {} s: {err}",
                    now.duration_since(*since).as_secs()
                );
                *said = now;
            }
            Some(_) => {}
        }
    }

    /// A success: says that `what` works again if it had failed.
    pub fn recovered(&mut self, what: &str) {
        if let Some((since, _)) = self.down.take() {
            tracing::info!(
                "{what} again, after {} s",
                Instant::now().duration_since(since).as_secs()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_is_said_once_and_its_end_once() {
        let mut outage = Outage::default();
        assert!(outage.down.is_none());
        outage.recovered("claiming turns works");
        assert!(outage.down.is_none(), "no outage, nothing ends");
        outage.failed("cannot claim a turn", &"refused");
        let first = outage.down;
        outage.failed("cannot claim a turn", &"refused");
        assert_eq!(outage.down, first, "a retry within the minute says nothing");
        outage.recovered("claiming turns works");
        assert!(outage.down.is_none());
    }
}
