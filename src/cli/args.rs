//! Where flags may stand: the connection flags are taken on either side of a command
//! (`docdeck --profile prod visitors` and `docdeck visitors --profile prod`), as gh and
//! kubectl take theirs, and handed to the command that uses them.

use clap::CommandFactory as _;
use clap::error::ErrorKind;

use super::console::ConsoleArgs;
use super::{Cli, ClientArgs, Command, JobsCommand};

impl ClientArgs {
    /// The flags given, by name, for messages.
    fn given(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        let flags = [
            ("--profile", self.profile.is_some()),
            ("--base-url", self.base_url.is_some()),
            ("--project", self.project.is_some()),
            ("--api-key", self.api_key.is_some()),
            ("--config", self.config.is_some()),
            ("--poll-interval", self.poll_interval.is_some()),
            ("--allow-insecure-http", self.allow_insecure_http),
        ];
        for (name, set) in flags {
            if set {
                names.push(name);
            }
        }
        names
    }

    /// These flags, with each one `later` sets (written further right) taking its place.
    #[must_use]
    fn merged(self, later: Self) -> Self {
        Self {
            profile: later.profile.or(self.profile),
            base_url: later.base_url.or(self.base_url),
            project: later.project.or(self.project),
            api_key: later.api_key.or(self.api_key),
            config: later.config.or(self.config),
            poll_interval: later.poll_interval.or(self.poll_interval),
            allow_insecure_http: later.allow_insecure_http || self.allow_insecure_http,
        }
    }
}

impl ConsoleArgs {
    fn given(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.read_only {
            names.push("--read-only");
        }
        if self.notify.is_some() {
            names.push("--notify");
        }
        if self.no_mouse {
            names.push("--no-mouse");
        }
        names
    }

    #[must_use]
    fn merged(self, later: Self) -> Self {
        Self {
            read_only: later.read_only || self.read_only,
            notify: later.notify.or(self.notify),
            no_mouse: later.no_mouse || self.no_mouse,
        }
    }
}

impl JobsCommand {
    /// The connection flags of whichever command this is.
    fn client_mut(&mut self) -> &mut ClientArgs {
        match self {
            Self::Create(args) => &mut args.out.client,
            Self::Message(args) => &mut args.out.client,
            Self::Get(args) => &mut args.out.client,
            Self::List(args) => &mut args.client,
            Self::Track(args) | Self::Untrack(args) => &mut args.client,
            Self::Impact(args) => &mut args.read.client,
        }
    }
}

fn conflict(message: String) -> clap::Error {
    let mut command = Cli::command();
    clap::Error::raw(ErrorKind::ArgumentConflict, message).format(&mut command)
}

fn refuse_console_flags(console: &ConsoleArgs, command: &str) -> Result<(), clap::Error> {
    match console.given().as_slice() {
        [] => Ok(()),
        names => Err(conflict(format!(
            "{} cannot be used with `{command}`: it is for the console (`docdeck {}` or `docdeck demo {}`)",
            names.join(" and "),
            names.join(" "),
            names.join(" ")
        ))),
    }
}

fn refuse_client_flags(client: &ClientArgs, command: &str, why: &str) -> Result<(), clap::Error> {
    match client.given().as_slice() {
        [] => Ok(()),
        names => Err(conflict(format!(
            "{} cannot be used with `{command}`: {why}",
            names.join(", ")
        ))),
    }
}

/// `docdeck visitors --from D trend`: the flags of `visitors` itself do nothing for
/// `trend`, so they are refused with where they go rather than ignored.
fn refuse_visitors_flags(args: &super::visitors_args::VisitorsArgs) -> Result<(), clap::Error> {
    let flags = [
        ("--from", args.from.is_some()),
        ("--to", args.to.is_some()),
        ("--format", args.read.format.is_some()),
        ("--yes", args.read.yes),
        ("--limit", args.limit.is_some()),
        ("--offset", args.offset.is_some()),
        ("--page", args.page.is_some()),
        ("--all", args.all),
        ("--compare", args.compare),
        ("--sort", args.sort.is_some()),
        ("--filter", args.filter.is_some()),
        ("--max-rows", args.max_rows.is_some()),
    ];
    let given: Vec<&str> = flags.iter().filter(|f| f.1).map(|f| f.0).collect();
    if given.is_empty() {
        return Ok(());
    }
    Err(conflict(format!(
        "{} before `trend` would be ignored: trend takes --from, --to, --by, --format, --refresh and --yes, written after `trend`",
        given.join(", ")
    )))
}

