//! Runs the effects `update` asks for: calls to the service and the journal, each as a
//! task that answers with a `Msg`. The only place in the console that does I/O besides
//! the terminal. Drafts go through one writer that keeps only the latest text per draft,
//! so fast typing costs one journal write per burst and the order of writes is kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

mod alert;
mod export;
mod insight;
mod jobs;
mod opener;
mod signal;
mod trend;
mod watch;
mod whole;

use jobs::{check_connection, submit, track};
pub use opener::open_url;
use opener::opener;
pub use signal::is_about;

use super::message::{Budget, DraftKey, Io, LocalError, Msg, Startup};
use crate::api::{Client, HOURLY_LIMIT, Job};
use crate::insight::Cancel;
use crate::journal::{ANALYTICS_HOURLY_LIMIT, Journal, JournalError, Scope, SubmissionKind};

/// What the effects need: the client, the journal and the scope of both.
#[derive(Clone)]
pub struct Services {
    pub client: Arc<Client>,
    pub journal: Arc<Mutex<Journal>>,
    pub scope: Arc<Scope>,
}

impl Services {
    /// Counts `requests` analytics requests just sent in the journal, then the budget as
    /// it stands: the messages that say so (or that the journal failed).
    async fn counted(&self, requests: u32) -> Vec<Msg> {
        if requests == 0 {
            return Vec::new();
        }
        let now = Utc::now();
        let stated = self.client.stated_analytics_limit();
        let counted = self
            .journal(move |j, scope| {
                j.record_analytics(scope, requests, now)?;
                if let Some(stated) = stated {
                    j.note_analytics_limit(scope, stated.limit, now)?;
                }
                budget(j, scope)
            })
            .await;
        match counted {
            Ok(budget) => vec![Msg::Budget(budget)],
            Err(reason) => vec![Msg::LocalFailure(reason)],
        }
    }

    /// Runs `f` on the journal on the blocking pool.
    async fn journal<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Journal, &Scope) -> Result<T, JournalError> + Send + 'static,
    ) -> Result<T, LocalError> {
        on_journal(&self.journal, &self.scope, f).await
    }
}

/// Requests of one answer that count against the analytics budget: none when it never
/// left this machine (the connection was refused, the name did not resolve).
pub(super) fn reached<T>(result: &Result<T, crate::api::ApiError>) -> u32 {
    match result {
        Err(crate::api::ApiError::Network {
            may_have_reached_server: false,
            ..
        }) => 0,
        _ => 1,
    }
}

/// Runs `f` on `journal` on the blocking pool.
async fn on_journal<T: Send + 'static>(
    journal: &Arc<Mutex<Journal>>,
    scope: &Arc<Scope>,
    f: impl FnOnce(&mut Journal, &Scope) -> Result<T, JournalError> + Send + 'static,
) -> Result<T, LocalError> {
    let journal = Arc::clone(journal);
    let scope = Arc::clone(scope);
    tokio::task::spawn_blocking(move || {
        let mut guard = journal.lock().map_err(|_| LocalError::JournalPoisoned)?;
        Ok(f(&mut guard, &scope)?)
    })
    .await?
}

/// The read of what the console starts from, under way.
pub type StartupRead = JoinHandle<Result<Startup, LocalError>>;

/// Starts reading what the console starts from (tracked jobs, drafts, settings, budget).
/// Started as soon as the journal is open, it overlaps the set-up of the client and the
/// terminal: with 10,000 jobs it is most of the time to the first full frame.
#[must_use]
pub fn read_startup(journal: &Arc<Mutex<Journal>>, scope: &Arc<Scope>) -> StartupRead {
    let (journal, scope) = (Arc::clone(journal), Arc::clone(scope));
    // On the blocking pool at once, not from a task: on the console's one thread a task
    // would start only when the caller first waits.
    tokio::task::spawn_blocking(move || {
        let journal = journal.lock().map_err(|_| LocalError::JournalPoisoned)?;
        Ok(Startup {
            jobs: journal.tracked(&scope)?,
            drafts: journal.drafts(&scope)?,
            visitors_filter: journal.setting(&scope, "visitors.filter")?,
            budget: budget(&journal, &scope)?,
            set_aside: journal.set_aside().map(ToString::to_string),
            unsure: journal.unsure_creates(&scope)?,
        })
    })
}

