//! The runner's side of a job's impact and a page's comments: each a task that reads
//! what it needs (the job and its first prompt, both windows' visitors; the range's
//! newest feedback) within the requests it was allowed, counts every analytics request
//! in the journal, and answers once.

use chrono::Utc;

use super::{Runner, Services, reached, spawn};
use crate::api::signals::{FeedbackItem, FeedbackPage};
use crate::api::{ApiError, VisitorsQuery};
use crate::insight::buckets::param;
use crate::insight::impact::{impact, marked_pages};
use crate::insight::impact_read::{NotReady, gap_of, prepare};
use crate::insight::whole::{Step, Whole, WholeRange};
use crate::server::traffic::page::page_of;
use crate::tui::message::{Comments, ImpactFailed, ImpactRead, Msg, SignalIo, SignalMsg};

impl Runner {
    pub(super) fn run_signal(&mut self, io: SignalIo) {
        let s = self.services.clone();
        let tx = self.tx.clone();
        match io {
            SignalIo::ReadImpact {
                id,
                window,
                max_rows,
                allow,
            } => spawn(tx, async move {
                let (result, requests, read) = read_impact(&s, &id, window, max_rows, allow).await;
                let mut msgs = s.counted(requests).await;
                msgs.push(Msg::Signal(SignalMsg::Impact {
                    id,
                    result: Box::new(result),
                    requests,
                    read,
                }));
                msgs
            }),
            SignalIo::FetchComments {
                generation,
                query,
                path,
                pages,
            } => spawn(tx, async move {
                let (result, requests) = comments(&s, query, &path, pages).await;
                let mut msgs = s.counted(requests).await;
                msgs.push(Msg::Signal(SignalMsg::Comments {
                    generation,
                    result,
                    requests,
                }));
                msgs
            }),
        }
    }
}

type ImpactEnd = (
    Result<ImpactRead, ImpactFailed>,
    u32,
    Option<Result<(), ApiError>>,
);

/// The impact as `docdeck jobs impact` reads it (the same `insight` steps), within
/// `allow` analytics requests; with the requests sent and how the job's read went.
async fn read_impact(
    s: &Services,
    id: &str,
    window: chrono::TimeDelta,
    max_rows: usize,
    allow: u32,
) -> ImpactEnd {
    let job = id.to_owned();
    // A journal that cannot give the prompt leaves the marked pages out, as the CLI does.
    let marked = s
        .journal(move |j, scope| j.conversation(scope, &job))
        .await
        .ok()
        .and_then(|prompts| prompts.first().map(|first| marked_pages(&first.prompt)))
        .unwrap_or_default();
    let prepared = match prepare(&s.client, id, &marked, None, window, Utc::now()).await {
        Ok(prepared) => prepared,
        Err(NotReady::Api(err)) => {
            let read = Some(Err(err.clone()));
            return (Err(ImpactFailed::NotReady(NotReady::Api(err))), 0, read);
        }
        Err(other) => return (Err(ImpactFailed::NotReady(other)), 0, Some(Ok(()))),
    };
    let windows = prepared.windows;
    let mut sent = 0u32;
    let mut held = Vec::new();
    for (from, to) in [windows.before, windows.after] {
        let query = VisitorsQuery {
            date_from: Some(param(from)),
            date_to: Some(param(to)),
            ..VisitorsQuery::default()
        };
        let mut range = WholeRange::new(&query, max_rows);
        let before = sent;
        let page = loop {
            if sent >= allow {
                return (Err(ImpactFailed::NeedsMore(allow)), sent, Some(Ok(())));
            }
            let step = range.step(&s.client).await;
            sent = before + range.requests();
            match step {
                Ok(Step::More) => {}
                Ok(Step::Done(Whole::All(page))) => break page,
                Ok(Step::Done(Whole::TooMany { max_rows, .. })) => {
                    return (Err(ImpactFailed::TooMany(max_rows)), sent, Some(Ok(())));
                }
                Ok(Step::Done(Whole::Cancelled)) => {
                    return (Err(ImpactFailed::NeedsMore(allow)), sent, Some(Ok(())));
                }
                Err(err) => return (Err(ImpactFailed::Visitors(err)), sent, Some(Ok(()))),
            }
        };
        held.push(page);
    }
    let [before, after] = held.as_slice() else {
        return (Err(ImpactFailed::NeedsMore(allow)), sent, Some(Ok(())));
    };
    let read = ImpactRead {
        merge: prepared.merge,
        windows,
        impact: impact(&prepared.pages, before, after),
        gap: s
            .client
            .views_span()
            .and_then(|span| gap_of(&windows, span)),
    };
    (Ok(read), sent, Some(Ok(())))
}

/// Whether feedback sent about `item.path` (a path or a whole URL) is about `path`.
#[must_use]
pub fn is_about(item: &FeedbackItem, path: &str) -> bool {
    let page = page_of(&item.path).map_or_else(|_| item.path.clone(), |view| view.path);
    page == path
}

/// The range's newest feedback, a page at a time (at most `pages`), keeping `path`'s.
async fn comments(
    s: &Services,
    mut query: crate::api::signals::SignalsQuery,
    path: &str,
    pages: u32,
) -> (Result<Comments, ApiError>, u32) {
    let mut found = Comments {
        items: Vec::new(),
        looked: 0,
        more: false,
    };
    let mut sent = 0;
    loop {
        let result = s.client.signals::<FeedbackPage>(&query).await;
        sent += reached(&result);
        let page = match result {
            Ok(page) => page,
            Err(err) => return (Err(err), sent),
        };
        found.looked += page.feedback.len();
        found.items.extend(
            page.feedback
                .into_iter()
                .filter(|item| is_about(item, path)),
        );
        found.more = page.has_more || page.next_cursor.is_some();
        match page.next_cursor {
            Some(cursor) if found.more && sent < pages => query.cursor = Some(cursor),
            _ => return (Ok(found), sent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_about;
    use crate::tui::app::tests::signals::item;

    #[test]
    fn feedback_sent_from_a_whole_url_is_about_its_page() {
        let url = item(
            "https://docs.acme.dev/guides/authentication/?ref=nav",
            None,
            true,
        );
        assert!(is_about(&url, "/guides/authentication"));
        assert!(!is_about(&url, "/guides"));
        assert!(is_about(
            &item("/guides/authentication", None, true),
            "/guides/authentication"
        ));
    }
}
