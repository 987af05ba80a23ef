//! `docdeck completions SHELL` and `docdeck man`: the files a shell and `man` need, made
//! from the one definition of the command line, so they cannot drift from it.

use std::io::Write as _;
use std::process::ExitCode;

use clap::CommandFactory as _;
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, roman};

use super::output::emit;
use super::{Cli, CliError, Outcome};

/// Shown by `docdeck completions --help` (the README has the same, as a table).
pub const WHERE_COMPLETIONS_GO: &str = "\
Where the script goes (for you; in brackets, where packages put it):
  bash        docdeck completions bash > ~/.local/share/bash-completion/completions/docdeck
              [/usr/share/bash-completion/completions/docdeck]
  zsh         docdeck completions zsh > ~/.zfunc/_docdeck
              with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc
              [/usr/share/zsh/site-functions/_docdeck]
  fish        docdeck completions fish > ~/.config/fish/completions/docdeck.fish
              [/usr/share/fish/vendor_completions.d/docdeck.fish]
  elvish      eval (docdeck completions elvish | slurp)           in ~/.config/elvish/rc.elv
  powershell  docdeck completions powershell | Out-String | Invoke-Expression   in $PROFILE
Open a new shell afterwards.";

/// Shown by `docdeck man --help`.
pub const WHERE_MAN_GOES: &str = "\
One page, docdeck(1); each command is a section of it (in man, type /JOBS CREATE).
Read it now:   docdeck man | man -l -
Install it:    docdeck man > ~/.local/share/man/man1/docdeck.1
               [packages: /usr/share/man/man1/docdeck.1, gzipped]";

/// `docdeck completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `docdeck man`: no flags; the page goes to standard output.
#[derive(Debug, clap::Args)]
pub struct ManArgs {}