/// The runner: spawns a task per effect and hands terminal effects back to the loop.
pub struct Runner {
    services: Services,
    tx: UnboundedSender<Msg>,
    drafts: Option<UnboundedSender<(DraftKey, String)>>,
    draft_writer: JoinHandle<()>,
    export: Option<JoinHandle<()>>,
    /// The trend being read for the chart, stopped when another is asked or on Esc.
    trend: Option<(JoinHandle<()>, Cancel)>,
    /// The whole-range fetch, stopped on Esc, `w` or another range.
    whole: Option<(JoinHandle<()>, Cancel)>,
    /// The last snapshot of each job written to the journal, and when: a read that brings
    /// the same job within a minute skips the journal (and its thread hand-off) entirely.
    stored: Arc<Mutex<HashMap<String, (Job, Instant)>>>,
    /// Jobs tracked elsewhere appear without `r` while this is kept.
    _journal_watch: Option<watch::JournalWatch>,
}

impl Runner {
    #[must_use]
    pub fn new(services: Services, tx: UnboundedSender<Msg>) -> Self {
        let (drafts, queue) = unbounded_channel();
        let draft_writer = tokio::spawn(write_drafts(services.clone(), queue, tx.clone()));
        let journal_watch = watch::watch_journal(services.clone(), tx.clone());
        Self {
            services,
            tx,
            drafts: Some(drafts),
            draft_writer,
            export: None,
            trend: None,
            whole: None,
            stored: Arc::default(),
            _journal_watch: journal_watch,
        }
    }

