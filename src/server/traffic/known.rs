//! What an import remembers between lines, so that work done for one line is not done again
//! for the next: real logs repeat a few user agents, pages and clients millions of times.
//! Each memory is capped, and emptied when full, so an import of any size (or a follower
//! that runs for months) stays in bounded memory; what is forgotten is only asked again.

use std::collections::HashMap;

use foldhash::fast::RandomState;
use rusqlite::Connection;

use super::page::{self, NotAView};
use super::rules::{Class, Rules};
use super::store;
use crate::server::analytics::{self, Lookup};
use crate::server::db::StoreError;

/// Distinct user agents (and request targets) remembered before starting again.
const AGENTS_MAX: usize = 50_000;
const TARGETS_MAX: usize = 50_000;
/// Clients (IP and user agent) remembered: about 80 bytes each, under 20 MiB in all.
const CLIENTS_MAX: usize = 200_000;
/// Visitor ids remembered by name (those given by the log, and clients too long to key).
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

/// A page a request target views, and its id once a view of it is stored.
pub struct Page {
    pub path: Box<str>,
    pub markdown: bool,
    id: Option<i64>,
}

impl Page {
    /// The page's id in the database, added there the first time.
    pub fn id(&mut self, conn: &Connection, project: &str) -> Result<i64, StoreError> {
        if let Some(id) = self.id {
            return Ok(id);
        }
        let id = analytics::intern(conn, Lookup::Pages, project, &self.path)?;
        self.id = Some(id);
        Ok(id)
    }
}

/// Request targets seen, and the page each views (or why it is not a page).
pub struct Targets {
    known: Map<Box<str>, Result<Page, NotAView>>,
}

impl Targets {
    pub fn new() -> Self {
        Self { known: map() }
    }

    pub fn get(&mut self, target: &str) -> Result<&mut Page, NotAView> {
        if !self.known.contains_key(target) {
            if self.known.len() >= TARGETS_MAX {
                self.known.clear();
            }
            let page = page::page_of(target).map(|view| Page {
                path: view.path.into(),
                markdown: view.markdown,
                id: None,
            });
            self.known.insert(target.into(), page);
        }
        match self.known.get_mut(target) {
            Some(Ok(page)) => Ok(page),
            Some(Err(why)) => Err(*why),
            // Inserted just above.
            None => Err(NotAView::Asset),
        }
    }
}

/// A client by its IP address (as written, up to 32 bytes) and user agent index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Client {
    ip: [u8; 32],
    len: u8,
    agent: u32,
}

impl Client {
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

/// A visitor made from a client: its keyed hash, and its id once stored.
#[derive(Debug, Clone, Copy)]
struct Hashed {
    hash: [u8; 16],
    id: Option<i64>,
}

/// The visitor of a view, with its id in the database.
pub struct Visitor<'a> {
    pub id: i64,
    /// The visitor's id text (as the view's key is made from it).
    pub name: Name<'a>,
}

/// A visitor's id text: given by the log, or a hash on the stack.
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

/// Visitors seen: clients by IP and user agent, and visitor ids by name.
pub struct Visitors {
    secret: [u8; 32],
    clients: Map<Client, Hashed>,
    names: Map<Box<str>, i64>,
}

impl Visitors {
    pub fn new(secret: [u8; 32]) -> Self {
        Self {
            secret,
            clients: map(),
            names: map(),
        }
    }

    /// Forgets every client (the user agent indexes they were keyed by changed).
    pub fn forget_clients(&mut self) {
        self.clients.clear();
    }

    /// The visitor the log names (`anon_id`).
    pub fn given<'a>(
        &mut self,
        conn: &Connection,
        project: &str,
        name: &'a str,
    ) -> Result<Visitor<'a>, StoreError> {
        Ok(Visitor {
            id: self.named(conn, project, name)?,
            name: Name::Given(name),
        })
    }

    /// The visitor of a client without an id of its own: a keyed hash of its IP address
    /// and user agent (`agent` is the agent's index, [`NO_AGENT`] when none is recorded).
    pub fn client(
        &mut self,
        conn: &Connection,
        project: &str,
        ip: &str,
        agent: (u32, &str),
    ) -> Result<Visitor<'static>, StoreError> {
        let Some(key) = Client::new(ip, agent.0) else {
            let name = store::VisitorName::new(&store::visitor_hash(&self.secret, ip, agent.1));
            let id = self.named(conn, project, name.as_str())?;
            return Ok(Visitor {
                id,
                name: Name::Hashed(name),
            });
        };
        if !self.clients.contains_key(&key) && self.clients.len() >= CLIENTS_MAX {
            self.clients.clear();
        }
        let secret = &self.secret;
        let known = self.clients.entry(key).or_insert_with(|| Hashed {
            hash: store::visitor_hash(secret, ip, agent.1),
            id: None,
        });
        let name = store::VisitorName::new(&known.hash);
        let id = match known.id {
            Some(id) => id,
            None => {
                let id = analytics::intern(conn, Lookup::Visitors, project, name.as_str())?;
                known.id = Some(id);
                id
            }
        };
        Ok(Visitor {
            id,
            name: Name::Hashed(name),
        })
    }

    fn named(&mut self, conn: &Connection, project: &str, name: &str) -> Result<i64, StoreError> {
        if let Some(id) = self.names.get(name) {
            return Ok(*id);
        }
        if self.names.len() >= NAMES_MAX {
            self.names.clear();
        }
        let id = analytics::intern(conn, Lookup::Visitors, project, name)?;
        self.names.insert(name.into(), id);
        Ok(id)
    }
}