impl Cli {
    /// Hands the flags written before the command to the command, so that both orders
    /// mean the same; a flag written after the command wins over the same flag before it.
    /// Flags the command does not take are refused with a message that says where they go.
    pub fn hoisted(mut self) -> Result<Self, clap::Error> {
        let client = std::mem::take(&mut self.client);
        let console = std::mem::take(&mut self.console);
        match &mut self.command {
            None => {
                self.client = client;
                self.console = console;
            }
            Some(Command::Jobs(jobs)) => {
                refuse_console_flags(&console, "jobs")?;
                let outer = client.merged(std::mem::take(&mut jobs.client));
                let inner = jobs.command.client_mut();
                *inner = outer.merged(std::mem::take(inner));
            }
            Some(Command::Visitors(args)) => {
                refuse_console_flags(&console, "visitors")?;
                args.read.client = client.merged(std::mem::take(&mut args.read.client));
                if let Some(super::visitors_args::VisitorsCommand::Trend(trend)) = &mut args.command
                {
                    trend.client = args
                        .read
                        .client
                        .clone()
                        .merged(std::mem::take(&mut trend.client));
                    refuse_visitors_flags(args)?;
                }
            }
            Some(Command::Searches(super::signals::SearchesArgs { common: args, .. })) => {
                refuse_console_flags(&console, "searches")?;
                args.read.client = client.merged(std::mem::take(&mut args.read.client));
            }
            Some(Command::Feedback(super::signals::FeedbackArgs { common: args, .. })) => {
                refuse_console_flags(&console, "feedback")?;
                args.read.client = client.merged(std::mem::take(&mut args.read.client));
            }
            Some(Command::Assistant(super::signals::AssistantArgs { common: args, .. })) => {
                refuse_console_flags(&console, "assistant")?;
                args.read.client = client.merged(std::mem::take(&mut args.read.client));
            }
            Some(Command::Demo(args)) => {
                refuse_client_flags(
                    &client,
                    "demo",
                    "the demo runs its own service and reads no configuration",
                )?;
                args.console = console.merged(std::mem::take(&mut args.console));
            }
            Some(Command::Serve(_)) => {
                refuse_console_flags(&console, "serve")?;
                refuse_client_flags(
                    &client,
                    "serve",
                    "connection flags are for commands that call a service; serve's own --project and --api-key go after it (docdeck serve --help)",
                )?;
            }
            Some(Command::Classify(_)) => {
                refuse_console_flags(&console, "classify")?;
                refuse_client_flags(
                    &client,
                    "classify",
                    "classify reads no service; its own flags go after it (docdeck classify --help)",
                )?;
            }
            Some(Command::Import(_)) => {
                refuse_console_flags(&console, "import")?;
                refuse_client_flags(
                    &client,
                    "import",
                    "connection flags are for commands that call a service; import's own flags go after it (docdeck import --help)",
                )?;
            }
            Some(Command::Doctor(args)) => {
                refuse_console_flags(&console, "doctor")?;
                args.client = client.merged(std::mem::take(&mut args.client));
            }
            Some(Command::Completions(_)) => {
                refuse_console_flags(&console, "completions")?;
                refuse_client_flags(&client, "completions", "completions reads no service")?;
            }
            Some(Command::Man(_)) => {
                refuse_console_flags(&console, "man")?;
                refuse_client_flags(&client, "man", "man reads no service")?;
            }
            Some(Command::AgentExec(_)) => {
                refuse_console_flags(&console, "agent-exec")?;
                refuse_client_flags(&client, "agent-exec", "agent-exec reads no service")?;
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;

    fn parse(line: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("docdeck").chain(line.iter().copied()))?.hoisted()
    }

    fn visitors_client(cli: &Cli) -> &ClientArgs {
        match &cli.command {
            Some(Command::Visitors(args)) => &args.read.client,
            other => panic!("not visitors: {other:?}"),
        }
    }

    #[test]
    fn connection_flags_reach_the_trend_from_any_of_three_places() {
        let cli = parse(&[
            "--profile",
            "a",
            "visitors",
            "--project",
            "p",
            "trend",
            "--base-url",
            "http://h",
        ])
        .unwrap();
        let Some(Command::Visitors(visitors)) = cli.command else {
            panic!("not visitors")
        };
        let Some(super::super::visitors_args::VisitorsCommand::Trend(trend)) = visitors.command
        else {
            panic!("not trend")
        };
        assert_eq!(trend.client.profile.as_deref(), Some("a"));
        assert_eq!(trend.client.project.as_deref(), Some("p"));
        assert_eq!(trend.client.base_url.as_deref(), Some("http://h"));
    }

    #[test]
    fn serve_takes_a_flag_given_twice_with_the_later_value() {
        // As a wrapper script ending in "$@" passes its defaults, then the person's.
        let cli = parse(&[
            "serve",
            "--project",
            "demo",
            "--agent-outcomes",
            "fail=1",
            "--project",
            "docs",
            "--agent-outcomes",
            "pr=1",
            "--agent-env",
            "A",
            "--agent-env",
            "B",
        ])
        .unwrap();
        let Some(Command::Serve(serve)) = cli.command else {
            panic!("not serve")
        };
        assert_eq!(serve.project, "docs");
        assert_eq!(serve.agent_outcomes.pr, 1);
        assert_eq!(serve.agent_outcomes.fail, 0);
        assert_eq!(
            serve.agent.agent_env,
            ["A", "B"],
            "a repeatable flag keeps every value"
        );
    }

    #[test]
    fn connection_flags_mean_the_same_on_either_side_of_the_command() {
        let before = parse(&["--profile", "prod", "--base-url", "http://h", "visitors"]).unwrap();
        let after = parse(&["visitors", "--profile", "prod", "--base-url", "http://h"]).unwrap();
        for cli in [&before, &after] {
            let client = visitors_client(cli);
            assert_eq!(client.profile.as_deref(), Some("prod"));
            assert_eq!(client.base_url.as_deref(), Some("http://h"));
        }
    }

    #[test]
    fn the_flag_written_last_wins_and_jobs_take_flags_at_three_places() {
        let cli = parse(&[
            "--profile",
            "a",
            "--project",
            "p",
            "jobs",
            "--profile",
            "b",
            "get",
            "--profile",
            "c",
            "job_1",
        ])
        .unwrap();
        let Some(Command::Jobs(mut jobs)) = cli.command else {
            panic!("not jobs")
        };
        let client = jobs.command.client_mut().clone();
        assert_eq!(client.profile.as_deref(), Some("c"));
        assert_eq!(client.project.as_deref(), Some("p"));
        let cli = parse(&["--poll-interval", "2s", "jobs", "list"]).unwrap();
        let Some(Command::Jobs(mut jobs)) = cli.command else {
            panic!("not jobs")
        };
        assert_eq!(
            jobs.command.client_mut().poll_interval,
            Some(std::time::Duration::from_secs(2))
        );
    }

    #[test]
    fn flags_a_command_does_not_take_are_refused_saying_where_they_go() {
        let err = parse(&["--read-only", "jobs", "list"]).unwrap_err();
        assert!(err.to_string().contains("for the console"), "{err}");
        let err = parse(&["--api-key", "k", "serve"]).unwrap_err();
        assert!(err.to_string().contains("go after it"), "{err}");
        let err = parse(&["--profile", "p", "demo"]).unwrap_err();
        assert!(err.to_string().contains("own service"), "{err}");
        let demo = parse(&["--read-only", "demo"]).unwrap();
        let Some(Command::Demo(args)) = demo.command else {
            panic!("not demo")
        };
        assert!(args.console.read_only);
    }

    #[test]
    fn doctor_checks_the_flags_written_on_either_side_and_the_shell_commands_take_none() {
        for line in [
            &["--profile", "p", "doctor"][..],
            &["doctor", "--profile", "p"],
        ] {
            let Some(Command::Doctor(args)) = parse(line).unwrap().command else {
                panic!("not doctor")
            };
            assert_eq!(args.client.profile.as_deref(), Some("p"));
        }
        let err = parse(&["--read-only", "doctor"]).unwrap_err();
        assert!(err.to_string().contains("for the console"), "{err}");
        let err = parse(&["--profile", "p", "man"]).unwrap_err();
        assert!(err.to_string().contains("man reads no service"), "{err}");
        let err = parse(&["--base-url", "http://h", "completions", "bash"]).unwrap_err();
        assert!(
            err.to_string().contains("completions reads no service"),
            "{err}"
        );
    }

    #[test]
    fn every_command_takes_a_flag_given_twice_with_the_later_value() {
        // The trial's lines, each refused before as "cannot be used multiple times".
        for line in [
            &["searches", "--project", "x", "--project", "blog"][..],
            &[
                "searches",
                "--limit",
                "5",
                "--limit",
                "2",
                "--unclicked",
                "--unclicked",
            ],
            &["assistant", "--unanswered", "--unanswered"],
            &[
                "feedback",
                "--by-page",
                "--by-page",
                "--format",
                "csv",
                "--format",
                "json",
            ],
            &["visitors", "--all", "--all"],
            &["jobs", "create", "--wait", "--wait", "x"],
            &["jobs", "list", "--refresh", "--refresh"],
            &["import", "--project", "a", "--project", "b", "f.log"],
            &["doctor", "--profile", "a", "--profile", "b"],
        ] {
            let cli = parse(line).unwrap_or_else(|err| panic!("{line:?}: {err}"));
            match cli.command {
                Some(Command::Searches(args)) => {
                    assert!(
                        args.common.limit == Some(2)
                            || args.common.read.client.project.as_deref() == Some("blog")
                    );
                }
                Some(Command::Import(args)) => assert_eq!(args.project, "b"),
                Some(Command::Doctor(args)) => {
                    assert_eq!(args.client.profile.as_deref(), Some("b"))
                }
                Some(Command::Feedback(args)) => {
                    assert_eq!(
                        args.common.read.format,
                        Some(super::super::output::Format::Json)
                    );
                }
                _ => {}
            }
        }
    }
}