    /// Answers with `Msg::Loaded` once what the console starts from is read: by `started`
    /// when the caller began the read early, otherwise by a read begun now.
    pub fn load(&self, started: Option<StartupRead>) {
        let started =
            started.unwrap_or_else(|| read_startup(&self.services.journal, &self.services.scope));
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let loaded = match started.await {
                Ok(loaded) => loaded,
                Err(err) => Err(LocalError::Task(err)),
            };
            let msg = match loaded {
                Ok(startup) => {
                    tracing::debug!(jobs = startup.jobs.len(), "start: journal read");
                    Msg::Loaded(Box::new(startup))
                }
                Err(reason) => {
                    let _ = tx.send(Msg::LocalFailure(reason));
                    Msg::Loaded(Box::default())
                }
            };
            let _ = tx.send(msg);
        });
    }

    /// Starts `effect` as a task that answers with messages.
    pub fn run(&mut self, effect: Io) {
        let s = self.services.clone();
        let tx = self.tx.clone();
        match effect {
            Io::FetchJob(id) => {
                let stored = Arc::clone(&self.stored);
                spawn(tx, async move {
                    let result = s.client.get_job(&id).await;
                    let mut msgs = Vec::new();
                    // An answer without a status says nothing new: the journal keeps the last.
                    if let Some(job) = result.as_ref().ok().filter(|job| job.status.is_some()) {
                        msgs.extend(observe_once(&s, &stored, &id, job).await);
                    }
                    msgs.push(Msg::JobFetched { id, result });
                    msgs
                });
            }
            Io::Track { typed, submission } => {
                spawn(tx, async move { track(&s, typed, submission).await });
            }
            Io::LoadUnsure => spawn(tx, async move {
                match s.journal(|j, scope| j.unsure_creates(scope)).await {
                    Ok(list) => vec![Msg::Unsure(list)],
                    Err(reason) => vec![Msg::LocalFailure(reason)],
                }
            }),
            Io::DismissUnsure(submission) => spawn(tx, async move {
                s.journal(move |j, scope| j.dismiss_unsure(scope, submission))
                    .await
                    .err()
                    .map(Msg::LocalFailure)
                    .into_iter()
                    .collect()
            }),
            Io::Untrack(id) => spawn(tx, async move {
                s.journal(move |j, scope| j.untrack(scope, &id))
                    .await
                    .err()
                    .map(Msg::LocalFailure)
                    .into_iter()
                    .collect()
            }),
            Io::Submit { draft, prompt } => {
                spawn(tx, async move { vec![submit(&s, draft, prompt).await] })
            }
            Io::LoadDetail(id) => spawn(tx, async move {
                let job = id.clone();
                match s
                    .journal(move |j, scope| {
                        Ok((j.conversation(scope, &job)?, j.timeline(scope, &job)?))
                    })
                    .await
                {
                    Ok((conversation, timeline)) => vec![Msg::Detail {
                        id,
                        conversation,
                        timeline,
                    }],
                    Err(reason) => vec![Msg::LocalFailure(reason)],
                }
            }),
            Io::FetchVisitors { generation, query } => spawn(tx, async move {
                let result = s.client.visitors(&query).await;
                let mut msgs = s.counted(reached(&result)).await;
                if result.is_ok() {
                    msgs.push(Msg::ViewsSpan(s.client.views_span()));
                }
                msgs.push(Msg::Visitors { generation, result });
                msgs
            }),
            Io::Insight(io) => self.run_insight(io),
            Io::ReadSignals { generation, query } => spawn(tx, async move {
                use crate::api::signals::Kind;
                use crate::tui::message::SignalsPage;
                let result = match query.kind {
                    Kind::Assistant => s.client.signals(&query).await.map(SignalsPage::Assistant),
                    _ => s.client.signals(&query).await.map(SignalsPage::Searches),
                };
                let mut msgs = s.counted(reached(&result)).await;
                msgs.push(Msg::Signals { generation, result });
                msgs
            }),
            Io::Signal(io) => self.run_signal(io),
            Io::Export {
                query,
                format,
                path,
                overwrite,
            } => {
                if let Some(old) = self.export.take() {
                    old.abort();
                }
                let job = export::Job {
                    query,
                    format,
                    path,
                    overwrite,
                };
                self.export = Some(tokio::spawn(export::run(s, tx, job)));
            }
            Io::ExportWhole {
                text,
                rows,
                path,
                overwrite,
            } => {
                if let Some(old) = self.export.take() {
                    old.abort();
                }
                self.export = Some(tokio::spawn(async move {
                    let end = export::whole(text, rows, &path, overwrite).await;
                    let _ = tx.send(Msg::ExportDone(end));
                }));
            }
            Io::CancelExport => {
                if let Some(task) = self.export.take() {
                    task.abort();
                }
            }
            Io::SaveDraft { draft, text } => {
                if let Some(drafts) = &self.drafts {
                    let _ = drafts.send((draft, text));
                }
            }
            Io::SaveSetting { name, value } => spawn(tx, async move {
                s.journal(move |j, scope| j.save_setting(scope, name, &value))
                    .await
                    .err()
                    .map(Msg::LocalFailure)
                    .into_iter()
                    .collect()
            }),
            Io::RefreshBudget => spawn(tx, async move {
                match s.journal(|j, scope| budget(j, scope)).await {
                    Ok(b) => vec![Msg::Budget(b)],
                    Err(reason) => vec![Msg::LocalFailure(reason)],
                }
            }),
            Io::ReloadTracked => spawn(tx, async move {
                match s.journal(|j, scope| j.tracked(scope)).await {
                    Ok(jobs) => vec![Msg::TrackedList(jobs)],
                    Err(reason) => vec![Msg::LocalFailure(reason)],
                }
            }),
            Io::CheckConnection => spawn(tx, async move {
                vec![Msg::ConnectionChecked(check_connection(&s.client).await)]
            }),
            Io::OpenUrl(url) => open_url(opener(), url, tx),
            Io::Alert(alert) => spawn(tx, async move {
                let env = |name: &str| std::env::var(name).ok();
                match alert::run(*alert, &env).await {
                    Ok(()) => Vec::new(),
                    Err(err) => vec![Msg::AlertFailed(err)],
                }
            }),
        }
    }

    /// Writes every draft still queued, then stops the writer: called on quit.
    pub async fn finish(mut self) {
        self.drafts = None;
        let _ = (&mut self.draft_writer).await;
        if let Some(export) = self.export.take() {
            export.abort();
        }
        stop(&mut self.trend);
        stop(&mut self.whole);
    }
}

