//! Shell completion of job ids: `docdeck jobs get|message|track|untrack|impact <TAB>` offers the
//! ids the journal follows (for the profile in force), read with the hidden
//! `jobs list --ids`, which reads the journal only, never the network. Added to the
//! scripts clap writes for bash, zsh and fish; elvish and PowerShell complete flags only.

use clap_complete::Shell;

/// The commands whose first argument is a job id (the scripts below name them).
#[cfg(test)]
const TAKE_AN_ID: [&str; 5] = ["get", "message", "track", "untrack", "impact"];

/// Bash: the generated `_docdeck` answers, but for a job id, which the journal does.
const BASH: &str = r#"
# Job ids from the journal for `docdeck jobs get|message|track|untrack|impact <TAB>`.
_docdeck_with_job_ids() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    if [[ ${COMP_CWORD} -eq 3 && "${COMP_WORDS[1]}" == "jobs" && "${cur}" != -* ]]; then
        case "${COMP_WORDS[2]}" in
            get|message|track|untrack|impact)
                COMPREPLY=( $(compgen -W "$(docdeck jobs list --ids 2>/dev/null)" -- "${cur}") )
                return 0
                ;;
        esac
    fi
    _docdeck "$@"
}
complete -F _docdeck_with_job_ids -o bashdefault -o default docdeck
"#;

/// Zsh: a completer for the `id` argument, defined before the generated functions.
const ZSH: &str = r#"
# Job ids from the journal for `docdeck jobs get|message|track|untrack|impact <TAB>`.
_docdeck_job_ids() {
    local -a ids
    ids=(${(f)"$(docdeck jobs list --ids 2>/dev/null)"})
    compadd -a ids
}
"#;

/// Fish: one more rule for the id of those commands.
const FISH: &str = r#"
# Job ids from the journal for `docdeck jobs get|message|track|untrack|impact <TAB>`.
complete -c docdeck -n "__fish_docdeck_using_subcommand jobs; and __fish_seen_subcommand_from get message track untrack impact" -f -a "(docdeck jobs list --ids 2>/dev/null)"
"#;

/// `script`, as clap wrote it for `shell`, with job ids completed where it can.
#[must_use]
pub fn with_job_ids(shell: Shell, script: String) -> String {
    match shell {
        Shell::Bash => script + BASH,
        Shell::Fish => script + FISH,
        Shell::Zsh => {
            // The `id` argument of those commands completes with `_docdeck_job_ids`
            // rather than file names; the function comes right after `#compdef`.
            let lines: Vec<String> = script
                .lines()
                .map(|line| {
                    if line.starts_with("':id -- ") && line.ends_with(":_default' \\") {
                        line.replace(":_default' \\", ":_docdeck_job_ids' \\")
                    } else {
                        line.to_owned()
                    }
                })
                .collect();
            let (first, rest) = lines
                .split_first()
                .map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
            format!("{first}\n{}\n{}\n", ZSH.trim(), rest.join("\n"))
        }
        _ => script,
    }
}

/// How many `id` arguments the zsh script completes with job ids (one per command that
/// takes one), for the tests.
#[cfg(test)]
fn zsh_id_arguments(script: &str) -> usize {
    script.matches(":_docdeck_job_ids' \\").count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zsh_and_fish_complete_the_id_of_each_command_that_takes_one() {
        let zsh = crate::cli::shell::completion_script(Shell::Zsh);
        let head: Vec<&str> = zsh.lines().take(3).collect();
        assert_eq!(head[0], "#compdef docdeck");
        assert_eq!(head[2], "_docdeck_job_ids() {", "defined first: {head:?}");
        assert_eq!(zsh_id_arguments(&zsh), TAKE_AN_ID.len(), "{zsh}");
        let fish = crate::cli::shell::completion_script(Shell::Fish);
        assert!(
            fish.contains("get message track untrack impact\" -f -a \"(docdeck jobs list --ids")
        );
    }
}
