//! A site's own search in its access log (issue 27): a request of the search page with its
//! query parameter (`GET /search?q=install+guide`, or the page and parameter given to
//! `import --search-url`) is a search, not a page view; a later page view by the same
//! visitor whose referer is that search page, with the same words, within an hour, is the
//! result it clicked, whether the search was read by this import or an earlier one. A
//! referer from a web search engine (`www.google.com/search?q=…`) clicks nothing.

use rusqlite::{Connection, params};

use crate::server::db::StoreError;
use crate::server::signals::normal_query;

/// How long after a search a page opened from it counts as its clicked result.
pub const CLICK_WITHIN_MS: i64 = 60 * 60 * 1000;

/// Web search engines whose result pages share the site search's shape (`/search?q=`):
/// a reader who arrives from one searched the web, not the site.
const WEB_SEARCH: &[&str] = &[
    "google.",
    "bing.com",
    "duckduckgo.com",
    "yahoo.",
    "yandex.",
    "baidu.com",
    "ecosia.org",
    "qwant.com",
    "search.brave.com",
    "startpage.com",
    "ask.com",
    "naver.com",
];

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
        self.words_of(target).filter(|words| !words.is_empty())
    }

    /// Whether `target` is the search page asked with its parameter but no words
    /// (`/search?q=`): a search of nothing, which is neither a search nor a page view.
    /// The page opened without the parameter (`/search`) is a page view.
    #[must_use]
    pub fn searched_nothing(&self, target: &str) -> bool {
        self.words_of(target).is_some_and(|words| words.is_empty())
    }

    /// The normalised words of the parameter of a request of the search page, if it is one
    /// and has the parameter.
    fn words_of(&self, target: &str) -> Option<String> {
        let (path, query) = target.split_once('?')?;
        if path != self.path && path.strip_suffix('/') != Some(self.path.as_str()) {
            return None;
        }
        let words = url::form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| *name == self.param)?
            .1;
        Some(normal_query(&words))
    }

    /// The page and parameter as `--search-url` takes them: `/search?q=`.
    #[must_use]
    pub fn text(&self) -> String {
        format!("{}?{}=", self.path, self.param)
    }

    /// The words of the site search a referer (a whole URL, or a path) came from; `None`
    /// for another page, or a web search engine's results.
    #[must_use]
    pub fn referred(&self, referer: &str) -> Option<String> {
        if !referer.contains(self.path.as_str()) {
            return None;
        }
        let target = match referer.split_once("://") {
            Some((_, rest)) => {
                let at = rest.find('/')?;
                let host = rest[..at].to_ascii_lowercase();
                if WEB_SEARCH
                    .iter()
                    .any(|engine| host.starts_with(engine) || host.contains(&format!(".{engine}")))
                {
                    return None;
                }
                &rest[at..]
            }
            None => referer,
        };
        self.query_of(target)
    }
}

/// A search read from a log, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub key: [u8; 16],
    pub ts_ms: i64,
    pub query: String,
    /// Who searched (the visitor's id as views keep it), for the click that follows.
    pub visitor: String,
}

/// Stores `search` unless a search with its key is stored: whether it was added.
pub fn store(tx: &Connection, project: &str, search: &Search) -> Result<bool, StoreError> {
    let added = tx
        .prepare_cached(
            "INSERT INTO searches (project, ts_ms, query, key, visitor) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![
            project,
            search.ts_ms,
            search.query,
            search.key,
            search.visitor
        ])?;
    Ok(added > 0)
}

/// A page view opened from a site search: who, when, the words and the page.
#[derive(Debug, Clone, Copy)]
pub struct Click<'a> {
    pub visitor: &'a str,
    pub ts_ms: i64,
    pub words: &'a str,
    pub page: &'a str,
}

/// A result a visitor clicked after a search, as the event stream says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamClick {
    pub visitor: String,
    pub ts_ms: i64,
    pub words: String,
    pub page: String,
}

impl StreamClick {
    #[must_use]
    pub fn click(&self) -> Click<'_> {
        Click {
            visitor: &self.visitor,
            ts_ms: self.ts_ms,
            words: &self.words,
            page: &self.page,
        }
    }
}

/// Records the page of `click` as the result of the visitor's latest search for those
/// words in the hour before, unless that search has its result already (a second result
/// keeps the first): whether it was recorded.
pub fn click(tx: &Connection, project: &str, click: Click<'_>) -> Result<bool, StoreError> {
    let clicked = tx
        .prepare_cached(
            "UPDATE searches SET clicked = ?5
             WHERE id = (SELECT id FROM searches
                         WHERE project = ?1 AND visitor = ?2 AND query = ?3
                           AND ts_ms <= ?4 AND ts_ms >= ?4 - ?6
                         ORDER BY ts_ms DESC, id DESC LIMIT 1)
               AND clicked IS NULL",
        )?
        .execute(params![
            project,
            click.visitor,
            click.words,
            click.ts_ms,
            click.page,
            CLICK_WITHIN_MS
        ])?;
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
        assert!(url.searched_nothing("/search?q=+"), "a search of nothing");
        assert!(url.searched_nothing("/search?q="));
        assert!(
            !url.searched_nothing("/search"),
            "the page opened is a view"
        );
        assert!(!url.searched_nothing("/search?q=api"));
        assert_eq!(url.text(), "/search?q=");
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
        // A web search engine's results have the same shape: they click nothing.
        for engine in [
            "http://www.google.com/search?q=install",
            "https://www.google.co.uk/search?q=install",
            "https://www.bing.com/search?q=install",
            "https://duckduckgo.com/search?q=install",
        ] {
            assert_eq!(url.referred(engine), None, "{engine}");
        }
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
