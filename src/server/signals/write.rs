//! Writing searches, feedback and conversations: a search's words are grouped as readers
//! mean them (blank space collapsed, any case), and a page sent as a whole URL is reduced
//! to its path with the rules views use, so feedback and views of a page join. Feedback
//! and conversations are [`Said`]: recorded as they arrive, or imported under a key.

use crate::server::db::StoreError;
use crate::server::store::{Sql, Value};
use crate::server::traffic::page::page_of;

/// The page a path or URL stands for, as views count it; the text itself when it is no
/// page (an asset, a feed), so nothing sent is lost.
fn page(path_or_url: &str) -> String {
    page_of(path_or_url).map_or_else(|_| path_or_url.to_owned(), |view| view.path)
}

/// A search's words as they are grouped: trimmed, blank space collapsed, lower case.
#[must_use]
pub fn normal_query(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One search at `ts_ms`, and the result clicked after it, if any.
pub fn record_search(
    sql: &mut dyn Sql,
    project: &str,
    ts_ms: i64,
    query: &str,
    clicked: Option<&str>,
) -> Result<(), StoreError> {
    sql.exec(
        "INSERT INTO searches (project, ts_ms, query, clicked) VALUES ($1, $2, $3, $4)",
        &[
            project.into(),
            ts_ms.into(),
            normal_query(query).into(),
            clicked.map(page).into(),
        ],
    )?;
    Ok(())
}

/// A piece of feedback as it arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewFeedback {
    pub ts_ms: i64,
    /// A path or a whole URL, kept as sent.
    pub path: String,
    pub source: String,
    pub helpful: Option<bool>,
    pub comment: Option<String>,
    pub contact: Option<String>,
    pub code: Option<String>,
    pub filename: Option<String>,
    pub lang: Option<String>,
}

impl NewFeedback {
    /// A reader's thumb at `ts_ms` on `path`, with what they wrote, if anything.
    #[must_use]
    pub fn thumb(ts_ms: i64, path: String, helpful: Option<bool>, comment: Option<String>) -> Self {
        Self {
            ts_ms,
            path,
            source: Self::source_of(false, comment.is_some()).to_owned(),
            helpful,
            comment,
            ..Self::default()
        }
    }

    /// The source of feedback that names none: a code snippet's when it carries code,
    /// contextual when the reader said something (a comment, or a way to reach them: the
    /// hosted export carries `contact` only on contextual items, FACTS.md), else a bare
    /// thumb.
    #[must_use]
    pub fn source_of(code: bool, said: bool) -> &'static str {
        if code {
            "code_snippet"
        } else if said {
            "contextual"
        } else {
            "thumbs_only"
        }
    }
}

/// Feedback or a conversation with the assistant, stored alike whether it came to the
/// service's endpoints ([`record_said`]) or an import read it ([`import_said`]).
pub trait Said {
    /// The statement that inserts it for `project` with its parameters, `key` last (NULL
    /// when it came to the endpoints): the statement returns the new row's id, or no row
    /// when one with that key is stored.
    fn insert(&self, project: &str, key: Value) -> (&'static str, Vec<Value>);
}

/// Stores `said`, under `key` when an import read it: the new row's id, or none when a
/// row with that key is stored.
fn insert(
    sql: &mut dyn Sql,
    project: &str,
    key: Option<&[u8; 16]>,
    said: &impl Said,
) -> Result<Option<i64>, StoreError> {
    let key = key.map_or(Value::Null, |key| Value::Blob(key.to_vec()));
    let (statement, params) = said.insert(project, key);
    sql.opt(statement, &params)?
        .map(|row| row.int(0))
        .transpose()
}

/// Stores `said` as it arrives (feedback as pending); returns its id.
pub fn record_said(sql: &mut dyn Sql, project: &str, said: &impl Said) -> Result<i64, StoreError> {
    insert(sql, project, None, said)?.ok_or_else(no_row)
}

/// Stores `said` read by an import under `key`, unless something with that key is stored
/// (an import of the same stream again adds nothing): whether it was added.
pub fn import_said(
    sql: &mut dyn Sql,
    project: &str,
    key: &[u8; 16],
    said: &impl Said,
) -> Result<bool, StoreError> {
    Ok(insert(sql, project, Some(key), said)?.is_some())
}

impl Said for NewFeedback {
    fn insert(&self, project: &str, key: Value) -> (&'static str, Vec<Value>) {
        let feedback = self;
        (
            "INSERT INTO feedback (project, ts_ms, path, page, source, status, helpful, comment,
             contact, code, filename, lang, key)
         VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT DO NOTHING RETURNING id",
            vec![
                project.into(),
                feedback.ts_ms.into(),
                feedback.path.as_str().into(),
                page(&feedback.path).into(),
                feedback.source.as_str().into(),
                feedback.helpful.map(i64::from).into(),
                text(feedback.comment.as_ref()),
                text(feedback.contact.as_ref()),
                text(feedback.code.as_ref()),
                text(feedback.filename.as_ref()),
                text(feedback.lang.as_ref()),
                key,
            ],
        )
    }
}

fn no_row() -> StoreError {
    StoreError::Damaged("an insert with no key to conflict on added no row".to_owned())
}

/// Text that may be missing, as a parameter: NULL when it is.
pub(super) fn text(value: Option<&String>) -> Value {
    value.map_or(Value::Null, |text| Value::Text(text.clone()))
}

/// A question to the assistant and its answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewConversation {
    pub ts_ms: i64,
    pub query: String,
    pub response: String,
    /// `(title, url)` of each page the answer cited.
    pub sources: Vec<(String, String)>,
    pub answered: bool,
    pub category: Option<String>,
    pub page_url: Option<String>,
}

impl Said for NewConversation {
    fn insert(&self, project: &str, key: Value) -> (&'static str, Vec<Value>) {
        let conversation = self;
        let sources: Vec<serde_json::Value> = conversation
            .sources
            .iter()
            .map(|(title, url)| serde_json::json!({ "title": title, "url": url }))
            .collect();
        (
            "INSERT INTO assistant (project, ts_ms, query, response, sources, answered, category,
             page_url, key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id",
            vec![
                project.into(),
                conversation.ts_ms.into(),
                conversation.query.as_str().into(),
                conversation.response.as_str().into(),
                serde_json::Value::Array(sources).to_string().into(),
                i64::from(conversation.answered).into(),
                text(conversation.category.as_ref()),
                text(conversation.page_url.as_ref()),
                key,
            ],
        )
    }
}
