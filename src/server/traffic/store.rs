//! What an import keeps beside the views: the project's visitor secret, the keys that make
//! a re-import add nothing, and where `--follow` stopped in each file.

use rand::RngCore as _;
use rusqlite::{Connection, OptionalExtension as _, params};
use sha2::{Digest as _, Sha256};

use crate::server::db::{StoreError, now_ms};

/// The secret that keys visitor hashes, made once per project and kept in the service's
/// database, so that the same (IP, user agent) is the same visitor across imports while
/// neither can be read back from the hash.
pub fn visitor_secret(conn: &Connection, project: &str) -> Result<[u8; 32], StoreError> {
    let (name, fresh) = fresh_secret(project);
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
        params![name, fresh],
    )?;
    let stored: String =
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [&name], |row| {
            row.get(0)
        })?;
    secret_of(&name, &stored)
}

/// The name of `project`'s visitor secret in `meta`, and a fresh secret in hex to keep
/// there if the project has none yet (on either store).
pub fn fresh_secret(project: &str) -> (String, String) {
    let mut fresh = [0u8; 32];
    rand::rng().fill_bytes(&mut fresh);
    (format!("visitor-secret:{project}"), hex(&fresh))
}

/// The secret kept as `stored` (hex) under `name` in `meta` (on either store).
pub fn secret_of(name: &str, stored: &str) -> Result<[u8; 32], StoreError> {
    let mut secret = [0u8; 32];
    for (i, byte) in secret.iter_mut().enumerate() {
        *byte = stored
            .get(2 * i..2 * i + 2)
            .and_then(|pair| u8::from_str_radix(pair, 16).ok())
            .ok_or_else(|| StoreError::Seed(format!("the stored {name} is damaged")))?;
    }
    Ok(secret)
}

/// The visitor id of a client without one of its own: `h:` and 32 hex digits of a hash
/// keyed with the project's secret.
#[must_use]
pub fn hashed_visitor(secret: &[u8; 32], ip: &str, user_agent: &str) -> String {
    VisitorName::new(&visitor_hash(secret, ip, user_agent))
        .as_str()
        .to_owned()
}

/// The 16 bytes of hash behind a [`hashed_visitor`] id.
#[must_use]
pub fn visitor_hash(secret: &[u8; 32], ip: &str, user_agent: &str) -> [u8; 16] {
    let mut hash = Sha256::new();
    hash.update(secret);
    hash.update(ip.as_bytes());
    hash.update([0]);
    hash.update(user_agent.as_bytes());
    let mut out = [0u8; 16];
    out.copy_from_slice(&hash.finalize()[..16]);
    out
}

/// A hashed visitor id (`h:` and 32 hex digits) written on the stack, since an import
/// needs it for every view's key.
pub struct VisitorName([u8; 34]);

impl VisitorName {
    #[must_use]
    pub fn new(hash: &[u8; 16]) -> Self {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut name = [0u8; 34];
        name[0] = b'h';
        name[1] = b':';
        for (i, byte) in hash.iter().enumerate() {
            name[2 + 2 * i] = DIGITS[usize::from(byte >> 4)];
            name[3 + 2 * i] = DIGITS[usize::from(byte & 15)];
        }
        Self(name)
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever written into it.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// The key of a view: from its event id when it has one, else from its time, visitor and
/// page. The project is part of it, so two projects never share a key. It starts with the
/// time, so a log (in time order) adds keys at the end of the index instead of all over it.
#[must_use]
pub fn view_key(
    project: &str,
    event_id: Option<&str>,
    ts_ms: i64,
    visitor: &str,
    path: &str,
) -> [u8; 16] {
    let mut hash = Sha256::new();
    hash.update(project.as_bytes());
    hash.update([0]);
    match event_id {
        Some(id) => {
            hash.update(b"event\0");
            hash.update(id.as_bytes());
        }
        None => {
            hash.update(b"view\0");
            hash.update(ts_ms.to_le_bytes());
            hash.update(visitor.as_bytes());
            hash.update([0]);
            hash.update(path.as_bytes());
        }
    }
    let mut key = [0u8; 16];
    let ordered = u64::from_ne_bytes(ts_ms.to_ne_bytes()) ^ (1 << 63);
    key[..8].copy_from_slice(&ordered.to_be_bytes());
    key[8..].copy_from_slice(&hash.finalize()[..8]);
    key
}

/// A file's identity: device and inode, which survive a rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    pub device: u64,
    pub inode: u64,
}

/// Where reading stopped in a file: the byte after the last whole line, and its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    pub offset: u64,
    pub line: u64,
}

/// Where `--follow` stopped in the file `id`, if it ever read it.
pub fn position(
    conn: &Connection,
    project: &str,
    id: FileId,
) -> Result<Option<Position>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT offset, line FROM import_positions WHERE project = ?1 AND device = ?2 AND inode = ?3",
            params![project, as_i64(id.device), as_i64(id.inode)],
            |row| {
                Ok(Position {
                    offset: u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
                    line: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                })
            },
        )
        .optional()?)
}

/// Stores where reading stopped, in the transaction that stores the views read.
pub fn save_position(
    tx: &Connection,
    project: &str,
    id: FileId,
    path: &str,
    at: Position,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO import_positions (project, device, inode, offset, line, path, updated_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (project, device, inode) DO UPDATE SET
             offset = excluded.offset, line = excluded.line, path = excluded.path,
             updated_ms = excluded.updated_ms",
    )?
    .execute(params![
        project,
        as_i64(id.device),
        as_i64(id.inode),
        as_i64(at.offset),
        as_i64(at.line),
        path,
        now_ms()
    ])?;
    Ok(())
}

fn as_i64(value: u64) -> i64 {
    i64::from_ne_bytes(value.to_ne_bytes())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_secret_reads_back_and_a_damaged_one_says_which() {
        let (name, fresh) = fresh_secret("docs");
        assert_eq!(name, "visitor-secret:docs");
        let secret = secret_of(&name, &fresh).unwrap();
        assert_eq!(hex(&secret), fresh);
        let damaged = secret_of(&name, "zz").unwrap_err().to_string();
        assert!(
            damaged.contains("visitor-secret:docs is damaged"),
            "{damaged}"
        );
    }
}