/// Stops a background read: what it read is kept, and the requests it sent are counted,
/// before it ends (a cancel, not an abort).
fn stop(task: &mut Option<(JoinHandle<()>, Cancel)>) {
    if let Some((_, cancel)) = task.take() {
        cancel.cancel();
    }
}

/// Starts a background read in `task`'s place; the one running there stops first.
fn restart<F>(task: &mut Option<(JoinHandle<()>, Cancel)>, run: impl FnOnce(Cancel) -> F)
where
    F: Future<Output = ()> + Send + 'static,
{
    stop(task);
    let cancel = Cancel::new();
    let handle = tokio::spawn(run(cancel.clone()));
    *task = Some((handle, cancel));
}

fn spawn(tx: UnboundedSender<Msg>, work: impl Future<Output = Vec<Msg>> + Send + 'static) {
    tokio::spawn(async move {
        for msg in work.await {
            let _ = tx.send(msg);
        }
    });
}

fn budget(journal: &Journal, scope: &Scope) -> Result<Budget, JournalError> {
    let now = Utc::now();
    Ok(Budget {
        create_used: journal.uses_last_hour(scope, SubmissionKind::Create, now, HOURLY_LIMIT)?,
        message_used: journal.uses_last_hour(scope, SubmissionKind::Message, now, HOURLY_LIMIT)?,
        analytics: journal.analytics_budget(scope, ANALYTICS_HOURLY_LIMIT, now)?,
    })
}

/// Stores a job read in the journal unless the same job was stored less than a minute ago.
async fn observe_once(
    s: &Services,
    stored: &Mutex<HashMap<String, (Job, Instant)>>,
    id: &str,
    job: &Job,
) -> Option<Msg> {
    let fresh = |stored: &HashMap<String, (Job, Instant)>| {
        stored
            .get(id)
            .is_some_and(|(last, at)| last == job && at.elapsed() < Duration::from_secs(60))
    };
    if stored.lock().is_ok_and(|stored| fresh(&stored)) {
        return None;
    }
    let failed = observe(s, job.clone()).await;
    if failed.is_none()
        && let Ok(mut stored) = stored.lock()
    {
        stored.insert(id.to_owned(), (job.clone(), Instant::now()));
    }
    failed
}

async fn observe(s: &Services, job: Job) -> Option<Msg> {
    s.journal(move |j, scope| j.observe(scope, &job, Utc::now()))
        .await
        .err()
        .map(Msg::LocalFailure)
}

/// Keeps only the newest text of each draft while a write is running, then writes them.
async fn write_drafts(
    s: Services,
    mut queue: UnboundedReceiver<(DraftKey, String)>,
    tx: UnboundedSender<Msg>,
) {
    while let Some((key, text)) = queue.recv().await {
        let mut batch = HashMap::from([(key, text)]);
        while let Ok((key, text)) = queue.try_recv() {
            batch.insert(key, text);
        }
        let written = s
            .journal(move |j, scope| {
                for (key, text) in &batch {
                    j.save_draft(scope, &key.as_journal(), text, Utc::now())?;
                }
                Ok(())
            })
            .await;
        if let Err(reason) = written {
            let _ = tx.send(Msg::DraftNotSaved(reason));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::ApiError;

    #[test]
    fn a_request_counts_against_the_budget_unless_it_never_left_this_machine() {
        let network = |sent| ApiError::Network {
            host: "h".into(),
            reason: "refused".into(),
            may_have_reached_server: sent,
        };
        assert_eq!(super::reached(&Ok::<(), ApiError>(())), 1);
        assert_eq!(super::reached(&Err::<(), _>(network(false))), 0);
        assert_eq!(super::reached(&Err::<(), _>(network(true))), 1);
        let answered = ApiError::Unauthorized {
            message: String::new(),
        };
        assert_eq!(super::reached(&Err::<(), _>(answered)), 1);
    }
}
