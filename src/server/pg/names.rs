//! The ids of an import's pages and visitors in PostgreSQL (issue 26), asked by set and
//! remembered in capped maps keyed by the visitor itself. They are asked on a connection
//! of their own, beside the one the import's views are written on, so that a batch's ids
//! are asked while its keys are claimed: PostgreSQL's work for the two runs on two cores
//! instead of one statement after the other. What this connection adds is committed at
//! once: an import that fails leaves pages and visitors no view names, which no count
//! reads. The import's own transaction writes neither table, so this connection never
//! waits for it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use foldhash::fast::RandomState;
use postgres::Client;

use super::import::Prepared;
use crate::server::db::StoreError;
use crate::server::traffic::Ready;
use crate::server::traffic::known::Visitor;

/// Page and visitor ids remembered before starting again (bounded memory).
const PAGES_MAX: usize = 50_000;
const VISITORS_MAX: usize = 200_000;

/// An import's page and visitor ids, and the connection they are asked on.
pub(super) struct Names {
    client: Box<Client>,
    statements: Prepared,
    project: String,
    pages: HashMap<Arc<str>, i64, RandomState>,
    /// By the visitor as the log line gave it (a hash is not written out as text to be
    /// looked up: SipHash and string compares were a tenth of the import's CPU).
    visitors: HashMap<Visitor, i64, RandomState>,
    /// Whether the last batch's unknown names were mostly new to the database: then the
    /// next batch's are added first and only those already there are read (a first
    /// import skips a lookup that finds nothing), else read first (a re-import).
    names_mostly_new: Fresh,
}

impl Names {
    pub(super) fn new(client: Client, project: &str) -> Self {
        Self {
            client: Box::new(client),
            statements: Prepared::default(),
            project: project.to_owned(),
            pages: HashMap::default(),
            visitors: HashMap::default(),
            names_mostly_new: Fresh::default(),
        }
    }

    /// The ids of a view's page and visitor (resolved by [`Names::resolve`]).
    pub(super) fn ids_of(&self, view: &Ready) -> Result<(i64, i64), StoreError> {
        let missing =
            || StoreError::Postgres("an imported view's page or visitor has no id".into());
        let page = *self.pages.get(&view.path).ok_or_else(missing)?;
        let visitor = *self.visitors.get(&view.visitor).ok_or_else(missing)?;
        Ok((page, visitor))
    }

    /// Gives every page and visitor of `views` an id, adding those not stored.
    pub(super) fn resolve(&mut self, views: &[&Ready]) -> Result<(), StoreError> {
        let paths: HashSet<&str, RandomState> = views
            .iter()
            .filter(|view| !self.pages.contains_key(&view.path))
            .map(|view| &*view.path)
            .collect();
        if self.pages.len() + paths.len() > PAGES_MAX {
            return self.resolve_all(views);
        }
        let unknown: HashSet<&Visitor, RandomState> = views
            .iter()
            .map(|view| &view.visitor)
            .filter(|visitor| !self.visitors.contains_key(*visitor))
            .collect();
        if self.visitors.len() + unknown.len() > VISITORS_MAX {
            return self.resolve_all(views);
        }
        let paths: Vec<&str> = paths.into_iter().collect();
        self.learn_ids(&paths, unknown.into_iter().collect())
    }

    /// Asks (adding those not stored) the ids of `paths` and `visitors`, and keeps them.
    fn learn_ids(&mut self, paths: &[&str], visitors: Vec<&Visitor>) -> Result<(), StoreError> {
        let first = self.names_mostly_new;
        let asked = ids(
            &mut self.client,
            &mut self.statements,
            Table::Pages,
            &self.project,
            paths,
            first.pages,
        )?;
        self.names_mostly_new.pages = asked.mostly_new(paths.len());
        for (path, id) in asked.found {
            self.pages.insert(path.into(), id);
        }
        // A visitor id the log gives may read as a hashed one ("h:…"): one name, one id.
        let mut named: HashMap<String, Vec<&Visitor>, RandomState> = HashMap::default();
        for visitor in visitors {
            let name = visitor.name().as_str().to_owned();
            named.entry(name).or_default().push(visitor);
        }
        let names: Vec<&str> = named.keys().map(String::as_str).collect();
        let asked = ids(
            &mut self.client,
            &mut self.statements,
            Table::Visitors,
            &self.project,
            &names,
            first.visitors,
        )?;
        self.names_mostly_new.visitors = asked.mostly_new(names.len());
        for (name, id) in asked.found {
            for visitor in named.get(&name).into_iter().flatten() {
                self.visitors.insert((*visitor).clone(), id);
            }
        }
        Ok(())
    }

