//! Keys: the keyed hash, checking, adding, revoking, and keys stored by an older docdeck.

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use super::*;
use crate::server::db::{Db, DbLocation};

fn header_key(header: &str) -> &str {
    bearer(Some(header)).unwrap()
}

#[test]
fn hmac_matches_rfc_4231() {
    assert_eq!(
        hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    let long_key = [0xaa_u8; 131];
    assert_eq!(
        hex(&hmac_sha256(
            &long_key,
            b"Test Using Larger Than Block-Size Key - Hash Key First"
        )),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    );
}

#[test]
fn keys_are_stored_keyed_and_checked_by_project() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let key = generate();
    assert!(key.expose().starts_with("mint_") && key.expose().len() == 37);
    db.blocking(|conn| {
        let hasher = KeyHasher::load(conn)?;
        let added = register(conn, &hasher, "p", &key, 0).unwrap();
        assert!(matches!(added, Registered::Added { .. }));
        let stored: String = conn.query_row("SELECT hash FROM api_keys", [], |r| r.get(0))?;
        assert!(!stored.contains(key.expose()));
        let plain = format!("{:x}", Sha256::digest(key.expose().as_bytes()));
        assert_ne!(
            stored, plain,
            "a plain SHA-256 can be checked without the secret"
        );
        let header = format!("Bearer {}", key.expose());
        let mut check = |project: &str| hasher.check(conn, header_key(&header), project, 10);
        assert!(check("p")?.is_ok());
        assert_eq!(check("q")?, Err(AuthFailure::OtherProject));
        assert_eq!(
            hasher.check(conn, "mint_other", "p", 10)?,
            Err(AuthFailure::Unknown)
        );
        Ok(())
    })
    .unwrap();
    assert_eq!(bearer(Some("bearer  abc")), Ok("abc"));
    for bad in [
        None,
        Some(""),
        Some("Bearer"),
        Some("Bearer  "),
        Some("Basic abc"),
    ] {
        assert_eq!(bearer(bad), Err(AuthFailure::Malformed), "{bad:?}");
    }
}

#[test]
fn a_revoked_key_is_refused_at_once_and_never_added_again() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let key = Secret::new("mint_revoke_me_0123456789");
    db.blocking(|conn| {
        let hasher = KeyHasher::load(conn)?;
        let Registered::Added { id } = register(conn, &hasher, "p", &key, 0).unwrap() else {
            panic!("not added")
        };
        assert!(hasher.check(conn, key.expose(), "p", 5)?.is_ok());
        let revoked = revoke(conn, "mint_rev", 7).unwrap();
        assert_eq!((revoked.id, revoked.revoked_ms), (id, Some(7)));
        assert_eq!(
            hasher.check(conn, key.expose(), "p", 8)?,
            Err(AuthFailure::Revoked)
        );
        assert!(matches!(
            register(conn, &hasher, "p", &key, 9),
            Err(KeyError::Revoked { .. })
        ));
        assert!(!project_has_key(conn, "p")?);
        assert!(matches!(
            revoke(conn, "nope", 9),
            Err(KeyError::NotFound(_))
        ));
        Ok(())
    })
    .unwrap();
}

#[test]
fn a_key_of_another_project_is_not_moved() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let key = Secret::new("mint_project_a_0123456789");
    db.blocking(|conn| {
        let hasher = KeyHasher::load(conn)?;
        register(conn, &hasher, "a", &key, 0).unwrap();
        let err = register(conn, &hasher, "b", &key, 1).unwrap_err();
        assert!(err.to_string().contains("belongs to project a"), "{err}");
        assert_eq!(list(conn)?[0].project, "a");
        Ok(())
    })
    .unwrap();
}

#[test]
fn last_used_is_written_at_most_once_a_minute() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let key = Secret::new("mint_touch_0123456789abc");
    db.blocking(|conn| {
        let hasher = KeyHasher::load(conn)?;
        register(conn, &hasher, "p", &key, 0).unwrap();
        let first = hasher.check(conn, key.expose(), "p", 1_000)?.unwrap();
        assert!(first.needs_touch);
        touch(conn, first.id, 1_000)?;
        assert!(
            !hasher
                .check(conn, key.expose(), "p", 2_000)?
                .unwrap()
                .needs_touch
        );
        assert!(
            hasher
                .check(conn, key.expose(), "p", 1_000 + LAST_USED_GRANULARITY_MS)?
                .unwrap()
                .needs_touch
        );
        assert_eq!(list(conn)?[0].last_used_ms, Some(1_000));
        Ok(())
    })
    .unwrap();
}

#[test]
fn keys_stored_as_plain_sha256_keep_working_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("service.sqlite");
    let key = "mint_from_an_older_docdeck_42";
    {
        // A database as the previous schema left it: version 3, plain SHA-256.
        let conn = Connection::open(&path).unwrap();
        let steps: Vec<&str> = crate::server::db::MIGRATIONS[..3].to_vec();
        crate::sqlite::migrate(&conn, &steps).unwrap();
        conn.execute(
            "INSERT INTO api_keys (hash, project, created_ms) VALUES (?1, 'p', 0)",
            params![format!("{:x}", Sha256::digest(key.as_bytes()))],
        )
        .unwrap();
    }
    let db = Db::open(&DbLocation::File(path)).unwrap();
    db.blocking(|conn| {
        let hasher = KeyHasher::load(conn)?;
        assert!(hasher.check(conn, key, "p", 1)?.is_ok());
        let rows = list(conn)?;
        assert_eq!((rows.len(), rows[0].prefix.as_deref()), (1, None));
        register(conn, &hasher, "p", &Secret::new(key), 2).unwrap();
        assert_eq!(list(conn)?[0].prefix.as_deref(), Some("mint_fro"));
        Ok(())
    })
    .unwrap();
}

#[test]
fn prefixes_never_give_a_short_key_away() {
    assert_eq!(prefix("mint_abcdefghijklmnopqrstuvwxyz"), "mint_abc");
    assert_eq!(prefix("short-key"), "sho");
    assert!(is_short("0123456789012345678"));
    assert!(!is_short("01234567890123456789"));
}
