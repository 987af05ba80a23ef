//! How a command fails: the exit code (2 for a mistake in how docdeck was called, 1 for
//! anything else) and the message, made from the errors of the layers below.

use crate::api::ApiError;
use crate::config::ConfigError;

/// A failure that ends the command.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    /// A mistake in how docdeck was called: exit code 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// Anything else that went wrong: exit code 1.
    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            code: 1,
            message: message.into(),
        }
    }
}

impl CliError {
    /// A query the checks refused, said with the flags the person typed: the checks name
    /// the interface's parameters (`dateFrom`), shared with the service.
    pub fn of_query(err: &impl std::fmt::Display) -> Self {
        Self::usage(
            err.to_string()
                .replace("dateFrom", "--from")
                .replace("dateTo", "--to"),
        )
    }
}

impl From<ApiError> for CliError {
    fn from(err: ApiError) -> Self {
        match err {
            ApiError::InvalidQuery(_) => Self::of_query(&err),
            ApiError::InvalidInput(_) => Self::usage(err.to_string()),
            other => Self::failed(other.to_string()),
        }
    }
}

impl From<ConfigError> for CliError {
    fn from(err: ConfigError) -> Self {
        Self::usage(err.to_string())
    }
}

impl From<crate::export::WriteError> for CliError {
    fn from(err: crate::export::WriteError) -> Self {
        Self::failed(err.to_string())
    }
}

impl From<crate::journal::JournalError> for CliError {
    fn from(err: crate::journal::JournalError) -> Self {
        Self::failed(err.to_string())
    }
}
