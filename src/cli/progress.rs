//! Progress on standard error, drawn by `indicatif` only when standard error is a
//! terminal (a script's output gets nothing): the live line of an import (lines, views
//! kept, lines a second) and the line of a read of many pages or buckets.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};

use crate::server::traffic::ingest::Progress;
use crate::text::thousands;

/// How often an import's line is written again.
const EVERY: Duration = Duration::from_millis(250);

/// A line of progress on standard error; nothing is drawn where it is not a terminal.
/// Cheap to clone (the clones draw the same line).
#[derive(Clone)]
pub(super) struct Line(ProgressBar);

impl Line {
    /// A line that says what [`Line::say`] last gave it, after a spinner.
    pub fn spinner() -> Self {
        Self::styled(None, "{spinner} {msg}")
    }

    /// A bar for `len` steps (`━━━━━━──── 3/12 days`), with `unit` after the count.
    pub fn bar(len: u64, unit: &str) -> Self {
        Self::styled(
            Some(len),
            &format!("{{bar:24}} {{pos}}/{{len}} {unit} {{msg}}"),
        )
    }

    fn styled(len: Option<u64>, template: &str) -> Self {
        // Dropped on an error's way out, the line is cleared, never left half-said.
        let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr_with_hz(4))
            .with_finish(ProgressFinish::AndClear);
        // The templates are this file's own; a bad one would only lose the style.
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .progress_chars("━━─");
        bar.set_style(style);
        Self(bar)
    }

    /// Says `text` on the line.
    pub fn say(&self, text: impl Into<std::borrow::Cow<'static, str>>) {
        self.0.set_message(text);
    }

    /// Moves the bar to `done` steps.
    pub fn at(&self, done: u64) {
        self.0.set_position(done);
    }

    /// Takes the line away while `f` writes or asks on the terminal, then draws it again.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.0.suspend(f)
    }

    /// Clears the line for good, so what follows starts on a clean line.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// The thread that keeps an import's line current; [`Ticker::finish`] stops it and clears
/// the line.
pub(super) struct Ticker {
    line: Line,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    /// Starts the line for `progress`; nothing is drawn when standard error is not a
    /// terminal (and then no thread is started).
    pub fn start(progress: &Arc<Progress>) -> Self {
        let line = Line::spinner();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = (!line.0.is_hidden()).then(|| {
            let (stop, progress, line) = (Arc::clone(&stop), Arc::clone(progress), line.clone());
            std::thread::spawn(move || run(&stop, &progress, &line))
        });
        Self { line, stop, thread }
    }

    /// Takes the line away while `f` writes something in its place; it comes back at its
    /// next update.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.line.suspend(f)
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
        }
        self.line.finish();
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.end();
    }
}

fn run(stop: &AtomicBool, progress: &Progress, line: &Line) {
    let started = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        std::thread::park_timeout(EVERY);
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let (lines, views) = progress.read();
        line.say(text(lines, views, started.elapsed()));
        line.0.tick();
    }
}

/// `read 1,234,567 lines · kept 456,789 views · 612,345 lines/s`.
fn text(lines: u64, views: u64, elapsed: Duration) -> String {
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
            text(1_234_567, 456_789, Duration::from_secs(2)),
            "read 1,234,567 lines · kept 456,789 views · 617,283 lines/s"
        );
        assert_eq!(
            text(0, 0, Duration::ZERO),
            "read 0 lines · kept 0 views · 0 lines/s"
        );
    }
}
