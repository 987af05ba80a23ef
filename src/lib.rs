//! docdeck: a terminal console, scripting CLI and complete local service for
//! documentation agent jobs and visitor analytics.

pub mod api;
pub mod cli;
pub mod config;
pub(crate) mod export;
pub mod github;
pub mod insight;
pub mod journal;
pub(crate) mod launch;
pub mod listing;
pub mod secret;
pub mod server;
pub mod sqlite;
pub(crate) mod text;
pub mod tls;
pub mod tui;
