//! What an import remembers between lines, so that work done for one line is not done again
//! for the next: real logs repeat a few user agents, pages and clients millions of times.
//! Each memory is capped, and emptied when full, so an import of any size (or a follower
//! that runs for months) stays in bounded memory; what is forgotten is only asked again.

use std::collections::HashMap;
use std::sync::Arc;

use foldhash::fast::RandomState;
use rusqlite::Connection;

use super::page::{self, NotAView};
use super::rules::{Class, Rules};
use super::store;
use crate::server::db::StoreError;
use crate::server::views::{self, Lookup};

/// Distinct user agents (and request targets) remembered before starting again.
const AGENTS_MAX: usize = 50_000;
const TARGETS_MAX: usize = 50_000;
/// Clients (IP and user agent), and visitor ids by hash, remembered: under 16 MiB in all.
const CLIENTS_MAX: usize = 200_000;
/// Visitor ids remembered by the name the log gives them.
const NAMES_MAX: usize = 100_000;

/// The index a user agent is remembered under when the format records none.
pub const NO_AGENT: u32 = u32::MAX;

/// A fast hash (SipHash over each line's user agent was a visible cost), seeded per map so
/// that crafted log lines cannot make its lookups slow.
type Map<K, V> = HashMap<K, V, RandomState>;

fn map<K, V>() -> Map<K, V> {
    HashMap::with_hasher(RandomState::default())
}

/// User agents seen, with their class and an index that stands for the text in [`Clients`].
pub struct Agents {
    known: Map<Box<str>, (u32, Class)>,
}

impl Agents {
    pub fn new() -> Self {
        Self { known: map() }
    }

    /// The index and class of `agent`; `true` third when the memory was emptied to make
    /// room, so indexes given before mean nothing any more.
    pub fn get(&mut self, rules: &Rules, agent: &str) -> (u32, Class, bool) {
        if let Some((index, class)) = self.known.get(agent) {
            return (*index, *class, false);
        }
        let emptied = self.known.len() >= AGENTS_MAX;
        if emptied {
            self.known.clear();
        }
        let index = u32::try_from(self.known.len()).unwrap_or(NO_AGENT - 1);
        let class = rules.classify(agent).class;
        self.known.insert(agent.into(), (index, class));
        (index, class, emptied)
    }
}

/// The page a request target views.
#[derive(Debug, Clone)]
pub struct Page {
    pub path: Arc<str>,
    pub markdown: bool,
}

/// Request targets seen, and the page each views (or why it is not a page).
pub struct Targets {
    known: Map<Box<str>, Result<Page, NotAView>>,
}

impl Targets {
    pub fn new() -> Self {
        Self { known: map() }
    }

    pub fn get(&mut self, target: &str) -> Result<&Page, NotAView> {
        if !self.known.contains_key(target) {
            if self.known.len() >= TARGETS_MAX {
                self.known.clear();
            }
            let page = page::page_of(target).map(|view| Page {
                path: view.path.into(),
                markdown: view.markdown,
            });
            self.known.insert(target.into(), page);
        }
        match self.known.get(target) {
            Some(Ok(page)) => Ok(page),
            Some(Err(why)) => Err(*why),
            // Inserted just above.
            None => Err(NotAView::Asset),
        }
    }
}

/// The key a client without an id of its own is known by: its IP address (as written, up
/// to 32 bytes) and user agent index. Not an HTTP client (that is `api::Client`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ClientKey {
    ip: [u8; 32],
    len: u8,
    agent: u32,
}

impl ClientKey {
    fn new(ip: &str, agent: u32) -> Option<Self> {
        let bytes = ip.as_bytes();
        let mut key = Self {
            ip: [0; 32],
            len: u8::try_from(bytes.len()).ok()?,
            agent,
        };
        key.ip.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(key)
    }
}

/// A view's visitor, as the log gives it or as a keyed hash of its client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Visitor {
    Given(Box<str>),
    Hashed([u8; 16]),
}

/// The visitor id text of a view (as its key is made from it): given by the log, or a hash
/// written on the stack.
pub enum Name<'a> {
    Given(&'a str),
    Hashed(store::VisitorName),
}

impl Name<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            Self::Given(name) => name,
            Self::Hashed(name) => name.as_str(),
        }
    }
}

impl Visitor {
    pub fn name(&self) -> Name<'_> {
        match self {
            Self::Given(name) => Name::Given(name),
            Self::Hashed(hash) => Name::Hashed(store::VisitorName::new(hash)),
        }
    }
}

/// Clients seen (IP and user agent), with the keyed hash that is their visitor.
pub struct Clients {
    secret: [u8; 32],
    known: Map<ClientKey, [u8; 16]>,
}

impl Clients {
    pub fn new(secret: [u8; 32]) -> Self {
        Self {
            secret,
            known: map(),
        }
    }

    /// Forgets every client (the user agent indexes they were keyed by changed).
    pub fn forget(&mut self) {
        self.known.clear();
    }

    /// The visitor of a client without an id of its own: a keyed hash of its IP address
    /// and user agent (`agent.0` is the agent's index, [`NO_AGENT`] when none is recorded).
    pub fn visitor(&mut self, ip: &str, agent: (u32, &str)) -> [u8; 16] {
        let Some(key) = ClientKey::new(ip, agent.0) else {
            return store::visitor_hash(&self.secret, ip, agent.1);
        };
        if let Some(hash) = self.known.get(&key) {
            return *hash;
        }
        if self.known.len() >= CLIENTS_MAX {
            self.known.clear();
        }
        let hash = store::visitor_hash(&self.secret, ip, agent.1);
        self.known.insert(key, hash);
        hash
    }
}

/// The ids of pages and visitors in the database, as views are written.
pub struct Ids {
    pages: Map<Arc<str>, i64>,
    hashed: Map<[u8; 16], i64>,
    given: Map<Box<str>, i64>,
}

impl Ids {
    pub fn new() -> Self {
        Self {
            pages: map(),
            hashed: map(),
            given: map(),
        }
    }

    /// The id of the page at `path`, added to the database the first time.
    pub fn page(
        &mut self,
        conn: &Connection,
        project: &str,
        path: &Arc<str>,
    ) -> Result<i64, StoreError> {
        if let Some(id) = self.pages.get(path) {
            return Ok(*id);
        }
        if self.pages.len() >= TARGETS_MAX {
            self.pages.clear();
        }
        let id = views::intern(conn, Lookup::Pages, project, path)?;
        self.pages.insert(Arc::clone(path), id);
        Ok(id)
    }

    /// The id of a visitor, added to the database the first time.
    pub fn visitor(
        &mut self,
        conn: &Connection,
        project: &str,
        visitor: &Visitor,
    ) -> Result<i64, StoreError> {
        match visitor {
            Visitor::Hashed(hash) => {
                if let Some(id) = self.hashed.get(hash) {
                    return Ok(*id);
                }
                if self.hashed.len() >= CLIENTS_MAX {
                    self.hashed.clear();
                }
                let name = store::VisitorName::new(hash);
                let id = views::intern(conn, Lookup::Visitors, project, name.as_str())?;
                self.hashed.insert(*hash, id);
                Ok(id)
            }
            Visitor::Given(name) => {
                if let Some(id) = self.given.get(name) {
                    return Ok(*id);
                }
                if self.given.len() >= NAMES_MAX {
                    self.given.clear();
                }
                let id = views::intern(conn, Lookup::Visitors, project, name)?;
                self.given.insert(name.clone(), id);
                Ok(id)
            }
        }
    }
}
