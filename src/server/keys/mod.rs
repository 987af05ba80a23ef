//! API keys of the local service. They live in its database as a keyed hash (HMAC-SHA-256
//! of the key's SHA-256, with a secret kept in the same database), each with its project,
//! a short prefix to recognise it by, when it was made, last used and revoked. A key is
//! shown once, when it is generated, and never again. Every request looks its key up in
//! the database, so a key revoked by `docdeck serve keys revoke` (from another process,
//! or another node sharing the database) is refused at the next request.

mod store;
#[cfg(test)]
mod tests;

use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::db::StoreError;
use super::store::Sql;
use crate::args;
use crate::secret::Secret;

pub use store::{
    KeyRow, Registered, at_start, list, project_has_key, register, revoke, stored, touch, upgrade,
};

/// Keys shorter than this are warned about: they can be guessed.
pub const MIN_KEY_CHARS: usize = 20;

/// How stale a key's "last used" time may get before a request writes it again: a write
/// per request would make every read a write.
pub const LAST_USED_GRANULARITY_MS: i64 = 60_000;

/// Why a request's credentials were not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthFailure {
    /// No `Authorization` header, or not of the form `Bearer <key>`.
    Malformed,
    /// A well-formed key this service does not know.
    Unknown,
    /// A key that was revoked.
    Revoked,
    /// A known key of a different project.
    OtherProject,
}

/// Why a key could not be added, revoked or found.
#[derive(Debug, Error)]
pub enum KeyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "this key belongs to project {owner}, not {wanted}: keys are per project; give a key of {wanted} (or add one with `docdeck serve keys add --project {wanted}`)"
    )]
    OtherProject { owner: String, wanted: String },
    #[error(
        "this key (id {id}) was revoked, so it is not accepted again: give another key, or make one with `docdeck serve keys add`"
    )]
    Revoked { id: i64 },
    #[error("no key matches {0:?}: see `docdeck serve keys list` for ids and prefixes")]
    NotFound(String),
    #[error("{0:?} matches several keys: give the id shown by `docdeck serve keys list` instead")]
    Ambiguous(String),
}

impl From<rusqlite::Error> for KeyError {
    fn from(err: rusqlite::Error) -> Self {
        Self::Store(StoreError::Sql(err))
    }
}

/// A key that was accepted, and whether its "last used" time should be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    pub id: i64,
    pub needs_touch: bool,
}

/// The database's key-hashing secret: what turns a key into what is stored.
#[derive(Clone)]
pub struct KeyHasher {
    secret: [u8; 32],
}

impl std::fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyHasher(..)")
    }
}

impl KeyHasher {
    /// The secret of this database (made by [`upgrade`] when the database is opened).
    pub fn load(sql: &mut dyn Sql) -> Result<Self, StoreError> {
        store::secret(sql).map(|secret| Self { secret })
    }

    /// What is stored for `key`.
    #[must_use]
    pub fn digest(&self, key: &str) -> String {
        self.digest_of_sha256(&format!("{:x}", Sha256::digest(key.as_bytes())))
    }

    /// What is stored for a key known only by its plain SHA-256 (hex), as keys were
    /// stored before: so those keys keep working.
    #[must_use]
    pub fn digest_of_sha256(&self, sha256_hex: &str) -> String {
        hex(&hmac_sha256(&self.secret, sha256_hex.as_bytes()))
    }

    /// A short tag of `text` under this database's secret: what makes a cursor the
    /// service gave tell apart from one made up.
    #[must_use]
    pub fn tag(&self, text: &str) -> String {
        let mut tag = hex(&hmac_sha256(
            &self.secret,
            format!("cursor:{text}").as_bytes(),
        ));
        tag.truncate(16);
        tag
    }

    /// Checks `key` against `project` at `now_ms`.
    pub fn check(
        &self,
        sql: &mut dyn Sql,
        key: &str,
        project: &str,
        now_ms: i64,
    ) -> Result<Result<Accepted, AuthFailure>, StoreError> {
        let found = sql
            .opt(
                "SELECT id, project, last_used_ms, revoked_ms FROM api_keys WHERE hash = $1",
                args![self.digest(key)],
            )?
            .map(|row| -> Result<_, StoreError> {
                Ok((row.int(0)?, row.text(1)?, row.opt_int(2)?, row.opt_int(3)?))
            })
            .transpose()?;
        Ok(match found {
            None => Err(AuthFailure::Unknown),
            Some((_, _, _, Some(_))) => Err(AuthFailure::Revoked),
            Some((_, owner, _, None)) if owner != project => Err(AuthFailure::OtherProject),
            Some((id, _, last_used, None)) => Ok(Accepted {
                id,
                needs_touch: last_used.is_none_or(|t| now_ms - t >= LAST_USED_GRANULARITY_MS),
            }),
        })
    }
}

/// The key of an `Authorization: Bearer <key>` header value.
pub fn bearer(header: Option<&str>) -> Result<&str, AuthFailure> {
    let header = header.ok_or(AuthFailure::Malformed)?;
    let (scheme, key) = header
        .trim()
        .split_once(' ')
        .ok_or(AuthFailure::Malformed)?;
    let key = key.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || key.is_empty() {
        return Err(AuthFailure::Malformed);
    }
    Ok(key)
}

/// Whether `key` is too short to be safe from guessing.
#[must_use]
pub fn is_short(key: &str) -> bool {
    key.chars().count() < MIN_KEY_CHARS
}

/// The start of `key` kept to recognise it in `keys list`: at most 8 characters and never
/// more than a third of it, so that what is shown does not give a short key away.
#[must_use]
pub fn prefix(key: &str) -> String {
    let count = key.chars().count();
    key.chars().take((count / 3).min(8)).collect()
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

/// HMAC-SHA-256 (RFC 2104) over `sha2`, the one hash the crate already has.
fn hmac_sha256(secret: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut key = [0u8; BLOCK];
    if secret.len() > BLOCK {
        key[..32].copy_from_slice(&Sha256::digest(secret));
    } else {
        key[..secret.len()].copy_from_slice(secret);
    }
    let mut inner = Sha256::new();
    inner.update(key.map(|b| b ^ 0x36));
    inner.update(message);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(key.map(|b| b ^ 0x5c));
    outer.update(inner);
    outer.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}
