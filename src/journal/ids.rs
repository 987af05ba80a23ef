//! What a job id the user typed stands for: a known id, the one job whose id starts with
//! it on this service, or on another service of the same project (another node).

use rusqlite::params;

use super::{IdMatch, Journal, JournalError, Scope};

impl Journal {
    /// What a job id the user typed stands for: the id itself when the journal knows it,
    /// else the one job of this scope (tracked or not) whose id starts with it, so the
    /// short ids the console shows work wherever an id is taken.
    pub fn resolve_id(&self, scope: &Scope, typed: &str) -> Result<IdMatch, JournalError> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Ok(IdMatch::Unknown(String::new()));
        }
        let mut statement = self.conn.prepare_cached(
            "SELECT job_id FROM jobs WHERE service = ?1 AND project = ?2
               AND job_id >= ?3 AND job_id < ?3 || char(1114111)
             ORDER BY job_id LIMIT 6",
        )?;
        let ids = statement
            .query_map(params![scope.service, scope.project, typed], |row| {
                row.get::<_, String>(0)
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(if ids.iter().any(|id| id == typed) {
            IdMatch::Known(typed.to_owned())
        } else {
            match ids.as_slice() {
                [] => IdMatch::Unknown(typed.to_owned()),
                [one] => IdMatch::Known(one.clone()),
                _ => IdMatch::Ambiguous(ids),
            }
        })
    }

    /// The jobs of this scope's project, followed from other services (another node of
    /// the same cluster, another base URL), whose ids start with `typed`: `(id, service)`,
    /// at most 6.
    pub fn resolve_elsewhere(
        &self,
        scope: &Scope,
        typed: &str,
    ) -> Result<Vec<(String, String)>, JournalError> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Ok(Vec::new());
        }
        let mut statement = self.conn.prepare_cached(
            "SELECT DISTINCT job_id, service FROM jobs WHERE service <> ?1 AND project = ?2
               AND job_id >= ?3 AND job_id < ?3 || char(1114111)
             ORDER BY job_id LIMIT 6",
        )?;
        let found = statement
            .query_map(params![scope.service, scope.project, typed], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(found)
    }

    /// The one job of this scope's project followed from another service whose id starts
    /// with `typed` (and is not `typed` itself), with that service: a start of an id sent
    /// as typed can only get a 404. `None` when none or several are.
    pub fn only_elsewhere(&self, scope: &Scope, typed: &str) -> Option<(String, String)> {
        let found = self.resolve_elsewhere(scope, typed).ok()?;
        let (first, service) = found.first()?;
        if found.iter().any(|(id, _)| id != first) || first == typed.trim() {
            return None;
        }
        Some((first.clone(), service.clone()))
    }
}
