//! A site's own search in its access log (issue 27): a request of the search page with its
//! query parameter (`GET /search?q=install+guide`, or the page and parameter given to
//! `import --search-url`) is a search, not a page view; a later page view by the same
//! visitor whose referer is that search page, with the same words, is the result it
//! clicked. A referer from another site's search (`google.com/search?q=…`) clicks nothing:
//! only a search this log holds, by the same visitor, can be clicked through.

use std::collections::HashMap;

use rusqlite::{Transaction, params};

use crate::server::db::StoreError;
use crate::server::signals::normal_query;

/// The searches remembered for click-through; past it the oldest are forgotten at once
/// (a reader clicks a result within minutes of searching, well inside this many searches).
const REMEMBERED: usize = 50_000;

/// Where a site's search page is and which parameter holds the words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchUrl {
    path: String,
    param: String,
}

impl Default for SearchUrl {
    /// `/search?q=`, as most sites and docs frameworks name it.
    fn default() -> Self {
        Self {
            path: "/search".to_owned(),
            param: "q".to_owned(),
        }
    }
}

impl SearchUrl {
    /// Reads `PATH?PARAM=` (`/search?q=`, `/docs/find?query=`); the `=` may be left out.
    ///
    /// # Errors
    /// Says what form is expected.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "--search-url {text:?} is not PATH?PARAM= (such as /search?q=): the search page's path, then the parameter that holds the words"
            )
        };
        let (path, param) = text.split_once('?').ok_or_else(bad)?;
        let param = param.strip_suffix('=').unwrap_or(param);
        if !path.starts_with('/') || param.is_empty() || param.contains(['=', '&']) {
            return Err(bad());
        }
        Ok(Self {
            path: path.to_owned(),
            param: param.to_owned(),
        })
    }

    /// The words searched for by a request of `target` (path and query), normalised as
    /// searches are grouped; `None` when it is no search or searched nothing.
    #[must_use]
    pub fn query_of(&self, target: &str) -> Option<String> {
        let (path, query) = target.split_once('?')?;
        if path != self.path && path.strip_suffix('/') != Some(self.path.as_str()) {
            return None;
        }
        let words = url::form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| *name == self.param)?
            .1;
        let words = normal_query(&words);
        (!words.is_empty()).then_some(words)
    }

    /// The words of the search a referer (a whole URL, or a path) came from.
    #[must_use]
    pub fn referred(&self, referer: &str) -> Option<String> {
        if !referer.contains(self.path.as_str()) {
            return None;
        }
        let target = match referer.split_once("://") {
            Some((_, rest)) => &rest[rest.find('/')?..],
            None => referer,
        };
        self.query_of(target)
    }
}

/// The searches read so far, by visitor and words, for click-through.
#[derive(Debug, Default)]
pub struct Searches {
    recent: HashMap<(Box<str>, String), [u8; 16]>,
}

impl Searches {
    /// Remembers that `visitor` searched for `words` (the search stored under `key`).
    pub fn searched(&mut self, visitor: &str, words: String, key: [u8; 16]) {
        if self.recent.len() >= REMEMBERED {
            self.recent.clear();
        }
        self.recent.insert((visitor.into(), words), key);
    }

    /// The search `visitor` made for `words`, if this import read it.
    #[must_use]
    pub fn made(&self, visitor: &str, words: &str) -> Option<[u8; 16]> {
        self.recent
            .get(&(Box::from(visitor), words.to_owned()))
            .copied()
    }
}

/// A search read from a log, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub key: [u8; 16],
    pub ts_ms: i64,
    pub query: String,
}

/// Stores `search` unless a search with its key is stored: whether it was added.
pub fn store(tx: &Transaction<'_>, project: &str, search: &Search) -> Result<bool, StoreError> {
    let added = tx
        .prepare_cached(
            "INSERT INTO searches (project, ts_ms, query, key) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![project, search.ts_ms, search.query, search.key])?;
    Ok(added > 0)
}

/// Records `page` as the result clicked after search `key`, unless one was clicked
/// already: whether it was recorded.
pub fn click(
    tx: &Transaction<'_>,
    project: &str,
    key: [u8; 16],
    page: &str,
) -> Result<bool, StoreError> {
    let clicked = tx
        .prepare_cached(
            "UPDATE searches SET clicked = ?3 WHERE project = ?1 AND key = ?2 AND clicked IS NULL",
        )?
        .execute(params![project, key, page])?;
    Ok(clicked > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_is_the_search_page_with_its_words() {
        let url = SearchUrl::default();
        assert_eq!(
            url.query_of("/search?q=Install+%20Guide"),
            Some("install guide".to_owned())
        );
        assert_eq!(
            url.query_of("/search/?page=2&q=api"),
            Some("api".to_owned())
        );
        assert_eq!(url.query_of("/search?q=+"), None);
        assert_eq!(url.query_of("/search"), None);
        assert_eq!(url.query_of("/searches?q=x"), None);
        assert_eq!(url.query_of("/guide?q=x"), None);
        let own = SearchUrl::parse("/docs/find?query=").unwrap();
        assert_eq!(own.query_of("/docs/find?query=sso"), Some("sso".to_owned()));
        assert_eq!(own.query_of("/search?q=sso"), None);
    }

    #[test]
    fn a_referer_names_the_search_it_came_from() {
        let url = SearchUrl::default();
        assert_eq!(
            url.referred("https://docs.example.com/search?q=install"),
            Some("install".to_owned())
        );
        assert_eq!(
            url.referred("/search?q=install"),
            Some("install".to_owned())
        );
        // Another site's search has the same shape: the words alone do not click.
        assert_eq!(
            url.referred("http://www.google.com/search?q=install"),
            Some("install".to_owned())
        );
        assert_eq!(url.referred("-"), None);
        assert_eq!(url.referred("https://docs.example.com/guide"), None);
    }

    #[test]
    fn a_search_url_flag_reads_path_and_parameter() {
        assert_eq!(
            SearchUrl::parse("/search?q=").unwrap(),
            SearchUrl::default()
        );
        assert_eq!(SearchUrl::parse("/search?q").unwrap(), SearchUrl::default());
        for bad in ["search?q=", "/search", "/search?=", "/search?q=x", "/s?a&b"] {
            let err = SearchUrl::parse(bad).unwrap_err();
            assert!(err.contains("PATH?PARAM="), "{bad}: {err}");
        }
    }
}