    /// [`Names::resolve`] after a memory was emptied: every name of the batch is asked.
    pub(super) fn resolve_all(&mut self, views: &[&Ready]) -> Result<(), StoreError> {
        self.visitors.clear();
        self.pages.clear();
        let paths: HashSet<&str, RandomState> = views.iter().map(|view| &*view.path).collect();
        let paths: Vec<&str> = paths.into_iter().collect();
        let visitors: HashSet<&Visitor, RandomState> =
            views.iter().map(|view| &view.visitor).collect();
        self.learn_ids(&paths, visitors.into_iter().collect())
    }
}

#[derive(Clone, Copy)]
enum Table {
    Pages,
    Visitors,
}

/// Per table, whether the names last asked were mostly new to the database.
#[derive(Debug, Default, Clone, Copy)]
struct Fresh {
    pages: bool,
    visitors: bool,
}

/// The ids [`ids`] found, and how many of them it added.
struct Asked {
    found: Vec<(String, i64)>,
    added: usize,
}

impl Asked {
    fn mostly_new(&self, asked: usize) -> bool {
        self.added * 2 > asked
    }
}

/// The ids of `names` in `table` for `project`, adding those not stored (another
/// importer adding one at the same time is read back). With `insert_first`, all are
/// added first and only those already stored are read; else all are read first and only
/// those not found are added: each way saves a statement that would find nothing.
fn ids(
    client: &mut Client,
    statements: &mut Prepared,
    table: Table,
    project: &str,
    names: &[&str],
    insert_first: bool,
) -> Result<Asked, StoreError> {
    if names.is_empty() {
        return Ok(Asked {
            found: Vec::new(),
            added: 0,
        });
    }
    let (select, insert) = match table {
        Table::Pages => (
            "SELECT p.path, p.id FROM unnest($2::text[]) n (path)
             JOIN pages p ON p.project = $1 AND p.path = n.path",
            "INSERT INTO pages (project, path) SELECT $1, unnest($2::text[])
             ON CONFLICT DO NOTHING RETURNING path, id",
        ),
        Table::Visitors => (
            "SELECT v.visitor, v.id FROM unnest($2::text[]) n (visitor)
             JOIN visitors v ON v.project = $1 AND v.visitor = n.visitor",
            "INSERT INTO visitors (project, visitor) SELECT $1, unnest($2::text[])
             ON CONFLICT DO NOTHING RETURNING visitor, id",
        ),
    };
    let read = |rows: Vec<postgres::Row>| -> Vec<(String, i64)> {
        rows.iter().map(|row| (row.get(0), row.get(1))).collect()
    };
    let select = statements.get(client, select)?;
    let insert = statements.get(client, insert)?;
    if insert_first {
        let mut found = read(client.query(&insert, &[&project, &in_order(names)])?);
        let added = found.len();
        if added < names.len() {
            // Stored before, or by another importer since (its insert was waited for).
            let stored = not_in(&found, names);
            found.extend(read(client.query(&select, &[&project, &stored])?));
        }
        return Ok(Asked { found, added });
    }
    let mut found = read(client.query(&select, &[&project, &names])?);
    if found.len() == names.len() {
        return Ok(Asked { found, added: 0 });
    }
    let missing = not_in(&found, names);
    let added = read(client.query(&insert, &[&project, &in_order(&missing)])?);
    if added.len() < missing.len() {
        let raced = not_in(&added, &missing);
        let more = read(client.query(&select, &[&project, &raced])?);
        found.extend(more);
    }
    let count = added.len();
    found.extend(added);
    Ok(Asked {
        found,
        added: count,
    })
}

/// The names of `of` that `got` does not hold.
fn not_in<'a>(got: &[(String, i64)], of: &[&'a str]) -> Vec<&'a str> {
    let got: HashSet<&str, RandomState> = got.iter().map(|(name, _)| name.as_str()).collect();
    of.iter().copied().filter(|n| !got.contains(n)).collect()
}

/// `names` sorted: two imports adding some of the same names at once take the rows' locks
/// in the same order, so neither waits for the other in a circle (PostgreSQL found a
/// deadlock between two imports into one project, their names in their lines' orders).
fn in_order<'a>(names: &[&'a str]) -> Vec<&'a str> {
    let mut sorted = names.to_vec();
    sorted.sort_unstable();
    sorted
}
