//! API keys of the local service. Only SHA-256 hashes are stored; a key is shown once, when
//! it is generated, and never again.

use std::collections::HashMap;

use rand::Rng;
use rand::distr::Alphanumeric;
use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use super::db::StoreError;
use crate::config::Secret;

/// Why a request's credentials were not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthFailure {
    /// No `Authorization` header, or not of the form `Bearer <key>`.
    Malformed,
    /// A well-formed key this service does not know.
    Unknown,
    /// A known key of a different project.
    OtherProject,
}

/// The hashes of every key the service accepts, with the project each key belongs to.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    projects_by_hash: HashMap<String, String>,
}

impl KeyRing {
    /// Reads every stored key.
    pub fn load(conn: &Connection) -> Result<Self, StoreError> {
        let mut statement = conn.prepare("SELECT hash, project FROM api_keys")?;
        let projects_by_hash = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<HashMap<String, String>, _>>()?;
        Ok(Self { projects_by_hash })
    }

    /// Checks an `Authorization` header value against `project`.
    pub fn check(&self, header: Option<&str>, project: &str) -> Result<(), AuthFailure> {
        let header = header.ok_or(AuthFailure::Malformed)?;
        let (scheme, key) = header
            .trim()
            .split_once(' ')
            .ok_or(AuthFailure::Malformed)?;
        let key = key.trim();
        if !scheme.eq_ignore_ascii_case("bearer") || key.is_empty() {
            return Err(AuthFailure::Malformed);
        }
        match self.projects_by_hash.get(&hash(key)) {
            None => Err(AuthFailure::Unknown),
            Some(owner) if owner == project => Ok(()),
            Some(_) => Err(AuthFailure::OtherProject),
        }
    }
}

/// Hex SHA-256 of a key. Keys are long random strings, so a plain hash is enough.
#[must_use]
pub fn hash(key: &str) -> String {
    format!("{:x}", Sha256::digest(key.as_bytes()))
}

/// A new admin-style key: `mint_` and 32 random letters and digits.
#[must_use]
pub fn generate() -> Secret {
    let secret: String = rand::rng()
        .sample_iter(Alphanumeric)
        .take(32)
        .map(char::from)
        .collect();
    Secret::new(format!("mint_{secret}"))
}

/// Makes `key` valid for `project` (kept if already stored).
pub fn register(
    conn: &Connection,
    project: &str,
    key: &Secret,
    now_ms: i64,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO api_keys (hash, project, created_ms) VALUES (?1, ?2, ?3)
         ON CONFLICT (hash) DO UPDATE SET project = excluded.project",
        params![hash(key.expose()), project, now_ms],
    )?;
    Ok(())
}

/// Whether any key is stored for `project`.
pub fn project_has_key(conn: &Connection, project: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM api_keys WHERE project = ?1)",
        [project],
        |row| row.get(0),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::db::{Db, DbLocation};

    #[test]
    fn keys_are_checked_by_hash_and_project() {
        let db = Db::open(&DbLocation::Memory).unwrap();
        let key = generate();
        assert!(key.expose().starts_with("mint_") && key.expose().len() == 37);
        let ring = db
            .blocking(|conn| {
                register(conn, "p", &key, 0)?;
                let stored: String =
                    conn.query_row("SELECT hash FROM api_keys", [], |r| r.get(0))?;
                assert!(!stored.contains(key.expose()));
                KeyRing::load(conn)
            })
            .unwrap();
        let header = format!("Bearer {}", key.expose());
        assert_eq!(ring.check(Some(&header), "p"), Ok(()));
        assert_eq!(
            ring.check(Some(&format!("bearer  {}", key.expose())), "p"),
            Ok(())
        );
        assert_eq!(
            ring.check(Some(&header), "q"),
            Err(AuthFailure::OtherProject)
        );
        assert_eq!(
            ring.check(Some("Bearer mint_other"), "p"),
            Err(AuthFailure::Unknown)
        );
        for bad in [
            None,
            Some(""),
            Some("Bearer"),
            Some("Bearer  "),
            Some("Basic abc"),
        ] {
            assert_eq!(ring.check(bad, "p"), Err(AuthFailure::Malformed), "{bad:?}");
        }
    }
}