/// Prints the completion script for `shell`.
pub fn completions(args: &CompletionsArgs) -> Outcome {
    emit(&completion_script(args.shell))?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the manual page.
pub fn man(_args: &ManArgs) -> Outcome {
    let page =
        man_page().map_err(|err| CliError::failed(format!("cannot write the page: {err}")))?;
    emit(&page)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn completion_script(shell: Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "docdeck", &mut script);
    super::job_ids::with_job_ids(shell, String::from_utf8_lossy(&script).into_owned())
}

/// docdeck(1) in roff: one page that holds every command as its own section (a packager
/// installs one file, and `man docdeck` then shows all of it, `/jobs create` finds it).
pub(crate) fn man_page() -> std::io::Result<String> {
    let mut command = Cli::command();
    command.build();
    let mut page = Vec::new();
    let top = Man::new(command.clone());
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    write_commands(&command, &mut page)?;
    super::man_sections::write(&mut page)?;
    top.render_version_section(&mut page)?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// One section per command, depth first, in the order `--help` lists them.
fn write_commands(parent: &clap::Command, page: &mut Vec<u8>) -> std::io::Result<()> {
    for command in parent.get_subcommands() {
        if command.is_hide_set() || command.get_name() == "help" {
            continue;
        }
        let title = command
            .get_bin_name()
            .unwrap_or_else(|| command.get_name())
            .to_uppercase();
        Roff::new()
            .control("SH", [title.as_str()])
            .to_writer(page)?;
        let man = Man::new(command.clone());
        let mut body = Vec::new();
        man.render_description_section(&mut body)?;
        man.render_synopsis_section(&mut body)?;
        man.render_options_section(&mut body)?;
        page.write_all(&subsections(&String::from_utf8_lossy(&body)).into_bytes())?;
        if let Some(notes) = command.get_after_help() {
            write_notes(&notes.to_string(), page)?;
        }
        write_commands(command, page)?;
    }
    Ok(())
}

/// A command's notes (its `after_help`) as written, line for line: they are laid out as
/// columns, which filling would run together.
fn write_notes(notes: &str, page: &mut Vec<u8>) -> std::io::Result<()> {
    let mut roff = Roff::new();
    roff.control("SS", ["Notes"]).control("nf", []);
    for line in notes.lines() {
        roff.text([roman(line)]);
    }
    roff.control("fi", []).to_writer(page)
}

/// The sections of a command's own page as subsections of its section in docdeck(1):
/// `.SH OPTIONS` becomes `.SS Options`, and the DESCRIPTION heading goes (the text
/// follows the command's heading directly).
fn subsections(roff: &str) -> String {
    let mut out = String::with_capacity(roff.len());
    for line in roff.lines() {
        match line.strip_prefix(".SH ") {
            Some("DESCRIPTION") => {}
            Some(heading) => {
                let heading = heading.trim_matches('"');
                let mut letters = heading.chars();
                let title: String = letters.next().into_iter().collect::<String>()
                    + &letters.as_str().to_lowercase();
                out.push_str(".SS ");
                out.push_str(&title);
                out.push('\n');
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum as _;

    use super::*;

    /// Every command's words, such as `jobs create`, for the checks below (hidden ones,
    /// such as `agent-exec`, are for docdeck's own use and documented nowhere).
    fn all_commands() -> Vec<String> {
        fn walk(command: &clap::Command, prefix: &str, out: &mut Vec<String>) {
            for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
                let name = format!("{prefix}{}", sub.get_name());
                out.push(name.clone());
                walk(sub, &format!("{name} "), out);
            }
        }
        let mut out = Vec::new();
        walk(&Cli::command(), "", &mut out);
        out
    }

    #[test]
    fn the_man_page_has_a_section_for_every_command() {
        let page = man_page().unwrap();
        assert!(page.contains("\n.TH docdeck 1 "), "{}", &page[..200]);
        for command in all_commands() {
            let heading = format!(".SH \"DOCDECK {}\"", command.to_uppercase());
            assert!(page.contains(&heading), "no {heading} in the page");
        }
        assert!(page.contains(".SS Options") && page.contains(".SS Connection"));
        let notes = page.split(".SH \"DOCDECK COMPLETIONS\"").nth(1).unwrap();
        assert!(notes.contains(".SS Notes\n.nf\n"), "{notes}");
        assert!(notes.contains("vendor_completions.d"), "{notes}");
        // Sections of a command's own page are not top-level sections here.
        assert_eq!(page.matches(".SH DESCRIPTION").count(), 1);
        assert_eq!(page.matches(".SH OPTIONS").count(), 1);
        assert!(
            !page.contains("docdeck\\-jobs(1)"),
            "points at pages not shipped"
        );
    }

    #[test]
    fn the_man_page_says_exit_status_environment_files_and_the_consoles_keys() {
        let page = man_page().unwrap();
        let at = |heading: &str| {
            page.find(&format!(".SH {heading}\n"))
                .unwrap_or_else(|| panic!("no {heading} section"))
        };
        let (keys, exit, env, files) = (
            at("\"CONSOLE KEYS\""),
            at("\"EXIT STATUS\""),
            at("ENVIRONMENT"),
            at("FILES"),
        );
        assert!(
            keys < exit && exit < env && env < files,
            "in the usual order"
        );
        assert!(
            page[exit..env].contains("the waited\\-for job failed"),
            "{}",
            &page[exit..env]
        );
        assert!(page[env..files].contains("DOCDECK_API_KEY"));
        assert!(page[files..].contains("docdeck.sqlite"));
        assert!(
            page[keys..exit].contains("log of recent notices"),
            "the keys come from the tables"
        );
    }

    #[test]
    fn subsection_headings_are_title_case() {
        let roff = ".SH DESCRIPTION\ntext\n.SH SYNOPSIS\nx\n.SH CONNECTION\n.TP\n";
        assert_eq!(
            subsections(roff),
            "text\n.SS Synopsis\nx\n.SS Connection\n.TP\n"
        );
    }

    /// clap_complete puts a possible value's help inside double quotes for fish and zsh
    /// without escaping them: a `"` there breaks completion in those shells (fish then
    /// reads `<` as a redirection and lists files instead).
    #[test]
    fn no_possible_value_help_holds_a_double_quote() {
        fn walk(command: &clap::Command, found: &mut Vec<String>) {
            for arg in command.get_arguments() {
                for value in arg.get_possible_values() {
                    let help = value
                        .get_help()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    if help.contains('"') {
                        found.push(format!("{} --{}: {help}", command.get_name(), arg.get_id()));
                    }
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, found);
            }
        }
        let mut found = Vec::new();
        walk(&Cli::command(), &mut found);
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn every_shell_gets_a_script_that_names_the_commands() {
        for shell in Shell::value_variants() {
            let script = completion_script(*shell);
            for command in ["demo", "jobs", "visitors", "serve", "doctor", "completions"] {
                assert!(script.contains(command), "{shell}: no {command}");
            }
        }
    }
}
