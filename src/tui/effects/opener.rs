//! `o` on a pull request link: the desktop's opener, or a copy when there is none.

use tokio::sync::mpsc::UnboundedSender;

use crate::tui::message::Msg;

/// The desktop's program that opens a link.
pub(super) fn opener() -> &'static str {
    if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    }
}

/// Opens a link with `opener`. When it cannot start or exits with an error (xdg-open
/// without a browser exits 3 or 4), the console hears of it and copies the link instead.
pub fn open_url(opener: &'static str, url: String, tx: UnboundedSender<Msg>) {
    let spawned = std::process::Command::new(opener)
        .arg(&url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            let reason = format!("cannot run {opener}: {err}");
            let _ = tx.send(Msg::OpenFailed { url, reason });
            return;
        }
    };
    tokio::task::spawn_blocking(move || {
        let reason = match child.wait() {
            Ok(status) if status.success() => return,
            Ok(status) => match status.code() {
                Some(code) => format!("{opener} exited with {code}"),
                None => format!("{opener} was stopped by a signal"),
            },
            Err(err) => format!("{opener}: {err}"),
        };
        let _ = tx.send(Msg::OpenFailed { url, reason });
    });
}

#[cfg(test)]
mod tests {
    use tokio::sync::mpsc::unbounded_channel;

    use super::*;

    async fn open_with(opener: &'static str) -> Option<Msg> {
        let (tx, mut rx) = unbounded_channel();
        open_url(opener, "https://x/pull/1".to_owned(), tx);
        // The sender is dropped once the opener has been waited for.
        rx.recv().await
    }

    #[tokio::test]
    async fn an_opener_that_exits_with_an_error_is_reported() {
        let Some(Msg::OpenFailed { url, reason }) = open_with("false").await else {
            panic!("no failure reported");
        };
        assert_eq!(url, "https://x/pull/1");
        assert_eq!(reason, "false exited with 1");
    }

    #[tokio::test]
    async fn an_opener_that_cannot_start_is_reported() {
        let Some(Msg::OpenFailed { reason, .. }) = open_with("/nonexistent/docdeck-opener").await
        else {
            panic!("no failure reported");
        };
        assert!(reason.starts_with("cannot run"), "{reason}");
    }

    #[tokio::test]
    async fn an_opener_that_succeeds_says_nothing() {
        assert!(open_with("true").await.is_none());
    }
}
