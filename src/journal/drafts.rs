//! What the console keeps between runs that is not about jobs: the composer's drafts, saved
//! as they are typed, and its settings (such as the visitors filter).

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::{Journal, JournalError, Scope};

impl Journal {
    /// Saves the composer's text under `key` (`new`, or `job:ID` for a follow-up) as it is
    /// typed, so a crash or a dropped SSH session loses nothing. Empty text removes it.
    pub fn save_draft(
        &mut self,
        scope: &Scope,
        key: &str,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<(), JournalError> {
        if text.trim().is_empty() {
            self.conn.execute(
                "DELETE FROM drafts WHERE service = ?1 AND project = ?2 AND draft_key = ?3",
                params![scope.service, scope.project, key],
            )?;
        } else {
            self.conn.execute(
                "INSERT INTO drafts (service, project, draft_key, text, saved_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (service, project, draft_key)
                 DO UPDATE SET text = excluded.text, saved_ms = excluded.saved_ms",
                params![
                    scope.service,
                    scope.project,
                    key,
                    text,
                    now.timestamp_millis()
                ],
            )?;
        }
        Ok(())
    }

    /// Every saved draft of the scope, as (key, text).
    pub fn drafts(&self, scope: &Scope) -> Result<Vec<(String, String)>, JournalError> {
        let mut statement = self.conn.prepare(
            "SELECT draft_key, text FROM drafts WHERE service = ?1 AND project = ?2
             ORDER BY draft_key",
        )?;
        let rows = statement.query_map(params![scope.service, scope.project], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Remembers one console setting (such as the visitors filter) for the scope.
    pub fn save_setting(
        &mut self,
        scope: &Scope,
        name: &str,
        value: &str,
    ) -> Result<(), JournalError> {
        self.conn.execute(
            "INSERT INTO console_settings (service, project, name, value) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (service, project, name) DO UPDATE SET value = excluded.value",
            params![scope.service, scope.project, name, value],
        )?;
        Ok(())
    }

    /// A console setting saved earlier, if any.
    pub fn setting(&self, scope: &Scope, name: &str) -> Result<Option<String>, JournalError> {
        use rusqlite::OptionalExtension as _;
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM console_settings WHERE service = ?1 AND project = ?2 AND name = ?3",
                params![scope.service, scope.project, name],
                |row| row.get(0),
            )
            .optional()?)
    }
}
