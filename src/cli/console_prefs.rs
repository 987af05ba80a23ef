//! The person's keys, colours and alert command for the console, from `config.toml`:
//! for `docdeck` a mistake stops the start and names its line; `docdeck demo` reads no
//! other setting of the file, so there a mistake is said on screen and the defaults used.

use std::path::Path;

use super::CliError;
use crate::config::{self, Preferences};
use crate::tui::app::Prefs;
use crate::tui::keymap::Keymap;
use crate::tui::message::AlertCommand;
use crate::tui::view::theme::Theme;

/// Whether `NO_COLOR` asks for no colour (any value but empty).
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
}

/// The keymap, theme and alert command of `preferences`, read from the file at `path`.
pub fn resolve(preferences: &Preferences, path: &Path) -> Result<(Prefs, Theme), CliError> {
    let at_line =
        |error: &dyn std::fmt::Display| CliError::usage(format!("{}, {error}", path.display()));
    let keymap = Keymap::build(&preferences.keys).map_err(|err| at_line(&err))?;
    let theme = Theme::build(preferences.theme.as_ref(), &preferences.styles)
        .map_err(|err| at_line(&err))?;
    let theme = if no_color() {
        theme.without_color()
    } else {
        theme
    };
    let prefs = Prefs {
        keymap,
        alert: preferences.notify_command.clone().map(AlertCommand::new),
        warnings: Vec::new(),
    };
    Ok((prefs, theme))
}

/// The demo's: those of the config file when it can be read (`DOCDECK_CONFIG`, else the
/// default one), else the defaults and a warning that says why.
pub fn for_demo() -> (Prefs, Theme) {
    let named = std::env::var_os("DOCDECK_CONFIG")
        .filter(|path| !path.is_empty())
        .map(std::path::PathBuf::from);
    let read = config::read_preferences(named.as_deref())
        .map_err(|err| err.to_string())
        .and_then(|preferences| {
            let path = match &named {
                Some(path) => path.clone(),
                None => config::default_config_path().map_err(|err| err.to_string())?,
            };
            resolve(&preferences, &path).map_err(|err| err.message)
        });
    match read {
        Ok(found) => found,
        Err(err) => {
            let warning = format!("the demo uses the default keys and colours: {err}");
            super::warn(&warning);
            let (mut prefs, theme) = (Prefs::default(), Theme::default());
            prefs.warnings.push(warning);
            (
                prefs,
                if no_color() {
                    theme.without_color()
                } else {
                    theme
                },
            )
        }
    }
}
