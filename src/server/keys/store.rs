//! The `api_keys` table: adding, listing and revoking keys, and bringing keys stored by an
//! older docdeck (plain SHA-256) to the keyed hash when the database is opened.

use rand::Rng as _;
use rusqlite::{Connection, params};

use super::{KeyError, KeyHasher, hex, prefix};
use crate::args;
use crate::secret::Secret;
use crate::server::db::StoreError;
use crate::server::store::{Engine, Lite, Sql};

const SECRET_NAME: &str = "api_key_secret";

/// One stored key, as `docdeck serve keys list` shows it: never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyRow {
    pub id: i64,
    /// `None` for a key stored before prefixes were kept.
    pub prefix: Option<String>,
    pub project: String,
    pub created_ms: i64,
    pub last_used_ms: Option<i64>,
    pub revoked_ms: Option<i64>,
}

/// What [`register`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    Added { id: i64 },
    AlreadyThere { id: i64 },
}

/// The hashing secret, made the first time.
pub(super) fn secret(sql: &mut dyn Sql) -> Result<[u8; 32], StoreError> {
    let stored = sql
        .opt("SELECT value FROM meta WHERE key = $1", args![SECRET_NAME])?
        .map(|row| row.text(0))
        .transpose()?;
    let text = match stored {
        Some(text) => text,
        None => {
            let fresh: [u8; 32] = rand::rng().random();
            // Two processes opening a new database at once: the first one's secret wins.
            sql.exec(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
                args![SECRET_NAME, hex(&fresh)],
            )?;
            sql.one("SELECT value FROM meta WHERE key = $1", args![SECRET_NAME])?
                .text(0)?
        }
    };
    let mut secret = [0u8; 32];
    let valid = text.len() == 64
        && secret.iter_mut().enumerate().all(|(i, byte)| {
            text.get(2 * i..2 * i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .map(|value| *byte = value)
                .is_some()
        });
    if valid {
        Ok(secret)
    } else {
        Err(StoreError::Damaged(
            "its key secret is not 64 hex digits, so its keys cannot be checked".to_owned(),
        ))
    }
}

/// Makes the hashing secret if there is none, and rehashes keys stored as plain SHA-256 by
/// an older docdeck with it; those keys keep working.
pub fn upgrade(conn: &mut Connection) -> Result<(), StoreError> {
    // Most opens have nothing to do: look first, so that they never wait for the write
    // lock (an import may hold it).
    let done: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM meta WHERE key = ?1)
            AND NOT EXISTS (SELECT 1 FROM api_keys WHERE keyed = 0)",
        [SECRET_NAME],
        |row| row.get(0),
    )?;
    if done {
        return Ok(());
    }
    let tx = crate::sqlite::write_transaction(conn)?;
    let hasher = KeyHasher {
        secret: secret(&mut Lite(&tx))?,
    };
    let legacy: Vec<(i64, String)> = {
        let mut statement = tx.prepare("SELECT id, hash FROM api_keys WHERE keyed = 0")?;
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?
    };
    for (id, sha256) in legacy {
        tx.execute(
            "UPDATE api_keys SET hash = ?2, keyed = 1 WHERE id = ?1",
            params![id, hasher.digest_of_sha256(&sha256)],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// The id of `key` when it is stored for `project`, `None` when it is not stored; an error
/// when it is stored for another project or revoked. Writes nothing.
pub fn stored(
    sql: &mut dyn Sql,
    hasher: &KeyHasher,
    project: &str,
    key: &Secret,
) -> Result<Option<i64>, KeyError> {
    let found = sql.opt(
        "SELECT id, project, revoked_ms FROM api_keys WHERE hash = $1",
        args![hasher.digest(key.expose())],
    )?;
    let Some(row) = found else {
        return Ok(None);
    };
    let (id, owner, revoked) = (row.int(0)?, row.text(1)?, row.opt_int(2)?);
    match revoked {
        Some(_) => Err(KeyError::Revoked { id }),
        None if owner != project => Err(KeyError::OtherProject {
            owner,
            wanted: project.to_owned(),
        }),
        None => Ok(Some(id)),
    }
}

/// Makes `key` valid for `project`, unless it is stored for another project or revoked.
pub fn register(
    sql: &mut dyn Sql,
    hasher: &KeyHasher,
    project: &str,
    key: &Secret,
    now_ms: i64,
) -> Result<Registered, KeyError> {
    if let Some(id) = stored(sql, hasher, project, key)? {
        // A key stored before prefixes were kept gets its prefix now.
        sql.exec(
            "UPDATE api_keys SET prefix = $2 WHERE id = $1 AND prefix IS NULL",
            args![id, prefix(key.expose())],
        )?;
        return Ok(Registered::AlreadyThere { id });
    }
    let id = sql
        .one(
            "INSERT INTO api_keys (hash, keyed, project, prefix, created_ms)
             VALUES ($1, 1, $2, $3, $4) RETURNING id",
            args![
                hasher.digest(key.expose()),
                project,
                prefix(key.expose()),
                now_ms
            ],
        )?
        .int(0)?;
    Ok(Registered::Added { id })
}

/// The keys of a start: `key` (given) is added for `project` if it is not stored; without
/// one, a key is generated and added when the project has none that is not revoked, and
/// returned (it cannot be shown again).
pub fn at_start(
    sql: &mut dyn Sql,
    hasher: &KeyHasher,
    project: &str,
    key: Option<&Secret>,
    now_ms: i64,
) -> Result<Option<Secret>, KeyError> {
    if let Some(key) = key {
        register(sql, hasher, project, key, now_ms)?;
        return Ok(None);
    }
    if sql.engine() == Engine::Postgres {
        // Nodes starting at once without a key: each waits here for the one before it to
        // commit, and then finds its key, so the project gets one key, not one per node.
        // (SQLite's IMMEDIATE transaction already lets one start at a time in.)
        sql.exec(
            "SELECT pg_advisory_xact_lock(hashtext($1))",
            &[format!("docdeck-keys:{project}").into()],
        )?;
    }
    if project_has_key(sql, project)? {
        return Ok(None);
    }
    let generated = super::generate();
    register(sql, hasher, project, &generated, now_ms)?;
    Ok(Some(generated))
}

/// Every stored key, revoked ones included, oldest first.
pub fn list(sql: &mut dyn Sql) -> Result<Vec<KeyRow>, StoreError> {
    sql.rows(
        "SELECT id, prefix, project, created_ms, last_used_ms, revoked_ms FROM api_keys
         ORDER BY id",
        &[],
    )?
    .iter()
    .map(|row| {
        Ok(KeyRow {
            id: row.int(0)?,
            prefix: row.opt_text(1)?,
            project: row.text(2)?,
            created_ms: row.int(3)?,
            last_used_ms: row.opt_int(4)?,
            revoked_ms: row.opt_int(5)?,
        })
    })
    .collect()
}

/// Revokes the key whose id is `which`, or the one key not yet revoked whose prefix is
/// `which`. Revoking a revoked key changes nothing and is not an error.
pub fn revoke(sql: &mut dyn Sql, which: &str, now_ms: i64) -> Result<KeyRow, KeyError> {
    let rows = list(sql)?;
    let by_id = which.parse::<i64>().ok();
    let mut matching: Vec<&KeyRow> = rows.iter().filter(|row| by_id == Some(row.id)).collect();
    if matching.is_empty() {
        matching = rows
            .iter()
            .filter(|row| row.revoked_ms.is_none() && row.prefix.as_deref() == Some(which))
            .collect();
    }
    let row = match matching.as_slice() {
        [] => return Err(KeyError::NotFound(which.to_owned())),
        [row] => (*row).clone(),
        _ => return Err(KeyError::Ambiguous(which.to_owned())),
    };
    sql.exec(
        "UPDATE api_keys SET revoked_ms = $2 WHERE id = $1 AND revoked_ms IS NULL",
        args![row.id, now_ms],
    )?;
    Ok(KeyRow {
        revoked_ms: row.revoked_ms.or(Some(now_ms)),
        ..row
    })
}

/// Notes that key `id` was used at `now_ms`.
pub fn touch(sql: &mut dyn Sql, id: i64, now_ms: i64) -> Result<(), StoreError> {
    sql.exec(
        "UPDATE api_keys SET last_used_ms = $2
         WHERE id = $1 AND (last_used_ms IS NULL OR last_used_ms < $2)",
        args![id, now_ms],
    )?;
    Ok(())
}

/// Whether `project` has a key that is not revoked.
pub fn project_has_key(sql: &mut dyn Sql, project: &str) -> Result<bool, StoreError> {
    Ok(sql
        .one(
            "SELECT COUNT(*) FROM api_keys WHERE project = $1 AND revoked_ms IS NULL",
            args![project],
        )?
        .int(0)?
        > 0)
}
