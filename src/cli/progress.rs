//! A live line on standard error while an import reads (lines, views kept, lines a
//! second), only when standard error is a terminal: a script's output gets nothing.

use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::server::traffic::ingest::Progress;
use crate::text::thousands;

/// How often the line is written again.
const EVERY: Duration = Duration::from_millis(250);

/// The thread that writes the line; [`Ticker::finish`] stops it and clears the line.
pub(super) struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    /// Starts the line for `progress`, or nothing when standard error is not a terminal.
    pub fn start(progress: &Arc<Progress>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let (stop, progress) = (Arc::clone(&stop), Arc::clone(progress));
            std::thread::spawn(move || run(&stop, &progress))
        });
        Self { stop, thread }
    }

    /// Clears the line for something else to be written there (it comes back at its next
    /// update).
    pub fn clear(&self) {
        if self.thread.is_some() {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }

    /// Stops the line and clears it, so what follows starts on a clean line.
    pub fn finish(mut self) {
        self.end();
    }

    fn end(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.end();
    }
}

fn run(stop: &AtomicBool, progress: &Progress) {
    let started = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        std::thread::park_timeout(EVERY);
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let (lines, views) = progress.read();
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[K{}",
            line(lines, views, started.elapsed())
        );
    }
}

/// `read 1,234,567 lines · kept 456,789 views · 612,345 lines/s`.
fn line(lines: u64, views: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    #[expect(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let rate = if secs > 0.0 {
        (lines as f64 / secs) as u64
    } else {
        0
    };
    format!(
        "read {} lines · kept {} views · {} lines/s",
        thousands(lines),
        thousands(views),
        thousands(rate)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_lines_views_and_rate() {
        assert_eq!(
            line(1_234_567, 456_789, Duration::from_secs(2)),
            "read 1,234,567 lines · kept 456,789 views · 617,283 lines/s"
        );
        assert_eq!(
            line(0, 0, Duration::ZERO),
            "read 0 lines · kept 0 views · 0 lines/s"
        );
    }
}
