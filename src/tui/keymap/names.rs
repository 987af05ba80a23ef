//! The name of every action, as `[keys.<context>]` of `config.toml` and the help write it:
//! the variant in snake case, derived by `strum` from the enum (see [`Action`]).

use super::Action;

impl Action {
    /// The action's name in `[keys.<context>]` and in the help.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The action of a name, as `[keys.<context>]` writes it.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        name.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::Action;

    #[test]
    fn names_are_the_variants_in_snake_case_and_read_back() {
        for (action, name) in [
            (Action::Quit, "quit"),
            (Action::NextPane, "next_pane"),
            (Action::ToNewJob, "to_new_job"),
            (Action::OpenLink, "open_link"),
            (Action::WholeRange, "whole_range"),
            (Action::PrevMatch, "prev_match"),
        ] {
            assert_eq!(action.name(), name);
            assert_eq!(Action::from_name(name), Some(action));
        }
    }

    #[test]
    fn a_name_in_another_case_or_unknown_is_no_action() {
        assert_eq!(Action::from_name("NextPane"), None);
        assert_eq!(Action::from_name("next-pane"), None);
        assert_eq!(Action::from_name(""), None);
    }
}
