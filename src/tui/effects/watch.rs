//! Watches the journal, so a job another docdeck starts tracking (the CLI, a script,
//! another console) appears in an open console by itself, as it would after `r`. The
//! operating system says when the journal's files change (inotify, kqueue): nothing wakes
//! while nothing changes. A change is looked at once the writes have settled: the ids
//! tracked and their last statuses are read (cheap), and only when one is new or another
//! docdeck saw a job change (a follow-up from the CLI revived it) is the whole list read
//! and sent: the console adds the new jobs and reads the changed ones at once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use notify::{RecursiveMode, Watcher as _};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::{Services, on_journal};
use crate::tui::message::Msg;

/// How long the journal's writes have to settle before it is read: a burst of writes
/// (a draft typed, a job created) is one look.
const SETTLE: Duration = Duration::from_millis(250);

/// The watch, kept for as long as the console runs.
pub struct JournalWatch {
    _watcher: notify::RecommendedWatcher,
}

/// Starts watching the journal's folder for changes to its files; `None` where the
/// journal is in memory or the system cannot watch (the console then works as before:
/// `r` reads the jobs tracked elsewhere).
pub fn watch_journal(services: Services, tx: UnboundedSender<Msg>) -> Option<JournalWatch> {
    let file = services.journal.lock().ok()?.file()?;
    let folder = file.parent()?.to_path_buf();
    let name = file.file_name()?.to_string_lossy().into_owned();
    let (changed, mut changes) = unbounded_channel::<()>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|event| is_journal(&event.paths, &name)) {
            let _ = changed.send(());
        }
    })
    .map_err(|err| tracing::info!("cannot watch the journal: {err}"))
    .ok()?;
    watcher
        .watch(&folder, RecursiveMode::NonRecursive)
        .map_err(|err| tracing::info!("cannot watch {}: {err}", folder.display()))
        .ok()?;
    tokio::spawn(async move {
        // No look at start: the console's own start-up read and this one would race, and
        // a job made between them would be known here and missing there. The first change
        // sends the whole list instead (the console only adds what it lacks).
        let mut known = None;
        while changes.recv().await.is_some() {
            tokio::time::sleep(SETTLE).await;
            while changes.try_recv().is_ok() {}
            let Some(jobs) = new_jobs(&services, &mut known).await else {
                continue;
            };
            if tx.send(Msg::TrackedList(jobs)).is_err() {
                break;
            }
        }
    });
    Some(JournalWatch { _watcher: watcher })
}

/// Whether a change touched the journal (`name`) or its WAL.
fn is_journal(paths: &[PathBuf], name: &str) -> bool {
    paths.iter().any(|path| {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(name))
    })
}

/// The tracked jobs, when one of them is new or its status changed since the last look,
/// and at the first look.
async fn new_jobs(
    services: &Services,
    known: &mut Option<HashMap<String, Option<String>>>,
) -> Option<Vec<crate::journal::TrackedJob>> {
    let seen: HashMap<String, Option<String>> =
        on_journal(&services.journal, &services.scope, |j, scope| {
            j.tracked_statuses(scope)
        })
        .await
        .ok()?
        .into_iter()
        .collect();
    let before = known.replace(seen.clone());
    if !news(before.as_ref(), &seen) {
        return None;
    }
    on_journal(&services.journal, &services.scope, |j, scope| {
        j.tracked(scope)
    })
    .await
    .ok()
}

/// Whether the jobs `seen` now are news against `before` (the last look; none yet is
/// news): a job new here, or one whose last status changed.
fn news(
    before: Option<&HashMap<String, Option<String>>>,
    seen: &HashMap<String, Option<String>>,
) -> bool {
    before.is_none_or(|before| {
        seen.iter()
            .any(|(id, status)| before.get(id).is_none_or(|was| was != status))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job the CLI made while the console started was known to the watcher's look at
    /// start and missing from the console's own read: it appeared only when its status
    /// changed (seen in a soak, 2026-11-27). The first look now always sends the list.
    #[test]
    fn the_first_look_is_news_and_later_only_new_jobs_or_statuses() {
        let jobs = |list: &[(&str, &str)]| -> HashMap<String, Option<String>> {
            list.iter()
                .map(|(id, status)| ((*id).to_owned(), Some((*status).to_owned())))
                .collect()
        };
        let now = jobs(&[("a", "active")]);
        assert!(news(None, &now));
        assert!(!news(Some(&now), &now));
        assert!(news(Some(&now), &jobs(&[("a", "failed")])));
        assert!(news(Some(&now), &jobs(&[("a", "active"), ("b", "active")])));
        assert!(!news(
            Some(&jobs(&[("a", "active"), ("b", "active")])),
            &now
        ));
    }

    #[test]
    fn only_the_journal_and_its_wal_count() {
        let paths = |p: &str| vec![PathBuf::from(p)];
        assert!(is_journal(
            &paths("/d/docdeck.sqlite-wal"),
            "docdeck.sqlite"
        ));
        assert!(is_journal(&paths("/d/docdeck.sqlite"), "docdeck.sqlite"));
        assert!(!is_journal(&paths("/d/config.toml"), "docdeck.sqlite"));
    }
}
